//! Benchmark: what gatehouse adds to a Gemini CLI tool call. Gemini runs its hooks and waits for
//! them, so the cost is the hook's spawn-to-exit time.
//!
//! Run with `cargo bench --bench gemini_hook` (docs/PERFORMANCE.md has results). It starts a
//! release `gatehouse serve` on a temporary socket and measures, interleaved in one run so the
//! machine's noise falls on all alike, spawn-to-exit of:
//! - `gatehouse hook gemini` for the Notification (`ToolPermission`) event, which registers the
//!   prompt for watching, with the gateway up and down;
//! - the same for AfterTool (observed only; spooled when the gateway is down);
//! - `sh -c 'cat > /dev/null'`, a hook that does nothing, the floor for any command hook.

use std::path::{Path, PathBuf};

const ROUNDS: usize = 300;

mod common;

use common::{count_from_env, hook_command, quantiles, start_serve, time_to_exit};

fn main() {
    let rounds = count_from_env("GATEHOUSE_BENCH_ROUNDS", ROUNDS);
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gatehouse"));
    let folder =
        std::env::temp_dir().join(format!("gatehouse-gemini-bench-{}", std::process::id()));
    std::fs::create_dir_all(folder.join("home")).unwrap();
    let socket = folder.join("run/gatehouse.sock");
    let down_socket = folder.join("down/gatehouse.sock");
    let fixture = |name: &str| {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("crates/adapter-gemini/tests/data/gemini-cli-0.61.0")
                .join(name),
        )
        .unwrap()
    };
    let notification = fixture("Notification.shell.json");
    let after_tool = fixture("AfterTool.shell.json");

    let mut gateway = start_serve(&binary, &folder, &socket);

    let hook = |socket: &Path, stdin: &[u8]| {
        time_to_exit(
            hook_command(&binary, &folder, socket).args(["hook", "gemini"]),
            stdin,
        )
    };
    let mut samples: [Vec<f64>; 5] = Default::default();
    for _ in 0..rounds {
        samples[0].push(hook(&socket, &notification));
        samples[1].push(hook(&down_socket, &notification));
        samples[2].push(hook(&socket, &after_tool));
        samples[3].push(hook(&down_socket, &after_tool));
        samples[4].push(time_to_exit(
            hook_command(Path::new("sh"), &folder, &socket).args(["-c", "cat > /dev/null"]),
            &notification,
        ));
    }
    let _ = gateway.kill();
    let _ = gateway.wait();
    let _ = std::fs::remove_dir_all(&folder);

    println!("gemini hook, {rounds} rounds each, interleaved (spawn to exit):");
    let names = [
        "gatehouse hook gemini, Notification, gateway up",
        "gatehouse hook gemini, Notification, gateway down",
        "gatehouse hook gemini, AfterTool, gateway up",
        "gatehouse hook gemini, AfterTool, gateway down",
        "sh -c 'cat > /dev/null' (a hook that does nothing)",
    ];
    for (name, samples) in names.iter().zip(samples.iter_mut()) {
        report(name, samples);
    }
}

/// Prints median, p90, p99 and the maximum.
fn report(what: &str, samples: &mut [f64]) {
    let [median, p90, p99, max] = quantiles(samples, [0.5, 0.9, 0.99, 1.0]);
    println!(
        "  {what:<52} median {median:6.2} ms   p90 {p90:6.2} ms   p99 {p99:6.2} ms   max {max:6.2} ms"
    );
}
