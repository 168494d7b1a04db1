//! The one task that sends pushes (and ntfy posts), fed by a bounded queue.
//!
//! The bridge puts an [`Alert`] in the queue with `try_send` (never waiting; dropped when the
//! queue is full), so answering prompts never waits on a push service. The task takes an alert,
//! also takes every alert queued behind it (a burst becomes one push, with the latest count),
//! and posts to every subscription at once, each post bounded by
//! [`super::send::REQUEST_LIMIT`]. A subscription the push service says is gone (404, 410) is
//! dropped; so is one whose endpoint the allow-list no longer admits.

use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::encrypt::encrypt;
use super::endpoints::AllowList;
use super::send::Client;
use super::vapid::VapidKey;
use super::{Alert, PushSubscription};
use crate::ntfy::Ntfy;
use crate::routes::{Shared, WebState};

/// How many alerts may wait for the sending task; more are dropped.
pub const QUEUE_DEPTH: usize = 64;

/// How long a push service keeps an undelivered push (the hook's default wait).
pub const TTL_SECONDS: u64 = 600;

/// The `Topic` of every push: a newer one replaces one the phone has not fetched yet.
pub const TOPIC: &str = "gatehouse-prompts";

/// What `gatehouse web` needs to send pushes.
pub struct Notifier {
    vapid: VapidKey,
    allow: AllowList,
    client: Client,
    contact: String,
    ntfy: Option<Ntfy>,
    queue: mpsc::Sender<Alert>,
    receiver: Mutex<Option<mpsc::Receiver<Alert>>>,
}

/// One post's result, as `gatehouse web push-test` prints it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PushOutcome {
    pub device: String,
    pub service: String,
    pub delivered: bool,
    pub detail: String,
}

struct Sent {
    outcome: PushOutcome,
    /// The subscription is gone for good: drop it.
    gone: Option<String>,
}

impl Notifier {
    pub fn new(
        vapid: VapidKey,
        allow: AllowList,
        contact: String,
        ntfy: Option<Ntfy>,
    ) -> anyhow::Result<Arc<Notifier>> {
        let (queue, receiver) = mpsc::channel(QUEUE_DEPTH);
        Ok(Arc::new(Notifier {
            vapid,
            allow,
            client: Client::new()?,
            contact,
            ntfy,
            queue,
            receiver: Mutex::new(Some(receiver)),
        }))
    }

    /// The queue's sending end, for the bridge.
    pub fn alerts(&self) -> mpsc::Sender<Alert> {
        self.queue.clone()
    }

    pub fn public_key(&self) -> String {
        self.vapid.public_key()
    }

    pub fn allow_list(&self) -> &AllowList {
        &self.allow
    }

    /// Starts the sending task (once).
    pub fn start(self: &Arc<Self>, state: Shared) {
        let Some(mut receiver) = self.receiver.lock().unwrap().take() else {
            return;
        };
        let notifier = self.clone();
        tokio::spawn(async move {
            while let Some(mut alert) = receiver.recv().await {
                while let Ok(newer) = receiver.try_recv() {
                    alert = newer;
                }
                let Alert::Prompt { short_id, waiting } = alert;
                let payload =
                    serde_json::json!({ "type": "prompt", "waiting": waiting, "id": short_id });
                let text = if waiting > 1 {
                    format!("{waiting} prompts wait for an answer (newest: {short_id})")
                } else {
                    format!("A prompt waits for an answer ({short_id})")
                };
                let click = format!("{}/#prompt={short_id}", state.link_base);
                for outcome in notifier
                    .send_everywhere(&state, &payload, &text, &click)
                    .await
                {
                    if !outcome.delivered {
                        tracing::warn!(
                            "push to {} ({}) failed: {}",
                            outcome.service,
                            outcome.device,
                            outcome.detail
                        );
                    }
                }
            }
        });
    }

    /// Sends a test message to every subscription and the ntfy topic; the results.
    pub async fn test(&self, state: &WebState) -> Vec<PushOutcome> {
        let payload = serde_json::json!({ "type": "test" });
        let click = format!("{}/", state.link_base);
        self.send_everywhere(
            state,
            &payload,
            "gatehouse web push-test: notifications reach this device",
            &click,
        )
        .await
    }

