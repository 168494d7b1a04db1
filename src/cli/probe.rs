//! `gatehouse probe codex`: runs the Codex adapter's live probe, prints each case as it goes,
//! saves the record in gatehouse's state folder (`codex-probe.json`), and tells when a running
//! gateway offers what the probe unlocked (it reads the adapters' flags every few seconds).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use clap::{Args, ValueEnum};
use gatehouse_adapter_codex::probe::{self as codex_probe, ProbeOptions};
use gatehouse_adapter_codex::{capabilities_for, record, version};
use gatehouse_core::PromptKind;

use crate::config;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Agent {
    Codex,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The agent to probe.
    agent: Agent,
    /// The Codex executable to probe [default: `codex` on PATH].
    #[arg(long, value_name = "PATH")]
    codex: Option<PathBuf>,
}

pub fn run(socket_flag: Option<PathBuf>, arguments: ProbeArgs) -> anyhow::Result<ExitCode> {
    let Agent::Codex = arguments.agent;
    let Some(codex) = arguments.codex.or_else(version::find_on_path) else {
        bail!(
            "no `codex` was found on PATH; install Codex, or pass the executable with --codex PATH"
        );
    };
    let Some(state_dir) = config::state_dir() else {
        bail!("neither XDG_STATE_HOME nor HOME is set, so the probe record has nowhere to go");
    };
    let record_path = record::record_path(&state_dir);
    let probed = codex_probe::run(&ProbeOptions::new(codex), &mut |line| println!("{line}"))?;
    record::write(&record_path, &probed)?;
    println!("Saved the record in {}.", record_path.display());
    if !probed.passed {
        println!("The probe failed: Codex {} stays read-only in gatehouse; answer its prompts in Codex's terminal.", probed.codex_version);
        return Ok(ExitCode::from(1));
    }
    println!(
        "Passed: gatehouse now offers once and deny for Codex {}'s Bash prompts; any other version stays read-only until probed.",
        probed.codex_version
    );
    tell_about_a_running_gateway(socket_flag, &probed);
    Ok(ExitCode::SUCCESS)
}

/// A gateway reads the adapters' flags every [`super::serve::CAPABILITY_REFRESH`]: if one runs
/// and does not offer yet what the probe unlocked, say when it will.
fn tell_about_a_running_gateway(socket_flag: Option<PathBuf>, probed: &record::ProbeRecord) {
    let Ok(socket) = super::socket_path(socket_flag) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let Ok(runtime) = runtime else { return };
    let status = runtime.block_on(async {
        let mut client = super::connect_frontend(&socket).await.ok()?;
        client.status().await.ok()
    });
    let Some(status) = status else { return };
    let wanted =
        capabilities_for(&codex_probe::unlock_of(probed)).offered(PromptKind::Permission, "Bash");
    let offered = status
        .adapters
        .iter()
        .find(|adapter| adapter.adapter == gatehouse_adapter_codex::ADAPTER_ID)
        .map(|adapter| adapter.offered(PromptKind::Permission, "Bash"))
        .unwrap_or_default();
    if offered != wanted {
        println!(
            "The gateway on {} offers them within {} seconds, when it next reads the adapters' flags (`gatehouse status` shows them).",
            socket.display(),
            super::serve::CAPABILITY_REFRESH.as_secs()
        );
    }
}
