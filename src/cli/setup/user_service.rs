//! The gateway as a user service, as `gatehouse setup` installs and starts it and `gatehouse
//! doctor` advises it: which service manager this machine has for the user, whether the units
//! that `gatehouse install service` writes are there and the socket is enabled and active, and
//! the gateway that answers on a socket (who started it). The unit files themselves are
//! `install service`'s ([`crate::cli::service`]); this runs `systemctl --user`, only when the
//! person accepted it and only where a systemd user manager runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use gatehouse_host_ipc::protocol::StatusResult;
use gatehouse_host_ipc::{Client, ClientError, Role};

use crate::cli::service::{self, Done};

/// The longest one `systemctl --user` call may take.
const SYSTEMCTL_DEADLINE: Duration = Duration::from_secs(30);

/// The longest the gateway may take to answer `status`: a suspended or wedged gateway accepts
/// the connection (the kernel does) and never answers.
const STATUS_DEADLINE: Duration = Duration::from_secs(5);

/// The socket unit that `install service` writes.
pub const SOCKET_UNIT: &str = "gatehouse.socket";

/// How the user's services are run here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Manager {
    /// A systemd user manager runs for this user.
    Systemd,
    /// macOS: a launchd agent.
    Launchd,
    /// None that gatehouse can use: why.
    Missing(String),
}

/// The service manager of this user, from what is there: a systemd user manager listens on
/// `$XDG_RUNTIME_DIR/systemd/private` (nothing is started or asked to find out).
pub fn manager() -> Manager {
    if cfg!(target_os = "macos") {
        return Manager::Launchd;
    }
    let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) else {
        return Manager::Missing(
            "XDG_RUNTIME_DIR is not set, so no systemd user manager can be reached".into(),
        );
    };
    let private = PathBuf::from(runtime).join("systemd").join("private");
    if !private.exists() {
        return Manager::Missing(format!(
            "no systemd user manager runs for you ({} is missing)",
            private.display()
        ));
    }
    if gatehouse_harness::executable::find_on_path("systemctl").is_none() {
        return Manager::Missing("systemctl is not on PATH".into());
    }
    Manager::Systemd
}

/// Where the service stands: what writing the units would do, and (with systemd) whether the
/// socket is enabled and listening.
pub struct ServiceState {
    pub units: Vec<(PathBuf, Done)>,
    pub running: bool,
}

impl ServiceState {
    pub fn now(manager: &Manager) -> anyhow::Result<ServiceState> {
        let units = service::planned_units()?;
        let running = match manager {
            Manager::Systemd => socket_enabled_and_active(),
            // launchd is not asked: its command is printed for the person to run.
            _ => false,
        };
        Ok(ServiceState { units, running })
    }

    /// Whether nothing is left to do.
    pub fn in_place(&self, manager: &Manager) -> bool {
        let written = self.units.iter().all(|(_, done)| *done == Done::Unchanged);
        match manager {
            Manager::Systemd => written && self.running,
            _ => written,
        }
    }

    /// Whether the unit files are there at all (current or not).
    pub fn units_present(&self) -> bool {
        self.units.iter().any(|(_, done)| *done != Done::Written)
    }
}

/// Whether `gatehouse.socket` is enabled and active for the user.
fn socket_enabled_and_active() -> bool {
    let says = |verb: &str, word: &str| {
        systemctl(&[verb, SOCKET_UNIT]).is_ok_and(|output| {
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .next()
                .is_some_and(|line| line.trim() == word)
        })
    };
    says("is-enabled", "enabled") && says("is-active", "active")
}

/// Writes the units and starts the socket: `systemctl --user daemon-reload`, then `enable --now
/// gatehouse.socket`. What happened to each unit file.
pub fn install_and_start(manager: &Manager) -> anyhow::Result<Vec<(PathBuf, Done)>> {
    let units = service::write_units()?;
    if *manager == Manager::Systemd {
        for arguments in [&["daemon-reload"][..], &["enable", "--now", SOCKET_UNIT]] {
            let output = systemctl(arguments)?;
            if !output.status.success() {
                bail!(
                    "`systemctl --user {}` failed ({}): {}",
                    arguments.join(" "),
                    output.status,
                    gatehouse_core::text::one_line(&String::from_utf8_lossy(&output.stderr), 400)
                );
            }
        }
    }
    Ok(units)
}

/// Runs `systemctl --user ARGUMENTS` within [`SYSTEMCTL_DEADLINE`].
fn systemctl(arguments: &[&str]) -> anyhow::Result<Output> {
    let child = Command::new("systemctl")
        .arg("--user")
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run systemctl")?;
    let started = Instant::now();
    let mut child = child;
    loop {
        if child.try_wait()?.is_some() {
            return Ok(child.wait_with_output()?);
        }
        if started.elapsed() > SYSTEMCTL_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "`systemctl --user {}` did not finish within {} s",
                arguments.join(" "),
                SYSTEMCTL_DEADLINE.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Why the gateway on a socket could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum GatewayProblem {
    #[error("{0}")]
    Client(ClientError),
    #[error("a gateway accepted the connection on {} but did not answer within {} s (stopped or stuck?)", .0.display(), STATUS_DEADLINE.as_secs())]
    Silent(PathBuf),
}

/// The status of the gateway on `socket` (refused, before a byte is sent, when another user
/// runs it), within [`STATUS_DEADLINE`].
pub fn gateway_status(socket: &Path) -> anyhow::Result<Result<StatusResult, GatewayProblem>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    Ok(runtime.block_on(async {
        let asked = async {
            let mut client = Client::connect(socket, Role::Frontend, "gatehouse-doctor").await?;
            client.status().await
        };
        match tokio::time::timeout(STATUS_DEADLINE, asked).await {
            Ok(answer) => answer.map_err(GatewayProblem::Client),
            Err(_) => Err(GatewayProblem::Silent(socket.to_path_buf())),
        }
    }))
}
