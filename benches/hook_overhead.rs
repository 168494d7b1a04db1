//! Benchmark: what a hook costs per tool call, and how long the command line takes.
//!
//! Run with `cargo bench --bench hook_overhead` (docs/PERFORMANCE.md has results). It starts a
//! release `gatehouse serve` on a temporary socket and measures, interleaved in one run so the
//! machine's noise falls on all alike, spawn-to-exit of:
//! - `gatehouse hook claude` for a PostToolUse event (observed only), gateway up;
//! - `benches/python_hook.py`, the smallest hook most people write, on the same event, also with
//!   `python3 -S` (no site packages), the fastest a Python hook starts;
//! - `benches/c_hook.c`, compiled with `cc -O2`: read the event, connect, hello, observe, with
//!   no JSON parsed: the floor for any hook that does this work;
//! - `gatehouse hook claude` with the gateway down;
//! - `gatehouse status` and `gatehouse list`.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROUNDS: usize = 300;

mod common;

use common::{count_from_env, hook_command, quantiles, start_serve, time_to_exit};

fn main() {
    let rounds = count_from_env("GATEHOUSE_BENCH_ROUNDS", ROUNDS);
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gatehouse"));
    let folder = std::env::temp_dir().join(format!("gatehouse-bench-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let c_hook = compile_c_hook(&folder);
    let socket = folder.join("run/gatehouse.sock");
    let down_socket = folder.join("down/gatehouse.sock");
    let event = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates/adapter-claude/tests/data/claude-code-2.1.332/PostToolUse-Bash.json"),
    )
    .unwrap();
    let python_hook = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/python_hook.py");
    let python = python_interpreter();

    let mut gateway = start_serve(&binary, &folder, &socket);

    let mut gatehouse_up = Vec::with_capacity(rounds);
    let mut python_up = Vec::with_capacity(rounds);
    let mut python_bare_up = Vec::with_capacity(rounds);
    let mut c_up = Vec::with_capacity(rounds);
    let mut gatehouse_down = Vec::with_capacity(rounds);
    let mut status = Vec::with_capacity(rounds);
    let mut list = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        gatehouse_up.push(time_to_exit(
            hook_command(&binary, &folder, &socket).args(["hook", "claude"]),
            &event,
        ));
        python_up.push(time_to_exit(
            hook_command(&python, &folder, &socket).arg(&python_hook),
            &event,
        ));
        python_bare_up.push(time_to_exit(
            hook_command(&python, &folder, &socket)
                .arg("-S")
                .arg(&python_hook),
            &event,
        ));
        if let Some(c_hook) = &c_hook {
            c_up.push(time_to_exit(
                &mut hook_command(c_hook, &folder, &socket),
                &event,
            ));
        }
        gatehouse_down.push(time_to_exit(
            hook_command(&binary, &folder, &down_socket).args(["hook", "claude"]),
            &event,
        ));
        status.push(time_to_exit(
            hook_command(&binary, &folder, &socket).arg("status"),
            b"",
        ));
        list.push(time_to_exit(
            hook_command(&binary, &folder, &socket).arg("list"),
            b"",
        ));
    }
    let _ = gateway.kill();
    let _ = gateway.wait();
    let _ = std::fs::remove_dir_all(&folder);

    println!("hook overhead, {rounds} rounds each, interleaved (spawn to exit):");
    let gatehouse = report(
        "gatehouse hook claude, PostToolUse, gateway up",
        &mut gatehouse_up,
    );
    let python = report(
        "python3 hook (parse JSON, connect, observe)",
        &mut python_up,
    );
    let bare = report(
        "the same with python3 -S (no site packages)",
        &mut python_bare_up,
    );
    let floor = (!c_up.is_empty())
        .then(|| report("C hook (read, connect, hello, observe; no JSON)", &mut c_up));
    report("gatehouse hook claude, gateway down", &mut gatehouse_down);
    report("gatehouse status", &mut status);
    report("gatehouse list", &mut list);
    println!(
        "goal: gatehouse median <= 1/4 of python's: {:.2} of it ({}; {:.2} of python -S's); p99 <= 2x median: {:.2}x ({})",
        gatehouse.0 / python.0,
        verdict(gatehouse.0 / python.0 <= 0.25),
        gatehouse.0 / bare.0,
        gatehouse.1 / gatehouse.0,
        verdict(gatehouse.1 / gatehouse.0 <= 2.0),
    );
    match floor {
        Some(floor) => println!(
            "goal: gatehouse median <= 2x the C floor's: {:.2}x ({})",
            gatehouse.0 / floor.0,
            verdict(gatehouse.0 / floor.0 <= 2.0),
        ),
        None => println!("goal: 2x the C floor: not measured (no C compiler `cc`)"),
    }
}

/// Compiles benches/c_hook.c into `folder`; `None`, said, when there is no C compiler.
fn compile_c_hook(folder: &Path) -> Option<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/c_hook.c");
    let output = folder.join("c_hook");
    let compiled = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&output)
        .arg(&source)
        .status()
        .is_ok_and(|status| status.success());
    if !compiled {
        eprintln!(
            "the C floor is not measured: `cc -O2 benches/c_hook.c` failed or there is no cc"
        );
    }
    compiled.then_some(output)
}

/// The real Python interpreter, not a wrapper script such as a pyenv shim in front of it, so the
/// comparison is with Python itself.
fn python_interpreter() -> PathBuf {
    let output = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "missed"
    }
}

/// Prints median, p90 and p99, and returns (median, p99).
fn report(what: &str, samples: &mut [f64]) -> (f64, f64) {
    let [median, p90, p99] = quantiles(samples, [0.5, 0.9, 0.99]);
    println!("  {what:<50} median {median:6.2} ms   p90 {p90:6.2} ms   p99 {p99:6.2} ms");
    (median, p99)
}
