//! The Claude hook computes an edit's preview from model-written input before it reaches any
//! gateway, so that work is bounded: whatever file the edit names (under /proc, a FIFO) and
//! however the edit grows it (`replace_all` of `a` by 4 KiB) or however slow its diff would be,
//! the real `gatehouse hook claude` ends within a bounded CPU time and peak memory, exits 0 and
//! prints nothing but a verdict; with a gateway, the prompt is registered at once with its
//! preview marked incomplete.
//!
//! The hook's own CPU time and peak RSS come from `wait4` on it alone (not from
//! `RUSAGE_CHILDREN`, which other tests' children share). An address-space and CPU limit on the
//! hook keeps an unbounded one from taking the machine down: it fails the test instead.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{claude_fixture, Gateway, Sandbox};

/// The CPU time one hook may use: generous for a debug build on a busy machine, far below the
/// minutes an unbounded preview takes.
const MAX_CPU: Duration = Duration::from_secs(2);

/// The peak resident memory one hook may reach: generous for a debug build, far below the
/// gigabytes an unbounded preview takes.
const MAX_RSS_BYTES: u64 = 64 * 1024 * 1024;

/// What one run of the hook did, measured on it alone.
struct Measured {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: String,
    cpu: Duration,
    max_rss_bytes: u64,
}

/// Runs `command` with `stdin`, under safety limits, and measures it with `wait4`.
fn run_measured(mut command: Command, stdin: Vec<u8>, deadline: Duration) -> Measured {
    // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let limit = |resource, value| {
                let limit = libc::rlimit {
                    rlim_cur: value,
                    rlim_max: value,
                };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            limit(libc::RLIMIT_AS, 4 << 30)?;
            limit(libc::RLIMIT_CPU, 30)
        });
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hook starts");
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
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 on our own child, with pointers to live locals.
        let waited = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(waited >= 0, "wait4: {}", std::io::Error::last_os_error());
        if waited == pid {
            break;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            // SAFETY: as above; reaps the killed child.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            panic!("the hook did not end within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    writer.join().unwrap();
    let time = |value: libc::timeval| {
        Duration::from_secs(value.tv_sec as u64) + Duration::from_micros(value.tv_usec as u64)
    };
    Measured {
        status: ExitStatus::from_raw(status),
        stdout: stdout.join().unwrap(),
        stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        max_rss_bytes: usage.ru_maxrss as u64 * 1024,
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
        let measured = run_measured(
            sandbox.command(&["hook", "claude"]),
            event.to_string().into_bytes(),
            Duration::from_secs(60),
        );
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

#[test]
fn with_a_gateway_a_hostile_preview_is_registered_at_once_marked_incomplete() {
    let gateway = Gateway::start();
    for (case, event, expected) in hostile_events(gateway.folder.path()) {
        let session = format!("bounds-{}", case.len());
        let mut event = event;
        event["session_id"] = json!(session);
        let mut command = gateway.command(&["hook", "claude"]);
        // Unanswered (edits are read-only without a probe), the hook gives up after its wait.
        command.env("GATEHOUSE_HOOK__WAIT_SECONDS", "3");
        let stdin = event.to_string().into_bytes();
        let hook =
            std::thread::spawn(move || run_measured(command, stdin, Duration::from_secs(60)));
        let prompt = gateway
            .wait_for_pending_within(1, Duration::from_secs(30))
            .remove(0);
        let incomplete = prompt["preview"]["incomplete"].as_str().unwrap_or_default();
        assert!(
            incomplete.contains(expected),
            "{case}: the preview says it is incomplete ({expected}): {}",
            prompt["preview"]
        );
        let measured = hook.join().expect("the measuring thread");
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
