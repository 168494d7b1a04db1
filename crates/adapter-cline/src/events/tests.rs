//! Cline's captured events: a call is a read-only prompt only registered, its result after an
//! Approve or a Deny settles it, the task's end settles the rest, anything else is nothing.

use gatehouse_core::{HoldMode, HookEvent, Observation, ParseError};
use gatehouse_harness::captured_payload;
use gatehouse_harness::events::testing::{assert_not_events, assert_permission_prompt, held_as};
use serde_json::{json, Value};

use super::*;

const TASK: &str = "conv_1796199710823_ht71ts4";

fn parse_with(stdin: &[u8], auto_approve: AutoApprove) -> Result<HookEvent, ParseError> {
    parse(stdin, || auto_approve)
}

fn never_read() -> AutoApprove {
    panic!("the setting is read only for a call")
}

#[test]
fn a_shell_call_is_a_read_only_prompt_only_registered_summed_up_as_its_command() {
    let stdin = captured_payload!("cline-cli-3.0.65", "PreToolUse.run_commands");
    let prompt = held_as(
        parse_with(stdin, AutoApprove::Off).unwrap(),
        HoldMode::RegisterOnly,
    );
    assert_permission_prompt(
        &prompt,
        "cline",
        TASK,
        "run_commands",
        "printf approved > proof.txt",
    );
    assert_eq!(
        prompt.input,
        json!({ "commands": ["printf approved > proof.txt"] })
    );
    assert_eq!(prompt.correlation, call_correlation("call_fake_1"));
    assert_eq!(prompt.read_only_reason.as_deref(), Some(ASKED_IN_CLINE));
    assert_eq!(prompt.extra.terminal, None, "the hook's to say");

    let unasked = held_as(
        parse_with(stdin, AutoApprove::On).unwrap(),
        HoldMode::RegisterOnly,
    );
    assert_eq!(unasked.read_only_reason.as_deref(), Some(RUNS_UNASKED));
}

#[test]
fn several_commands_are_one_a_line_and_another_tool_shows_its_input() {
    let call = |name: &str, input: Value| {
        json!({ "hookName": "tool_call", "taskId": "t", "tool_call":
            { "id": "c", "name": name, "input": input } })
        .to_string()
    };
    let several = call(
        SHELL_TOOL,
        json!({ "commands": ["ls", "rm -rf x\u{1b}[2J"] }),
    );
    let (prompt, _) = gatehouse_harness::events::testing::prompt_of(
        parse_with(several.as_bytes(), AutoApprove::Off).unwrap(),
    );
    assert_eq!(prompt.summary, "ls\nrm -rf x\u{1b}[2J", "kept exact");
    let odd = call(SHELL_TOOL, json!({ "commands": [{ "command": "ls" }] }));
    let (prompt, _) = gatehouse_harness::events::testing::prompt_of(
        parse_with(odd.as_bytes(), AutoApprove::Off).unwrap(),
    );
    assert_eq!(prompt.summary, r#"{"commands":[{"command":"ls"}]}"#);
    let read = call("read_files", json!({ "paths": ["a.txt"] }));
    let (prompt, hold) = gatehouse_harness::events::testing::prompt_of(
        parse_with(read.as_bytes(), AutoApprove::Off).unwrap(),
    );
    assert_eq!(
        (prompt.tool.as_str(), hold),
        ("read_files", HoldMode::RegisterOnly)
    );
    assert_eq!(prompt.summary, r#"{"paths":["a.txt"]}"#);
    assert_eq!(prompt.cwd, "", "no workspace named");
    assert!(prompt.read_only_reason.is_some());
}

#[test]
fn a_result_after_an_approve_or_a_deny_settles_the_call_of_the_same_id() {
    let captured: [(&str, &[u8]); 2] = [
        (
            "approved",
            captured_payload!("cline-cli-3.0.65", "PostToolUse-approved-in-dialog"),
        ),
        (
            "denied",
            captured_payload!("cline-cli-3.0.65", "PostToolUse-denied-in-dialog"),
        ),
    ];
    for (name, stdin) in captured {
        let session: Value = serde_json::from_slice(stdin).unwrap();
        let settled = parse(stdin, never_read).unwrap();
        assert_eq!(
            settled,
            HookEvent::Observe(Observation::ToolFinished {
                adapter: "cline".into(),
                session: session["taskId"].as_str().unwrap().into(),
                correlation: call_correlation("call_fake_1"),
            }),
            "{name}"
        );
    }
}

#[test]
fn the_tasks_end_settles_its_prompts_and_a_sub_agents_end_does_not() {
    let stdin = captured_payload!("cline-cli-3.0.65", "TaskComplete-after-deny");
    assert_eq!(
        parse(stdin, never_read).unwrap(),
        HookEvent::Observe(Observation::TurnEnded {
            adapter: "cline".into(),
            session: TASK.into()
        })
    );
    let event = |hook: &str, parent: Value| {
        json!({ "hookName": hook, "taskId": "t", "parent_agent_id": parent }).to_string()
    };
    for hook in ["agent_abort", "agent_error"] {
        assert!(matches!(
            parse(event(hook, Value::Null).as_bytes(), never_read).unwrap(),
            HookEvent::Observe(Observation::TurnEnded { .. })
        ));
        assert_eq!(
            parse(event(hook, json!("agent_1")).as_bytes(), never_read).unwrap(),
            HookEvent::Ignore,
            "a sub-agent's {hook}"
        );
    }
    assert_eq!(
        parse(
            event("session_shutdown", Value::Null).as_bytes(),
            never_read
        )
        .unwrap(),
        HookEvent::Observe(Observation::SessionEnded {
            adapter: "cline".into(),
            session: "t".into()
        })
    );
    let started = captured_payload!("cline-cli-3.0.65", "TaskStart");
    assert_eq!(parse(started, never_read).unwrap(), HookEvent::Ignore);
}

#[test]
fn bad_input_is_an_error_never_a_prompt() {
    let parse = |stdin: &[u8]| parse_with(stdin, AutoApprove::Off);
    assert_not_events(parse, br#"{"hookName": "tool_call", "taskId": "t"}"#);
    let lacking: [&[u8]; 4] = [
        br#"{"hookName": "tool_call"}"#,
        br#"{"hookName": "tool_call", "taskId": "t", "tool_call": {"id": "", "name": "run_commands"}}"#,
        br#"{"hookName": "tool_call", "taskId": "t", "tool_call": {"id": "c", "name": ""}}"#,
        br#"{"hookName": "tool_result", "taskId": "t", "tool_result": {"id": ""}}"#,
    ];
    for stdin in lacking {
        let error = parse(stdin).unwrap_err();
        assert!(matches!(error, ParseError::NotAnEvent(_)), "{error}");
    }
    let error = parse(br#"{"hookName": "tool_call", "taskId": "t"}"#).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("a Cline tool_call event without `tool_call` with an `id` and a `name`"),
        "{error}"
    );
}
