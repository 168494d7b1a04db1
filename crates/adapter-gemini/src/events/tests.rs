//! The parser against the events Gemini CLI 0.61.0 wrote (tests/data/gemini-cli-0.61.0).

use gatehouse_core::Observation;
use gatehouse_harness::events::testing::{assert_not_events, assert_permission_prompt, held_as};
use serde_json::json;

use super::*;

macro_rules! fixture {
    ($name:literal) => {
        gatehouse_harness::captured_payload!("gemini-cli-0.61.0", $name)
    };
}

const SESSION: &str = "596b8bb1-09c4-4f5f-b287-b2d0c295d27f";

fn watched_prompt() -> NewPrompt {
    held_as(
        parse(fixture!("Notification.shell")).unwrap(),
        HoldMode::RegisterOnly,
    )
}

#[test]
fn a_tool_permission_notification_is_watched_read_only_with_its_command() {
    let prompt = watched_prompt();
    let summary = "printf approved > proof.txt";
    assert_permission_prompt(&prompt, "gemini", SESSION, "run_shell_command", summary);
    assert_eq!(prompt.input["command"], "printf approved > proof.txt");
    assert_eq!(prompt.input["rootCommand"], "printf, redirection (>)");
    assert_eq!(prompt.read_only_reason.as_deref(), Some(READ_ONLY_REASON));
}

#[test]
fn after_tool_of_the_same_command_withdraws_the_prompt() {
    let prompt = watched_prompt();
    let HookEvent::Observe(Observation::ToolFinished {
        adapter,
        session,
        correlation,
    }) = parse(fixture!("AfterTool.shell")).unwrap()
    else {
        panic!("a finished tool");
    };
    assert_eq!((adapter.as_str(), session.as_str()), ("gemini", SESSION));
    assert_eq!(correlation, prompt.correlation);

    let mut other: Value = serde_json::from_slice(fixture!("AfterTool.shell")).unwrap();
    other["tool_input"]["command"] = "printf other > proof.txt".into();
    let HookEvent::Observe(Observation::ToolFinished { correlation, .. }) =
        parse(other.to_string().as_bytes()).unwrap()
    else {
        panic!("a finished tool");
    };
    assert_ne!(correlation, prompt.correlation);
}

#[test]
fn a_summary_is_one_visible_line() {
    let mut event: Value = serde_json::from_slice(fixture!("Notification.shell")).unwrap();
    event["details"]["command"] = "echo a\necho \u{1b}[31mb".into();
    let HookEvent::Prompt { prompt, .. } = parse(event.to_string().as_bytes()).unwrap() else {
        panic!("a prompt");
    };
    assert_eq!(prompt.summary, r"echo a\necho \e[31mb");
    assert_eq!(prompt.input["command"], "echo a\necho \u{1b}[31mb");
}

#[test]
fn turns_and_sessions_that_move_on_are_observed() {
    for (stdin, turn) in [
        (&fixture!("BeforeAgent")[..], true),
        (&fixture!("AfterAgent")[..], true),
        (&fixture!("SessionEnd")[..], false),
    ] {
        let session = "54710d9e-ba35-4f33-b50d-d190c563c48d".to_owned();
        let adapter = "gemini".to_owned();
        let expected = if turn {
            Observation::TurnEnded { adapter, session }
        } else {
            Observation::SessionEnded { adapter, session }
        };
        assert_eq!(parse(stdin).unwrap(), HookEvent::Observe(expected));
    }
}

#[test]
fn other_events_and_notifications_are_ignored() {
    let mut read_file: Value = serde_json::from_slice(fixture!("BeforeTool.shell")).unwrap();
    read_file["tool_name"] = "read_file".into();
    assert_eq!(
        parse(read_file.to_string().as_bytes()).unwrap(),
        HookEvent::Ignore
    );
    assert_eq!(
        parse(fixture!("SessionStart.shell")).unwrap(),
        HookEvent::Ignore
    );
    let notification = |notification_type: &str, details: Value| {
        let event = json!({
            "session_id": "s", "cwd": "/p", "hook_event_name": "Notification",
            "notification_type": notification_type, "message": "m", "details": details,
        });
        parse(event.to_string().as_bytes()).unwrap()
    };
    let edit = json!({ "type": "edit", "title": "Confirm Edit", "fileName": "a.txt" });
    assert_eq!(notification("ToolPermission", edit), HookEvent::Ignore);
    let exec = json!({ "type": "exec", "title": "Confirm Shell Command", "command": "ls" });
    assert_eq!(notification("Other", exec), HookEvent::Ignore);
    let without_command = json!({ "type": "exec", "title": "Confirm Shell Command" });
    assert_eq!(
        notification("ToolPermission", without_command),
        HookEvent::Ignore
    );
}

#[test]
fn input_that_is_not_an_event_is_an_error() {
    let without_input =
        br#"{"hook_event_name":"AfterTool","session_id":"s","tool_name":"run_shell_command"}"#;
    assert_not_events(parse, without_input);
}

#[test]
fn before_tool_of_a_shell_command_is_held_while_actionable_with_its_whole_input() {
    let HookEvent::Prompt { prompt, hold } =
        parse(fixture!("BeforeTool.shell-policy-allow")).unwrap()
    else {
        panic!("a prompt");
    };
    assert_eq!(hold, HoldMode::WhileActionable);
    assert_eq!(prompt.tool, "run_shell_command");
    assert_eq!(prompt.summary, "printf gemini > gemini-proof.txt");
    assert_eq!(prompt.input["command"], "printf gemini > gemini-proof.txt");
    assert_eq!(prompt.input["description"], "write proof file");
    assert_eq!(prompt.read_only_reason, None);
    assert_eq!(prompt.session, "d94241cd-e863-488f-b753-27d8d330db3c");
    // The same key as the Notification of the same command, which AfterTool also carries.
    let notification = watched_prompt();
    let mut same: Value = serde_json::from_slice(fixture!("BeforeTool.shell")).unwrap();
    same["hook_event_name"] = "BeforeTool".into();
    let HookEvent::Prompt { prompt: same, .. } = parse(same.to_string().as_bytes()).unwrap() else {
        panic!("a prompt");
    };
    assert_eq!(same.correlation, notification.correlation);

    for input in [
        json!("printf x"),
        json!({ "description": "no command" }),
        json!({ "command": 7 }),
    ] {
        let mut odd: Value = serde_json::from_slice(fixture!("BeforeTool.shell")).unwrap();
        odd["tool_input"] = input;
        assert_eq!(
            parse(odd.to_string().as_bytes()).unwrap(),
            HookEvent::Ignore
        );
    }
}
