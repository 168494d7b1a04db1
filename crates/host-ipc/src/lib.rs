//! gatehouse's one protocol: JSON-RPC 2.0, one JSON object per line, over a local socket (a Unix
//! domain socket; a named pipe on Windows). Hooks and front ends speak it alike.
//!
//! - [`protocol`]: the wire types, method names and error codes; types only.
//! - [`framing`]: newline-delimited frames with a maximum size.
//! - [`client`]: what hooks and front ends use to talk to it.
//! - [`hook_session`]: the budgets of a hook's dealings with the gateway and how they fail, and
//!   its [`spool`] of observations that found no gateway.
//! - [`subscription`]: every front end's subscription: snapshot, events, catch-up after lag,
//!   reconnect with a growing pause.
//! - [`socket`]: where the socket and the state folder live, and how they are made private.
//! - [`host`]: this machine's host name, said in every hello and on every prompt.
//!
//! The gateway that serves the protocol is the `gatehouse-gateway` crate.
//!
//! Architecture invariant: this crate knows the wire and nothing of agents. Adapters' capability
//! flags reach it as data; prompts arrive already parsed.

pub mod client;
pub mod framing;
pub mod hook_session;
pub mod host;
pub mod protocol;
pub mod socket;
pub mod spool;
pub mod subscription;

pub use client::{Client, ClientError, ClientErrorWords, SocketClient};
pub use protocol::{ErrorCode, Role, RpcError, PROTOCOL_VERSION};
/// The wall clock, as the arbiter wants it: clients and the gateway read time the same way.
pub fn now() -> gatehouse_core::Timestamp {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    gatehouse_core::Timestamp::from_unix_millis(since_epoch.as_millis() as u64)
}
