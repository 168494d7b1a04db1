//! pi's extension events: a call is a prompt held while actionable, its settling and the end of
//! a turn or session settle it, anything else is nothing.

use gatehouse_core::{HoldMode, HookEvent, Observation, ParseError, PromptKind};
use serde_json::json;

use super::*;

fn environment() -> HookEnvironment {
    HookEnvironment {
        tmux: Some("/tmp/tmux-1000/default,42,0".into()),
        tmux_pane: Some("%3".into()),
        pi_pid: Some("4242".into()),
    }
}

/// The extension's payload for pi's captured `tool_call` event.
fn call_payload(word: &str) -> Vec<u8> {
    let captured: serde_json::Value = serde_json::from_slice(gatehouse_harness::captured_payload!(
        "pi-0.73.1",
        "tool_call.bash"
    ))
    .unwrap();
    let event = &captured["event"];
    json!({ "event": word, "session": captured["ctx"]["sessionId"], "cwd": "/home/dev/project",
        "toolName": event["toolName"], "toolCallId": event["toolCallId"], "input": event["input"] })
    .to_string()
    .into_bytes()
}

#[test]
fn a_bash_call_is_a_prompt_held_while_actionable_from_pis_pane() {
    let HookEvent::Prompt { prompt, hold } = parse(
        &call_payload("tool_call"),
        Some("tool_call"),
        &environment(),
    )
    .unwrap() else {
        panic!("a prompt")
    };
    assert_eq!(hold, HoldMode::WhileActionable);
    assert_eq!(prompt.adapter, "pi");
    assert_eq!(prompt.kind, PromptKind::Permission);
    assert_eq!(prompt.tool, "bash");
    assert_eq!(prompt.summary, "printf approved > proof.txt");
    assert_eq!(prompt.session, "01a23434-f177-7358-afa6-503af0ca5d03");
    assert_eq!(prompt.cwd, "/home/dev/project");
    assert_eq!(prompt.correlation, call_correlation("call_fake_1"));
    assert_eq!(prompt.read_only_reason, None);
    let terminal = prompt.extra.terminal.unwrap();
    assert_eq!(
        (terminal.tmux_pane.as_str(), terminal.pid),
        ("%3", Some(4242))
    );
}

#[test]
fn a_write_call_shows_its_input_whole() {
    let payload = json!({ "event": "tool_call", "session": "s", "toolName": "write",
        "toolCallId": "call_w", "input": { "path": "a.txt", "content": "x\u{1b}[2J" } });
    let HookEvent::Prompt { prompt, .. } =
        parse(payload.to_string().as_bytes(), None, &Default::default()).unwrap()
    else {
        panic!("a prompt")
    };
    assert_eq!(prompt.tool, "write");
    assert!(prompt.summary.contains("a.txt") && prompt.summary.contains("content"));
}

#[test]
fn the_dialogs_answer_the_end_of_a_turn_and_of_a_session_settle_prompts() {
    let settled = parse(
        &call_payload("x"),
        Some("tool_call_settled"),
        &environment(),
    )
    .unwrap();
    assert_eq!(
        settled,
        HookEvent::Observe(Observation::ToolFinished {
            adapter: "pi".into(),
            session: "01a23434-f177-7358-afa6-503af0ca5d03".into(),
            correlation: call_correlation("call_fake_1"),
        })
    );
    let ended = json!({ "event": "agent_end", "session": "s1" }).to_string();
    assert_eq!(
        parse(ended.as_bytes(), None, &environment()).unwrap(),
        HookEvent::Observe(Observation::TurnEnded {
            adapter: "pi".into(),
            session: "s1".into()
        })
    );
    assert_eq!(
        parse(ended.as_bytes(), Some("session_shutdown"), &environment()).unwrap(),
        HookEvent::Observe(Observation::SessionEnded {
            adapter: "pi".into(),
            session: "s1".into()
        })
    );
    let other = json!({ "event": "turn_start", "session": "s1" }).to_string();
    assert_eq!(
        parse(other.as_bytes(), None, &environment()).unwrap(),
        HookEvent::Ignore
    );
}

#[test]
fn bad_input_is_an_error_never_a_prompt() {
    let cases: [&[u8]; 5] = [
        b"not json",
        br#"{"event": "tool_call"}"#,
        br#"{"session": "s", "toolName": "bash", "toolCallId": "c"}"#,
        br#"{"event": "tool_call", "session": "s", "toolName": "bash", "toolCallId": ""}"#,
        br#"{"event": "tool_call", "session": "s", "toolCallId": "c", "input": {}}"#,
    ];
    for stdin in cases {
        let parsed = parse(stdin, None, &environment());
        assert!(
            matches!(
                parsed,
                Err(ParseError::NotJson(_) | ParseError::NotAnEvent(_))
            ),
            "{}: {parsed:?}",
            String::from_utf8_lossy(stdin)
        );
    }
}
