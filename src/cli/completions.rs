//! `gatehouse completions SHELL` and `gatehouse man`: shell completions and a roff man page,
//! generated from the clap definitions of [`super::Cli`], so they always match the command line.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: Shell) -> anyhow::Result<ExitCode> {
    let mut command = super::Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut command, "gatehouse", &mut out);
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the man page, gatehouse(1), in roff on stdout.
pub fn man() -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(super::Cli::command()).render(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
