//! The Claude hook's own work is bounded, whatever the model writes into the event. It computes
//! an edit's preview before it reaches any gateway: whatever file the edit names (under /proc, a
//! FIFO) and however the edit grows it (`replace_all` of `a` by 4 KiB) or however slow its diff
//! would be, the real `gatehouse hook claude` (and `gatehouse-hook claude`, what `gatehouse
//! install` writes) ends within a bounded CPU time and peak memory, exits 0 and prints nothing
//! but a verdict; with a gateway, the prompt is registered at once
//! with its preview marked incomplete. And an event as large as the hook reads, of many small
//! JSON values (each a `Value` of tens of bytes once parsed), is let go at once.
//!
//! The hook's own CPU time and peak RSS are measured by GNU time (/usr/bin/time), which reports
//! its child alone. A `wait4` from this test would not do: Linux counts in a child's peak RSS the
//! parent's at the time of the spawn, and this test process holds the large events. An
//! address-space and CPU limit (`ulimit`) on the hook keeps an unbounded one from taking the
//! machine down: it fails the test instead.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{claude_fixture, Gateway, HookProgram, Sandbox};

/// The CPU time one hook may use: generous for a debug build on a busy machine, far below the
/// seconds to minutes an unbounded preview takes.
const MAX_CPU: Duration = Duration::from_secs(2);

/// The peak resident memory one hook may reach: generous for a debug build, far below the
/// gigabytes an unbounded preview takes.
const MAX_RSS_BYTES: u64 = 64 * 1024 * 1024;

/// GNU time, which measures the hook.
const GNU_TIME: &str = "/usr/bin/time";

/// What one run of the hook did, measured on it alone.
struct Measured {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: String,
    cpu: Duration,
    max_rss_bytes: u64,
}

/// Runs `gatehouse hook claude` (or `gatehouse-hook claude`, as `program` says) in `sandbox`
/// with `stdin` and `env`, under GNU time and safety limits (4 GiB of address space, 30 s of
/// CPU), and measures it.
fn run_measured(
    sandbox: &Sandbox,
    program: HookProgram,
    env: &[(&str, &str)],
    stdin: Vec<u8>,
) -> Measured {
    use std::os::unix::process::CommandExt;
    assert!(
        Path::new(GNU_TIME).exists(),
        "this test measures the hook with GNU time: install it (Debian: apt-get install time)"
    );
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut command = sandbox.program("sh");
    command
        .arg("-c")
        .arg("ulimit -v 4194304 -t 30; time=$0 report=$1; shift; exec \"$time\" -o \"$report\" -f '%U %S %M' \"$@\"")
        .arg(GNU_TIME)
        .arg(report.path())
        .arg(program.path())
        .args(program.words(&["hook", "claude"]))
        .envs(env.iter().copied())
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the hook starts");
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // A hook that exits before reading everything closes the pipe; that is its right.
        let _ = input.write_all(&stdin);
    });
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().unwrap()));
    let stderr = read_all(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the hook can be waited on") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            // SAFETY: kill only sends a signal, to the process group this test started.
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.wait();
            panic!("the hook did not end within 60 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    writer.join().unwrap();
    let report = std::fs::read_to_string(report.path()).unwrap();
    // The last line: earlier ones say how the command ended when it was not with exit 0.
    let numbers: Vec<f64> = report
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|number| number.parse().ok())
        .collect();
    let [user, system, max_rss_kib] = numbers[..] else {
        panic!("GNU time's report: {report:?}")
    };
    Measured {
        status,
        stdout: stdout.join().unwrap(),
        stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
        cpu: Duration::from_secs_f64(user + system),
        max_rss_bytes: max_rss_kib as u64 * 1024,
    }
}

/// Exit 0, within the CPU and memory bounds.
fn assert_bounded(measured: &Measured, case: &str) {
    assert_eq!(
        measured.status.code(),
        Some(0),
        "{case}: exit 0, got {:?}; stderr: {}",
        measured.status,
        measured.stderr
    );
    assert!(
        measured.cpu < MAX_CPU,
        "{case}: the hook used {:?} of CPU",
        measured.cpu
    );
    assert!(
        measured.max_rss_bytes < MAX_RSS_BYTES,
        "{case}: the hook reached {} MiB",
        measured.max_rss_bytes >> 20
    );
    eprintln!(
        "{case}: {:?} CPU, {} MiB peak",
        measured.cpu,
        measured.max_rss_bytes >> 20
    );
}

/// Lines that share nothing: Myers' diff of two such texts is quadratic in their length.
fn distinct_lines(prefix: &str, count: usize) -> String {
    (0..count).map(|line| format!("{prefix}{line}\n")).collect()
}

