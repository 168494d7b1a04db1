//! The HTTP routes of `gatehouse web`, and the checks in front of them.
//!
//! Every request: the `Host` must name this server ([`Access::host_allowed`]), else 403; every
//! response carries the Content-Security-Policy and the other headers in [`SECURITY_HEADERS`].
//! Every POST must carry this server's own `Origin`, else 403, and a JSON body (a cross-site form
//! cannot send one). The page and its assets are public; every route that carries prompt data or
//! takes an answer needs a paired device's token in `Authorization: Bearer` ([`Paired`]), else
//! 401. No cookie is ever read or set (see [`super::auth`] for why).
//!
//! | route | needs | does |
//! | --- | --- | --- |
//! | `GET /`, `/text.js`, and each of [`assets::FILES`] | | the page, its scripts, style, service worker, manifest and icons, embedded in the binary |
//! | `POST /api/pair` | a pairing token | pairs this browser: replies with its device token |
//! | `GET /api/session` | token | which device this is |
//! | `GET /api/prompts` | token | the live prompts, as wire `Prompt`s |
//! | `GET /api/events` | token | server-sent events: a snapshot, then each change ([`Feed`]) |
//! | `POST /api/answer` | token | `{"id": full id, "answer": wire Answer}` |
//! | `POST /api/release` | token | `{"id": full id}` |
//! | `/api/push/...` | token | Web Push: see [`super::push::api`] |
//!
//! Request bodies are limited to [`MAX_BODY_BYTES`].

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::DefaultBodyLimit;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::Stream;
use gatehouse_core::{Answer, DecisionId};
use serde::Deserialize;
use serde_json::json;

use super::assets;
use super::auth::{device_token, Access};
use super::bridge::Bridge;
use super::connections::{ConnectionTicket, Connections};
use super::devices::{Device, DeviceStore, DeviceView, PairingRefusal};
use super::feed::Feed;

