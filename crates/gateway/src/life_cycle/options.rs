//! What the gateway's life cycle takes ([`RunOptions`]) and how it ends ([`Stopped`], or a
//! typed [`RunError`] to which the binary adds its hints).

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use gatehouse_core::AdapterRegistry;
use gatehouse_host_ipc::socket::SocketError;

use crate::activation::ActivatedSockets;

/// What the gateway runs with: everything the binary reads from flags, the config and the
/// environment.
pub struct RunOptions {
    /// The gateway's socket.
    pub socket: PathBuf,
    /// The sockets a service manager passed, if any
    /// ([`crate::activation::take_from_environment`]).
    pub activated: Option<ActivatedSockets>,
    /// Stop after this long with nothing pending and no connection; `None`: never.
    pub idle_exit: Option<Duration>,
    /// The adapters, whose flags the gateway offers and refreshes, and whose unlock rule it
    /// applies per prompt.
    pub registry: AdapterRegistry,
    /// gatehouse's state folder: the audit log, and the probe records whose change is taken at
    /// once. `None` when it cannot be told (no `HOME`).
    pub state_dir: Option<PathBuf>,
    /// This machine's host name, stamped on prompts from the gateway's own socket.
    pub local_host: String,
}

/// Why the gateway could not start, or stopped serving.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The gateway's socket could not be bound here.
    #[error(transparent)]
    Bind(SocketError),
    /// A socket the service manager passed could not be taken.
    #[error(transparent)]
    Activated(SocketError),
    #[error("the service manager passed only the hooks socket, not the gateway's socket {path}")]
    OnlyTheHooksSocketPassed { path: PathBuf },
    #[error("neither XDG_STATE_HOME nor HOME is set, so the audit log has no home")]
    NoStateFolder,
    #[error("cannot open the audit log {path}: {source}")]
    AuditLog { path: PathBuf, source: io::Error },
    #[error("the gateway stopped accepting connections{}: {source}", if *.hooks_socket { " on the hooks socket" } else { "" })]
    Accept {
        hooks_socket: bool,
        source: io::Error,
    },
}

/// Why the gateway stopped, when it was not for an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The stop signal came (SIGTERM or Ctrl-C for [`run`]).
    Asked,
    /// It sat idle for [`RunOptions::idle_exit`].
    Idle,
}
