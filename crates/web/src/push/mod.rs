//! Web Push: the person is called when a prompt waits, even with the page closed.
//!
//! A paired page subscribes through the browser's standard `PushManager` with the gateway's
//! VAPID public key and hands the subscription to `gatehouse web` ([`api`]). On each new
//! answerable prompt, [`notifier`] sends every subscription a content-free message (how many
//! prompts wait and the new one's short id: no command, input, path or host), encrypted for
//! that browser ([`encrypt`]), signed with the VAPID key ([`vapid`]), posted only to an allowed
//! push service ([`endpoints`]) with a bounded request ([`send`]). The page's service worker
//! then fetches the details from the page's own origin. The same content-free message can go to
//! an ntfy server ([`super::ntfy`]).
//!
//! Sending never delays answering: the bridge drops alerts into a bounded queue (dropped when
//! full), and one task posts them, coalescing a burst into one push.

pub mod api;
pub mod encrypt;
pub mod endpoints;
pub mod notifier;
pub mod send;
pub mod vapid;

use gatehouse_core::Timestamp;
use serde::{Deserialize, Serialize};

/// The most push subscriptions one device keeps; a newer one replaces its oldest.
pub const MAX_SUBSCRIPTIONS_PER_DEVICE: usize = 4;

/// One browser's push subscription, kept with its device (so revoking the device drops it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PushSubscription {
    /// The push service's URL for this browser, checked against [`endpoints::AllowList`].
    pub endpoint: String,
    /// The browser's ECDH P-256 public key, base64url.
    pub p256dh: String,
    /// The browser's 16-byte authentication secret, base64url.
    pub auth: String,
    pub added_at: Timestamp,
}

impl PushSubscription {
    /// The push service's origin, as `gatehouse web devices` shows it.
    pub fn service(&self) -> String {
        endpoints::parse(&self.endpoint).map_or_else(|_| "?".to_owned(), |url| url.origin())
    }
}

/// What the queue carries from the bridge to the notifier.
#[derive(Debug, Clone)]
pub enum Alert {
    /// A new answerable prompt: its short id, and how many answerable prompts wait now.
    Prompt { short_id: String, waiting: usize },
}
