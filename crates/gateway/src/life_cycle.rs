//! The gateway's life cycle, as `gatehouse serve` runs it: binds the socket (or takes the one
//! systemd listens on, see [`crate::activation`]), and the hooks socket beside it, builds the
//! gateway from the adapters' capability flags (refreshed while it runs), and serves until
//! stopped, or until it has sat idle for [`RunOptions::idle_exit`] with nothing pending and no
//! connection. The binary calls [`run`]; tests and benchmarks run it in-process with
//! [`run_until`].

use std::future::Future;
use std::io;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::AdapterRegistry;
use gatehouse_host_ipc::socket::{self, SocketError};

use crate::activation::ActivatedSockets;
use crate::audit::AuditLog;
use crate::listen;
use crate::Roles;
use crate::{Gateway, GatewayOptions};

mod options;

pub use options::{RunError, RunOptions, Stopped};

/// How the binary runs the gateway: until SIGTERM or Ctrl-C, or until it is idle.
pub async fn run(options: RunOptions) -> Result<Stopped, RunError> {
    run_until(options, shutdown_signal()).await
}

/// Runs the gateway until `stop` completes, or until it is idle. The sockets are removed when
/// it returns (if their paths still name the ones bound here).
pub async fn run_until(
    options: RunOptions,
    stop: impl Future<Output = ()>,
) -> Result<Stopped, RunError> {
    let RunOptions {
        socket: socket_path,
        activated,
        idle_exit,
        registry,
        state_dir,
        local_host,
    } = options;
    // The guard lives until the gateway stops (a signal, an error): then it removes the
    // socket, if the path still names the one bound here, and releases the lock.
    let started_by = if activated.is_some() {
        "systemd socket activation"
    } else {
        "gatehouse serve"
    };
    let Sockets {
        main:
            listen::BoundSocket {
                listener,
                guard: _socket_guard,
            },
        hooks,
    } = sockets(&socket_path, activated).await?;
    let (hooks_listener, _hooks_guard) = match hooks {
        Some(listen::BoundSocket { listener, guard }) => (Some(listener), Some(guard)),
        None => (None, None),
    };
    let capabilities = capabilities_off_the_runtime(&registry).await;
    let options = GatewayOptions {
        socket: socket_path.display().to_string(),
        started_by: started_by.into(),
        local_host,
        limits: crate::Limits::default().within_open_files(crate::open_file_limit()),
        ..GatewayOptions::default()
    };
    let audit = open_audit_log(state_dir.as_deref())?;
    let earlier = remembered_from(audit.path());
    let gateway = Gateway::with_audit_log(capabilities, options, Some(audit));
    gateway.remember_ended(earlier);
    let agents: Vec<&str> = registry.ids().collect();
    tracing::info!(
        "gatehouse {} listening on {} for {} (started by {started_by})",
        env!("CARGO_PKG_VERSION"),
        socket_path.display(),
        agents.join(", ")
    );
    gateway.decide_capabilities_with(Arc::new(RegistryCapabilities(registry.clone())));
    gateway.describe_holds_with(
        registry
            .iter()
            .filter_map(|adapter| Some((adapter.id().to_owned(), adapter.while_held()?)))
            .collect(),
    );
    if let Some(folder) = &state_dir {
        apply_rules(&gateway, &registry, folder);
    }
    let refresh = tokio::spawn(refresh_capabilities(
        registry.clone(),
        gateway.clone(),
        state_dir,
    ));
    let serve_hooks = async {
        match hooks_listener {
            Some(listener) => crate::serve_with(gateway.clone(), listener, Roles::HooksOnly).await,
            None => std::future::pending().await,
        }
    };
    let stopped = tokio::select! {
        served = crate::serve(gateway.clone(), listener) => Err(RunError::Accept { hooks_socket: false, source: served.err().unwrap_or_else(|| io::Error::other("the accept loop ended")) }),
        served = serve_hooks => Err(RunError::Accept { hooks_socket: true, source: served.err().unwrap_or_else(|| io::Error::other("the accept loop ended")) }),
        () = idle(gateway.clone(), idle_exit) => {
            tracing::info!("stopping after {} s with nothing pending and no connection{}", idle_exit.unwrap_or_default().as_secs(), if started_by == "gatehouse serve" { "" } else { "; the service manager starts the gateway again on the next connection" });
            Ok(Stopped::Idle)
        }
        () = stop => {
            tracing::info!("shutting down; waiting hooks leave their prompts to the agents' terminals");
            Ok(Stopped::Asked)
        }
    };
    refresh.abort();
    stopped
}

