//! Crashes and restarts: a gateway killed with SIGKILL while hooks wait. The hooks keep
//! waiting and register their prompts again with a new gateway; a verdict is never applied
//! twice or late; an answer given in the terminal meanwhile is not forgotten.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{claude_fixture, finish, Gateway};

const HOOK_EXIT: Duration = Duration::from_secs(15);

#[test]
fn a_waiting_hook_registers_its_prompt_again_with_a_new_gateway() {
    let mut gateway = Gateway::start();
    let (hook, before) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    gateway.kill();
    gateway.start_again();
    let after = gateway.wait_for_pending(1).remove(0);
    assert_ne!(after["id"], before["id"], "a new gateway gives a new id");
    assert_eq!(after["input"], before["input"], "the original snapshot");
    let old = gateway.run(&["answer", before["id"].as_str().unwrap(), "once"]);
    assert_eq!(
        old.status.code(),
        Some(1),
        "an id from the dead gateway is refused"
    );
    assert!(gateway
        .run(&["answer", after["id"].as_str().unwrap(), "once"])
        .status
        .success());
    let output = finish(hook, HOOK_EXIT);
    let verdict: Value = serde_json::from_slice(&output.stdout).expect("a verdict");
    assert_eq!(
        verdict["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow"})
    );
}

#[test]
fn a_yes_in_the_terminal_while_the_gateway_was_down_is_not_forgotten() {
    let mut gateway = Gateway::start();
    let (hook, _) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    gateway.kill();
    // The person allows the command in the terminal: Claude Code runs PostToolUse, which finds
    // no gateway and goes to the spool.
    let observer = finish(
        gateway.spawn_claude(&claude_fixture("PostToolUse-Bash")),
        HOOK_EXIT,
    );
    assert!(observer.status.success());
    assert!(String::from_utf8_lossy(&observer.stderr).contains("no gateway"));
    gateway.start_again();
    let output = finish(hook, HOOK_EXIT);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "",
        "the prompt was settled in the terminal: no verdict"
    );
    assert!(
        gateway.list().is_empty(),
        "it does not come back as answerable"
    );
}

#[test]
fn an_accepted_answer_is_in_the_audit_log_even_when_the_gateway_dies_at_once() {
    let mut gateway = Gateway::start();
    let (hook, prompt) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let answered = gateway.answer(&prompt, &["deny", "--message", "not today"]);
    assert!(answered.status.success());
    gateway.kill();
    finish(hook, HOOK_EXIT);
    let records = gateway.audit_log();
    let resolved = records
        .iter()
        .find(|record| record["event"]["state"] == "resolved")
        .expect("the accepted answer is recorded");
    assert_eq!(resolved["event"]["id"], prompt["id"]);
    assert_eq!(resolved["event"]["by"], "gatehouse-cli");
    assert_eq!(
        resolved["answer"],
        json!({"action": "deny", "message": "not today"})
    );
    assert_eq!(records[0]["event"]["type"], "added");
    assert_eq!(
        records[0]["event"]["prompt"]["input"]["command"],
        "printf hi > hi.txt"
    );
}