/// The largest request body read: an answer with a long message is a few KB.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Headers on every response.
pub const SECURITY_HEADERS: [(&str, &str); 5] = [
    (
        "content-security-policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("x-frame-options", "DENY"),
    ("cache-control", "no-store"),
];

/// What every handler shares.
pub struct WebState {
    pub access: Access,
    pub devices: Mutex<DeviceStore>,
    pub bridge: Arc<Bridge>,
    /// The open connections: a revoked device's are closed at once.
    pub connections: Arc<Connections>,
    /// The start of every pairing link: `http(s)://host:port`.
    pub link_base: String,
    /// Web Push and ntfy; `None` when push is off (its key could not be kept).
    pub push: Option<Arc<super::push::notifier::Notifier>>,
    /// `/agents.js`: the agents' names for people ([`assets::agents_js`]).
    pub agents_js: String,
}

pub type Shared = Arc<WebState>;

pub fn router(state: Shared) -> Router {
    let mut router = Router::new();
    for &(path, content_type, body) in assets::FILES {
        router = router.route(path, get(move || async move { page(body, content_type) }));
    }
    router
        .route(
            "/text.js",
            get(|| async {
                page(
                    assets::text_js().as_bytes(),
                    "text/javascript; charset=utf-8",
                )
            }),
        )
        .route(
            "/agents.js",
            get(|State(state): State<Shared>| async move {
                let content_type = "text/javascript; charset=utf-8";
                (
                    [(header::CONTENT_TYPE, content_type)],
                    state.agents_js.clone(),
                )
                    .into_response()
            }),
        )
        .route("/api/pair", post(pair))
        .route("/api/session", get(session))
        .route("/api/prompts", get(prompts))
        .route("/api/events", get(events))
        .route("/api/prompt/{id}", get(prompt_whole))
        .route("/api/answer", post(answer))
        .route("/api/release", post(release))
        .merge(super::push::api::routes())
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

fn page(body: &'static [u8], content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

fn refuse(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

fn text_header(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The checks every request meets, and the headers every response gets.
async fn guard(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = text_header(headers, header::HOST).unwrap_or("");
    let mut response = if !state.access.host_allowed(host) {
        refuse(
            StatusCode::FORBIDDEN,
            "this server does not answer to that address; its owner can add the name with `gatehouse web --host NAME`",
        )
    } else if request.method() == Method::POST
        && !text_header(headers, header::ORIGIN)
            .is_some_and(|origin| state.access.origin_allowed(origin, host))
    {
        refuse(
            StatusCode::FORBIDDEN,
            "a change must come from this page itself",
        )
    } else {
        next.run(request).await
    };
    for (name, value) in SECURITY_HEADERS {
        response.headers_mut().insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    response
}

/// A request from a paired device (its token in `Authorization: Bearer`): the device it came
/// from. Its connection is marked as a paired device's, so no flood pushes it out.
pub struct Paired(pub Device);

impl FromRequestParts<Shared> for Paired {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, Response> {
        let token = text_header(&parts.headers, header::AUTHORIZATION).and_then(device_token);
        let device = token.and_then(|token| {
            state
                .devices
                .lock()
                .unwrap()
                .device_for(token, gatehouse_host_ipc::now())
        });
        if let (Some(device), Some(ticket)) = (&device, parts.extensions.get::<ConnectionTicket>())
        {
            ticket.mark_paired(&device.id);
        }
        device.map(Paired).ok_or_else(|| {
            refuse(
                StatusCode::UNAUTHORIZED,
                "this browser is not paired; run `gatehouse web pair` and open the link it prints",
            )
        })
    }
}

#[derive(Deserialize)]
struct PairRequest {
    token: String,
    #[serde(default)]
    name: Option<String>,
}

/// Pairs this browser with a pairing token. The device token goes back in the body only: the
/// page keeps it in its own origin's storage and sends it in a header.
async fn pair(
    State(state): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<PairRequest>,
) -> Response {
    let name = request
        .name
        .filter(|name| !name.trim().is_empty())
        .unwrap_or_else(|| {
            name_from_user_agent(text_header(&headers, header::USER_AGENT).unwrap_or(""))
        });
    let paired = {
        let mut store = state.devices.lock().unwrap();
        let paired = store.pair(
            &request.token,
            &name,
            Instant::now(),
            gatehouse_host_ipc::now(),
        );
        if paired.is_ok() {
            if let Err(error) = store.save() {
                tracing::warn!("cannot keep the paired devices: {error:#}");
            }
        }
        paired
    };
    match paired {
        Ok((device, device_token)) => {
            tracing::info!("paired device {} ({})", device.id, device.name);
            Json(json!({
                "device": DeviceView::from(&device),
                "token": device_token.expose(),
            }))
            .into_response()
        }
        Err(PairingRefusal::RateLimited) => refuse(
            StatusCode::TOO_MANY_REQUESTS,
            "too many failed pairing attempts; wait a minute and open a fresh link from `gatehouse web pair`",
        ),
        Err(PairingRefusal::Invalid) => refuse(
            StatusCode::FORBIDDEN,
            "this pairing link is used up or expired; run `gatehouse web pair` for a new one",
        ),
    }
}

/// A name for a device that did not type one: its browser and system, from the User-Agent.
pub fn name_from_user_agent(agent: &str) -> String {
    let browser = [
        ("Edg/", "Edge"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    .into_iter()
    .find(|(mark, _)| agent.contains(mark))
    .map_or("Browser", |(_, name)| name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Mac OS X", "macOS"),
        ("Windows", "Windows"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(mark, _)| agent.contains(mark))
    .map(|(_, name)| name);
    match system {
        Some(system) => format!("{browser} on {system}"),
        None => browser.to_owned(),
    }
}

/// Which device this is, and this machine's host name and home folder: the page marks prompts
/// whose host is this one's as local, and shows their folders with `~`.
async fn session(Paired(device): Paired) -> Response {
    let home = std::env::var("HOME").unwrap_or_default();
    Json(json!({
        "device": DeviceView::from(&device),
        "host": gatehouse_host_ipc::host::own_host_name(),
        "home": home,
    }))
    .into_response()
}

async fn prompts(State(state): State<Shared>, _: Paired) -> Response {
    Json(state.bridge.prompts()).into_response()
}

async fn events(
    State(state): State<Shared>,
    Paired(device): Paired,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let feed = Feed::open(&state, device.id);
    let stream = futures_util::stream::unfold(feed, |mut feed| async move {
        let data = feed.next().await?;
        Some((Ok(SseEvent::default().data(&*data)), feed))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

#[derive(Deserialize)]
struct AnswerRequest {
    id: String,
    answer: Answer,
    /// The digest `/api/prompt/{id}` gave with the whole prompt: approving a prompt that the
    /// gateway lists cut needs it.
    #[serde(default)]
    seen: Option<String>,
}

#[derive(Deserialize)]
struct ReleaseRequest {
    id: String,
}

/// The prompt a request names: a full id only, never a prefix.
fn full_id(id: &str) -> Option<DecisionId> {
    id.parse().ok()
}

fn not_a_full_id() -> Response {
    refuse(
        StatusCode::BAD_REQUEST,
        "answers name a prompt by its full id, as the page has it",
    )
}

async fn answer(
    State(state): State<Shared>,
    Paired(device): Paired,
    Json(request): Json<AnswerRequest>,
) -> Response {
    let Some(id) = full_id(&request.id) else {
        return not_a_full_id();
    };
    let result = state
        .bridge
        .answer(&device.name, id, request.answer, request.seen)
        .await;
    acted(result)
}

/// One prompt whole, with its digest: what a page shows before it may approve a prompt that
/// the feed carries cut.
async fn prompt_whole(
    State(state): State<Shared>,
    Paired(device): Paired,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let Some(id) = full_id(&id) else {
        return not_a_full_id();
    };
    match state.bridge.prompt_whole(&device.name, id).await {
        Ok(whole) => Json(whole).into_response(),
        Err(message) => refuse(StatusCode::CONFLICT, &message),
    }
}

async fn release(
    State(state): State<Shared>,
    Paired(device): Paired,
    Json(request): Json<ReleaseRequest>,
) -> Response {
    let Some(id) = full_id(&request.id) else {
        return not_a_full_id();
    };
    acted(state.bridge.release(&device.name, id).await)
}

fn acted(result: Result<gatehouse_core::PromptState, String>) -> Response {
    match result {
        Ok(state) => Json(json!({ "state": state })).into_response(),
        Err(message) => refuse(StatusCode::CONFLICT, &message),
    }
}