/// The gateway's own socket, and the hooks socket beside it when it could be had.
struct Sockets {
    main: listen::BoundSocket,
    hooks: Option<listen::BoundSocket>,
}

/// The sockets to serve on: those the service manager passed, recognised by the path each is
/// bound to, or else bound here. The hooks socket, if not passed, is bound here when the folder
/// is private; a gateway that cannot have it (a shared folder, or another gateway's in the same
/// folder) serves without it and says so.
async fn sockets(
    socket_path: &Path,
    activated: Option<ActivatedSockets>,
) -> Result<Sockets, RunError> {
    let hooks_path = socket::hooks_socket_path(socket_path);
    let mut main = None;
    let mut hooks = None;
    if let Some((listen, fds)) = activated {
        tracing::debug!(
            "systemd passed {} socket(s) named {:?}",
            listen.count,
            listen.names
        );
        for fd in fds {
            let found = listen::activated_socket_path(fd.as_fd()).map_err(RunError::Activated)?;
            if same_path(&found, socket_path) {
                main = Some(
                    listen::adopt(socket_path, fd)
                        .await
                        .map_err(RunError::Activated)?,
                );
            } else if same_path(&found, &hooks_path) {
                hooks = Some(
                    listen::adopt(&hooks_path, fd)
                        .await
                        .map_err(RunError::Activated)?,
                );
            } else {
                return Err(RunError::Activated(
                    SocketError::UnexpectedActivatedSocket {
                        path: socket_path.into(),
                        found: found.display().to_string(),
                    },
                ));
            }
        }
        if main.is_none() {
            return Err(RunError::OnlyTheHooksSocketPassed {
                path: socket_path.into(),
            });
        }
    }
    let main = match main {
        Some(main) => main,
        None => listen::bind(socket_path).await.map_err(RunError::Bind)?,
    };
    let folder = hooks_path.parent().unwrap_or(Path::new("."));
    if hooks.is_none() && !socket::folder_is_private(folder) {
        // A shared folder (`--socket /tmp/x.sock`) is no place for a second, fixed name.
        tracing::warn!(
            "serving without the hooks socket: {} is not a private folder (yours, mode 0700), so `gatehouse remote` cannot reach this gateway",
            folder.display()
        );
    } else if hooks.is_none() {
        match listen::bind(&hooks_path).await {
            Ok(bound) => hooks = Some(bound),
            Err(error) => tracing::warn!("serving without the hooks socket, so `gatehouse remote` cannot reach this gateway: {error}"),
        }
    }
    Ok(Sockets { main, hooks })
}

/// Whether two paths name the same place: equal, or equal once their folders are resolved.
fn same_path(left: &Path, right: &Path) -> bool {
    let resolved = |path: &Path| {
        let folder = path.parent()?.canonicalize().ok()?;
        Some(folder.join(path.file_name()?))
    };
    left == right || resolved(left).is_some_and(|left| Some(left) == resolved(right))
}

/// Returns once the gateway has had nothing pending and no connection for `after`; never when
/// `after` is `None`. A held or registered prompt, or any open connection, keeps it running.
async fn idle(gateway: Arc<Gateway>, after: Option<Duration>) {
    let Some(after) = after else {
        return std::future::pending().await;
    };
    let every = (after / 8).clamp(Duration::from_millis(50), Duration::from_secs(5));
    let mut idle_since = tokio::time::Instant::now();
    loop {
        tokio::time::sleep(every).await;
        if gateway.pending_count() > 0 || gateway.connection_count() > 0 {
            idle_since = tokio::time::Instant::now();
        } else if idle_since.elapsed() >= after {
            return;
        }
    }
}

/// How often the gateway asks the adapters for their capability flags again, so that what a
/// new agent version un-proves is shown without a restart. These flags are what `status` shows
/// and what a prompt gets whose hook does not say which agent runs it; a held prompt whose hook
/// does is decided for that agent, from the probe record as it is then ([`RegistryCapabilities`]).
pub const CAPABILITY_REFRESH: Duration = Duration::from_secs(15);

