//! The auth layer through the real router, request by request (`tower::ServiceExt::oneshot`):
//! Host and Origin checks, the device token (a header, never a cookie), pairing tokens, the live
//! feed of a revoked device, and the headers on every response. No gateway runs: a request that
//! passes every check reaches the bridge and is refused there.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::auth::{Access, Secret};
use super::bridge::{Bridge, FEED_DEPTH};
use super::connections::{ConnectionLimits, Connections};
use super::control::{ControlReply, ControlRequest};
use super::devices::{DeviceStore, MAX_FAILED_PAIRINGS};
use super::routes::{name_from_user_agent, router, WebState, SECURITY_HEADERS};
use super::serve::answer_control;

const HOST: &str = "127.0.0.1:7780";
const ORIGIN: &str = "http://127.0.0.1:7780";
const SOME_ID: &str = "019ad0f1-2b3c-7d4e-8f90-a1b2c3d4e5f6";

/// The binary's words stand for a test: a missing gateway is said so, the rest as typed.
/// The body of an answer `once` for [`SOME_ID`].
fn once_for_some_id() -> String {
    format!(r#"{{"id":"{SOME_ID}","answer":{{"action":"once"}}}}"#)
}

fn test_words(socket: &std::path::Path, error: &gatehouse_host_ipc::ClientError) -> String {
    match error {
        gatehouse_host_ipc::ClientError::Socket(
            gatehouse_host_ipc::socket::SocketError::Connect { .. },
        ) => format!("no gateway is running on {}", socket.display()),
        other => other.to_string(),
    }
}

fn state() -> Arc<WebState> {
    Arc::new(WebState {
        access: Access::new(HOST.parse().unwrap(), vec!["devbox.example".into()], false),
        devices: Mutex::new(DeviceStore::open(None).unwrap()),
        bridge: Bridge::new("/nonexistent/gatehouse.sock".into(), test_words),
        connections: Connections::new(ConnectionLimits::for_open_file_limit(1_024)),
        link_base: ORIGIN.into(),
        push: None,
        agents_js: crate::assets::agents_js(&[("toy".into(), "Toy Agent \"</script>".into())]),
    })
}

/// The page names agents as the binary's registry does, from `/agents.js`, which needs no
/// pairing (it says nothing of any prompt) and holds the names as JSON strings.
#[tokio::test]
async fn the_agents_names_come_from_the_binary_as_a_script_of_json() {
    let app = crate::routes::router(state());
    let response = app.oneshot(get("/agents.js", HOST, None)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = axum::body::to_bytes(response.into_body(), 1 << 16)
        .await
        .unwrap();
    assert_eq!(
        std::str::from_utf8(&body).unwrap(),
        "globalThis.GATEHOUSE_AGENT_NAMES = Object.freeze({\"toy\":\"Toy Agent \\\"</script>\"});\n"
    );
}

/// `authorization` is the whole `Authorization` header's value (`Bearer <token>`).
fn get(path: &str, host: &str, authorization: Option<&str>) -> Request<Body> {
    let mut request = Request::get(path).header(header::HOST, host);
    if let Some(authorization) = authorization {
        request = request.header(header::AUTHORIZATION, authorization);
    }
    request.body(Body::empty()).unwrap()
}

fn post(
    path: &str,
    origin: Option<&str>,
    authorization: Option<&str>,
    body: &str,
) -> Request<Body> {
    let mut request = Request::post(path)
        .header(header::HOST, HOST)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(origin) = origin {
        request = request.header(header::ORIGIN, origin);
    }
    if let Some(authorization) = authorization {
        request = request.header(header::AUTHORIZATION, authorization);
    }
    request.body(Body::from(body.to_owned())).unwrap()
}

async fn send(app: &Router, request: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

/// A pairing token, as `gatehouse web pair` shows one.
fn open_pairing(state: &WebState) -> Secret {
    state
        .devices
        .lock()
        .unwrap()
        .open_pairing(Instant::now())
        .unwrap()
}

/// Pairs through the route, as the page does, and returns the `Authorization` header to send.
/// A fresh state, its router, and the authorization header of a device paired on it.
async fn paired_app() -> (Arc<WebState>, Router, String) {
    let state = state();
    let app = router(state.clone());
    let authorization = paired_authorization(&state, &app).await;
    (state, app, authorization)
}

async fn paired_authorization(state: &Arc<WebState>, app: &Router) -> String {
    let token = open_pairing(state);
    let body = format!(r#"{{"token":"{}","name":"test phone"}}"#, token.expose());
    let (status, headers, reply) = send(app, post("/api/pair", Some(ORIGIN), None, &body)).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert!(
        headers.get(header::SET_COOKIE).is_none(),
        "no cookie is set"
    );
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    format!("Bearer {}", reply["token"].as_str().unwrap())
}

#[tokio::test]
async fn the_page_is_public_and_every_response_carries_the_security_headers() {
    let app = router(state());
    for path in ["/", "/app.js", "/text.js", "/app.css", "/api/prompts"] {
        let (_, headers, _) = send(&app, get(path, HOST, None)).await;
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(headers[name], value, "{path}");
        }
    }
    let (status, headers, body) = send(&app, get("/", HOST, None)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(
        body.contains("data-unpaired") && !body.contains("<script>"),
        "no inline script"
    );
    for (path, content_type, body) in super::assets::FILES {
        if content_type.starts_with("text/javascript") {
            let script = std::str::from_utf8(body).unwrap();
            for markup in [
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "document.write",
                "eval(",
            ] {
                assert!(!script.contains(markup), "{path} uses {markup}");
            }
        }
        let (status, headers, _) = send(&app, get(path, HOST, None)).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers[header::CONTENT_TYPE], *content_type, "{path}");
    }
}

#[tokio::test]
async fn without_a_valid_device_token_no_route_gives_data_or_takes_an_answer() {
    let app = router(state());
    let forged = "Bearer ".to_owned() + &"0".repeat(64);
    for authorization in [None, Some(forged.as_str())] {
        for path in ["/api/session", "/api/prompts", "/api/events"] {
            let (status, _, body) = send(&app, get(path, HOST, authorization)).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path} {authorization:?}");
            assert!(body.contains("gatehouse web pair"), "{body}");
        }
        let release = format!(r#"{{"id":"{SOME_ID}"}}"#);
        for (path, body) in [
            ("/api/answer", once_for_some_id()),
            ("/api/release", release),
        ] {
            let (status, _, _) = send(&app, post(path, Some(ORIGIN), authorization, &body)).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path} {authorization:?}");
        }
    }
}

#[tokio::test]
async fn a_pairing_token_pairs_once_and_hands_the_device_token_only_to_the_page() {
    let state = state();
    let app = router(state.clone());
    let token = open_pairing(&state);
    let body = format!(r#"{{"token":"{}"}}"#, token.expose());
    let (status, headers, reply) = send(&app, post("/api/pair", Some(ORIGIN), None, &body)).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert!(
        headers.get(header::SET_COOKIE).is_none(),
        "a cookie would reach every port of this host"
    );
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let device_token = reply["token"].as_str().unwrap();
    assert_ne!(device_token, token.expose(), "not the pairing token");
    let authorization = format!("Bearer {device_token}");
    let (status, _, session) = send(&app, get("/api/session", HOST, Some(&authorization))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(session.contains(r#""name":"Browser""#), "{session}");
    let (status, _, prompts) = send(&app, get("/api/prompts", HOST, Some(&authorization))).await;
    assert_eq!((status, prompts.as_str()), (StatusCode::OK, "[]"));
    let (again, _, reply) = send(&app, post("/api/pair", Some(ORIGIN), None, &body)).await;
    assert_eq!(again, StatusCode::FORBIDDEN, "{reply}");
    assert!(reply.contains("used up or expired"));
}

#[tokio::test]
async fn the_device_token_in_a_cookie_opens_nothing() {
    let (_, app, authorization) = paired_app().await;
    let token = authorization.strip_prefix("Bearer ").unwrap();
    // Whatever a browser sends to another port of this host is a cookie at most.
    for cookie in [
        format!("gatehouse-device={token}"),
        format!("__Host-gatehouse-device={token}"),
        format!("Authorization=Bearer {token}"),
    ] {
        for path in ["/api/session", "/api/prompts", "/api/events"] {
            let request = Request::get(path)
                .header(header::HOST, HOST)
                .header(header::COOKIE, &cookie)
                .body(Body::empty())
                .unwrap();
            let (status, _, body) = send(&app, request).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path} {cookie}: {body}");
        }
        let request = Request::post("/api/answer")
            .header(header::HOST, HOST)
            .header(header::ORIGIN, ORIGIN)
            .header(header::COOKIE, &cookie)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(once_for_some_id()))
            .unwrap();
        let (status, _, _) = send(&app, request).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{cookie}");
    }
    // Another origin's script cannot send the header either: a preflight gets no CORS grant.
    let preflight = Request::options("/api/prompts")
        .header(header::HOST, HOST)
        .header(header::ORIGIN, "http://127.0.0.1:9999")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "authorization")
        .body(Body::empty())
        .unwrap();
    let (status, headers, _) = send(&app, preflight).await;
    assert!(!status.is_success(), "{status}");
    assert!(
        !headers
            .keys()
            .any(|name| name.as_str().starts_with("access-control-")),
        "{headers:?}"
    );
}

#[tokio::test]
async fn pairing_attempts_are_rate_limited() {
    let state = state();
    let app = router(state.clone());
    let bad = format!(r#"{{"token":"{}"}}"#, "f".repeat(64));
    for _ in 0..MAX_FAILED_PAIRINGS {
        let (status, _, _) = send(&app, post("/api/pair", Some(ORIGIN), None, &bad)).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    let token = open_pairing(&state);
    let good = format!(r#"{{"token":"{}"}}"#, token.expose());
    let (status, _, _) = send(&app, post("/api/pair", Some(ORIGIN), None, &good)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn a_forged_host_gets_nothing_even_with_a_valid_token() {
    let (_, app, authorization) = paired_app().await;
    for host in [
        "attacker.example:7780",
        "127.0.0.1:8080",
        "",
        "devbox.example.evil:7780",
    ] {
        for path in [
            "/",
            "/app.js",
            "/api/prompts",
            "/api/events",
            "/api/session",
        ] {
            let (status, _, body) = send(&app, get(path, host, Some(&authorization))).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{host} {path}");
            assert!(
                !body.contains("\"prompts\"") && !body.contains("<html"),
                "{body}"
            );
        }
    }
    let (status, _, _) = send(
        &app,
        get("/api/prompts", "devbox.example", Some(&authorization)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "a configured name is served");
    let (status, _, _) = send(
        &app,
        get("/api/prompts", "localhost:7780", Some(&authorization)),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_post_needs_this_origin_and_answers_name_the_full_id() {
    let (_, app, authorization) = paired_app().await;
    let answer = once_for_some_id();
    for origin in [
        None,
        Some("http://attacker.example"),
        Some("null"),
        Some("https://127.0.0.1:7780"),
    ] {
        let (status, _, _) = send(
            &app,
            post("/api/answer", origin, Some(&authorization), &answer),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{origin:?}");
    }
    let prefix = r#"{"id":"019ad0f1","answer":{"action":"once"}}"#;
    let (status, _, body) = send(
        &app,
        post("/api/answer", Some(ORIGIN), Some(&authorization), prefix),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // Every check passed: the request reaches the bridge, and no gateway runs here.
    let (status, _, body) = send(
        &app,
        post("/api/answer", Some(ORIGIN), Some(&authorization), &answer),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body.contains("no gateway is running"), "{body}");
    let not_json = Request::post("/api/answer")
        .header(header::HOST, HOST)
        .header(header::ORIGIN, ORIGIN)
        .header(header::AUTHORIZATION, &authorization)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("id=x"))
        .unwrap();
    let (status, _, _) = send(&app, not_json).await;
    assert_eq!(
        status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "a cross-site form cannot answer"
    );
}

#[tokio::test]
async fn a_revoked_device_is_refused_at_once() {
    let (state, app, authorization) = paired_app().await;
    let ids = state.devices.lock().unwrap().revoke(None);
    assert_eq!(ids.len(), 1);
    let (status, _, _) = send(&app, get("/api/prompts", HOST, Some(&authorization))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

/// The next `data:` of a server-sent event stream, or `None` when the stream ended.
async fn next_event(body: &mut Body) -> Option<String> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .expect("the feed says something within 10 s")?
            .expect("the feed's body does not fail");
        if let Ok(data) = frame.into_data() {
            let text = String::from_utf8_lossy(&data).into_owned();
            if let Some(data) = text.lines().find_map(|line| line.strip_prefix("data: ")) {
                return Some(data.to_owned());
            }
        }
    }
}

/// The live feed of a device paired through the route, as the page opens it.
async fn paired_feed(state: &Arc<WebState>) -> Body {
    let app = router(state.clone());
    let authorization = paired_authorization(state, &app).await;
    let response = app
        .oneshot(get("/api/events", HOST, Some(&authorization)))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.into_body()
}

#[tokio::test]
async fn a_revoked_devices_feed_ends_at_once_even_when_it_lags() {
    let state = state();
    let mut body = paired_feed(&state).await;
    let first = next_event(&mut body).await.unwrap();
    assert!(first.contains(r#""type":"snapshot""#), "{first}");
    // The page reads nothing while more messages than the feed keeps go by: it lags.
    for index in 0..FEED_DEPTH + 16 {
        state
            .bridge
            .broadcast(format!(r#"{{"type":"filler","index":{index}}}"#).into());
    }
    let ControlReply::Revoked { ids } = answer_control(&state, ControlRequest::Revoke { id: None })
    else {
        panic!("the device is revoked");
    };
    assert_eq!(ids.len(), 1);
    // The broadcast goes on after the revocation, as new prompts would.
    state.bridge.broadcast(r#"{"type":"after"}"#.into());
    assert_eq!(
        next_event(&mut body).await.as_deref(),
        Some(r#"{"type":"unpaired"}"#),
        "no snapshot, nothing more"
    );
    assert_eq!(next_event(&mut body).await, None, "the feed ended");
}

#[tokio::test]
async fn a_revoked_devices_idle_feed_ends_at_once() {
    let state = state();
    let mut body = paired_feed(&state).await;
    assert!(next_event(&mut body).await.unwrap().contains("snapshot"));
    answer_control(&state, ControlRequest::Revoke { id: None });
    assert_eq!(
        next_event(&mut body).await.as_deref(),
        Some(r#"{"type":"unpaired"}"#)
    );
    assert_eq!(next_event(&mut body).await, None);
}

#[test]
fn a_device_without_a_typed_name_is_named_after_its_browser() {
    let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36";
    assert_eq!(name_from_user_agent(android), "Chrome on Android");
    let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    assert_eq!(name_from_user_agent(iphone), "Safari on iPhone");
    assert_eq!(name_from_user_agent(""), "Browser");
}

#[test]
fn a_loopback_link_is_told_from_one_a_phone_can_open() {
    use super::loopback_port;
    assert_eq!(loopback_port("http://127.0.0.1:7780/#pair=ab"), Some(7780));
    assert_eq!(loopback_port("http://[::1]:7781/#pair=ab"), Some(7781));
    assert_eq!(loopback_port("http://localhost:7782/#pair=ab"), Some(7782));
    assert_eq!(loopback_port("https://192.168.1.20:7780/#pair=ab"), None);
    assert_eq!(
        loopback_port("https://devbox.tailnet.ts.net:7780/#pair=ab"),
        None
    );
}
