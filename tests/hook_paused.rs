//! A hook that is stopped while it holds a prompt (its agent's Ctrl+Z stops the whole process
//! group, the hook with it; or a SIGSTOP), past its deadline, then continued (issue 25). Without
//! the agents themselves: the hook is fed each agent's captured event.
//!
//! - Gemini's answerable hook answers `ask` the moment it is continued past its deadline, before
//!   anything else it was waiting for.
//! - A hook stopped as it starts and continued after its wait (its agent times the hook from
//!   its start) holds nothing.
//! - A verdict that came while the hook was stopped, found when it runs again past its
//!   deadline, is not delivered: the agent may have given up on its hook by then (Qwen Code
//!   stops waiting at 60 s and ignores a later answer; Codex and Copilot CLI end the hook at
//!   their timeout), so printing it, and confirming it, would record a delivery the agent never
//!   applied. Gemini gets `ask`, Qwen nothing (its own dialog), and the audit log says resolved,
//!   then unconfirmed, never delivered.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{finish, wait_for, Gateway, Reaped, Sandbox};
use crate::e2e_qwen::{qwen_permission_request, write_qwen_record};
use crate::gemini_hook_answers::{before_tool, Answerable};

const DEADLINE: Duration = Duration::from_secs(30);

const ASK: &str = "{\"decision\":\"ask\"}\n";

fn signal(hook: &Reaped, signal: libc::c_int) {
    // SAFETY: kill only sends a signal, to the hook this test started and still owns.
    unsafe { libc::kill(hook.id() as libc::pid_t, signal) };
}

/// Whether the process `pid` is in `state` (`T` stopped, `Z` exited), as `/proc/PID/stat`
/// says.
fn is_in_state(pid: u32, state: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|end| stat[end + 1..].split_whitespace().next())
            .is_some_and(|letter| letter == state)
    })
}

fn is_stopped(pid: u32) -> bool {
    is_in_state(pid, "T")
}

/// Continues the hook when dropped, so that a failing test leaves no stopped process behind.
struct Continued<'a>(&'a Reaped);

impl Drop for Continued<'_> {
    fn drop(&mut self) {
        signal(self.0, libc::SIGCONT);
    }
}

#[test]
fn a_gemini_hook_stopped_past_its_deadline_asks_the_moment_it_is_continued() {
    let sandbox = Sandbox::new();
    let answerable = Answerable::prepare(&sandbox);
    let mut command = sandbox.command(&["hook", "gemini", "BeforeTool"]);
    // Stdin that never ends: the hook waits for it, and only its deadline ends that.
    command
        .env("PATH", answerable.path())
        .env("GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS", "1500")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let hook = Reaped::from(child);
    signal(&hook, libc::SIGSTOP);
    let continued = Continued(&hook);
    wait_for(DEADLINE, "the hook to be stopped", || is_stopped(hook.id()));
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "stopped before its deadline ({:?}); the machine is too slow for this test",
        started.elapsed()
    );
    wait_for(
        DEADLINE,
        "the hook's deadline to pass while it is stopped",
        || started.elapsed() > Duration::from_millis(3_500),
    );
    drop(continued);
    let continued_at = Instant::now();
    let output = finish(hook, DEADLINE);
    let answered_after = continued_at.elapsed();
    drop(stdin);
    assert_eq!(String::from_utf8_lossy(&output.stdout), ASK, "{output:?}");
    assert!(
        answered_after < Duration::from_secs(2),
        "answered {answered_after:?} after SIGCONT"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("paused past its deadline"), "{stderr}");
}

/// The hooks' wait in the tests below.
const WAIT: Duration = Duration::from_secs(4);

/// Holds `event` with `env` (the wait [`WAIT`]), stops the hook, answers `once` while it is
/// stopped, continues it past its deadline (the wait and 2 s), and returns what it printed and
/// the audit log's states of the prompt. The answer comes late in the hold and the hook runs
/// again well within the gateway's 5 s wait for a receipt, so that a hook that delivered it
/// would still have its receipt taken.
fn answered_while_stopped(
    gateway: &Gateway,
    adapter_and_event: &[&str],
    stdin: &[u8],
    env: &[(&str, &str)],
) -> (String, Vec<Value>) {
    let wait = WAIT.as_secs().to_string();
    let env: Vec<(&str, &str)> = env
        .iter()
        .copied()
        .chain([("GATEHOUSE_HOOK__WAIT_SECONDS", wait.as_str())])
        .collect();
    let mut arguments = vec!["hook"];
    arguments.extend_from_slice(adapter_and_event);
    let started = Instant::now();
    let hook = gateway.sandbox.spawn_fed(&arguments, &env, stdin);
    let prompt = gateway.wait_for_pending_within(1, DEADLINE).remove(0);
    assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
    signal(&hook, libc::SIGSTOP);
    let continued = Continued(&hook);
    wait_for(DEADLINE, "the hook to be stopped", || is_stopped(hook.id()));
    wait_for(DEADLINE, "late in the hold", || {
        started.elapsed() > Duration::from_millis(2_200)
    });
    let answered = gateway.answer(&prompt, &["once"]);
    assert!(
        answered.status.success(),
        "the answer came within the hold ({:?}): {answered:?}",
        started.elapsed()
    );
    wait_for(
        DEADLINE,
        "the hook's deadline to pass while it is stopped",
        || started.elapsed() > WAIT + Duration::from_millis(2_600),
    );
    drop(continued);
    let output = finish(hook, DEADLINE);
    wait_for(DEADLINE, "the prompt's verdict to be settled", || {
        states_of(gateway, &prompt["id"])
            .iter()
            .any(|state| state == "unconfirmed" || state == "delivered")
    });
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        states_of(gateway, &prompt["id"]),
    )
}

