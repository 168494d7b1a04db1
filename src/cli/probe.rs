//! `gatehouse probe AGENT`: runs the adapter's live probe, prints each case as it goes, and says
//! whether a running gateway shows what the probe unlocked. A gateway decides each held prompt
//! from the record as it is then, so the very next prompt counts; the flags it shows (`status`)
//! it reads again within a second of a new record. The probe and its record are the adapter's;
//! this command has no code per agent.

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

/// How long a running gateway is given to show a new record's flags.
const SHOWN_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// A gateway decides each held prompt from the record as it is then; the flags it shows it reads
/// again when the record changes. If one runs, wait (briefly) until it shows what the probe
/// unlocked, and say so; if it does not, say why that may be.
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
    let shown = runtime.block_on(async {
        let mut client = super::connect_frontend(&socket).await.ok()?;
        let deadline = tokio::time::Instant::now() + SHOWN_WITHIN;
        loop {
            let status = client.status().await.ok()?;
            let offered = status
                .adapters
                .iter()
                .find(|adapter| adapter.adapter == wanted.adapter);
            if offered == Some(wanted) {
                return Some(true);
            }
            if tokio::time::Instant::now() > deadline {
                return Some(false);
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    });
    match shown {
        None => {}
        Some(true) => println!(
            "The gateway on {} offers them now, from the next prompt on.",
            socket.display()
        ),
        Some(false) => println!(
            "The gateway on {} decides each prompt for the {} that raises it, by this record, from the next prompt on; the flags `gatehouse status` shows are for the one it finds installed, which may be another version.",
            socket.display(),
            wanted.name
        ),
    }
}
