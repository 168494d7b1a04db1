//! What gatehouse's probes (in the adapter crates) and its end-to-end tests share to drive the
//! real agents, offline:
//!
//! - [`terminal`]: one interactive program in a private tmux server, read and typed into.
//! - [`executable`]: which agent executable is in use, and its version.
//! - [`record`]: a probe's record of what it proved, read and written atomically.
//! - [`http`]: a scripted model API on a loopback port; the agent's own request and response
//!   formats are the caller's, this only speaks HTTP/1.1 and records what arrived.
//!
//! Architecture invariant: knows no agent and nothing of gatehouse's socket; it depends on
//! `serde`, `serde_json` and `thiserror` only, so an adapter's probe can use it as a normal
//! dependency.

pub mod executable;
pub mod http;
pub mod record;
pub mod terminal;
