//! `gatehouse web` in front of a test gateway, and the real Chromium paired with it: the
//! [`Web`] process, [`Front`] (a gateway and its web front end in one call), pairing as the page
//! does (in a browser, or over raw HTTP), and what tests read from the page.
//!
//! Without Chromium and chromedriver, [`Front::start`] says the test is skipped (and fails in CI).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::panic::AssertUnwindSafe;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::{json, Value};

use super::{Gateway, Reaped};
use crate::support::browser::{browser_available, Browser};

/// How long `gatehouse web` may take to print its address.
const WEB_START_DEADLINE: Duration = Duration::from_secs(30);

/// A running `gatehouse web` on a free loopback port, stopped when dropped.
pub struct Web {
    pub process: Reaped,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// A pairing link from `gatehouse web pair` once it listens.
    pub first_link: String,
}

impl Web {
    pub fn start(gateway: &Gateway, listen: &str) -> Web {
        Web::start_with(gateway, listen, |_| {})
    }

    /// Like [`Web::start`], with `configure` applied to the command first.
    pub fn start_with(
        gateway: &Gateway,
        listen: &str,
        configure: impl FnOnce(&mut std::process::Command),
    ) -> Web {
        let mut command = gateway.command(&["web", "--listen", listen]);
        configure(&mut command);
        let mut process = Reaped::from(
            command
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("gatehouse web starts"),
        );
        let (lines, received) = mpsc::channel();
        let stdout = process.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        // Its output here is a pipe, not a terminal: it prints no pairing link of its own (a
        // service's output lands in a journal), so the first link is asked for, as a person would.
        let mut base = None;
        let start = Instant::now();
        loop {
            let left = WEB_START_DEADLINE.saturating_sub(start.elapsed());
            let line = received
                .recv_timeout(left)
                .expect("gatehouse web prints its address and where to get a pairing link");
            assert!(
                !line.contains("#pair="),
                "a pairing link reached a pipe: {line}"
            );
            if let Some(rest) = line.split("listening on ").nth(1) {
                base = rest.split_whitespace().next().map(str::to_owned);
            }
            if line.starts_with("No pairing link printed") {
                break;
            }
        }
        Web {
            process,
            base: base.expect("the address line"),
            first_link: pair_link(gateway),
        }
    }

    pub fn port(&self) -> u16 {
        self.base.rsplit(':').next().unwrap().parse().unwrap()
    }

    pub fn stop(&mut self) {
        self.process.stop();
    }
}

/// A test gateway with `gatehouse web` in front of it on a free loopback port; it derefs to the
/// gateway.
pub struct Front {
    // Dropped first: `gatehouse web` stops before its gateway.
    pub web: Web,
    pub gateway: Gateway,
}

impl Front {
    /// A gateway and its web front end, for a test in the real Chromium: `None` when Chromium
    /// is not installed (the test says it is skipped; in CI it fails).
    pub fn start() -> Option<Front> {
        browser_available().then(Front::start_without_browser)
    }

    /// [`Front::start`], then a Claude Code hook holding each of `events`' prompts, in order
    /// (see [`Sandbox::hold_claude`](crate::common::Sandbox::hold_claude)): the hooks, and the
    /// prompts as the gateway lists them.
    pub fn holding<const N: usize>(events: [Value; N]) -> Option<(Front, [(Reaped, Value); N])> {
        let front = Front::start()?;
        let held = events.map(|event| front.hold_claude(&event));
        Some((front, held))
    }

    /// A gateway and its web front end, for a test that speaks HTTP itself.
    pub fn start_without_browser() -> Front {
        let gateway = Gateway::start();
        let web = Web::start(&gateway, "127.0.0.1:0");
        Front { web, gateway }
    }
}

/// A test world with `gatehouse web` in it, that a browser pairs with through its first link.
pub trait Paired {
    fn web(&self) -> &Web;

    /// Runs `body` on a runtime of its own, in the browser `browser` opens, paired as `name`
    /// through `gatehouse web`'s first pairing link; the browser is closed even when `body`
    /// panics.
    fn with_paired(
        &self,
        browser: impl std::future::Future<Output = Browser>,
        name: &str,
        body: impl AsyncFnOnce(&Browser),
    ) {
        with_paired_browser(browser, &self.web().first_link, name, body);
    }
}

impl Paired for Front {
    fn web(&self) -> &Web {
        &self.web
    }
}

impl std::ops::Deref for Front {
    type Target = Gateway;

    fn deref(&self) -> &Gateway {
        &self.gateway
    }
}

impl std::ops::DerefMut for Front {
    fn deref_mut(&mut self) -> &mut Gateway {
        &mut self.gateway
    }
}

/// Runs `body` on a runtime of its own, in the browser `browser` opens, paired as `name`
/// through `link`; the browser is closed even when `body` panics.
pub fn with_paired_browser(
    browser: impl std::future::Future<Output = Browser>,
    link: &str,
    name: &str,
    body: impl AsyncFnOnce(&Browser),
) {
    run(async {
        using(browser.await, async |browser| {
            pair(browser, link, name).await;
            body(browser).await;
        })
        .await;
    });
}

