//! Benchmark: `gatehouse web`, the browser front end.
//!
//! Run with `cargo bench --bench web` (docs/PERFORMANCE.md has results). Against a release
//! `gatehouse serve` and `gatehouse web` on loopback, with one paired device:
//!
//! 1. latency: a prompt registered (`hook.hold` sent) to its `added` event read by a page's
//!    server-sent event stream, p50/p99 over `GATEHOUSE_BENCH_ROUNDS` (200) rounds;
//! 2. fan-out: the same with 50 pages connected, to the last of the 50;
//! 3. 1,000 pending prompts: the snapshot a page gets on connecting (size, time), and, when
//!    Chromium and chromedriver are installed, the real page rendering all 1,000 cards;
//! 4. the resident memory of the web process, idle and with 1,000 prompts and 50 pages;
//! 5. Web Push: a prompt registered to its push received by a push service on loopback (plain
//!    HTTP, listed in `[web] push_endpoints`; the whole path: VAPID signature, RFC 8291
//!    encryption, one fresh connection per push), p50/p99 over the same rounds.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gatehouse_core::NewPrompt;
use gatehouse_host_ipc::{Role, SocketClient};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

mod common;

use common::{bash_prompt, count_from_env, hold, BenchGateway};

const ROUNDS: usize = 200;
const PAGES: usize = 50;
const PENDING: usize = 1_000;

/// A Bash prompt in one of 10 sessions.
fn prompt(index: usize) -> NewPrompt {
    bash_prompt(index, &format!("session-{}", index % 10))
}

/// Like [`prompt`], for the Bash command `command` alone (no description).
fn prompt_running(index: usize, command: String) -> NewPrompt {
    let mut new = prompt(index);
    new.input = serde_json::json!({ "command": command });
    new.summary = command.clone();
    new.correlation = format!("Bash:{command}");
    new
}

/// A running `gatehouse web`.
struct Web {
    process: Child,
    port: u16,
    first_link: String,
}

/// A push service on loopback: the instant each POST's body arrived. It answers 201.
async fn push_service() -> (u16, mpsc::UnboundedReceiver<Instant>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, receiver) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let sender = sender.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::new(stream);
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end().to_ascii_lowercase();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(value) = line.strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).await.is_err() {
                    return;
                }
                let _ = sender.send(Instant::now());
                let _ = reader
                    .get_mut()
                    .write_all(
                        b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
            });
        }
    });
    (port, receiver)
}

/// Lists the push service in the config file `gatehouse web` reads.
fn list_push_service(gateway: &BenchGateway, port: u16) {
    let folder = gateway.folder.join("home/.config/gatehouse");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("config.toml"),
        format!("[web]\npush_endpoints = [\"http://127.0.0.1:{port}/push/\"]\n"),
    )
    .unwrap();
}

/// Subscribes the paired device to the push service, with a key made as a browser makes it.
async fn subscribe(web: &Web, authorization: &str, push_port: u16) {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    use ring::rand::SecureRandom as _;
    let random = ring::rand::SystemRandom::new();
    let key = ring::agreement::EphemeralPrivateKey::generate(&ring::agreement::ECDH_P256, &random)
        .unwrap();
    let mut auth = [0u8; 16];
    random.fill(&mut auth).unwrap();
    let body = serde_json::json!({
        "endpoint": format!("http://127.0.0.1:{push_port}/push/bench"),
        "keys": {
            "p256dh": URL_SAFE_NO_PAD.encode(key.compute_public_key().unwrap().as_ref()),
            "auth": URL_SAFE_NO_PAD.encode(auth),
        },
    })
    .to_string();
    post_as_the_page(web, authorization, "/api/push/subscribe", &body).await;
}

/// POSTs the JSON `body` to `path` as the paired page would; panics unless it gets a 200.
async fn post_as_the_page(web: &Web, authorization: &str, path: &str, body: &str) {
    let reply = post_json(web, Some(authorization), path, body).await;
    assert!(
        reply.starts_with("HTTP/1.1 200"),
        "POST {path} failed: {reply}"
    );
}

