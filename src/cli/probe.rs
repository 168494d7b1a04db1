//! `gatehouse probe AGENT`: runs the adapter's live probe, prints each case as it goes, and tells
//! when a running gateway offers what the probe unlocked (it reads the adapters' flags every few
//! seconds). The probe and its record are the adapter's; this command has no code per agent.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap::Args;
use gatehouse_core::kit::ProbeRequest;
use gatehouse_core::AdapterCapabilities;

use crate::{adapters, config};

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The agent to probe.
    #[arg(value_parser = adapters::probeable_ids())]
    agent: String,
    /// The agent's executable to probe [default: the agent's command on PATH, such as `codex`].
    #[arg(long, value_name = "PATH", alias = "codex")]
    executable: Option<PathBuf>,
}

pub fn run(socket_flag: Option<PathBuf>, arguments: ProbeArgs) -> anyhow::Result<ExitCode> {
    let Some(adapter) = adapters::registry()
        .get(&arguments.agent)
        .filter(|adapter| adapter.probe().is_some())
    else {
        bail!("gatehouse has no probe for `{}`", arguments.agent);
    };
    let probe = adapter.probe().expect("checked above");
    let Some(state_dir) = config::state_dir() else {
        bail!("neither XDG_STATE_HOME nor HOME is set, so the probe record has nowhere to go");
    };
    let request = ProbeRequest {
        executable: arguments.executable,
        state_dir,
    };
    let outcome = probe
        .run(&request, &mut |line| println!("{line}"))
        .map_err(|error| anyhow!("{error} (pass the executable with --executable PATH)"))?;
    println!("Saved the record in {}.", outcome.record.display());
    if !outcome.passed {
        println!("The probe failed: {}.", outcome.meaning);
        return Ok(ExitCode::from(1));
    }
    println!("Passed: {}.", outcome.meaning);
    tell_about_a_running_gateway(socket_flag, &adapter.capabilities());
    Ok(ExitCode::SUCCESS)
}

/// A gateway reads the adapters' flags every [`super::serve::CAPABILITY_REFRESH`]: if one runs
/// and does not offer yet what the probe unlocked, say when it will.
fn tell_about_a_running_gateway(socket_flag: Option<PathBuf>, wanted: &AdapterCapabilities) {
    let Ok(socket) = super::socket_path(socket_flag) else {
        return;
    };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let status = runtime.block_on(async {
        let mut client = super::connect_frontend(&socket).await.ok()?;
        client.status().await.ok()
    });
    let Some(status) = status else { return };
    let offered = status
        .adapters
        .iter()
        .find(|adapter| adapter.adapter == wanted.adapter);
    if offered != Some(wanted) {
        println!(
            "The gateway on {} offers them within {} seconds, when it next reads the adapters' flags (`gatehouse status` shows them).",
            socket.display(),
            super::serve::CAPABILITY_REFRESH.as_secs()
        );
    }
}
