//! The gateway: the [`Gateway`] that owns the arbiter, the loop that serves each connection with
//! it, the [`audit`] log, how it [`listen`]s on its socket, and its [`life_cycle`] ([`run`]:
//! sockets bound or taken from systemd's [`activation`], idle exit, capability refresh). Connections are plain byte
//! streams, so tests drive the server over an in-memory duplex and the binary over a local socket.
//! The accept loop refuses other users, names each peer's process for the hooks socket's
//! [`admission`], keeps a descriptor in reserve for a moment without any, and says a repeated
//! failure now and then, not every time.
//!
//! Architecture invariant: knows the wire (from `gatehouse-host-ipc`) and nothing of agents:
//! capability flags arrive as data, prompts arrive already parsed.

pub mod activation;
pub mod admission;
pub mod audit;
pub mod capabilities;
mod connection;
mod gateway;
pub mod life_cycle;
pub mod listen;
pub mod rules;
pub mod rules_file;
pub mod view;

pub use capabilities::CapabilitySource;
pub use connection::{serve_connection, serve_connection_from, serve_connection_with, Roles};
pub use gatehouse_host_ipc::now;
pub use gateway::{
    open_file_limit, EventFrame, Gateway, GatewayError, GatewayOptions, HeldPrompt, Limits, Owner,
    HOOK_LEFT_REASON, HOOK_REFUSED_REASON,
};
pub use life_cycle::{run, run_until, RunError, RunOptions, Stopped};
pub use rules::{RuleFacts, RuleFactsSource};

use std::sync::Arc;
use std::time::Duration;

use interprocess::local_socket::tokio::{Listener, Stream};
use interprocess::local_socket::traits::tokio::Listener as _;
use interprocess::local_socket::traits::StreamCommon as _;

/// Accepts connections, serving each on its own task. A peer that runs as another user is
/// refused before it can say anything.
pub async fn serve(gateway: Arc<Gateway>, listener: Listener) -> std::io::Result<()> {
    serve_with(gateway, listener, Roles::Any).await
}

/// How often a warning that repeats (a failing accept, a refused peer) is written at most.
const REPEATED_WARNING_EVERY: Duration = Duration::from_secs(10);

/// Like [`serve`], for connections that may say hello only as one of `roles` (the hooks socket).
///
/// Out of file descriptors, the gateway cannot accept a waiting connection, which would wait
/// unserved (a front end hanging) while the loop fails again and again; so the loop keeps one
/// descriptor in reserve (`/dev/null` open), and then lets it go to accept that connection and
/// close it at once: the front end is told no rather than left waiting.
pub async fn serve_with(
    gateway: Arc<Gateway>,
    listener: Listener,
    roles: Roles,
) -> std::io::Result<()> {
    let mut reserve = reserve_descriptor();
    let mut failures = RepeatedWarning::new("accepting a connection failed");
    let mut refusals = RepeatedWarning::new("refused a connection");
    loop {
        let stream = match listener.accept().await {
            Ok(stream) => stream,
            // A peer that hung up before it was accepted, or a moment without file descriptors:
            // neither may stop the gateway.
            Err(error) => {
                failures.note(&error);
                if out_of_descriptors(&error) {
                    drop(reserve.take());
                    if let Ok(Ok(unserved)) =
                        tokio::time::timeout(Duration::from_millis(100), listener.accept()).await
                    {
                        drop(unserved);
                    }
                    reserve = reserve_descriptor();
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        if let Err(refusal) = check_peer(&stream) {
            refusals.note(&refusal);
            continue;
        }
        let peer = peer_process(&stream);
        let gateway = gateway.clone();
        tokio::spawn(async move { serve_connection_from(gateway, stream, roles, peer).await });
    }
}

/// A descriptor held in reserve for a moment without any (see [`serve_with`]).
fn reserve_descriptor() -> Option<std::fs::File> {
    std::fs::File::open("/dev/null").ok()
}

/// Whether accepting failed for want of file descriptors (the process's or the system's).
fn out_of_descriptors(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(code) if code == libc::EMFILE || code == libc::ENFILE)
}

/// A warning written at once, and then at most once every [`REPEATED_WARNING_EVERY`] with how
/// many times it happened meanwhile: a failure that repeats every 10 ms would fill the log.
struct RepeatedWarning {
    what: &'static str,
    last: Option<std::time::Instant>,
    unsaid: u64,
}

impl RepeatedWarning {
    fn new(what: &'static str) -> Self {
        RepeatedWarning {
            what,
            last: None,
            unsaid: 0,
        }
    }

    fn note(&mut self, why: &dyn std::fmt::Display) {
        let now = std::time::Instant::now();
        if self
            .last
            .is_some_and(|last| now.duration_since(last) < REPEATED_WARNING_EVERY)
        {
            self.unsaid += 1;
            return;
        }
        if self.unsaid == 0 {
            tracing::warn!("{}: {why}", self.what);
        } else {
            tracing::warn!(
                "{}: {why} (and {} more times in the {} s before)",
                self.what,
                self.unsaid,
                REPEATED_WARNING_EVERY.as_secs()
            );
        }
        self.last = Some(now);
        self.unsaid = 0;
    }
}

/// The process at the other end of `stream`, as the kernel says (`SO_PEERCRED`); `None` when it
/// cannot tell (a process of another pid namespace is pid 0).
#[cfg(unix)]
fn peer_process(stream: &Stream) -> Option<u32> {
    let pid = stream.peer_creds().ok()?.pid()?;
    u32::try_from(pid).ok().filter(|pid| *pid != 0)
}

#[cfg(not(unix))]
fn peer_process(_stream: &Stream) -> Option<u32> {
    None
}

/// Only the user who runs the gateway may talk to it: `Err` says why a peer is refused. Other
/// private sockets of gatehouse's (such as `gatehouse web`'s control socket) use it too.
#[cfg(unix)]
pub fn check_peer(stream: &Stream) -> Result<(), String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let own = unsafe { libc::geteuid() };
    let credentials = stream
        .peer_creds()
        .map_err(|error| format!("its peer credentials cannot be read: {error}"))?;
    match credentials.euid() {
        Some(peer) if peer == own => Ok(()),
        Some(peer) => Err(format!(
            "the peer runs as user {peer}, and this gateway answers only user {own}"
        )),
        None => Err("the peer's user cannot be told".into()),
    }
}

#[cfg(not(unix))]
pub fn check_peer(_stream: &Stream) -> Result<(), String> {
    Ok(())
}
