//! Benchmark: one gateway with 10,000 prompts pending at once and 50 subscribers.
//!
//! Run with `cargo bench --bench scale` (docs/PERFORMANCE.md has results). It starts a release
//! `gatehouse serve` and, from this process, opens 10,000 hook connections that each hold a
//! prompt, and 50 front ends that subscribe. It reports register throughput, answer
//! throughput, how far behind the slowest subscriber falls, and the gateway's resident memory
//! per pending prompt (read from /proc).

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::{Answer, NewPrompt, PromptKind, Timestamp};
use gatehouse_host_ipc::protocol::notification;
use gatehouse_host_ipc::server::now;
use gatehouse_host_ipc::{Role, SocketClient};
use tokio::sync::Mutex;

const PROMPTS: usize = 10_000;
const SUBSCRIBERS: usize = 50;

fn prompt(index: usize) -> NewPrompt {
    let command = format!("make target-{index}");
    NewPrompt {
        adapter: "claude".into(),
        session: format!("session-{}", index % 100),
        cwd: "/home/dev/project".into(),
        kind: PromptKind::Permission,
        tool: "Bash".into(),
        input: serde_json::json!({ "command": command, "description": "build one target" }),
        summary: command.clone(),
        questions: vec![],
        correlation: format!("Bash:{command}"),
        read_only_reason: None,
    }
}

/// The part of a prompt that the subscribers read.
#[derive(serde::Deserialize)]
struct Seen {
    id: String,
    created_at: Timestamp,
}

#[derive(serde::Deserialize)]
struct SeenEvent {
    #[serde(rename = "type")]
    kind: String,
    prompt: Option<Seen>,
}

#[derive(serde::Deserialize)]
struct SeenSnapshot {
    prompts: Vec<Seen>,
}

fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status.lines().find(|line| line.starts_with("VmRSS:")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let prompts = std::env::var("GATEHOUSE_BENCH_PROMPTS").ok().and_then(|count| count.parse().ok()).unwrap_or(PROMPTS);
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gatehouse"));
    let folder = std::env::temp_dir().join(format!("gatehouse-scale-{}", std::process::id()));
    let socket = folder.join("run/gatehouse.sock");
    let mut gateway = Command::new(&binary)
        .arg("serve")
        .env("GATEHOUSE_SOCKET", &socket)
        .env("HOME", folder.join("home"))
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut frontend = loop {
        if let Ok(client) = SocketClient::connect(&socket, Role::Frontend, "bench").await {
            break client;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the gateway did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let idle_memory = resident_bytes(gateway.id());

    // Subscribers record, for each prompt, how long after its creation they saw it: in its own
    // event, or in a snapshot sent because they fell behind (which the run also counts).
    let lags: Arc<Mutex<Vec<u64>>> = Arc::new(Mutex::new(Vec::with_capacity(prompts * SUBSCRIBERS)));
    let snapshots = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut subscribers = Vec::new();
    for _ in 0..SUBSCRIBERS {
        let mut subscriber = SocketClient::connect(&socket, Role::Frontend, "bench-subscriber").await.unwrap();
        subscriber.subscribe().await.unwrap();
        let (lags, snapshots) = (lags.clone(), snapshots.clone());
        subscribers.push(tokio::spawn(async move {
            let mut seen = std::collections::HashSet::with_capacity(prompts);
            while seen.len() < prompts {
                let message = subscriber.next_notification().await.unwrap();
                // Only what the measure needs is read from each event, so that the subscribers
                // in this process are not what falls behind.
                let arrived: Vec<Seen> = match message.method.as_str() {
                    notification::EVENT => match serde_json::from_value::<SeenEvent>(message.params) {
                        Ok(SeenEvent { kind, prompt: Some(prompt) }) if kind == "added" => vec![prompt],
                        _ => continue,
                    },
                    notification::SNAPSHOT => {
                        snapshots.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        serde_json::from_value::<SeenSnapshot>(message.params).unwrap().prompts
                    }
                    _ => continue,
                };
                let now = now();
                let mut lags = lags.lock().await;
                for prompt in arrived {
                    if seen.insert(prompt.id) {
                        lags.push(now.millis_since(prompt.created_at));
                    }
                }
            }
        }));
    }

    let register_started = Instant::now();
    let mut hooks = Vec::with_capacity(prompts);
    for index in 0..prompts {
        let socket = socket.clone();
        hooks.push(tokio::spawn(async move {
            let mut hook = SocketClient::connect(&socket, Role::Hook, "bench-hook").await.unwrap();
            hook.hold(prompt(index), Duration::from_secs(600)).await.unwrap()
        }));
    }
    loop {
        if frontend.status().await.unwrap().pending == prompts {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let register_time = register_started.elapsed();
    let pending_memory = resident_bytes(gateway.id());
    for subscriber in subscribers {
        subscriber.await.unwrap();
    }

    let pending = frontend.list().await.unwrap();
    let answer_started = Instant::now();
    for prompt in &pending {
        frontend.answer(prompt.id, Answer::Once).await.unwrap();
    }
    let answer_time = answer_started.elapsed();
    for hook in hooks {
        hook.await.unwrap();
    }
    let _ = gateway.kill();
    let _ = gateway.wait();
    let _ = std::fs::remove_dir_all(&folder);

    let mut lags = Arc::try_unwrap(lags).unwrap().into_inner();
    lags.sort_unstable();
    let at = |quantile: f64| lags[((lags.len() as f64 - 1.0) * quantile).round() as usize];
    let per_prompt = pending_memory.saturating_sub(idle_memory) as f64 / prompts as f64;
    println!("scale: {prompts} prompts pending at once, {SUBSCRIBERS} subscribers");
    println!("  register: {:.0} prompts/s ({:.2} s for all)", prompts as f64 / register_time.as_secs_f64(), register_time.as_secs_f64());
    println!("  answer:   {:.0} answers/s over one front-end connection", prompts as f64 / answer_time.as_secs_f64());
    println!("  fan-out lag (creation to receipt, every subscriber): p50 {} ms, p99 {} ms, max {} ms", at(0.5), at(0.99), at(1.0));
    println!("  snapshots sent to subscribers that fell behind: {}", snapshots.load(std::sync::atomic::Ordering::Relaxed));
    println!(
        "  gateway memory: {:.1} MiB idle, {:.1} MiB with all pending, {:.1} KiB per pending prompt",
        idle_memory as f64 / 1_048_576.0,
        pending_memory as f64 / 1_048_576.0,
        per_prompt / 1024.0
    );
    println!(
        "goal: all pending in under 100 MiB: {}; no subscriber more than 100 ms behind: {}",
        if pending_memory < 100 * 1_048_576 { "met" } else { "missed" },
        if at(1.0) <= 100 { "met" } else { "missed" }
    );
}

