//! The parser against the payloads captured from Copilot CLI 1.0.102.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, Observation};
use gatehouse_harness::events::testing::{assert_not_events, assert_permission_prompt};
use serde_json::Value;

use super::*;

macro_rules! fixture {
    ($name:literal) => {
        gatehouse_harness::captured_payload!("copilot-cli-1.0.102", $name, ".shell.json")
    };
}

fn no_rules(_: &str, _: &str) -> Option<String> {
    None
}

use gatehouse_harness::events::testing::prompt_of;

#[test]
fn a_bash_permission_request_is_held_while_the_gateway_offers_an_action() {
    let (prompt, hold) = prompt_of(
        parse(
            fixture!("permissionRequest"),
            Some("permissionRequest"),
            no_rules,
        )
        .unwrap(),
    );
    assert_eq!(hold, HoldMode::WhileActionable, "the gateway decides");
    assert_eq!(prompt.read_only_reason, None);
    let session = "94f710f6-33f6-429b-9bb7-2c7417c76028";
    assert_permission_prompt(
        &prompt,
        "copilot",
        session,
        "bash",
        "printf approved > proof.txt",
    );
}

#[test]
fn the_event_name_falls_back_to_hook_name() {
    let (_, hold) = prompt_of(parse(fixture!("permissionRequest"), None, no_rules).unwrap());
    assert_eq!(hold, HoldMode::WhileActionable);
    let error = parse(fixture!("postToolUse"), None, no_rules).unwrap_err();
    assert!(matches!(error, ParseError::NotAnEvent(ref why) if why.contains("not named")));
}

#[test]
fn another_tool_is_only_watched() {
    let mut event: Value = serde_json::from_slice(fixture!("permissionRequest")).unwrap();
    event["toolName"] = "edit".into();
    let (prompt, hold) = prompt_of(
        parse(
            event.to_string().as_bytes(),
            Some("permissionRequest"),
            no_rules,
        )
        .unwrap(),
    );
    assert_eq!(hold, HoldMode::RegisterOnly);
    assert!(prompt.read_only_reason.unwrap().contains("only bash"));
}

#[test]
fn post_tool_use_correlates_with_its_permission_request_by_command() {
    let (prompt, _) = prompt_of(
        parse(
            fixture!("permissionRequest"),
            Some("permissionRequest"),
            no_rules,
        )
        .unwrap(),
    );
    let HookEvent::Observe(Observation::ToolFinished {
        correlation,
        session,
        adapter,
    }) = parse(fixture!("postToolUse"), Some("postToolUse"), no_rules).unwrap()
    else {
        panic!("a finished tool call");
    };
    assert_eq!(correlation, prompt.correlation);
    assert_eq!(
        correlation,
        correlation_key("bash", &"printf approved > proof.txt".into())
    );
    assert_eq!((adapter.as_str(), session), ("copilot", prompt.session));
}

#[test]
fn turn_and_session_endings_are_observed_and_the_rest_is_ignored() {
    let named = |bytes: &[u8], name: &str| parse(bytes, Some(name), no_rules).unwrap();
    assert!(matches!(
        named(fixture!("agentStop"), "agentStop"),
        HookEvent::Observe(Observation::TurnEnded { .. })
    ));
    let submitted = br#"{"sessionId":"s","timestamp":1,"cwd":"/p","prompt":"again"}"#;
    assert!(matches!(
        named(submitted, "userPromptSubmitted"),
        HookEvent::Observe(Observation::TurnEnded { .. })
    ));
    let ended = br#"{"sessionId":"s","timestamp":1,"cwd":"/p","reason":"user_exit"}"#;
    assert!(matches!(
        named(ended, "sessionEnd"),
        HookEvent::Observe(Observation::SessionEnded { .. })
    ));
    for (bytes, name) in [
        (&fixture!("preToolUse")[..], "preToolUse"),
        (&fixture!("sessionStart")[..], "sessionStart"),
        (&fixture!("notification")[..], "notification"),
    ] {
        assert_eq!(named(bytes, name), HookEvent::Ignore, "{name}");
    }
}

#[test]
fn input_that_is_not_an_event_is_an_error() {
    let unnamed = |bytes: &[u8]| parse(bytes, Some("permissionRequest"), no_rules);
    assert_not_events(unnamed, br#"{"sessionId":"s","toolName":"bash"}"#);
}

#[test]
fn a_call_copilot_would_run_without_asking_is_only_watched() {
    let mut asked = None;
    let (prompt, hold) = prompt_of(
        parse(
            fixture!("permissionRequest"),
            Some("permissionRequest"),
            |command: &str, cwd: &str| {
                asked = Some((command.to_owned(), cwd.to_owned()));
                Some("Copilot CLI was told not to ask again about `printf`".into())
            },
        )
        .unwrap(),
    );
    assert_eq!(hold, HoldMode::RegisterOnly);
    assert!(prompt
        .read_only_reason
        .unwrap()
        .contains("not to ask again"));
    assert_eq!(
        asked,
        Some((
            "printf approved > proof.txt".into(),
            "/home/dev/project".into()
        ))
    );
}