/// A new pairing link from `gatehouse web pair --json`.
pub fn pair_link(gateway: &Gateway) -> String {
    let output = gateway.run(&["web", "pair", "--json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reply: Value = serde_json::from_slice(&output.stdout).expect("pair --json prints JSON");
    assert!(reply["expires_at"].is_string());
    reply["url"].as_str().unwrap().to_owned()
}

/// Runs an async test body on a runtime of its own.
pub fn run(body: impl std::future::Future<Output = ()>) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(body);
}

/// Runs `body` with a fresh browser, and closes the browser even when `body` panics.
pub async fn with_browser(size: (u32, u32), body: impl AsyncFnOnce(&Browser)) {
    using(Browser::start(size).await, body).await;
}

/// Runs `body` with `browser`, and closes it even when `body` panics.
pub async fn using(browser: Browser, body: impl AsyncFnOnce(&Browser)) {
    let outcome = AssertUnwindSafe(body(&browser)).catch_unwind().await;
    browser.close().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Where the page keeps its device token: this origin's `localStorage`.
pub const TOKEN_KEY: &str = "gatehouse-device-token";

/// The device token the page keeps, if any.
pub async fn stored_token(browser: &Browser) -> Option<String> {
    browser
        .client
        .execute(
            &format!("return localStorage.getItem('{TOKEN_KEY}')"),
            vec![],
        )
        .await
        .expect("localStorage is readable")
        .as_str()
        .map(str::to_owned)
}

/// Opens a pairing link and pairs as `name`, then waits until the page is live.
pub async fn pair(browser: &Browser, link: &str, name: &str) {
    browser.open(link).await;
    browser.wait_for("[data-pair-form]:not([hidden])").await;
    let address = browser.client.current_url().await.unwrap();
    assert!(
        address.fragment().is_none(),
        "the token left the address bar: {address}"
    );
    browser.type_into("[data-device-name]", name).await;
    browser.click("[data-pair-submit]").await;
    browser.wait_for("[data-app]:not([hidden])").await;
    browser.wait_for("[data-connection][data-up='true']").await;
    let token = stored_token(browser)
        .await
        .expect("the page keeps its device token");
    assert_eq!(token.len(), 64, "a 256-bit token in hex");
    let cookies = browser.client.get_all_cookies().await.unwrap();
    assert!(cookies.is_empty(), "no cookie is set: {cookies:?}");
}

/// The CSS selector of a prompt's card.
pub fn card(id: &str) -> String {
    format!("[data-prompt-id='{id}']")
}

/// The command (or other input) the card of prompt `id` shows, once the card is there.
pub async fn card_input_text(browser: &Browser, id: &str) -> String {
    let input = format!("{} [data-input]", card(id));
    browser.wait_for(&input).await;
    browser.text(&input).await
}

/// Runs a script in the page; its result.
pub async fn script(browser: &Browser, source: &str, arguments: Vec<Value>) -> Value {
    browser
        .client
        .execute(source, arguments)
        .await
        .unwrap_or_else(|error| panic!("the page runs `{source}`: {error}"))
}

/// The `textContent` of the first element matching `css` (also inside a collapsed list), or "".
pub async fn dom_text(browser: &Browser, css: &str) -> String {
    script(
        browser,
        "const node = document.querySelector(arguments[0]); return node ? node.textContent : ''",
        vec![json!(css)],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// Waits until the prompt's card offers no action and says why (an ended card sits in the
/// collapsed "recently ended" list, so its text is read from the DOM).
pub async fn wait_until_ended(browser: &Browser, id: &str, why: &str) {
    let card = card(id);
    browser
        .wait_until(
            Duration::from_secs(5),
            &format!("{card} to stop offering actions"),
            async |page| {
                page.count(&format!("{card} [data-action]")).await == 0
                    && dom_text(page, &format!("{card} [data-status]"))
                        .await
                        .contains(why)
            },
        )
        .await;
}

/// One raw HTTP/1.1 request; the status and the body.
pub fn http(port: u16, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, reply)
}

/// Pairs over HTTP as the page does; the device token from the reply (no cookie is set).
pub fn pair_over_http(port: u16, link: &str) -> String {
    let host = format!("127.0.0.1:{port}");
    let token = link.split("#pair=").nth(1).unwrap();
    let body = format!(r#"{{"token":"{token}","name":"curl"}}"#);
    let (status, reply) = http(port, &format!(
        "POST /api/pair HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    assert_eq!(status, 200, "{reply}");
    assert!(
        !reply.to_ascii_lowercase().contains("set-cookie"),
        "{reply}"
    );
    let json = reply.split("\r\n\r\n").nth(1).expect("a body");
    let json: Value = serde_json::from_str(json).expect("the pairing reply is JSON");
    json["token"].as_str().expect("a device token").to_owned()
}
