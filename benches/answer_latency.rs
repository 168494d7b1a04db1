//! Benchmark: from a front end's `answer` call to the hook's verdict on its stdout.
//!
//! Run with `cargo bench --bench answer_latency` (docs/PERFORMANCE.md has results). For each
//! round it starts a real `gatehouse hook claude` holding a Bash prompt against a release
//! `gatehouse serve`, waits until the prompt is registered, then times `answer` (over the client
//! library) until the hook has written its verdict line.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use gatehouse_core::{Answer, Event};
use gatehouse_host_ipc::protocol::notification;
use gatehouse_host_ipc::{Role, SocketClient};

const ROUNDS: usize = 200;

mod common;

use common::{count_from_env, BenchGateway};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rounds = count_from_env("GATEHOUSE_BENCH_ROUNDS", ROUNDS);
    let (gateway, mut frontend) = BenchGateway::start("latency").await;
    let (binary, folder, socket) = (
        gateway.binary.clone(),
        gateway.folder.clone(),
        gateway.socket.clone(),
    );
    let event: serde_json::Value = serde_json::from_slice(
        &std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "crates/adapter-claude/tests/data/claude-code-2.1.332/PermissionRequest-Bash.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let mut watcher = SocketClient::connect(&socket, Role::Frontend, "bench-watch")
        .await
        .unwrap();
    watcher.subscribe().await.unwrap();

    let mut latencies = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let mut event = event.clone();
        event["tool_input"]["command"] = serde_json::json!(format!("printf {round}"));
        let mut hook = Command::new(&binary)
            .args(["hook", "claude"])
            .env_clear()
            .env("GATEHOUSE_SOCKET", &socket)
            .env("HOME", folder.join("home"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        hook.stdin
            .take()
            .unwrap()
            .write_all(event.to_string().as_bytes())
            .unwrap();
        let id = loop {
            let message = watcher.next_notification().await.unwrap();
            if message.method != notification::EVENT {
                continue;
            }
            if let Ok(Event::Added { prompt }) = serde_json::from_value::<Event>(message.params) {
                break prompt.id;
            }
        };
        let mut stdout = BufReader::new(hook.stdout.take().unwrap());
        let answered = Instant::now();
        frontend.answer(id, Answer::Once).await.unwrap();
        let mut verdict = String::new();
        stdout.read_line(&mut verdict).unwrap();
        latencies.push(answered.elapsed().as_secs_f64() * 1_000.0);
        assert!(verdict.contains("\"allow\""), "{verdict}");
        hook.wait().unwrap();
    }
    gateway.stop();

    latencies.sort_by(f64::total_cmp);
    let at =
        |quantile: f64| latencies[((latencies.len() as f64 - 1.0) * quantile).round() as usize];
    println!(
        "answer to verdict, {rounds} prompts: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms",
        at(0.5),
        at(0.9),
        at(0.99)
    );
}
