//! The auth layer through the real router, request by request (`tower::ServiceExt::oneshot`):
//! Host and Origin checks, the device cookie, pairing tokens, and the headers on every response.
//! No gateway runs: a request that passes every check reaches the bridge and is refused there.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::auth::Access;
use super::bridge::Bridge;
use super::devices::{DeviceStore, MAX_FAILED_PAIRINGS};
use super::routes::{name_from_user_agent, router, WebState, SECURITY_HEADERS};

const HOST: &str = "127.0.0.1:7780";
const ORIGIN: &str = "http://127.0.0.1:7780";
const SOME_ID: &str = "019ad0f1-2b3c-7d4e-8f90-a1b2c3d4e5f6";

fn state() -> Arc<WebState> {
    Arc::new(WebState {
        access: Access::new(HOST.parse().unwrap(), vec!["devbox.example".into()], false),
        devices: Mutex::new(DeviceStore::open(None).unwrap()),
        bridge: Bridge::new("/nonexistent/gatehouse.sock".into()),
        link_base: ORIGIN.into(),
    })
}

fn get(path: &str, host: &str, cookie: Option<&str>) -> Request<Body> {
    let mut request = Request::get(path).header(header::HOST, host);
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    request.body(Body::empty()).unwrap()
}

fn post(path: &str, origin: Option<&str>, cookie: Option<&str>, body: &str) -> Request<Body> {
    let mut request = Request::post(path)
        .header(header::HOST, HOST)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(origin) = origin {
        request = request.header(header::ORIGIN, origin);
    }
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
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

/// Pairs through the route, as the page does, and returns the `Cookie` header to send.
async fn paired_cookie(state: &Arc<WebState>, app: &Router) -> String {
    let token = state
        .devices
        .lock()
        .unwrap()
        .open_pairing(Instant::now())
        .unwrap();
    let body = format!(r#"{{"token":"{}","name":"test phone"}}"#, token.expose());
    let (status, headers, _) = send(app, post("/api/pair", Some(ORIGIN), None, &body)).await;
    assert_eq!(status, StatusCode::OK);
    let set_cookie = headers[header::SET_COOKIE].to_str().unwrap().to_owned();
    set_cookie.split(';').next().unwrap().to_owned()
}

#[tokio::test]
async fn the_page_is_public_and_every_response_carries_the_security_headers() {
    let app = router(state());
    for path in ["/", "/app.js", "/app.css", "/api/prompts"] {
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
    assert!(!super::assets::APP_JS.contains("innerHTML"));
}

#[tokio::test]
async fn without_a_valid_device_cookie_no_route_gives_data_or_takes_an_answer() {
    let app = router(state());
    let forged = "gatehouse-device=".to_owned() + &"0".repeat(64);
    for cookie in [None, Some(forged.as_str())] {
        for path in ["/api/session", "/api/prompts", "/api/events"] {
            let (status, _, body) = send(&app, get(path, HOST, cookie)).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path} {cookie:?}");
            assert!(body.contains("gatehouse web pair"), "{body}");
        }
        let answer = format!(r#"{{"id":"{SOME_ID}","answer":{{"action":"once"}}}}"#);
        let (status, _, _) = send(&app, post("/api/answer", Some(ORIGIN), cookie, &answer)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let release = format!(r#"{{"id":"{SOME_ID}"}}"#);
        let (status, _, _) = send(&app, post("/api/release", Some(ORIGIN), cookie, &release)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
}

#[tokio::test]
async fn a_pairing_token_pairs_once_and_sets_a_private_cookie() {
    let state = state();
    let app = router(state.clone());
    let token = state
        .devices
        .lock()
        .unwrap()
        .open_pairing(Instant::now())
        .unwrap();
    let body = format!(r#"{{"token":"{}"}}"#, token.expose());
    let (status, headers, reply) = send(&app, post("/api/pair", Some(ORIGIN), None, &body)).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let set_cookie = headers[header::SET_COOKIE].to_str().unwrap();
    assert!(set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Strict"));
    assert!(
        !set_cookie.contains(token.expose()),
        "the cookie is not the pairing token"
    );
    let cookie = set_cookie.split(';').next().unwrap();
    let (status, _, session) = send(&app, get("/api/session", HOST, Some(cookie))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(session.contains(r#""name":"Browser""#), "{session}");
    let (status, _, prompts) = send(&app, get("/api/prompts", HOST, Some(cookie))).await;
    assert_eq!((status, prompts.as_str()), (StatusCode::OK, "[]"));
    let (again, _, reply) = send(&app, post("/api/pair", Some(ORIGIN), None, &body)).await;
    assert_eq!(again, StatusCode::FORBIDDEN, "{reply}");
    assert!(reply.contains("used up or expired"));
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
    let token = state
        .devices
        .lock()
        .unwrap()
        .open_pairing(Instant::now())
        .unwrap();
    let good = format!(r#"{{"token":"{}"}}"#, token.expose());
    let (status, _, _) = send(&app, post("/api/pair", Some(ORIGIN), None, &good)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn a_forged_host_gets_nothing_even_with_a_valid_cookie() {
    let state = state();
    let app = router(state.clone());
    let cookie = paired_cookie(&state, &app).await;
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
            let (status, _, body) = send(&app, get(path, host, Some(&cookie))).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{host} {path}");
            assert!(
                !body.contains("\"prompts\"") && !body.contains("<html"),
                "{body}"
            );
        }
    }
    let (status, _, _) = send(&app, get("/api/prompts", "devbox.example", Some(&cookie))).await;
    assert_eq!(status, StatusCode::OK, "a configured name is served");
    let (status, _, _) = send(&app, get("/api/prompts", "localhost:7780", Some(&cookie))).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_post_needs_this_origin_and_answers_name_the_full_id() {
    let state = state();
    let app = router(state.clone());
    let cookie = paired_cookie(&state, &app).await;
    let answer = format!(r#"{{"id":"{SOME_ID}","answer":{{"action":"once"}}}}"#);
    for origin in [
        None,
        Some("http://attacker.example"),
        Some("null"),
        Some("https://127.0.0.1:7780"),
    ] {
        let (status, _, _) = send(&app, post("/api/answer", origin, Some(&cookie), &answer)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{origin:?}");
    }
    let prefix = r#"{"id":"019ad0f1","answer":{"action":"once"}}"#;
    let (status, _, body) = send(
        &app,
        post("/api/answer", Some(ORIGIN), Some(&cookie), prefix),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // Every check passed: the request reaches the bridge, and no gateway runs here.
    let (status, _, body) = send(
        &app,
        post("/api/answer", Some(ORIGIN), Some(&cookie), &answer),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body.contains("no gateway is running"), "{body}");
    let not_json = Request::post("/api/answer")
        .header(header::HOST, HOST)
        .header(header::ORIGIN, ORIGIN)
        .header(header::COOKIE, &cookie)
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
    let state = state();
    let app = router(state.clone());
    let cookie = paired_cookie(&state, &app).await;
    let ids = state.devices.lock().unwrap().revoke(None);
    assert_eq!(ids.len(), 1);
    let (status, _, _) = send(&app, get("/api/prompts", HOST, Some(&cookie))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[test]
fn a_device_without_a_typed_name_is_named_after_its_browser() {
    let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36";
    assert_eq!(name_from_user_agent(android), "Chrome on Android");
    let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    assert_eq!(name_from_user_agent(iphone), "Safari on iPhone");
    assert_eq!(name_from_user_agent(""), "Browser");
}
