//! `gatehouse web`: answer every agent's prompts from a phone or another machine's browser.
//!
//! A front end like the console: one process that talks to the gateway's socket with the one
//! protocol (the gateway itself keeps no network listener) and serves a page to paired browsers.
//!
//! - [`serve`]: `gatehouse web` itself: checks, TLS, the listener, the printed pairing link.
//! - [`routes`]: the HTTP routes and the checks in front of them (Host, Origin, device token).
//! - [`feed`]: one page's live feed, ended at once when its device is revoked.
//! - [`connections`]: the open connections, bounded so that no flood starves a paired device.
//! - [`auth`]: secrets, hashes, the device token's header, and the Host and Origin rules.
//! - [`devices`]: the pairing store (paired devices in a private file, open pairing tokens).
//! - [`bridge`]: the gateway link: subscribe, keep the live prompts, answer per device.
//! - [`control`]: the private control socket that `web pair`, `devices` and `revoke` use.
//! - [`push`]: Web Push (VAPID, RFC 8291 encryption, the endpoint allow-list, the sender);
//!   [`ntfy`]: the same content-free call through a self-hosted ntfy server.
//! - [`tls`]: the owner's certificate, or a self-signed one kept in the state folder.
//! - [`assets`]: the page, its scripts and its style, embedded in the binary (the page's text
//!   escaping generated from `gatehouse_core::text`).
//!
//! The command line (its flags, its subcommands and what they print) is the binary's; serving
//! takes its [`WebSettings`] from the binary.

pub mod assets;
pub mod auth;
pub mod bridge;
pub mod connections;
pub mod control;
pub mod devices;
pub mod feed;
pub mod ntfy;
pub mod push;
pub mod routes;
pub mod serve;
pub mod settings;
pub mod tls;

#[cfg(test)]
mod tests;

pub use settings::{NotifyConfig, WebConfig, WebSettings};

/// The port of a pairing link that names a loopback address (`127.0.0.1`, `[::1]`, `localhost`),
/// which only a browser on this same machine can open.
pub fn loopback_port(url: &str) -> Option<u16> {
    let authority = url.split("://").nth(1)?.split('/').next()?;
    let (host, port) = authority.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    loopback.then(|| port.parse().ok()).flatten()
}