    async fn send_everywhere(
        &self,
        state: &WebState,
        payload: &serde_json::Value,
        ntfy_text: &str,
        click: &str,
    ) -> Vec<PushOutcome> {
        let subscriptions = state.devices.lock().unwrap().subscriptions();
        let payload = payload.to_string();
        let pushes = subscriptions
            .iter()
            .map(|(device, subscription)| self.push(device, subscription, payload.as_bytes()));
        let ntfy = async {
            let ntfy = self.ntfy.as_ref()?;
            let result = ntfy.post(&self.client, ntfy_text, click).await;
            let (delivered, detail) = match result {
                Ok(reply) if (200..300).contains(&reply.status) => {
                    (true, format!("{}", reply.status))
                }
                Ok(reply) => (false, status_in_words(reply.status, &reply.body)),
                Err(error) => (false, error.to_string()),
            };
            Some(PushOutcome {
                device: "-".into(),
                service: ntfy.service(),
                delivered,
                detail,
            })
        };
        let (sent, ntfy) = tokio::join!(futures_util::future::join_all(pushes), ntfy);
        let gone: Vec<String> = sent.iter().filter_map(|sent| sent.gone.clone()).collect();
        if !gone.is_empty() {
            let mut store = state.devices.lock().unwrap();
            store.drop_subscriptions(&gone);
            if let Err(error) = store.save() {
                tracing::warn!("cannot keep the paired devices: {error:#}");
            }
        }
        sent.into_iter()
            .map(|sent| sent.outcome)
            .chain(ntfy)
            .collect()
    }

    async fn push(&self, device: &str, subscription: &PushSubscription, payload: &[u8]) -> Sent {
        let outcome = |delivered: bool, detail: String| PushOutcome {
            device: device.to_owned(),
            service: subscription.service(),
            delivered,
            detail,
        };
        let (url, allowed) = match self.allow.check(&subscription.endpoint) {
            Ok(checked) => checked,
            Err(refusal) => {
                return Sent {
                    outcome: outcome(false, format!("{refusal}; dropped")),
                    gone: Some(subscription.endpoint.clone()),
                }
            }
        };
        let keys = URL_SAFE_NO_PAD
            .decode(&subscription.p256dh)
            .ok()
            .zip(URL_SAFE_NO_PAD.decode(&subscription.auth).ok());
        let body = keys
            .ok_or_else(|| "the subscription's keys are not base64url".to_owned())
            .and_then(|(public, auth)| {
                encrypt(&public, &auth, payload).map_err(|error| error.to_string())
            });
        let now = gatehouse_host_ipc::now().unix_millis() / 1000;
        let authorization = self
            .vapid
            .authorization(&url.origin(), now, &self.contact)
            .map_err(|error| error.to_string());
        let (body, authorization) = match (body, authorization) {
            (Ok(body), Ok(authorization)) => (body, authorization),
            (Err(error), _) | (_, Err(error)) => {
                return Sent {
                    outcome: outcome(false, error),
                    gone: None,
                }
            }
        };
        let headers = [
            ("authorization", authorization),
            ("content-encoding", "aes128gcm".to_owned()),
            ("content-type", "application/octet-stream".to_owned()),
            ("ttl", TTL_SECONDS.to_string()),
            ("urgency", "high".to_owned()),
            ("topic", TOPIC.to_owned()),
        ];
        match self.client.post(&url, allowed, &headers, body).await {
            Ok(reply) if (200..300).contains(&reply.status) => Sent {
                outcome: outcome(true, reply.status.to_string()),
                gone: None,
            },
            Ok(reply) if matches!(reply.status, 404 | 410) => Sent {
                outcome: outcome(
                    false,
                    format!("{}; the subscription is gone, dropped", reply.status),
                ),
                gone: Some(subscription.endpoint.clone()),
            },
            Ok(reply) => Sent {
                outcome: outcome(false, status_in_words(reply.status, &reply.body)),
                gone: None,
            },
            Err(error) => Sent {
                outcome: outcome(false, error.to_string()),
                gone: None,
            },
        }
    }
}

/// A failed status and the start of the body, on one visible line.
fn status_in_words(status: u16, body: &[u8]) -> String {
    let redirect = if (300..400).contains(&status) {
        " (a redirect, not followed)"
    } else {
        ""
    };
    let text = gatehouse_core::text::one_line(&String::from_utf8_lossy(body), 200);
    format!("{status}{redirect} {text}").trim_end().to_owned()
}
