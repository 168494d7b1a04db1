//! The web front end's link to the gateway, through the one protocol.
//!
//! - [`Bridge::follow`] subscribes (client name `web`) with the one subscription client
//!   (`gatehouse_host_ipc::subscription::follow`), keeps the live prompts, and publishes every
//!   change to the open pages as one encoded [`PageMessage`]; when the gateway goes away it says
//!   why (in the binary's words) and reconnects with a growing pause.
//! - [`Bridge::answer`] and [`Bridge::release`] act on a fresh connection of their own whose
//!   hello names the device (`web:<device name>`), so the gateway's audit log records the device
//!   as `by`. They name the prompt by its full id, never by a prefix.
//!
//! The prompts and the broadcast sender sit behind one mutex, so a page's snapshot and the feed
//! after it never miss or repeat a change. The broadcast may drop messages for a page that falls
//! behind, so revocations do not travel on it: [`Bridge::revoked`] bumps a `watch` counter that
//! never loses a change, and each page's feed checks its device against the pairing store then
//! and before every message it sends.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use gatehouse_core::{Answer, DecisionId, Event, Prompt, PromptState};
use gatehouse_host_ipc::protocol::FullPrompt;
use gatehouse_host_ipc::subscription::{self, Backoff, FeedItem, FollowUpdate};
use gatehouse_host_ipc::{ClientError, ClientErrorWords, Role, SocketClient};
use serde::Serialize;
use tokio::sync::{broadcast, mpsc, watch};

use super::push::Alert;

/// How many messages a slow page may fall behind before it is sent a fresh snapshot.
pub const FEED_DEPTH: usize = 4_096;

/// The pause before reconnecting: 250 ms, doubling after each failed attempt, up to 2 s.
const RECONNECT_BACKOFF: Backoff = Backoff {
    first: Duration::from_millis(250),
    longest: Duration::from_secs(2),
};

