//! The hook's deadlines on a clock that counts every second that passes on the machine:
//! `CLOCK_BOOTTIME` on Linux, which goes on while the hook is stopped (SIGSTOP, or the SIGTSTP of
//! its agent's Ctrl+Z), starved, or the machine sleeps, and never jumps when the wall clock is
//! set. (`CLOCK_MONOTONIC`, which std's `Instant` and tokio read, stands still while the machine
//! sleeps.) Elsewhere `CLOCK_MONOTONIC`.
//!
//! An agent's own hook timer (Node's `setTimeout`, tokio's) never runs faster than this clock, so
//! a hook that is within a [`Deadline`] here is within it for its agent too.

use std::time::Duration;

#[cfg(any(target_os = "linux", target_os = "android"))]
const CLOCK: libc::clockid_t = libc::CLOCK_BOOTTIME;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const CLOCK: libc::clockid_t = libc::CLOCK_MONOTONIC;

/// The clock's reading now.
fn now() -> libc::timespec {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec that this function owns. It cannot fail for a
    // clock the kernel has; should it, the zero reading leaves every deadline in the past.
    unsafe { libc::clock_gettime(CLOCK, &mut now) };
    now
}

fn as_duration(time: libc::timespec) -> Duration {
    Duration::new(
        u64::try_from(time.tv_sec).unwrap_or(0),
        u32::try_from(time.tv_nsec).unwrap_or(0),
    )
}

/// How much of `/proc/self/stat` is read: `starttime` ends within its first 500 bytes or so
/// (21 numbers after a command name of at most 64 bytes), and the whole line is rarely over 400.
#[cfg(any(target_os = "linux", target_os = "android"))]
const STAT_BYTES: usize = 1024;

/// When this process started, on the clock: `/proc/self/stat`'s `starttime`, in clock ticks
/// since boot, counting suspend (the same clock as `CLOCK_BOOTTIME`), rounded up to the next tick
/// (never before the real start) and not after now. The line is read in one read (the kernel
/// writes it whole at once; a longer one is cut long after `starttime`), with no size asked first.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn process_started() -> Option<Duration> {
    use std::io::Read;
    let mut file = std::fs::File::open("/proc/self/stat").ok()?;
    let mut stat = [0_u8; STAT_BYTES];
    let read = loop {
        match file.read(&mut stat) {
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            read => break read.ok()?,
        }
    };
    let ticks = start_ticks(&stat[..read])?.saturating_add(1);
    // SAFETY: sysconf only reads a constant of the system.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok()?;
    if per_second == 0 {
        return None;
    }
    let started = Duration::from_secs(ticks / per_second)
        + Duration::from_nanos((ticks % per_second) * 1_000_000_000 / per_second);
    Some(started.min(as_duration(now())))
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn process_started() -> Option<Duration> {
    None
}

/// `starttime` in a `stat` line: `PID (COMMAND) STATE ...`, where COMMAND may hold anything
/// (spaces, parentheses, bytes that are not UTF-8) but its last `)`; `starttime` is the 22nd
/// field, the 20th after COMMAND.
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
fn start_ticks(stat: &[u8]) -> Option<u64> {
    let after_command = stat.iter().rposition(|&byte| byte == b')')? + 1;
    std::str::from_utf8(&stat[after_command..])
        .ok()?
        .split_ascii_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// A moment on the hook's clock, some time from when it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Duration,
}

impl Deadline {
    /// The moment `after` from now.
    #[must_use]
    pub fn after(after: Duration) -> Deadline {
        Deadline {
            at: as_duration(now()).saturating_add(after),
        }
    }

    /// The moment `after` from when the hook's process started (a hook stopped or starved
    /// before it ran any code counts that time too), or from now where that is not known.
    #[must_use]
    pub fn after_the_process_started(after: Duration) -> Deadline {
        let started = process_started().unwrap_or_else(|| as_duration(now()));
        Deadline {
            at: started.saturating_add(after),
        }
    }