/// POSTs the JSON `body` to `path` from the page's origin (with `authorization` when given) and
/// returns the whole reply, headers and body.
async fn post_json(web: &Web, authorization: Option<&str>, path: &str, body: &str) -> String {
    let authorization = authorization
        .map(|value| format!("Authorization: {value}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n{authorization}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len(),
        port = web.port
    );
    let mut stream = TcpStream::connect(("127.0.0.1", web.port)).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    reply
}

/// Drops the subscription again, so that the later measurements send no pushes.
async fn unsubscribe(web: &Web, authorization: &str, push_port: u16) {
    let body =
        serde_json::json!({ "endpoint": format!("http://127.0.0.1:{push_port}/push/bench") })
            .to_string();
    post_as_the_page(web, authorization, "/api/push/unsubscribe", &body).await;
}

/// Prompt registered (`hook.hold` sent) to its push received, for `count` prompts one by one.
async fn push_rounds(
    socket: &Path,
    pushes: &mut mpsc::UnboundedReceiver<Instant>,
    count: usize,
    hooks: &mut Vec<JoinHandle<bool>>,
) -> Vec<Duration> {
    let mut latencies = Vec::with_capacity(count);
    for round in 0..count {
        let new = prompt_running(round, format!("make push-{round}"));
        let sent = Instant::now();
        hooks.push(hold(socket, new));
        let received = pushes.recv().await.expect("the push service runs");
        latencies.push(received - sent);
    }
    latencies
}

// The caller kills and waits for the process (`Web::process`).
#[allow(clippy::zombie_processes)]
fn start_web(gateway: &BenchGateway) -> Web {
    let mut process = Command::new(&gateway.binary)
        .args(["web", "--listen", "127.0.0.1:0"])
        .env("GATEHOUSE_SOCKET", &gateway.socket)
        .env("HOME", gateway.folder.join("home"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("gatehouse web starts");
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(process.stdout.take().unwrap()).lines();
    let mut port = 0;
    loop {
        let line = lines
            .next()
            .expect("gatehouse web prints its address")
            .unwrap();
        if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
            if port == 0 {
                port = rest
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
            }
        }
        if line.starts_with("Pair a browser") {
            let first_link = line.split_whitespace().last().unwrap().to_owned();
            std::thread::spawn(move || for _ in lines {});
            return Web {
                process,
                port,
                first_link,
            };
        }
    }
}

/// Pairs over HTTP as the page would, and returns the `Authorization` header's value.
async fn pair(web: &Web, token: &str) -> String {
    let body = format!(r#"{{"token":"{token}","name":"bench"}}"#);
    let reply = post_json(web, None, "/api/pair", &body).await;
    let body = reply.split("\r\n\r\n").nth(1).expect("a body");
    let body: serde_json::Value = serde_json::from_str(body).expect("the pairing reply is JSON");
    format!("Bearer {}", body["token"].as_str().expect("a device token"))
}

type Page = mpsc::UnboundedReceiver<(Instant, String)>;

/// A page's event stream, once its snapshot arrived: every later `data:` line, with the time it
/// was read; and the snapshot.
async fn page(port: u16, authorization: &str) -> (Page, (Instant, String)) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let request =
        format!("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: {authorization}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let (sender, receiver) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stream).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(data) = line.strip_prefix("data: ") {
                if sender.send((Instant::now(), data.to_owned())).is_err() {
                    return;
                }
            }
        }
    });
    let mut receiver = receiver;
    let snapshot = receiver.recv().await.expect("the page's snapshot");
    (receiver, snapshot)
}

/// Waits on a page for the `added` event of a prompt whose command is `command`.
async fn seen(page: &mut mpsc::UnboundedReceiver<(Instant, String)>, command: &str) -> Instant {
    loop {
        let (at, data) = page.recv().await.expect("the page's stream is open");
        if data.starts_with(r#"{"type":"event","event":{"type":"added""#) && data.contains(command)
        {
            return at;
        }
    }
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * fraction).round() as usize]
}

fn summary(mut latencies: Vec<Duration>) -> String {
    latencies.sort();
    format!(
        "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().unwrap().as_secs_f64() * 1e3
    )
}

fn resident_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap();
    kib / 1024.0
}

