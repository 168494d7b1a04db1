//! `gatehouse install AGENT` and `gatehouse uninstall AGENT`: add or remove gatehouse's hooks in
//! an agent's settings, and say what changed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use gatehouse_adapter_claude::install::{self as claude_install, HookPlan, InstallReport};

use crate::config;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Agent {
    Claude,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent whose settings to change.
    agent: Agent,
    /// The settings file to change [default: ~/.claude/settings.json].
    #[arg(long, value_name = "FILE", conflicts_with = "project")]
    settings: Option<PathBuf>,
    /// Change this project's .claude/settings.json instead of your own settings.
    #[arg(long)]
    project: bool,
}

impl InstallArgs {
    fn settings_path(&self) -> anyhow::Result<PathBuf> {
        if let Some(path) = &self.settings {
            return Ok(path.clone());
        }
        if self.project {
            let folder = std::env::current_dir().context("cannot tell the current folder")?;
            return Ok(folder.join(".claude").join("settings.json"));
        }
        let Some(home) = std::env::var_os("HOME") else {
            bail!("HOME is not set, so ~/.claude/settings.json cannot be found; pass --settings FILE");
        };
        Ok(PathBuf::from(home).join(".claude").join("settings.json"))
    }
}

pub fn install(arguments: InstallArgs) -> anyhow::Result<ExitCode> {
    let Agent::Claude = arguments.agent;
    let path = arguments.settings_path()?;
    let binary = std::env::current_exe()
        .and_then(|path| path.canonicalize())
        .context("cannot tell where the gatehouse binary is, so the hook command cannot be written")?;
    let Some(command) = claude_install::hook_command(&binary) else {
        bail!("the gatehouse binary at {} must be named `gatehouse` and have a UTF-8 path for its hooks to be recognised", binary.display());
    };
    let hook = config::load()?.hook;
    let plan = HookPlan { command: command.clone(), hold_timeout_seconds: hook.agent_timeout_seconds() };
    let report = claude_install::install_file(&path, &plan)?;
    print_report(&report, "installed");
    println!(
        "Claude Code runs `{command}`; a prompt is held for up to {} s (hook timeout {} s).",
        hook.wait_seconds,
        hook.agent_timeout_seconds()
    );
    println!("Start the gateway with `gatehouse serve`; without it, Claude Code behaves as if gatehouse were not installed.");
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall(arguments: InstallArgs) -> anyhow::Result<ExitCode> {
    let Agent::Claude = arguments.agent;
    let path = arguments.settings_path()?;
    let report = claude_install::uninstall_file(&path)?;
    print_report(&report, "uninstalled");
    Ok(ExitCode::SUCCESS)
}

fn print_report(report: &InstallReport, what: &str) {
    if report.changes.is_empty() {
        println!("{}: nothing to change; gatehouse is already {what} there.", report.path.display());
        return;
    }
    println!("{}:", report.path.display());
    for change in &report.changes {
        println!("  {change}");
    }
    if let Some(backup) = &report.backup {
        println!("The previous settings are saved in {}.", backup.display());
    }
}
