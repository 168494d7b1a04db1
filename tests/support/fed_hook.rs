//! What the end-to-end files of agents with command hooks check without the agent itself, on a
//! gateway fed the agent's captured event: a hostile command is listed with its escapes made
//! visible, a deny from the gateway reaches the hook's stdout as the agent's verdict, and input
//! that is not an event leaves the agent alone.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{finish, finished_silently, wait_for, Gateway, Reaped};

/// A command with a terminal escape and a bidirectional control, as a model could write it.
pub const HOSTILE_COMMAND: &str = "printf \u{1b}[2Jgone\u{202e} > x.txt";

/// The event captured from an agent at `captured` (below the repository), with its
/// `session_id` and its `tool_input.command` replaced by `session` and `command`.
pub fn captured_event(captured: &str, session: &str, command: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(captured);
    let mut event: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    event["session_id"] = json!(session);
    event["tool_input"]["command"] = json!(command);
    event.to_string().into_bytes()
}

/// The `hook`, fed [`HOSTILE_COMMAND`] by an agent no probe unlocked, returns at once with
/// nothing printed; the one listed prompt offers nothing and keeps the command exact, and `list`
/// shows its escape and bidi control as `\e` and `\u{202e}`, never raw. Returns the list text.
pub fn hostile_command_is_listed_escaped(
    gateway: &Gateway,
    hook: Reaped,
    deadline: Duration,
) -> String {
    finished_silently(hook, deadline, "read-only: the hook returns with nothing");
    let listed = gateway.wait_for_pending(1);
    assert_eq!(listed[0]["actions"], json!([]), "{}", listed[0]);
    assert_eq!(
        listed[0]["summary"], HOSTILE_COMMAND,
        "the JSON stays exact"
    );
    let list = gateway.list_text();
    assert!(
        list.contains("\\e[2Jgone\\u{202e}") && !list.contains('\u{1b}'),
        "{list}"
    );
    list
}

/// The prompt of the `hook` in session `probed`, once answerable (`once` and `deny`), denied
/// from the gateway with the message "not today": the hook exits 0 and prints `verdict`.
pub fn the_probed_prompt_denied_prints(
    gateway: &Gateway,
    hook: Reaped,
    verdict: Value,
    deadline: Duration,
) {
    let mut answerable = Vec::new();
    wait_for(
        deadline,
        "the probed version's prompt to be answerable",
        || {
            answerable = gateway
                .list()
                .into_iter()
                .filter(|prompt| prompt["session"] == "probed")
                .collect();
            answerable.len() == 1
        },
    );
    assert_eq!(answerable[0]["actions"], json!(["once", "deny"]));
    let denied = gateway.run(&[
        "answer",
        answerable[0]["id"].as_str().unwrap(),
        "deny",
        "--message",
        "not today",
    ]);
    assert!(denied.status.success(), "{denied:?}");
    let probed = finish(hook, deadline);
    assert!(probed.status.success());
    let printed: Value = serde_json::from_slice(&probed.stdout).unwrap();
    assert_eq!(printed, verdict);
}

/// `gatehouse hook ADAPTER` fed text that is not JSON, and JSON that names `event` and nothing
/// else, with `env`: each time it exits 0 and prints nothing, leaving the agent alone.
pub fn not_an_event_is_left_alone(
    gateway: &Gateway,
    adapter: &str,
    event: &str,
    env: &[(&str, &str)],
    deadline: Duration,
) {
    let named_only = json!({ "hook_event_name": event }).to_string();
    for not_an_event in [&b"not json"[..], named_only.as_bytes()] {
        let left_alone = finish(gateway.spawn_hook(adapter, not_an_event, env), deadline);
        assert!(left_alone.status.success());
        assert!(left_alone.stdout.is_empty());
    }
}