fn raise_open_file_limit() {
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Rounds of one held prompt each, timed to the `added` event on every page in `pages`.
async fn rounds(
    socket: &Path,
    pages: &mut [mpsc::UnboundedReceiver<(Instant, String)>],
    count: usize,
    tag: &str,
    hooks: &mut Vec<JoinHandle<bool>>,
) -> Vec<Duration> {
    let mut latencies = Vec::with_capacity(count);
    for round in 0..count {
        let command = format!("make {tag}-{round}");
        let new = prompt_running(round, command.clone());
        let sent = Instant::now();
        hooks.push(hold(socket, new));
        let mut last = sent;
        for page in pages.iter_mut() {
            last = last.max(seen(page, &format!("\"{command}\"")).await);
        }
        latencies.push(last - sent);
    }
    latencies
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    raise_open_file_limit();
    let count = count_from_env("GATEHOUSE_BENCH_ROUNDS", ROUNDS);
    let (gateway, _frontend) = BenchGateway::start("web").await;
    let (push_port, mut pushes) = push_service().await;
    list_push_service(&gateway, push_port);
    let web = start_web(&gateway);
    let token = web.first_link.split("#pair=").nth(1).unwrap().to_owned();
    let authorization = pair(&web, &token).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let idle_memory = resident_mib(web.process.id());
    let mut hooks = Vec::new();

    let mut one = vec![page(web.port, &authorization).await.0];
    let single = rounds(&gateway.socket, &mut one, count, "one", &mut hooks).await;
    println!(
        "prompt registered to visible on 1 page (SSE, {count} rounds): {}",
        summary(single.clone())
    );

    subscribe(&web, &authorization, push_port).await;
    let pushed = push_rounds(&gateway.socket, &mut pushes, count, &mut hooks).await;
    println!(
        "prompt registered to push received by a loopback push service ({count} rounds): {}",
        summary(pushed)
    );
    unsubscribe(&web, &authorization, push_port).await;

    let mut pages = Vec::with_capacity(PAGES);
    for _ in 0..PAGES {
        pages.push(page(web.port, &authorization).await.0);
    }
    let fan_out = rounds(
        &gateway.socket,
        &mut pages,
        count.min(100),
        "fan",
        &mut hooks,
    )
    .await;
    println!(
        "prompt registered to visible on all {PAGES} pages ({} rounds): {}",
        count.min(100),
        summary(fan_out.clone())
    );

    let before = hooks.len();
    for index in before..PENDING {
        hooks.push(hold(&gateway.socket, prompt(index)));
    }
    let mut frontend = SocketClient::connect(&gateway.socket, Role::Frontend, "bench")
        .await
        .unwrap();
    while frontend.status().await.unwrap().pending < PENDING {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let connected = Instant::now();
    let (_late, (at, snapshot)) = page(web.port, &authorization).await;
    println!(
        "a page connecting with {PENDING} pending gets its snapshot in {:.1} ms ({:.0} KiB)",
        (at - connected).as_secs_f64() * 1e3,
        snapshot.len() as f64 / 1024.0
    );
    let busy_memory = resident_mib(web.process.id());
    println!("memory of gatehouse web: {idle_memory:.1} MiB idle; {busy_memory:.1} MiB with {PENDING} pending prompts and {} pages", PAGES + 2);
    render_in_chromium(&gateway).await;

    let p99 = percentile(
        &{
            let mut s = single;
            s.sort();
            s
        },
        0.99,
    );
    println!(
        "goal: p99 < 100 ms on loopback: {}",
        if p99 < Duration::from_millis(100) {
            "met"
        } else {
            "NOT met"
        }
    );
    drop(pages);
    drop(one);
    let mut web = web;
    let _ = web.process.kill();
    let _ = web.process.wait();
    gateway.stop();
}

/// The real page, in headless Chromium, rendering every pending prompt.
async fn render_in_chromium(gateway: &BenchGateway) {
    let (chromium, chromedriver) = (
        PathBuf::from("/usr/bin/chromium"),
        PathBuf::from("/usr/bin/chromedriver"),
    );
    if !chromium.exists() || !chromedriver.exists() {
        println!("rendering in Chromium: skipped (chromium and chromium-driver are not installed)");
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut driver = Command::new(&chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let profile = gateway.folder.join("chromium-profile");
    let capabilities = serde_json::json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--window-size=390,844", format!("--user-data-dir={}", profile.display()),
        ] },
    });
    let client =
        fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities.as_object().unwrap().clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .unwrap();
    let link = {
        let output = Command::new(&gateway.binary)
            .args(["web", "pair", "--json"])
            .env("GATEHOUSE_SOCKET", &gateway.socket)
            .env("HOME", gateway.folder.join("home"))
            .output()
            .unwrap();
        let reply: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        reply["url"].as_str().unwrap().to_owned()
    };
    client.goto(&link).await.unwrap();
    client
        .find(fantoccini::Locator::Css("[data-pair-submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let count =
        "return document.querySelectorAll('[data-prompt-id][data-state=\"pending\"]').length";
    let wait_for_all = async || {
        let started = Instant::now();
        loop {
            let shown = client
                .execute(count, vec![])
                .await
                .unwrap()
                .as_u64()
                .unwrap_or(0) as usize;
            if shown >= PENDING {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the page did not render {PENDING} prompts"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let first = wait_for_all().await;
    client.refresh().await.unwrap();
    let reload = wait_for_all().await;
    println!(
        "Chromium renders {PENDING} pending prompts: {:.0} ms after pairing, {:.0} ms after a reload (polled every 10 ms)",
        first.as_secs_f64() * 1e3,
        reload.as_secs_f64() * 1e3
    );
    let _ = client.close().await;
    let _ = driver.kill();
    let _ = driver.wait();
}
