//! The gateway's tests, one binary: server and client together over in-memory streams, with no
//! socket and no agent.

mod decided_per_agent;
mod decoder_properties;
mod duplex;
mod hold_ends;
mod hooks_peer;
mod hooks_socket_limits;
mod rules_applied;
mod support;
