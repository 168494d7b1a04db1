//! `gatehouse serve`: binds the socket, builds the gateway from the registered adapters'
//! capability flags, and serves until interrupted.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::AdapterRegistry;
use gatehouse_host_ipc::server::audit::AuditLog;
use gatehouse_host_ipc::{socket, Gateway, GatewayOptions};
use tracing_subscriber::EnvFilter;

use crate::adapters;

pub fn run(socket_flag: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let socket_path = super::socket_path(socket_flag)?;
    raise_open_file_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        // The guard lives until the gateway stops (a signal, an error): then it removes the
        // socket, if the path still names the one bound here, and releases the lock.
        let socket::BoundSocket { listener, guard: _socket_guard } = socket::bind(&socket_path).await.map_err(super::socket_advice)?;
        let registry = adapters::registry();
        let capabilities = capabilities_off_the_runtime(&registry).await;
        let options = GatewayOptions { socket: socket_path.display().to_string(), ..GatewayOptions::default() };
        let audit = open_audit_log()?;
        let earlier = remembered_from(audit.path());
        let gateway = Gateway::with_audit_log(capabilities, options, Some(audit));
        gateway.remember_ended(earlier);
        let agents: Vec<&str> = registry.ids().collect();
        tracing::info!("gatehouse {} listening on {} for {}", env!("CARGO_PKG_VERSION"), socket_path.display(), agents.join(", "));
        tokio::spawn(refresh_capabilities(registry.clone(), gateway.clone()));
        tokio::select! {
            served = gatehouse_host_ipc::server::serve(gateway, listener) => served.context("the gateway stopped accepting connections")?,
            () = shutdown_signal() => tracing::info!("shutting down; waiting hooks leave their prompts to the agents' terminals"),
        }
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// How often the gateway asks the adapters for their capability flags again, so that what a
/// probe proves (or a new agent version un-proves) is offered without a restart.
pub const CAPABILITY_REFRESH: Duration = Duration::from_secs(15);

/// Asks the adapters for their flags every [`CAPABILITY_REFRESH`]. An adapter may look at the
/// installed agent to answer (Codex runs `codex --version`), so the call may block for a moment;
/// it runs where blocking does not hold up the gateway's other work.
async fn refresh_capabilities(registry: AdapterRegistry, gateway: Arc<Gateway>) {
    let mut every = tokio::time::interval(CAPABILITY_REFRESH);
    every.tick().await;
    loop {
        every.tick().await;
        let capabilities = capabilities_off_the_runtime(&registry).await;
        if gateway.replace_adapters(capabilities) {
            tracing::info!("the adapters' capability flags changed; new prompts get the new ones (see `gatehouse status`)");
        }
    }
}

/// The adapters' flags, asked on a blocking thread: an adapter may look at the installed agent
/// (Codex runs `codex --version`), which must never hold up the gateway's other work.
async fn capabilities_off_the_runtime(
    registry: &AdapterRegistry,
) -> Vec<gatehouse_core::AdapterCapabilities> {
    let registry = registry.clone();
    tokio::task::spawn_blocking(move || registry.capabilities())
        .await
        .unwrap_or_default()
}

/// Each waiting hook holds one connection, so the gateway takes as many open files as the
/// system lets it (the soft limit up to the hard one).
fn raise_open_file_limit() {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: both calls only read or write the struct passed to them.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0
                && limit.rlim_cur < limit.rlim_max
            {
                limit.rlim_cur = limit.rlim_max;
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    tracing::debug!("cannot raise the open file limit");
                }
            }
        }
    }
}

/// The prompts of earlier gateways, from the audit log: an id typed from an old list then names
/// its old prompt (refused, as ended) and never a new one. A log that cannot be read is only a
/// warning: the gateway still starts.
fn remembered_from(
    log: &std::path::Path,
) -> Vec<(
    gatehouse_core::DecisionId,
    gatehouse_core::PromptState,
    gatehouse_core::Timestamp,
)> {
    const REMEMBERED: usize = 65_536;
    match gatehouse_host_ipc::server::audit::ended_prompts(log, REMEMBERED) {
        Ok(ended) => ended,
        Err(error) => {
            tracing::warn!(
                "cannot read the audit log {} for earlier prompts: {error}",
                log.display()
            );
            Vec::new()
        }
    }
}

/// The audit log is rotated past this size.
const AUDIT_LOG_MAX_BYTES: u64 = 16 * 1024 * 1024;

fn open_audit_log() -> anyhow::Result<AuditLog> {
    let path = audit_log_path()?;
    let log = AuditLog::open(&path, AUDIT_LOG_MAX_BYTES).with_context(|| {
        format!(
            "cannot open the audit log {}; check that folder's permissions or set XDG_STATE_HOME",
            path.display()
        )
    })?;
    tracing::info!("audit log: {}", path.display());
    Ok(log)
}

/// `$XDG_STATE_HOME/gatehouse/audit.jsonl`.
pub fn audit_log_path() -> anyhow::Result<std::path::PathBuf> {
    let folder = crate::config::state_dir()
        .context("neither XDG_STATE_HOME nor HOME is set, so the audit log has no home; set one")?;
    Ok(folder.join("audit.jsonl"))
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
