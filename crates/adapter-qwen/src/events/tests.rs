//! Qwen Code 0.24.4's own payloads (`tests/data/qwen-code-0.24.4/`), read as gatehouse reads them.

use gatehouse_core::{HoldMode, HookEvent, Observation};

use super::*;

macro_rules! payload {
    ($name:literal) => {
        include_bytes!(concat!("../../tests/data/qwen-code-0.24.4/", $name)).as_slice()
    };
}

const SESSION: &str = "a74121f2-7ef0-4ccc-b3b6-c61d6a40cc54";

use gatehouse_harness::events::testing::{assert_permission_prompt, prompt_of};

#[test]
fn a_shell_permission_request_is_a_prompt_with_the_whole_command_held_while_actionable() {
    let (prompt, hold) = prompt_of(parse(payload!("PermissionRequest.shell.json"), None).unwrap());
    assert_eq!(hold, HoldMode::WhileActionable);
    let summary = "printf approved > proof.txt";
    assert_permission_prompt(&prompt, "qwen", SESSION, "run_shell_command", summary);
    assert_eq!(prompt.input["description"], "write proof file");
    assert_eq!(prompt.read_only_reason, None);
    assert!(prompt.extra.suggestions.is_empty(), "Qwen sends none");
    // In approval mode `auto`, the classifier could not decide: the same prompt.
    let (auto, _) =
        prompt_of(parse(payload!("PermissionRequest-automode.shell.json"), None).unwrap());
    assert_eq!(auto.summary, prompt.summary);
}

#[test]
fn post_tool_use_finishes_the_prompt_of_the_same_command_though_only_it_has_a_tool_use_id() {
    let (prompt, _) = prompt_of(parse(payload!("PermissionRequest.shell.json"), None).unwrap());
    assert_eq!(
        parse(payload!("PostToolUse.shell.json"), None).unwrap(),
        HookEvent::Observe(Observation::ToolFinished {
            adapter: "qwen".into(),
            session: SESSION.into(),
            correlation: prompt.correlation,
        })
    );
}

#[test]
fn a_cancel_in_qwens_dialog_ends_the_turn_and_other_batches_are_nothing() {
    assert_eq!(
        parse(
            payload!("PostToolBatch-cancelled-in-dialog.shell.json"),
            None
        )
        .unwrap(),
        HookEvent::Observe(Observation::TurnEnded {
            adapter: "qwen".into(),
            session: "484e11b4-bd29-42bc-8139-f401cc2af322".into(),
        })
    );
    for settled in [
        payload!("PostToolBatch.shell.json"),
        payload!("PostToolBatch-denied-by-hook.shell.json"),
    ] {
        assert_eq!(parse(settled, None).unwrap(), HookEvent::Ignore);
    }
}

#[test]
fn stop_ends_the_turn_session_end_the_session_and_the_rest_is_ignored() {
    assert_eq!(
        parse(payload!("Stop.json"), None).unwrap(),
        HookEvent::Observe(Observation::TurnEnded {
            adapter: "qwen".into(),
            session: SESSION.into(),
        })
    );
    assert_eq!(
        parse(payload!("SessionEnd.json"), None).unwrap(),
        HookEvent::Observe(Observation::SessionEnded {
            adapter: "qwen".into(),
            session: SESSION.into(),
        })
    );
    for ignored in [
        payload!("PreToolUse.shell.json"),
        payload!("SessionStart.json"),
        payload!("UserPromptSubmit.json"),
        payload!("UserPromptSubmit-after-tool.json"),
        payload!("Notification-permission_prompt.json"),
    ] {
        assert_eq!(parse(ignored, None).unwrap(), HookEvent::Ignore);
    }
}

#[test]
fn another_tool_is_watched_read_only_with_the_reason_and_bad_input_is_an_error() {
    let edit = br#"{"session_id": "s", "cwd": "/w", "hook_event_name": "PermissionRequest",
        "tool_name": "write_file", "tool_input": {"file_path": "/w/a.txt", "content": "x"}}"#;
    let (prompt, hold) = prompt_of(parse(edit, None).unwrap());
    assert_eq!(hold, HoldMode::RegisterOnly);
    assert!(prompt
        .read_only_reason
        .unwrap()
        .contains("answer it in Qwen's terminal"));
    // A shell call without a command is nothing the probe proved either.
    let empty = br#"{"session_id": "s", "hook_event_name": "PermissionRequest",
        "tool_name": "run_shell_command", "tool_input": {}}"#;
    assert_eq!(
        prompt_of(parse(empty, None).unwrap()).1,
        HoldMode::RegisterOnly
    );
    assert!(matches!(
        parse(b"not json", None),
        Err(ParseError::NotJson(_))
    ));
    assert!(matches!(
        parse(br#"{"session_id": "s"}"#, None),
        Err(ParseError::NotAnEvent(_))
    ));
    let no_input = br#"{"session_id": "s", "hook_event_name": "PermissionRequest", "tool_name": "run_shell_command"}"#;
    assert!(matches!(
        parse(no_input, None),
        Err(ParseError::NotAnEvent(_))
    ));
}
