//! The push routes (behind the same Host, Origin and device-token checks as every other route):
//!
//! | route | needs | does |
//! | --- | --- | --- |
//! | `GET /api/push` | token | the VAPID public key, and this device's push services |
//! | `POST /api/push/subscribe` | token | `{"endpoint", "keys": {"p256dh", "auth"}}`: kept for this device |
//! | `POST /api/push/unsubscribe` | token | `{"endpoint"}`: dropped |
//!
//! A subscription is refused unless its endpoint passes [`super::endpoints::AllowList`] and its
//! keys are a P-256 point and a 16-byte secret.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::agreement::{self, EphemeralPrivateKey, UnparsedPublicKey, ECDH_P256};
use serde::Deserialize;
use serde_json::json;

use super::PushSubscription;
use crate::routes::{Paired, Shared};

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/api/push", get(info))
        .route("/api/push/subscribe", post(subscribe))
        .route("/api/push/unsubscribe", post(unsubscribe))
}

fn refuse(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

fn push_off() -> Response {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "push is off in this gatehouse web (its log says why)",
    )
}

async fn info(State(state): State<Shared>, Paired(device): Paired) -> Response {
    let Some(notifier) = &state.push else {
        return push_off();
    };
    let services: Vec<String> = device.push.iter().map(PushSubscription::service).collect();
    Json(json!({ "public_key": notifier.public_key(), "services": services })).into_response()
}

#[derive(Deserialize)]
struct SubscribeRequest {
    endpoint: String,
    keys: Keys,
}

#[derive(Deserialize)]
struct Keys {
    p256dh: String,
    auth: String,
}

#[derive(Deserialize)]
struct UnsubscribeRequest {
    endpoint: String,
}

/// Whether `p256dh` is an uncompressed point on P-256 (an agreement with a throwaway key
/// succeeds) and `auth` 16 bytes.
fn keys_usable(keys: &Keys) -> bool {
    let (Ok(public), Ok(auth)) = (
        URL_SAFE_NO_PAD.decode(keys.p256dh.trim_end_matches('=')),
        URL_SAFE_NO_PAD.decode(keys.auth.trim_end_matches('=')),
    ) else {
        return false;
    };
    if public.len() != 65 || public[0] != 4 || auth.len() != 16 {
        return false;
    }
    let random = ring::rand::SystemRandom::new();
    EphemeralPrivateKey::generate(&ECDH_P256, &random)
        .ok()
        .and_then(|mine| {
            agreement::agree_ephemeral(mine, &UnparsedPublicKey::new(&ECDH_P256, &public), |_| ())
                .ok()
        })
        .is_some()
}

async fn subscribe(
    State(state): State<Shared>,
    Paired(device): Paired,
    Json(request): Json<SubscribeRequest>,
) -> Response {
    let Some(notifier) = &state.push else {
        return push_off();
    };
    if let Err(refusal) = notifier.allow_list().check(&request.endpoint) {
        tracing::warn!(
            "device {} offered a push endpoint that is refused: {refusal}",
            device.id
        );
        return refuse(StatusCode::FORBIDDEN, &refusal.to_string());
    }
    if !keys_usable(&request.keys) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the subscription's keys are not a P-256 public key and a 16-byte secret",
        );
    }
    let subscription = PushSubscription {
        endpoint: request.endpoint,
        p256dh: request.keys.p256dh.trim_end_matches('=').to_owned(),
        auth: request.keys.auth.trim_end_matches('=').to_owned(),
        added_at: gatehouse_host_ipc::now(),
    };
    let services = {
        let mut store = state.devices.lock().unwrap();
        let services = store.subscribe(&device.id, subscription);
        if let Err(error) = store.save() {
            tracing::warn!("cannot keep the paired devices: {error:#}");
        }
        services
    };
    tracing::info!("device {} ({}) gets pushes", device.id, device.name);
    Json(json!({ "services": services })).into_response()
}

async fn unsubscribe(
    State(state): State<Shared>,
    Paired(device): Paired,
    Json(request): Json<UnsubscribeRequest>,
) -> Response {
    let services = {
        let mut store = state.devices.lock().unwrap();
        let services = store.unsubscribe(&device.id, &request.endpoint);
        if let Err(error) = store.save() {
            tracing::warn!("cannot keep the paired devices: {error:#}");
        }
        services
    };
    Json(json!({ "services": services })).into_response()
}
