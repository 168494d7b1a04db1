//! `gatehouse serve`: takes what systemd passed (before any thread starts), reads the socket
//! path and `[serve]` settings, raises the open-file limit, and runs the gateway's life cycle
//! (`gatehouse_gateway::run`) with the registered adapters; its typed errors get their hints here.
//! Its log goes to stderr, coloured only for a terminal and without `NO_COLOR`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use gatehouse_gateway::{RunError, RunOptions};
use tracing_subscriber::EnvFilter;

use crate::adapters;

pub fn run(socket_flag: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(log_in_colour(
            std::io::IsTerminal::is_terminal(&std::io::stderr()),
            std::env::var_os("NO_COLOR").as_deref(),
        ))
        .init();
    // Before any thread starts: the variables are removed so no child inherits them.
    let activated = gatehouse_gateway::activation::take_from_environment()?;
    let socket = super::socket_path(socket_flag)?;
    let idle_exit = crate::config::load()?.serve.idle_exit(activated.is_some());
    crate::open_files::raise_open_file_limit();
    let options = RunOptions {
        socket,
        activated,
        idle_exit,
        registry: adapters::registry(),
        state_dir: crate::config::state_dir(),
        local_host: gatehouse_host_ipc::host::own_host_name().to_owned(),
    };
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(gatehouse_gateway::run(options))
        .map_err(with_hint)?;
    Ok(ExitCode::SUCCESS)
}

/// Whether the log on stderr is coloured: only for a person at a terminal, and not when
/// `NO_COLOR` is set to anything but the empty string (no-color.org). A file, a pipe or the
/// journal gets plain text, with no escapes for the next program to trip on.
fn log_in_colour(stderr_is_a_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    stderr_is_a_terminal && no_color.is_none_or(|value| value.is_empty())
}

/// `$XDG_STATE_HOME/gatehouse/audit.jsonl`, for `gatehouse log`.
pub fn audit_log_path() -> anyhow::Result<PathBuf> {
    gatehouse_gateway::life_cycle::audit_log_path(crate::config::state_dir().as_deref())
        .map_err(with_hint)
}

/// The gateway's error with what to do about it, in the command line's terms.
fn with_hint(error: RunError) -> anyhow::Error {
    match error {
        RunError::Bind(error) => super::socket_advice(&error),
        RunError::OnlyTheHooksSocketPassed { path } => anyhow::anyhow!(
            "systemd passed only the hooks socket, not the gateway's socket {}; add ListenStream={} to gatehouse.socket",
            path.display(),
            path.display()
        ),
        RunError::NoStateFolder => anyhow::anyhow!(
            "neither XDG_STATE_HOME nor HOME is set, so the audit log has no home; set one"
        ),
        RunError::AuditLog { path, source } => anyhow::Error::new(source).context(format!(
            "cannot open the audit log {}; check that folder's permissions or set XDG_STATE_HOME",
            path.display()
        )),
        RunError::Accept {
            hooks_socket,
            source,
        } => anyhow::Error::new(source).context(if hooks_socket {
            "the gateway stopped accepting connections on the hooks socket"
        } else {
            "the gateway stopped accepting connections"
        }),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::log_in_colour;
    use std::ffi::OsStr;

    #[test]
    fn the_log_is_coloured_only_at_a_terminal_without_no_color() {
        assert!(log_in_colour(true, None));
        assert!(log_in_colour(true, Some(OsStr::new(""))));
        assert!(!log_in_colour(true, Some(OsStr::new("1"))));
        assert!(!log_in_colour(false, None));
        assert!(!log_in_colour(false, Some(OsStr::new("1"))));
    }
}
