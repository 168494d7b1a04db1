//! gatehouse's one protocol: JSON-RPC 2.0, one JSON object per line, over a local socket (a Unix
//! domain socket; a named pipe on Windows). Hooks and front ends speak it alike.
//!
//! - [`protocol`]: the wire types, method names and error codes; types only.
//! - [`framing`]: newline-delimited frames with a maximum size.
//! - [`server`]: the gateway, which holds the arbiter and serves connections.
//! - [`client`]: what hooks and front ends use to talk to it.
//! - [`socket`]: where the socket lives and how it is made private.
//!
//! Architecture invariant: this crate knows the wire and nothing of agents. Adapters' capability
//! flags reach it as data; prompts arrive already parsed.

pub mod client;
pub mod framing;
pub mod protocol;
pub mod server;
pub mod socket;

pub use client::{Client, ClientError, SocketClient};
pub use protocol::{ErrorCode, Role, RpcError, PROTOCOL_VERSION};
pub use server::{Gateway, GatewayOptions};
