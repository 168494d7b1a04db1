//! The `gatehouse` binary: argument parsing and wiring only. Each command lives in `cli/`.

mod adapters;
mod cli;
mod config;
mod console;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let arguments = cli::Cli::parse();
    match cli::run(arguments) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("gatehouse: {error:#}");
            ExitCode::FAILURE
        }
    }
}
