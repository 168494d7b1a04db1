//! Benchmark: one gateway with 10,000 prompts pending at once and 50 subscribers.
//!
//! Run with `cargo bench --bench scale` (docs/PERFORMANCE.md has results). It starts a release
//! `gatehouse serve` and, from this process, opens 50 front ends that subscribe and 10,000 hook
//! connections that each hold a prompt, all at once (the burst). Once every subscriber has
//! caught up, it registers 200 more prompts one every 10 ms (steady arrival on top of the 10,000
//! pending). It reports register and answer throughput, how far behind creation the subscribers
//! see prompts in each phase, and the gateway's resident memory (read from /proc).

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::{Answer, Timestamp};
use gatehouse_host_ipc::now;
use gatehouse_host_ipc::protocol::notification;
use gatehouse_host_ipc::{Role, SocketClient};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

const PROMPTS: usize = 10_000;
const STEADY_PROMPTS: usize = 200;
const STEADY_EVERY: Duration = Duration::from_millis(10);
const SUBSCRIBERS: usize = 50;
const STEADY_SESSION: &str = "steady";
/// Where the sessions of issue 29 will be asked for: how many to open beside the pending
/// prompts, once the gateway keeps sessions (it does not yet, so the bench says so).
const SESSIONS_VARIABLE: &str = "GATEHOUSE_BENCH_SESSIONS";

/// The part of a prompt that the subscribers read: only what the measure needs, so that the
/// subscribers in this process are not what falls behind.
#[derive(serde::Deserialize)]
struct Seen {
    id: String,
    session: String,
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

#[derive(Default)]
struct Lags {
    burst: Vec<u64>,
    steady: Vec<u64>,
}

fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    kib * 1024
}