/// What a page is told, as one JSON object per server-sent event.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PageMessage<'a> {
    /// Everything live, and whether the gateway is reachable.
    Snapshot {
        gateway: &'a GatewayState,
        prompts: Vec<&'a Prompt>,
    },
    /// A wire event from the gateway, as it came.
    Event { event: &'a Event },
    /// The gateway went away.
    Gateway { gateway: &'a GatewayState },
    /// This browser is no longer paired; the feed ends.
    Unpaired,
}

#[derive(Debug, Clone, Serialize)]
pub struct GatewayState {
    pub up: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

struct Live {
    gateway: GatewayState,
    prompts: BTreeMap<DecisionId, Prompt>,
}

pub struct Bridge {
    socket: PathBuf,
    /// The binary's words for the gateway's errors.
    words: ClientErrorWords,
    live: Mutex<Live>,
    feed: broadcast::Sender<Arc<str>>,
    /// Bumped on every revocation.
    revocations: watch::Sender<u64>,
    /// Where a new answerable prompt is announced for Web Push and ntfy (never waited on).
    alerts: OnceLock<mpsc::Sender<Alert>>,
}

impl Bridge {
    pub fn new(socket: PathBuf, words: ClientErrorWords) -> Arc<Bridge> {
        Arc::new(Bridge {
            socket,
            words,
            live: Mutex::new(Live {
                gateway: GatewayState {
                    up: false,
                    reason: Some("connecting to the gateway".into()),
                },
                prompts: BTreeMap::new(),
            }),
            feed: broadcast::channel(FEED_DEPTH).0,
            revocations: watch::Sender::new(0),
            alerts: OnceLock::new(),
        })
    }

    /// Announces every later new answerable prompt on `alerts` (dropped when it is full).
    pub fn send_alerts_to(&self, alerts: mpsc::Sender<Alert>) {
        let _ = self.alerts.set(alerts);
    }

    /// A snapshot for a page that just connected, and the feed from that moment on.
    pub fn subscribe(&self) -> (Arc<str>, broadcast::Receiver<Arc<str>>) {
        let live = self.live.lock().unwrap();
        (snapshot(&live), self.feed.subscribe())
    }

    /// A fresh snapshot, for a page that fell behind.
    pub fn snapshot(&self) -> Arc<str> {
        snapshot(&self.live.lock().unwrap())
    }

    /// The live prompts, for `GET /api/prompts`.
    pub fn prompts(&self) -> Vec<Prompt> {
        self.live
            .lock()
            .unwrap()
            .prompts
            .values()
            .cloned()
            .collect()
    }

    /// Sends one encoded message to every open page (a page that fell too far behind misses it
    /// and gets a fresh snapshot instead).
    pub fn broadcast(&self, message: Arc<str>) {
        let _ = self.feed.send(message);
    }

    /// Tells every open feed that devices were revoked: each checks its own device at once.
    pub fn revoked(&self) {
        self.revocations.send_modify(|count| *count += 1);
    }

    /// A receiver that sees every later [`Bridge::revoked`].
    pub fn revocations(&self) -> watch::Receiver<u64> {
        self.revocations.subscribe()
    }

    /// Follows the gateway for as long as the process runs.
    pub async fn follow(self: Arc<Bridge>) {
        let connect = || SocketClient::connect(&self.socket, Role::Frontend, "web");
        subscription::follow(connect, RECONNECT_BACKOFF, |update| {
            match update {
                FollowUpdate::Connected { snapshot, .. } => self.replace(snapshot, true, None),
                FollowUpdate::Item(FeedItem::Event(event)) => self.apply(*event),
                FollowUpdate::Item(FeedItem::Snapshot(snapshot)) => {
                    self.replace(snapshot.prompts, true, None)
                }
                FollowUpdate::Disconnected { error, .. } => {
                    let reason = (self.words)(&self.socket, &error);
                    self.replace(Vec::new(), false, Some(reason))
                }
            }
            ControlFlow::Continue(())
        })
        .await;
    }

    fn replace(&self, prompts: Vec<Prompt>, up: bool, reason: Option<String>) {
        let mut live = self.live.lock().unwrap();
        live.gateway = GatewayState { up, reason };
        live.prompts = prompts
            .into_iter()
            .map(|prompt| (prompt.id, prompt))
            .collect();
        let message = if up {
            snapshot(&live)
        } else {
            encode(&PageMessage::Gateway {
                gateway: &live.gateway,
            })
        };
        self.broadcast(message);
    }

    fn apply(&self, event: Event) {
        let mut live = self.live.lock().unwrap();
        match &event {
            Event::Added { prompt } => {
                live.prompts.insert(prompt.id, prompt.clone());
                if let (Some(alerts), false) = (self.alerts.get(), prompt.is_read_only()) {
                    let waiting = live
                        .prompts
                        .values()
                        .filter(|live| !live.is_read_only() && live.state == PromptState::Pending)
                        .count();
                    let _ = alerts.try_send(Alert::Prompt {
                        short_id: prompt.short_id.clone(),
                        waiting,
                    });
                }
            }
            Event::Changed { id, state, .. } => {
                if *state == PromptState::Pending {
                    if let Some(prompt) = live.prompts.get_mut(id) {
                        prompt.state = *state;
                    }
                } else {
                    live.prompts.remove(id);
                }
            }
        }
        self.broadcast(encode(&PageMessage::Event { event: &event }));
    }

    /// Answers prompt `id` for `device`; `seen` is the digest of the whole prompt the page
    /// showed, which approving a prompt the gateway lists cut needs. `Err` is the gateway's
    /// refusal in words.
    pub async fn answer(
        &self,
        device: &str,
        id: DecisionId,
        answer: Answer,
        seen: Option<String>,
    ) -> Result<PromptState, String> {
        self.as_device(device, async |client| {
            let result = client.answer_seen(id, answer, seen).await?;
            Ok(result.state)
        })
        .await
    }

    /// Prompt `id` whole, with the digest that approving it names, for `device`.
    pub async fn prompt_whole(&self, device: &str, id: DecisionId) -> Result<FullPrompt, String> {
        self.as_device(device, async |client| client.prompt_get(id).await)
            .await
    }

    /// Hands prompt `id` back to the agent's terminal, for `device`.
    pub async fn release(&self, device: &str, id: DecisionId) -> Result<PromptState, String> {
        self.as_device(device, async |client| Ok(client.release(id).await?.state))
            .await
    }

    /// Runs `call` on a connection of its own for `device`; `Err` is the gateway's refusal (or
    /// why it cannot be reached) in the binary's words.
    async fn as_device<T>(
        &self,
        device: &str,
        call: impl AsyncFnOnce(&mut SocketClient) -> Result<T, ClientError>,
    ) -> Result<T, String> {
        let mut client = self.connect_as(device).await?;
        call(&mut client)
            .await
            .map_err(|error| (self.words)(&self.socket, &error))
    }

    async fn connect_as(&self, device: &str) -> Result<SocketClient, String> {
        SocketClient::connect(&self.socket, Role::Frontend, &format!("web:{device}"))
            .await
            .map_err(|error| (self.words)(&self.socket, &error))
    }
}

fn snapshot(live: &Live) -> Arc<str> {
    encode(&PageMessage::Snapshot {
        gateway: &live.gateway,
        prompts: live.prompts.values().collect(),
    })
}

pub fn encode(message: &PageMessage) -> Arc<str> {
    serde_json::to_string(message)
        .unwrap_or_else(|_| "{}".into())
        .into()
}
