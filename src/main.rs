//! The `gatehouse` binary: argument parsing and wiring only. Each command lives in `cli/`.

mod adapters;
mod cli;
mod config;
mod open_files;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let words: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // An empty GATEHOUSE_SOCKET means "not set", as for every other variable gatehouse reads.
    if std::env::var_os(gatehouse_host_ipc::socket::SOCKET_ENV)
        .is_some_and(|value| value.is_empty())
    {
        // SAFETY: nothing else runs yet; no other thread reads the environment.
        unsafe { std::env::remove_var(gatehouse_host_ipc::socket::SOCKET_ENV) };
    }
    let parsed = cli::Cli::try_parse_from(&words);
    let hook = match &parsed {
        Ok(arguments) => arguments.is_hook(),
        Err(_) => cli::hook::may_be_a_hook(&words),
    };
    if hook {
        // The agent reads anything but exit 0 with nothing printed as a decision: the hook never
        // fails, whatever it is given.
        return cli::hook::run_never_failing(parsed, &words);
    }
    let arguments = parsed.unwrap_or_else(|error| error.exit());
    if arguments.only_prints() {
        // SAFETY: nothing else runs yet; restoring the default action of SIGPIPE touches no
        // memory, and only these commands, which write to no socket, get it.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    match cli::run(arguments) {
        Ok(code) => code,
        Err(error) => {
            // Errors may carry the gateway's words, or an agent's.
            eprintln!(
                "gatehouse: {}",
                gatehouse_core::text::visible(&format!("{error:#}"))
            );
            ExitCode::FAILURE
        }
    }
}
