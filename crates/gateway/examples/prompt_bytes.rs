//! Where the bytes of a pending prompt go: a counting allocator around the system one, and a
//! gateway in this process that holds `GATEHOUSE_BENCH_PROMPTS` (10,000) prompts, measured part
//! by part (the arbiter's prompt, the gateway's state beside it, a hook's connection, the event
//! frames a subscriber has not read yet).
//!
//! `cargo run --release -p gatehouse-gateway --example prompt_bytes`. Live heap bytes, not
//! resident memory: the allocator's own overhead (about 16 bytes a block) and fragmentation come
//! on top, so the number of live blocks is printed too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use gatehouse_core::testing::toy_capabilities;
use gatehouse_core::{Arbiter, NewPrompt};
use gatehouse_gateway::{Gateway, GatewayOptions, Owner};
use gatehouse_host_ipc::framing::encode_frame;
use gatehouse_host_ipc::protocol::{method, HelloParams, HoldParams, Role};
use tokio::io::AsyncWriteExt;

struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static LIVE_BLOCKS: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        LIVE_BLOCKS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        LIVE_BLOCKS.fetch_sub(1, Ordering::Relaxed);
        unsafe { System.dealloc(pointer, layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(pointer, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Live heap bytes and blocks now.
fn live() -> (isize, isize) {
    (
        LIVE_BYTES.load(Ordering::Relaxed),
        LIVE_BLOCKS.load(Ordering::Relaxed),
    )
}

/// Prints what `count` of something added since `before`, per one.
fn report(what: &str, before: (isize, isize), count: usize) {
    let (bytes, blocks) = live();
    let count = count.max(1) as f64;
    println!(
        "  {what:<58} {:>8.0} bytes {:>6.1} blocks",
        (bytes - before.0) as f64 / count,
        (blocks - before.1) as f64 / count
    );
}

/// A Bash prompt the size of the scale benchmark's (`benches/common`'s `bash_prompt`), for
/// the toy agent.
fn prompt(index: usize) -> NewPrompt {
    let command = format!("make target-{index}");
    NewPrompt {
        session: format!("session-{}", index % 100),
        cwd: "/home/dev/project".into(),
        input: serde_json::json!({ "command": command, "description": "build one target" }),
        correlation: format!("Bash:{command}"),
        ..gatehouse_core::testing::toy_bash(&command)
    }
}

/// Two descriptors a connection: the soft limit raised to the hard one, as `gatehouse serve` does.
fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let prompts = std::env::var("GATEHOUSE_BENCH_PROMPTS")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(10_000usize);
    println!("where the bytes of a pending prompt go ({prompts} prompts, live heap per prompt):");
    raise_open_file_limit();

    let before = live();
    let made: Vec<NewPrompt> = (0..prompts).map(prompt).collect();
    report(
        "the NewPrompt as the hook sends it, parsed",
        before,
        prompts,
    );

    let before = live();
    let mut arbiter = Arbiter::new([toy_capabilities()]);
    let now = gatehouse_gateway::now();
    for new_prompt in made.iter().cloned() {
        arbiter.register(new_prompt, now).unwrap();
    }
    report(
        "the arbiter's Prompt (its maps and id index)",
        before,
        prompts,
    );
    drop(arbiter);

    let folder = tempfile::tempdir().unwrap();
    let audit =
        gatehouse_gateway::audit::AuditLog::open(&folder.path().join("audit.jsonl"), 1 << 30)
            .unwrap();
    let gateway = Gateway::with_audit_log(
        vec![toy_capabilities()],
        GatewayOptions::default(),
        Some(audit),
    );
    let before = live();
    let mut held = Vec::with_capacity(prompts);
    for (index, new_prompt) in made.iter().cloned().enumerate() {
        let owner = Owner {
            connection: index as u64,
            hooks_socket: false,
        };
        held.push(
            gateway
                .hold(
                    new_prompt,
                    Duration::from_secs(600),
                    None,
                    false,
                    None,
                    owner,
                )
                .unwrap(),
        );
    }
    report(
        "Gateway::hold: arbiter, gateway state, waiter, deadline timer",
        before,
        prompts,
    );
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Hook connections, over socket pairs: first the pairs alone, then served and holding. Both
    // ends are in this process, so fewer of them fit its open file limit.
    let prompts = prompts.min(8_000);
    let gateway = Gateway::new(vec![toy_capabilities()], GatewayOptions::default());
    let before = live();
    let mut pairs = Vec::with_capacity(prompts);
    for _ in 0..prompts {
        let (near, far) = std::os::unix::net::UnixStream::pair().unwrap();
        near.set_nonblocking(true).unwrap();
        far.set_nonblocking(true).unwrap();
        pairs.push((
            tokio::net::UnixStream::from_std(near).unwrap(),
            tokio::net::UnixStream::from_std(far).unwrap(),
        ));
    }
    report(
        "two ends of a socket pair, registered with tokio",
        before,
        prompts,
    );
    let before = live();
    let mut hooks = Vec::with_capacity(prompts);
    for (index, (near, far)) in pairs.into_iter().enumerate() {
        tokio::spawn(gatehouse_gateway::serve_connection(gateway.clone(), far));
        let mut near = near;
        let hello = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": method::HELLO,
            "params": HelloParams {
                protocol: gatehouse_host_ipc::protocol::PROTOCOL_VERSION,
                role: Role::Hook,
                client: Some("bytes".into()),
                host: None,
            },
        });
        let hold = serde_json::json!({
            "jsonrpc": "2.0", "id": 2, "method": method::HOOK_HOLD,
            "params": HoldParams {
                prompt: made[index].clone(),
                wait_ms: 600_000,
                held_since: None,
                watch_if_read_only: false,
                agent: None,
            },
        });
        let mut frames = encode_frame(&hello);
        frames.extend(encode_frame(&hold));
        near.write_all(&frames).await.unwrap();
        hooks.push(near);
    }
    while gateway.pending_count() < prompts {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    report(
        "a hook's connection served and holding (state included)",
        before,
        prompts,
    );
    println!(
        "  (the replies the hooks have not read wait in the kernel's socket buffers, not here)"
    );
    drop(hooks);
    drop(made);
}
