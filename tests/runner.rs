//! The one integration-test binary: every test here runs the real `gatehouse` binary.
//!
//! - `cli`: the command-line contract, against a real `gatehouse serve` on a temporary socket.
//! - `client_library`: the same gateway driven through the client library.

mod cli;
mod client_library;
mod common;
mod restart;
mod security;