/// The states the audit log records for the prompt `id`, oldest first.
fn states_of(gateway: &Gateway, id: &Value) -> Vec<Value> {
    gateway
        .audit_log()
        .into_iter()
        .filter(|record| record["event"]["id"] == *id)
        .map(|record| record["event"]["state"].clone())
        .collect()
}

/// The audit log's records of prompts of `session`, oldest first.
fn records_of_session(gateway: &Gateway, session: &str) -> Vec<Value> {
    let records = gateway.audit_log();
    let ids: Vec<Value> = records
        .iter()
        .filter(|record| record["event"]["prompt"]["session"] == session)
        .map(|record| record["event"]["prompt"]["id"].clone())
        .collect();
    records
        .into_iter()
        .filter(|record| {
            ids.contains(&record["event"]["id"]) || ids.contains(&record["event"]["prompt"]["id"])
        })
        .collect()
}

/// Starts the hook on `stdin` with `env` (the wait [`WAIT`]) and stops it at once, as its
/// agent's Ctrl+Z may as the agent starts it; continues it after its wait is over (the agent,
/// which times its hook from its start, may have given up by then), answers `once` to whatever
/// it holds, and returns what it printed and the audit log's records of prompts of `session`.
fn stopped_as_it_starts(
    gateway: &Gateway,
    adapter_and_event: &[&str],
    stdin: &[u8],
    env: &[(&str, &str)],
    session: &str,
) -> (String, Vec<Value>) {
    let wait = WAIT.as_secs().to_string();
    let env: Vec<(&str, &str)> = env
        .iter()
        .copied()
        .chain([("GATEHOUSE_HOOK__WAIT_SECONDS", wait.as_str())])
        .collect();
    let mut arguments = vec!["hook"];
    arguments.extend_from_slice(adapter_and_event);
    let started = Instant::now();
    let hook = gateway.sandbox.spawn_fed(&arguments, &env, stdin);
    signal(&hook, libc::SIGSTOP);
    let continued = Continued(&hook);
    wait_for(DEADLINE, "the hook to be stopped", || is_stopped(hook.id()));
    wait_for(
        DEADLINE,
        "the hook's wait to pass while it is stopped",
        || started.elapsed() > WAIT + Duration::from_millis(2_500),
    );
    drop(continued);
    // A hook that holds anyway gets an answer, which it would deliver.
    let mut answered = false;
    wait_for(DEADLINE, "the hook to end, or to hold", || {
        if !answered {
            if let Some(prompt) = gateway.list().first() {
                answered = gateway.answer(prompt, &["once"]).status.success();
            }
        }
        is_in_state(hook.id(), "Z")
    });
    let output = finish(hook, DEADLINE);
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        records_of_session(gateway, session),
    )
}

/// Stopped as it starts, continued past its wait: it holds nothing, so nothing is listed,
/// answered or recorded as delivered; Qwen gets nothing (its own dialog), Gemini `ask`.
#[test]
fn a_hook_stopped_as_it_starts_and_continued_past_its_wait_holds_nothing() {
    let gateway = Gateway::start();
    write_qwen_record(&gateway);
    let (printed, records) = stopped_as_it_starts(
        &gateway,
        &["qwen"],
        &qwen_permission_request("started-stopped", "printf late > late.txt"),
        &[
            ("PATH", "/usr/bin:/bin"),
            ("QWEN_CODE_STARTUP_VERSION", "0.24.4"),
        ],
        "started-stopped",
    );
    assert_eq!(printed, "", "Qwen gets nothing: its own dialog decides");
    assert_eq!(records, Vec::<Value>::new(), "nothing was held");

    let answerable = Answerable::prepare(&gateway.sandbox);
    let path = answerable.path();
    let event: Value = serde_json::from_slice(&before_tool()).unwrap();
    let session = event["session_id"].as_str().unwrap().to_owned();
    let (printed, records) = stopped_as_it_starts(
        &gateway,
        &["gemini", "BeforeTool"],
        &before_tool(),
        &[("PATH", path.as_str())],
        &session,
    );
    assert_eq!(printed, ASK, "Gemini gets its own dialog");
    assert_eq!(records, Vec::<Value>::new(), "nothing was held");
}

#[test]
fn a_verdict_that_comes_while_the_hook_is_stopped_past_its_deadline_is_not_delivered() {
    let gateway = Gateway::start();
    write_qwen_record(&gateway);
    let (printed, states) = answered_while_stopped(
        &gateway,
        &["qwen"],
        &qwen_permission_request("stopped", "printf late > late.txt"),
        &[
            ("PATH", "/usr/bin:/bin"),
            ("QWEN_CODE_STARTUP_VERSION", "0.24.4"),
        ],
    );
    assert_eq!(printed, "", "Qwen gets nothing: its own dialog decides");
    assert_eq!(states, [json!("resolved"), json!("unconfirmed")]);

    let answerable = Answerable::prepare(&gateway.sandbox);
    let path = answerable.path();
    let (printed, states) = answered_while_stopped(
        &gateway,
        &["gemini", "BeforeTool"],
        &before_tool(),
        &[("PATH", path.as_str())],
    );
    assert_eq!(printed, ASK, "Gemini gets its own dialog");
    assert_eq!(states, [json!("resolved"), json!("unconfirmed")]);
}
