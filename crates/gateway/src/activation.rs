//! systemd socket activation: the sockets a service manager listens on and hands to the gateway
//! (`gatehouse serve`; `LISTEN_PID`, `LISTEN_FDS`, `LISTEN_FDNAMES`; the sockets are fds 3, 4, ...).
//!
//! The variables are read once, before any thread starts, and removed from the environment so
//! that no child (an adapter's `codex --version`, say) inherits them; the descriptors are made
//! close-on-exec for the same reason. The variables count only when `LISTEN_PID` is this
//! process: otherwise they were meant for another process and are ignored. What the descriptors
//! are is checked later, by `socket::adopt`, before anything is served on them.

use std::os::fd::{FromRawFd, OwnedFd};

/// Why the sockets a service manager passed cannot be taken.
#[derive(Debug, thiserror::Error)]
pub enum ActivationError {
    /// A variable does not say what it should (the words say which and why).
    #[error("{0}")]
    Malformed(String),
    #[error(
        "LISTEN_FDS says the service manager passed descriptor {fd}, but it is not open: {source}"
    )]
    NotOpen { fd: i32, source: std::io::Error },
}

/// The sockets passed to this process: what the variables say, and the descriptors.
pub type ActivatedSockets = (Listen, Vec<OwnedFd>);

/// The first descriptor a service manager passes.
pub const FIRST_FD: i32 = 3;

/// gatehouse listens on at most two sockets: its own, and the hooks socket.
pub const MAX_FDS: usize = 2;

/// What the variables say: how many sockets were passed, and their names (empty when unnamed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listen {
    pub count: usize,
    pub names: Vec<String>,
}

/// Reads the three variables' values. `Ok(None)` when nothing was passed to this process.
pub fn parse(
    listen_pid: Option<&str>,
    listen_fds: Option<&str>,
    listen_fdnames: Option<&str>,
    own_pid: u32,
) -> Result<Option<Listen>, String> {
    let Some(pid) = listen_pid else {
        return Ok(None);
    };
    let pid: u32 = pid
        .trim()
        .parse()
        .map_err(|_| format!("LISTEN_PID is `{pid}`, not a process id"))?;
    if pid != own_pid {
        return Ok(None);
    }
    let count = match listen_fds {
        None => return Ok(None),
        Some(count) => count
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("LISTEN_FDS is `{count}`, not a number of sockets"))?,
    };
    if count == 0 {
        return Ok(None);
    }
    if count > MAX_FDS {
        return Err(format!(
            "the service manager passed {count} sockets, and gatehouse serves at most {MAX_FDS} (its socket and the hooks socket); give gatehouse.socket at most two ListenStream= lines"
        ));
    }
    let names = listen_fdnames
        .filter(|names| !names.is_empty())
        .map(|names| names.split(':').map(str::to_owned).collect())
        .unwrap_or_default();
    Ok(Some(Listen { count, names }))
}

/// Takes the sockets passed to this process, if any, and removes the variables from the
/// environment. Call it before any other thread starts.
pub fn take_from_environment() -> Result<Option<ActivatedSockets>, ActivationError> {
    let read = |name: &str| std::env::var(name).ok();
    let parsed = parse(
        read("LISTEN_PID").as_deref(),
        read("LISTEN_FDS").as_deref(),
        read("LISTEN_FDNAMES").as_deref(),
        std::process::id(),
    );
    for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
        // Edition 2021: remove_var is safe to call; no other thread runs yet.
        std::env::remove_var(name);
    }
    let Some(listen) = parsed.map_err(ActivationError::Malformed)? else {
        return Ok(None);
    };
    let mut fds = Vec::with_capacity(listen.count);
    for fd in (FIRST_FD..).take(listen.count) {
        // SAFETY: fcntl only reads and sets the descriptor's flags; a closed one fails with EBADF.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if flags == -1 || unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) } == -1
        {
            return Err(ActivationError::NotOpen {
                fd,
                source: std::io::Error::last_os_error(),
            });
        }
        // SAFETY: the descriptor is open, was passed to this process to own, and is taken once.
        fds.push(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    Ok(Some((listen, fds)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_count_only_for_the_process_they_were_passed_to() {
        assert_eq!(parse(None, Some("1"), None, 42), Ok(None));
        assert_eq!(
            parse(Some("41"), Some("1"), None, 42),
            Ok(None),
            "another process's"
        );
        assert_eq!(parse(Some("42"), None, None, 42), Ok(None));
        assert_eq!(parse(Some("42"), Some("0"), None, 42), Ok(None));
        assert_eq!(
            parse(Some("42"), Some("1"), None, 42),
            Ok(Some(Listen {
                count: 1,
                names: vec![]
            }))
        );
        assert_eq!(
            parse(
                Some("42"),
                Some("2"),
                Some("gatehouse.socket:gatehouse.socket"),
                42
            ),
            Ok(Some(Listen {
                count: 2,
                names: vec!["gatehouse.socket".into(), "gatehouse.socket".into()]
            }))
        );
        assert_eq!(
            parse(Some("42"), Some("1"), Some(""), 42)
                .unwrap()
                .unwrap()
                .names,
            Vec::<String>::new()
        );
    }

    #[test]
    fn malformed_or_too_many_sockets_are_refused_with_what_to_fix() {
        for (pid, fds, what_to_fix) in [
            ("x", "1", "LISTEN_PID"),
            ("42", "one", "LISTEN_FDS"),
            ("42", "-1", "LISTEN_FDS"),
            ("42", "3", "ListenStream="),
        ] {
            let error = parse(Some(pid), Some(fds), None, 42).unwrap_err();
            assert!(error.contains(what_to_fix), "{pid} {fds}: {error}");
        }
    }
}
