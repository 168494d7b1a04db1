//! Factory Droid 0.225.2's own payloads (`tests/data/factory-droid-0.225.2/`), read as gatehouse
//! reads them.

use gatehouse_core::{HoldMode, HookEvent, Observation, PromptKind};
use gatehouse_harness::events::testing::{assert_not_events, prompt_of};
use serde_json::{json, Value};

use super::*;

macro_rules! payload {
    ($name:literal) => {
        gatehouse_harness::captured_payload!("factory-droid-0.225.2", $name).as_slice()
    };
}

const SESSION: &str = "da371976-e60d-477c-88c7-31e7a74a6d0f";

fn defaults() -> Vec<String> {
    own_rules::DEFAULT_ALLOWLIST.map(str::to_owned).to_vec()
}

fn parsed(stdin: &[u8]) -> HookEvent {
    parse(stdin, defaults).unwrap()
}

/// The captured PreToolUse of `printf approved > proof.txt`, with `change` made to it.
fn pre_tool_use(change: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut event: Value = serde_json::from_slice(payload!("PreToolUse-Execute")).unwrap();
    change(&mut event);
    event.to_string().into_bytes()
}

#[test]
fn a_shell_call_droid_asks_about_is_a_prompt_with_the_whole_command_held_while_actionable() {
    let (prompt, hold) = prompt_of(parsed(payload!("PreToolUse-Execute")));
    assert_eq!(hold, HoldMode::WhileActionable);
    assert_eq!(
        (prompt.adapter.as_str(), prompt.session.as_str()),
        ("droid", SESSION)
    );
    assert_eq!(prompt.cwd, "~/project", "as the fixture has it");
    assert_eq!(prompt.kind, PromptKind::Permission);
    assert_eq!(prompt.tool, "Execute");
    assert_eq!(prompt.summary, "printf approved > proof.txt");
    assert_eq!(prompt.input["riskLevel"], "medium");
    assert_eq!(prompt.read_only_reason, None);
    assert!(prompt.extra.suggestions.is_empty(), "Droid sends none");
}

#[test]
fn post_tool_use_finishes_the_prompt_of_the_same_command_though_neither_has_a_call_id() {
    let (prompt, _) = prompt_of(parsed(payload!("PreToolUse-Execute")));
    assert_eq!(
        parsed(payload!("PostToolUse-Execute")),
        HookEvent::Observe(Observation::ToolFinished {
            adapter: "droid".into(),
            session: SESSION.into(),
            correlation: prompt.correlation,
        })
    );
}

#[test]
fn stop_ends_the_turn_session_end_the_session_and_the_rest_is_ignored() {
    assert_eq!(
        parsed(payload!("Stop")),
        HookEvent::Observe(Observation::TurnEnded {
            adapter: "droid".into(),
            session: SESSION.into(),
        })
    );
    assert_eq!(
        parsed(payload!("SessionEnd")),
        HookEvent::Observe(Observation::SessionEnded {
            adapter: "droid".into(),
            session: SESSION.into(),
        })
    );
    for ignored in [payload!("Notification"), payload!("UserPromptSubmit")] {
        assert_eq!(parsed(ignored), HookEvent::Ignore);
    }
}

#[test]
fn calls_droid_runs_by_its_own_rules_are_watched_read_only_and_other_tools_are_nothing() {
    let allowlisted = pre_tool_use(|event| event["tool_input"]["command"] = json!("git status"));
    let (prompt, hold) = prompt_of(parsed(&allowlisted));
    assert_eq!(hold, HoldMode::RegisterOnly);
    assert!(prompt
        .read_only_reason
        .unwrap()
        .contains("allowlist without asking"));
    let auto_medium = pre_tool_use(|event| event["permission_mode"] = json!("auto-medium"));
    let (prompt, hold) = prompt_of(parsed(&auto_medium));
    assert_eq!(hold, HoldMode::RegisterOnly);
    assert!(prompt.read_only_reason.unwrap().contains("Auto (Medium)"));
    // The same level asks about a high-risk command: held.
    let high = pre_tool_use(|event| {
        event["permission_mode"] = json!("auto-medium");
        event["tool_input"]["riskLevel"] = json!("high");
    });
    assert_eq!(prompt_of(parsed(&high)).1, HoldMode::WhileActionable);
    // The person's allowlist is read only for a shell call.
    let read = |stdin: &[u8]| {
        parse(stdin, || -> Vec<String> {
            panic!("the allowlist is read for a shell call only")
        })
        .unwrap()
    };
    let edit = pre_tool_use(|event| {
        event["tool_name"] = json!("Edit");
        event["tool_input"] = json!({ "file_path": "/w/a.txt", "old_str": "a", "new_str": "b" });
    });
    assert_eq!(read(&edit), HookEvent::Ignore);
    assert!(matches!(
        read(payload!("Stop")),
        HookEvent::Observe(Observation::TurnEnded { .. })
    ));
}

#[test]
fn a_shell_call_without_a_command_is_read_only_and_bad_input_is_an_error() {
    for input in [json!({}), json!({ "command": "" }), json!({ "command": 7 })] {
        let stdin = pre_tool_use(|event| event["tool_input"] = input.clone());
        let (prompt, hold) = prompt_of(parsed(&stdin));
        assert_eq!(hold, HoldMode::RegisterOnly, "{input}");
        assert!(prompt
            .read_only_reason
            .unwrap()
            .contains("answer it in Droid's terminal"));
    }
    let without_input = pre_tool_use(|event| {
        event.as_object_mut().unwrap().remove("tool_input");
    });
    assert_not_events(|stdin| parse(stdin, defaults), &without_input);
}
