//! One page's live feed (`GET /api/events`): its snapshot, then every message, for as long as
//! its device stays paired.
//!
//! The device is checked against the pairing store before every message sent, the first snapshot
//! and every fresh snapshot after a lag included, and at once whenever a device is revoked
//! ([`Bridge::revoked`](super::bridge::Bridge::revoked) bumps a `watch` that never drops a
//! change). A revoked device's feed sends `{"type":"unpaired"}` and ends, however far behind it was.

use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};

use super::bridge::{encode, PageMessage};
use super::routes::Shared;

pub struct Feed {
    first: Option<Arc<str>>,
    receiver: broadcast::Receiver<Arc<str>>,
    revocations: watch::Receiver<u64>,
    device: String,
    state: Shared,
    done: bool,
}

impl Feed {
    /// The feed of a page of device `device`, from now on.
    pub fn open(state: &Shared, device: String) -> Feed {
        // Watch revocations before the snapshot is taken, so that none falls in between.
        let revocations = state.bridge.revocations();
        let (first, receiver) = state.bridge.subscribe();
        Feed {
            first: Some(first),
            receiver,
            revocations,
            device,
            state: state.clone(),
            done: false,
        }
    }

    /// The next message for the page, or `None` when the feed has ended.
    pub async fn next(&mut self) -> Option<Arc<str>> {
        if self.done {
            return None;
        }
        let message = match self.first.take() {
            Some(first) => first,
            None => loop {
                tokio::select! {
                    biased;
                    changed = self.revocations.changed() => {
                        if changed.is_err() {
                            return None;
                        }
                        if !self.still_paired() {
                            return Some(self.end_unpaired());
                        }
                    }
                    received = self.receiver.recv() => match received {
                        Ok(message) => break message,
                        Err(RecvError::Lagged(_)) => break self.state.bridge.snapshot(),
                        Err(RecvError::Closed) => return None,
                    },
                }
            },
        };
        if !self.still_paired() {
            return Some(self.end_unpaired());
        }
        Some(message)
    }

    fn still_paired(&self) -> bool {
        self.state.devices.lock().unwrap().is_paired(&self.device)
    }

    fn end_unpaired(&mut self) -> Arc<str> {
        self.done = true;
        encode(&PageMessage::Unpaired)
    }
}