    /// The moment `later` after this one.
    #[must_use]
    pub fn later_by(&self, later: Duration) -> Deadline {
        Deadline {
            at: self.at.saturating_add(later),
        }
    }

    /// How long is left until the deadline; `None` once it has come.
    #[must_use]
    pub fn remaining(&self) -> Option<Duration> {
        self.at
            .checked_sub(as_duration(now()))
            .filter(|left| !left.is_zero())
    }

    /// How long ago the deadline passed; `None` while it is still ahead.
    #[must_use]
    pub fn passed_by(&self) -> Option<Duration> {
        as_duration(now()).checked_sub(self.at)
    }

    /// Sleeps until the deadline has passed, however long the hook is stopped or the machine
    /// sleeps meanwhile: woken at once when it is continued past it.
    pub fn sleep_until(&self) {
        let at = libc::timespec {
            tv_sec: libc::time_t::try_from(self.at.as_secs()).unwrap_or(libc::time_t::MAX),
            // Below 10^9, which fits any `c_long`.
            tv_nsec: self.at.subsec_nanos() as libc::c_long,
        };
        while self.passed_by().is_none() {
            // SAFETY: sleeps on the clock until an absolute time this function owns; an error or
            // a signal just loops, and the loop ends only once the deadline has passed.
            #[cfg(any(target_os = "linux", target_os = "android"))]
            unsafe {
                libc::clock_nanosleep(CLOCK, libc::TIMER_ABSTIME, &at, std::ptr::null_mut())
            };
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            {
                let _ = at;
                std::thread::sleep(
                    self.at
                        .saturating_sub(as_duration(now()))
                        .max(Duration::from_millis(1)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_is_ahead_until_it_passes_and_sleep_until_waits_for_it() {
        let deadline = Deadline::after(Duration::from_millis(50));
        assert_eq!(deadline.passed_by(), None);
        let started = std::time::Instant::now();
        deadline.sleep_until();
        assert!(started.elapsed() >= Duration::from_millis(45));
        assert!(deadline.passed_by().is_some());
        assert!(Deadline::after(Duration::ZERO).passed_by().is_some());
        assert_eq!(Deadline::after(Duration::ZERO).remaining(), None);
        let ahead = Deadline::after(Duration::from_secs(60)).later_by(Duration::from_secs(60));
        assert!(ahead.remaining().unwrap() > Duration::from_secs(110));
    }

    #[test]
    fn the_start_is_read_after_the_last_parenthesis_of_any_command_name() {
        let fields = |command: &[u8], starttime: &str| {
            let mut line = b"42 (".to_vec();
            line.extend_from_slice(command);
            line.extend_from_slice(b") S 1 42 42 0 -1 4194304 1 0 0 0 0 0 0 0 20 0 1 0 ");
            line.extend_from_slice(starttime.as_bytes());
            line.extend_from_slice(b" 9000 100 18446744073709551615\n");
            line
        };
        assert_eq!(start_ticks(&fields(b"hook", "100939")), Some(100_939));
        // A name may hold spaces, parentheses and bytes that are not UTF-8.
        assert_eq!(start_ticks(&fields(b"a) S 1 2 (b\xff", "7")), Some(7));
        // A line cut before `starttime`, or with none, tells nothing.
        let whole = fields(b"hook", "100939");
        assert_eq!(start_ticks(&whole[..40]), None);
        assert_eq!(start_ticks(b"42 hook S 1"), None);
        assert_eq!(start_ticks(&fields(b"hook", "-5")), None);
    }

    #[test]
    fn the_process_started_before_now_and_not_long_before_this_test() {
        // Read from `/proc/self/stat`, not the fallback to now.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        assert!(process_started().is_some());
        let from_start = Deadline::after_the_process_started(Duration::ZERO);
        assert!(from_start.passed_by().is_some());
        #[cfg(any(target_os = "linux", target_os = "android"))]
        assert!(
            from_start.passed_by().unwrap() < Duration::from_secs(600),
            "{from_start:?}"
        );
    }
}