/// Subscribes and records, for each prompt, how long after its creation it was seen: in its
/// own event, or in a snapshot sent because the subscriber fell behind.
async fn subscribe(
    socket: &Path,
    expected: usize,
    lags: Arc<Mutex<Lags>>,
    snapshots: Arc<AtomicUsize>,
    caught_up: Arc<AtomicUsize>,
) -> JoinHandle<()> {
    let mut subscriber = SocketClient::connect(socket, Role::Frontend, "bench-subscriber")
        .await
        .unwrap();
    subscriber.subscribe().await.unwrap();
    tokio::spawn(async move {
        let mut seen = HashSet::with_capacity(expected);
        let mut burst_seen = 0;
        while seen.len() < expected {
            let message = subscriber.next_notification().await.unwrap();
            let arrived: Vec<Seen> = match message.method.as_str() {
                notification::EVENT => match serde_json::from_value::<SeenEvent>(message.params) {
                    Ok(SeenEvent {
                        kind,
                        prompt: Some(prompt),
                    }) if kind == "added" => vec![prompt],
                    _ => continue,
                },
                notification::SNAPSHOT => {
                    snapshots.fetch_add(1, Ordering::Relaxed);
                    serde_json::from_value::<SeenSnapshot>(message.params)
                        .unwrap()
                        .prompts
                }
                _ => continue,
            };
            let now = now();
            let mut lags = lags.lock().await;
            for prompt in arrived {
                if seen.insert(prompt.id) {
                    let lag = now.millis_since(prompt.created_at);
                    if prompt.session == STEADY_SESSION {
                        lags.steady.push(lag);
                    } else {
                        lags.burst.push(lag);
                        burst_seen += 1;
                        if burst_seen == expected - STEADY_PROMPTS {
                            caught_up.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }
        }
    })
}

mod common;

use common::{bash_prompt, count_from_env, hold, quantiles, BenchGateway};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let prompts = count_from_env("GATEHOUSE_BENCH_PROMPTS", PROMPTS);
    let (gateway, mut frontend) = BenchGateway::start("scale").await;
    let socket = gateway.socket.clone();
    let idle_memory = resident_bytes(gateway.process.id());

    let lags = Arc::new(Mutex::new(Lags::default()));
    let snapshots = Arc::new(AtomicUsize::new(0));
    let caught_up = Arc::new(AtomicUsize::new(0));
    let mut subscribers = Vec::new();
    for _ in 0..SUBSCRIBERS {
        subscribers.push(
            subscribe(
                &socket,
                prompts + STEADY_PROMPTS,
                lags.clone(),
                snapshots.clone(),
                caught_up.clone(),
            )
            .await,
        );
    }

    // The burst.
    let register_started = Instant::now();
    let mut hooks: Vec<JoinHandle<bool>> = (0..prompts)
        .map(|index| {
            hold(
                &socket,
                bash_prompt(index, &format!("session-{}", index % 100)),
            )
        })
        .collect();
    while frontend.status().await.unwrap().pending < prompts {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let register_time = register_started.elapsed();
    let pending_memory = resident_bytes(gateway.process.id());
    while caught_up.load(Ordering::Relaxed) < SUBSCRIBERS {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // Steady arrivals on top of the pending ones.
    for index in 0..STEADY_PROMPTS {
        hooks.push(hold(&socket, bash_prompt(prompts + index, STEADY_SESSION)));
        tokio::time::sleep(STEADY_EVERY).await;
    }
    for subscriber in subscribers {
        subscriber.await.unwrap();
    }
    let peak_memory = resident_bytes(gateway.process.id());

    let pending = frontend.list().await.unwrap();
    let answer_started = Instant::now();
    for prompt in &pending {
        frontend.answer(prompt.id, Answer::Once).await.unwrap();
    }
    let answer_time = answer_started.elapsed();
    for hook in hooks {
        assert!(hook.await.unwrap(), "every hook gets its answer");
    }
    gateway.stop();

    let mut lags = Arc::try_unwrap(lags).ok().unwrap().into_inner();
    let [burst_p50, burst_p99, burst_max] = quantiles(&mut lags.burst, [0.5, 0.99, 1.0]);
    let [steady_p50, steady_p99, steady_max] = quantiles(&mut lags.steady, [0.5, 0.99, 1.0]);
    let mib = |bytes: u64| bytes as f64 / 1_048_576.0;
    println!("scale: {prompts} prompts pending at once, {SUBSCRIBERS} subscribers");
    println!(
        "  register: {:.0} prompts/s ({:.2} s for all {prompts})",
        prompts as f64 / register_time.as_secs_f64(),
        register_time.as_secs_f64()
    );
    println!(
        "  answer:   {:.0} answers/s over one front-end connection",
        pending.len() as f64 / answer_time.as_secs_f64()
    );
    println!("  fan-out, burst of {prompts} (creation to receipt, every subscriber): p50 {burst_p50} ms, p99 {burst_p99} ms, max {burst_max} ms");
    println!(
        "  snapshots sent to subscribers that fell behind in the burst: {}",
        snapshots.load(Ordering::Relaxed)
    );
    if let Ok(sessions) = std::env::var(SESSIONS_VARIABLE) {
        println!("  {SESSIONS_VARIABLE}={sessions}: the gateway keeps no sessions yet, so none were opened");
    }
    println!(
        "  fan-out, steady ({STEADY_PROMPTS} prompts one every {} ms, {prompts} pending): p50 {steady_p50} ms, p99 {steady_p99} ms, max {steady_max} ms",
        STEADY_EVERY.as_millis()
    );
    println!(
        "  gateway memory: {:.1} MiB idle, {:.1} MiB with {prompts} pending ({:.1} KiB per prompt), {:.1} MiB at the end of the steady phase",
        mib(idle_memory),
        mib(pending_memory),
        pending_memory.saturating_sub(idle_memory) as f64 / prompts as f64 / 1024.0,
        mib(peak_memory)
    );
    let snapshots = snapshots.load(Ordering::Relaxed);
    let answers_per_second = pending.len() as f64 / answer_time.as_secs_f64();
    let met = |met: bool| if met { "met" } else { "missed" };
    println!(
        "goal: {prompts} pending in at most 48 MiB: {} ({:.1} MiB)",
        met(pending_memory <= 48 * 1_048_576),
        mib(pending_memory)
    );
    println!(
        "goal: the same with {prompts} sessions beside them: not measured: the gateway keeps no sessions yet (issue 29); set {SESSIONS_VARIABLE} once it does"
    );
    println!(
        "goal: a burst of {prompts} reaches {SUBSCRIBERS} subscribers with p99 under 1 s behind, none dropped: {} (p99 {burst_p99} ms, {snapshots} snapshots)",
        met(burst_p99 < 1_000 && snapshots == 0)
    );
    println!(
        "goal: 10,000 answers/s on one connection: {} ({answers_per_second:.0}/s, one at a time, each synced to disk before its verdict leaves)",
        met(answers_per_second >= 10_000.0)
    );
    println!(
        "goal: no subscriber more than 100 ms behind (steady): {}",
        met(steady_max <= 100)
    );
}