/// How often the state folder is looked at for a new probe record, which is then taken at once.
const RECORD_LOOK: Duration = Duration::from_secs(1);

/// The adapters' unlock rule, per prompt, for the agent its hook reported: handed to the gateway,
/// which knows no adapters. Each call reads the adapter's probe record as it is now (a small
/// file) and runs nothing, so a passing probe counts for the very next prompt.
struct RegistryCapabilities(AdapterRegistry);

impl crate::CapabilitySource for RegistryCapabilities {
    fn for_agent(
        &self,
        adapter: &str,
        agent: &gatehouse_core::RunningAgent,
    ) -> Option<gatehouse_core::AdapterCapabilities> {
        Some(self.0.get(adapter)?.capabilities_for_agent(agent))
    }
}

/// Applies gatehouse's rules (the state folder's `rules.json`, as `gatehouse rule add` writes it)
/// to every held prompt, with the facts its adapter finds ([`RegistryRuleFacts`]); a rules file
/// that cannot be used is said now, and looked at again at each prompt.
fn apply_rules(gateway: &Gateway, registry: &AdapterRegistry, state_dir: &Path) {
    let path = crate::rules_file::rules_path(state_dir);
    gateway.apply_rules_with(
        crate::rules_file::RulesFile::at(path.clone()),
        Arc::new(RegistryRuleFacts(registry.clone())),
    );
    match gateway.rules_problem() {
        Some(problem) => tracing::warn!("gatehouse's rules decide nothing: {problem}"),
        None => tracing::info!("rules: {}", path.display()),
    }
}

/// What a prompt's adapter says its call runs or touches, for the rules: handed to the gateway,
/// which knows no adapters. A prompt of an adapter not registered here gets no facts, so no
/// rule decides it.
struct RegistryRuleFacts(AdapterRegistry);

impl crate::RuleFactsSource for RegistryRuleFacts {
    fn facts(&self, prompt: &gatehouse_core::NewPrompt) -> Option<crate::RuleFacts> {
        self.0.get(&prompt.adapter)?.rule_facts(prompt)
    }
}

/// Asks the adapters for their flags every [`CAPABILITY_REFRESH`], and at once when the state
/// folder changes (a probe writes its record there by renaming a new file into it, which changes
/// the folder's modification time). An adapter may look at the installed agent to answer (Codex
/// runs `codex --version`), so the call may block for a moment; it runs where blocking does not
/// hold up the gateway's other work.
async fn refresh_capabilities(
    registry: AdapterRegistry,
    gateway: Arc<Gateway>,
    folder: Option<PathBuf>,
) {
    let changed_at = |folder: &Option<PathBuf>| {
        folder
            .as_ref()
            .and_then(|folder| std::fs::metadata(folder).ok())
            .and_then(|metadata| metadata.modified().ok())
    };
    let mut seen = changed_at(&folder);
    let mut last = tokio::time::Instant::now();
    let mut every = tokio::time::interval(RECORD_LOOK);
    every.tick().await;
    loop {
        every.tick().await;
        let now_seen = changed_at(&folder);
        if now_seen == seen && last.elapsed() < CAPABILITY_REFRESH {
            continue;
        }
        seen = now_seen;
        last = tokio::time::Instant::now();
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
    match crate::audit::ended_prompts(log, REMEMBERED) {
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

fn open_audit_log(state_dir: Option<&Path>) -> Result<AuditLog, RunError> {
    let path = audit_log_path(state_dir)?;
    let log = AuditLog::open(&path, AUDIT_LOG_MAX_BYTES).map_err(|source| RunError::AuditLog {
        path: path.clone(),
        source,
    })?;
    tracing::info!("audit log: {}", path.display());
    Ok(log)
}

/// `<state folder>/audit.jsonl` (`$XDG_STATE_HOME/gatehouse/audit.jsonl`).
pub fn audit_log_path(state_dir: Option<&Path>) -> Result<PathBuf, RunError> {
    Ok(state_dir
        .ok_or(RunError::NoStateFolder)?
        .join("audit.jsonl"))
}

/// Returns at SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
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
