//! The gateway: the [`Gateway`] that owns the arbiter, the loop that serves each connection with
//! it, the [`audit`] log, how it [`listen`]s on its socket, and its [`life_cycle`] ([`run`]:
//! sockets bound or taken from systemd's [`activation`], idle exit, capability refresh). Connections are plain byte
//! streams, so tests drive the server over an in-memory duplex and the binary over a local socket.
//!
//! Architecture invariant: knows the wire (from `gatehouse-host-ipc`) and nothing of agents:
//! capability flags arrive as data, prompts arrive already parsed.

pub mod activation;
pub mod audit;
pub mod capabilities;
mod connection;
mod gateway;
pub mod life_cycle;
pub mod listen;
pub mod view;

pub use capabilities::CapabilitySource;
pub use connection::{serve_connection, serve_connection_with, Roles};
pub use gatehouse_host_ipc::now;
pub use gateway::{
    EventFrame, Gateway, GatewayError, GatewayOptions, HeldPrompt, Limits, Owner, HOOK_LEFT_REASON,
    HOOK_REFUSED_REASON,
};
pub use life_cycle::{run, run_until, RunError, RunOptions, Stopped};

use std::sync::Arc;

use interprocess::local_socket::tokio::{Listener, Stream};
use interprocess::local_socket::traits::tokio::Listener as _;
use interprocess::local_socket::traits::StreamCommon as _;

/// Accepts connections, serving each on its own task. A peer that runs as another user is
/// refused before it can say anything.
pub async fn serve(gateway: Arc<Gateway>, listener: Listener) -> std::io::Result<()> {
    serve_with(gateway, listener, Roles::Any).await
}

/// Like [`serve`], for connections that may say hello only as one of `roles` (the hooks socket).
pub async fn serve_with(
    gateway: Arc<Gateway>,
    listener: Listener,
    roles: Roles,
) -> std::io::Result<()> {
    loop {
        let stream = match listener.accept().await {
            Ok(stream) => stream,
            // A peer that hung up before it was accepted, or a moment without file descriptors:
            // neither may stop the gateway.
            Err(error) => {
                tracing::warn!("accepting a connection failed: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        if let Err(refusal) = check_peer(&stream) {
            tracing::warn!("refused a connection: {refusal}");
            continue;
        }
        let gateway = gateway.clone();
        tokio::spawn(async move { serve_connection_with(gateway, stream, roles).await });
    }
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
