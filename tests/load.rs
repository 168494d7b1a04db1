//! Load: many hooks held at once, each answered, each printing exactly its own verdict, with
//! the gateway's memory bounded. This test counts correctness, not time.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{claude_fixture, finish, Gateway};

const HOOKS: usize = 200;

#[test]
fn two_hundred_held_hooks_each_get_exactly_their_own_verdict() {
    let gateway = Gateway::start();
    let mut hooks = Vec::with_capacity(HOOKS);
    for index in 0..HOOKS {
        let mut event = claude_fixture("PermissionRequest-Bash");
        event["session_id"] = json!(format!("session-{index}"));
        event["tool_input"]["command"] = json!(format!("printf {index} > out.txt"));
        hooks.push(gateway.spawn_claude(&event));
    }
    let prompts = gateway.wait_for_pending_within(HOOKS, Duration::from_secs(60));
    for prompt in &prompts {
        let command = prompt["input"]["command"].as_str().unwrap();
        let index: usize = command.split_whitespace().nth(1).unwrap().parse().unwrap();
        let id = prompt["id"].as_str().unwrap();
        let message = format!("no {index}");
        let arguments: Vec<&str> = if index.is_multiple_of(2) {
            vec!["answer", id, "once"]
        } else {
            vec!["answer", id, "deny", "--message", &message]
        };
        assert!(
            gateway.run(&arguments).status.success(),
            "answering {command}"
        );
    }
    let resident = gateway.resident_bytes();
    for (index, hook) in hooks.into_iter().enumerate() {
        let output = finish(hook, Duration::from_secs(30));
        let verdict: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("hook {index} printed a verdict"));
        let expected = if index.is_multiple_of(2) {
            json!({"behavior": "allow"})
        } else {
            json!({"behavior": "deny", "message": format!("no {index}")})
        };
        assert_eq!(
            verdict["hookSpecificOutput"]["decision"], expected,
            "hook {index}"
        );
    }
    assert!(gateway.list().is_empty());
    assert!(
        resident < 64 * 1024 * 1024,
        "the gateway holds {resident} bytes resident with {HOOKS} hooks"
    );
}
