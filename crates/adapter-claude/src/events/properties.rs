//! Property tests of the event parser: whatever Claude Code (or anything else) writes to the
//! hook's stdin, parsing never panics, and verdicts render for any prompt it accepts.

use gatehouse_core::{Answer, HookEvent, QuestionResponse, Verdict};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::parse;
use crate::verdict;

/// JSON values shaped like hook events often enough to reach every branch: the real field
/// names with values of every type, including wrong ones.
fn event_like() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z ?]{0,12}".prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "question",
                    "header",
                    "options",
                    "label",
                    "description",
                    "multiSelect",
                    "questions",
                    "command",
                    "file_path",
                    "old_string",
                    "new_string",
                    "replace_all",
                    "edits",
                    "content",
                    "plan",
                    "x"
                ]),
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(
                map.into_iter()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect()
            )),
        ]
    });
    let event_name = prop::sample::select(vec![
        "PermissionRequest",
        "PostToolUse",
        "Stop",
        "SessionEnd",
        "PreToolUse",
        "Other",
    ]);
    let tool = prop::sample::select(vec![
        "Bash",
        "AskUserQuestion",
        "Write",
        "Edit",
        "MultiEdit",
        "ExitPlanMode",
        "mcp__x",
    ]);
    (
        event_name,
        tool,
        value.clone(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(name, tool, input, with_session, with_tool)| {
            let mut event = json!({ "hook_event_name": name, "cwd": "/p", "tool_input": input });
            if with_session {
                event["session_id"] = json!("s");
            }
            if with_tool {
                event["tool_name"] = json!(tool);
            }
            event
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn event_shaped_json_parses_or_is_refused_and_any_prompt_renders(event in event_like(), pick in any::<prop::sample::Index>()) {
        let Ok(HookEvent::Prompt { prompt, .. }) = parse(event.to_string().as_bytes()) else { return Ok(()) };
        // Whatever the questions look like, rendering an answer to them is total and keeps the
        // original questions verbatim.
        let responses: Vec<QuestionResponse> = prompt
            .questions
            .iter()
            .map(|question| QuestionResponse {
                question: question.id.clone(),
                picks: question.options.get(pick.index(question.options.len().max(1))).map(|option| option.label.clone()).into_iter().collect(),
                text: None,
            })
            .collect();
        for answer in [Answer::Once, Answer::Deny { message: None }, Answer::Answer { responses }] {
            let rendered: Value = serde_json::from_str(&verdict::render(&prompt, &Verdict(answer))).unwrap();
            let decision = &rendered["hookSpecificOutput"]["decision"];
            prop_assert!(decision["behavior"] == "allow" || decision["behavior"] == "deny");
            if let Some(questions) = decision["updatedInput"].get("questions") {
                prop_assert_eq!(questions, &prompt.input["questions"]);
            }
        }
    }
}