/// Claude Code PermissionRequest events whose preview is unbounded without bounds, each with
/// what its `incomplete` note says. `folder` holds the files they edit.
fn hostile_events(folder: &Path) -> Vec<(&'static str, Value, &'static str)> {
    let many_a = folder.join("many-a.txt");
    std::fs::write(&many_a, "a".repeat(256 * 1024)).unwrap();
    let fifo = folder.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let event = |tool: &str, input: Value| {
        let mut event = claude_fixture("PermissionRequest-Edit");
        event["tool_name"] = json!(tool);
        event["tool_input"] = input;
        event
    };
    let path = |path: &Path| path.to_str().unwrap().to_owned();
    vec![
        (
            "an edit of /proc/self/pagemap",
            event(
                "Edit",
                json!({ "file_path": "/proc/self/pagemap", "old_string": "a", "new_string": "b" }),
            ),
            "larger than 256 KiB",
        ),
        (
            "an edit of a FIFO",
            event(
                "Edit",
                json!({ "file_path": path(&fifo), "old_string": "a", "new_string": "b" }),
            ),
            "not a regular file",
        ),
        (
            "a replace_all of a by 4 KiB over 256 KiB of a",
            event(
                "Edit",
                json!({
                    "file_path": path(&many_a),
                    "old_string": "a",
                    "new_string": "b".repeat(4096),
                    "replace_all": true,
                }),
            ),
            "larger than 512 KiB",
        ),
        (
            "an edit list that doubles the file 40 times",
            event(
                "MultiEdit",
                json!({
                    "file_path": path(&many_a),
                    "edits": vec![json!({ "old_string": "a", "new_string": "aa", "replace_all": true }); 40],
                }),
            ),
            "larger than 512 KiB",
        ),
        (
            "an edit whose diff is quadratic",
            event(
                "Edit",
                json!({
                    "file_path": path(&folder.join("absent.txt")),
                    "old_string": distinct_lines("x", 50_000),
                    "new_string": distinct_lines("y", 50_000),
                }),
            ),
            "the diff covers only the first",
        ),
    ]
}

#[test]
fn without_a_gateway_a_hostile_preview_ends_at_once_within_bounds() {
    let sandbox = Sandbox::new();
    for (case, event, _) in hostile_events(sandbox.folder.path()) {
        for program in HookProgram::BOTH {
            let case = &format!("{program}: {case}");
            let measured = run_measured(&sandbox, program, &[], event.to_string().into_bytes());
            assert_bounded(&measured, case);
            assert!(
                measured.stdout.is_empty(),
                "{case}: nothing on stdout, got {:?}",
                String::from_utf8_lossy(&measured.stdout)
            );
            assert!(
                measured.stderr.contains("no gateway"),
                "{case}: {}",
                measured.stderr
            );
        }
    }
}

#[test]
fn with_a_gateway_a_hostile_preview_is_registered_at_once_marked_incomplete() {
    let gateway = Gateway::start();
    let events = hostile_events(gateway.folder.path());
    for ((case, event, expected), program) in events
        .iter()
        .flat_map(|event| HookProgram::BOTH.map(|program| (event, program)))
    {
        let case = &format!("{program}: {case}");
        let stdin = event.to_string().into_bytes();
        // Unanswered (edits are read-only without a probe), the hook gives up after its wait.
        let wait = [("GATEHOUSE_HOOK__WAIT_SECONDS", "3")];
        let measured = std::thread::scope(|scope| {
            let hook = scope.spawn(|| run_measured(&gateway, program, &wait, stdin));
            let prompt = gateway
                .wait_for_pending_within(1, Duration::from_secs(30))
                .remove(0);
            let incomplete = prompt["preview"]["incomplete"].as_str().unwrap_or_default();
            // On a machine busy enough, the time bound (200 ms) may cut the work before the size
            // bound does; either way the preview says it is incomplete, and why.
            assert!(
                incomplete.contains(*expected) || incomplete.contains("200 ms"),
                "{case}: the preview says it is incomplete ({expected}): {}",
                prompt["preview"]
            );
            hook.join().expect("the measuring thread")
        });
        assert_bounded(&measured, case);
        assert!(
            measured.stdout.is_empty(),
            "{case}: no verdict was given, so nothing on stdout: {:?}",
            String::from_utf8_lossy(&measured.stdout)
        );
        crate::common::wait_for(Duration::from_secs(30), "the prompt to go", || {
            gateway.list().is_empty()
        });
    }
}

#[test]
fn an_event_as_large_as_the_hook_reads_is_parsed_or_let_go_within_bounds() {
    let sandbox = Sandbox::new();
    let cap = 12 * 1024 * 1024 - 4096;
    let with_input = |tool: &str, input: &str| {
        let mut event = claude_fixture("PermissionRequest-Bash");
        event["tool_name"] = json!(tool);
        event["tool_input"] = json!("INPUT");
        event.to_string().replace("\"INPUT\"", input).into_bytes()
    };
    let zeros = vec!["0"; cap / 2].join(",");
    let empty_arrays = vec!["[]"; cap / 3].join(",");
    let keys: Vec<String> = (0..cap / 12).map(|key| format!("\"{key:x}\":0")).collect();
    let long_command = format!("{{\"command\":\"{}\"}}", "x".repeat(cap));
    let cases = [
        (
            "a command as long as the cap",
            with_input("Bash", &long_command),
            "no gateway",
        ),
        (
            "millions of zeros",
            with_input("mcp__x", &format!("[{zeros}]")),
            "more than 100000 JSON values",
        ),
        (
            "millions of empty arrays",
            with_input("mcp__x", &format!("[{empty_arrays}]")),
            "more than 100000 JSON values",
        ),
        (
            "a million keys",
            with_input("mcp__x", &format!("{{{}}}", keys.join(","))),
            "more than 100000 JSON values",
        ),
    ];
    for (case, stdin, expected) in cases {
        assert!(
            stdin.len() < 12 * 1024 * 1024,
            "{case}: within the hook's stdin cap"
        );
        for program in HookProgram::BOTH {
            let case = &format!("{program}: {case}");
            let measured = run_measured(&sandbox, program, &[], stdin.clone());
            assert_bounded(&measured, case);
            assert!(measured.stdout.is_empty(), "{case}: nothing on stdout");
            assert!(
                measured.stderr.contains(expected),
                "{case}: {}",
                measured.stderr
            );
        }
    }
}
