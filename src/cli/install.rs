//! `gatehouse install AGENT` and `gatehouse uninstall AGENT`: add or remove gatehouse's hooks in
//! an agent's settings, and say what changed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use gatehouse_adapter_claude::install::{self as claude_install, HookPlan};
use gatehouse_adapter_codex::install as codex_install;

use crate::config;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Agent {
    Claude,
    Codex,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent whose settings to change.
    agent: Agent,
    /// The settings file to change [default: ~/.claude/settings.json for claude;
    /// $CODEX_HOME/hooks.json, else ~/.codex/hooks.json, for codex].
    #[arg(long, value_name = "FILE", conflicts_with = "project")]
    settings: Option<PathBuf>,
    /// Change this project's .claude/settings.json (or .codex/hooks.json) instead of your own.
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
            return Ok(match self.agent {
                Agent::Claude => folder.join(".claude").join("settings.json"),
                Agent::Codex => folder.join(".codex").join("hooks.json"),
            });
        }
        match self.agent {
            Agent::Claude => {
                let Some(home) = std::env::var_os("HOME") else {
                    bail!("HOME is not set, so ~/.claude/settings.json cannot be found; pass --settings FILE");
                };
                Ok(PathBuf::from(home).join(".claude").join("settings.json"))
            }
            Agent::Codex => codex_install::default_hooks_path()
                .context("neither CODEX_HOME nor HOME is set, so Codex's hooks.json cannot be found; pass --settings FILE"),
        }
    }
}

/// The gatehouse binary that the hooks run.
fn this_binary() -> anyhow::Result<PathBuf> {
    std::env::current_exe()
        .and_then(|path| path.canonicalize())
        .context("cannot tell where the gatehouse binary is, so the hook command cannot be written")
}

fn unrecognisable(binary: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "the gatehouse binary at {} must be named `gatehouse` and have a UTF-8 path for its hooks to be recognised",
        binary.display()
    )
}

pub fn install(arguments: InstallArgs) -> anyhow::Result<ExitCode> {
    let path = arguments.settings_path()?;
    let binary = this_binary()?;
    match arguments.agent {
        Agent::Claude => {
            let command =
                claude_install::hook_command(&binary).ok_or_else(|| unrecognisable(&binary))?;
            let hook = config::load()?.hook;
            let plan = HookPlan {
                command: command.clone(),
                hold_timeout_seconds: hook.agent_timeout_seconds(),
            };
            let report = claude_install::install_file(&path, &plan)?;
            print_report(
                &report.path,
                &report.changes,
                report.backup.as_deref(),
                "installed",
            );
            println!(
                "Claude Code runs `{command}`; a prompt is held for up to {} s (hook timeout {} s).",
                hook.wait_seconds,
                hook.agent_timeout_seconds()
            );
            println!("Start the gateway with `gatehouse serve`; without it, Claude Code behaves as if gatehouse were not installed.");
        }
        Agent::Codex => {
            let command =
                codex_install::hook_command(&binary).ok_or_else(|| unrecognisable(&binary))?;
            let report = codex_install::install_file(&path, &command)?;
            print_report(
                &report.path,
                &report.changes,
                report.backup.as_deref(),
                "installed",
            );
            println!("Codex runs `{command}`.");
            if !report.changes.is_empty() {
                println!(
                    "Codex runs new or changed hooks only after you review them once: at its next start it shows \
                     \"Hooks need review\" (or type /hooks); choose to trust gatehouse's hooks there. gatehouse never trusts them for you."
                );
            }
            println!(
                "Codex's prompts are listed read-only until `gatehouse probe codex` passes for the installed Codex version; \
                 then a Bash prompt is held for up to {} s, during which Codex shows no prompt of its own.",
                codex_install::CODEX_WAIT_SECONDS
            );
            println!("Start the gateway with `gatehouse serve`; without it, Codex behaves as if gatehouse were not installed.");
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall(arguments: InstallArgs) -> anyhow::Result<ExitCode> {
    let path = arguments.settings_path()?;
    match arguments.agent {
        Agent::Claude => {
            let report = claude_install::uninstall_file(&path)?;
            print_report(
                &report.path,
                &report.changes,
                report.backup.as_deref(),
                "uninstalled",
            );
        }
        Agent::Codex => {
            let report = codex_install::uninstall_file(&path)?;
            print_report(
                &report.path,
                &report.changes,
                report.backup.as_deref(),
                "uninstalled",
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report<C: std::fmt::Display>(
    path: &Path,
    changes: &[C],
    backup: Option<&Path>,
    what: &str,
) {
    if changes.is_empty() {
        println!(
            "{}: nothing to change; gatehouse is already {what} there.",
            path.display()
        );
        return;
    }
    println!("{}:", path.display());
    for change in changes {
        println!("  {change}");
    }
    if let Some(backup) = backup {
        println!("The previous settings are saved in {}.", backup.display());
    }
}
