//! Verdicts in the words of gatehouse's OpenCode plugin: the one JSON object `gatehouse hook
//! opencode` prints, which the plugin turns into OpenCode's own reply for the request it asked
//! about (never another: the request id is the plugin's, not the hook's):
//!
//! - a permission: `{"reply": "once"}`, `{"reply": "always"}` or `{"reply": "reject", "message":
//!   M}`, posted to `/permission/{requestID}/reply`. A reject always carries a message: without
//!   one OpenCode 1.18.33 ends the turn, with one the model reads it and goes on.
//! - a question: `{"answers": [[LABEL, ...], ...]}`, one list per question in order, posted to
//!   `/question/{requestID}/reply`.
//!
//! Anything else prints `{}`, which the plugin ignores (OpenCode's own prompt decides): a verdict
//! that does not fit its prompt never allows anything. So does an `always` for a `bash` prompt,
//! which gatehouse never offers ([`crate::bash_always_withheld!`]): should one reach the hook
//! all the same, OpenCode's `always` would approve a pattern that lets any script run.

use gatehouse_core::answer::deny_message;
use gatehouse_core::{Answer, NewPrompt, PromptKind, Verdict};
use serde_json::{json, Value};

/// The hook's stdout for `verdict` on `prompt`.
pub fn render(prompt: &NewPrompt, verdict: &Verdict) -> String {
    match (prompt.kind, &verdict.0) {
        (PromptKind::Permission, Answer::Once) => json!({ "reply": "once" }),
        (PromptKind::Permission, Answer::Always { .. })
            if prompt.tool == crate::events::ANSWERABLE_PERMISSION =>
        {
            json!({})
        }
        (PromptKind::Permission, Answer::Always { .. }) => json!({ "reply": "always" }),
        (PromptKind::Permission, Answer::Deny { message }) => {
            json!({ "reply": "reject", "message": deny_message(message) })
        }
        // A question's answer given to a permission prompt must never allow it.
        (PromptKind::Permission, Answer::Answer { .. }) => json!({
            "reply": "reject",
            "message": "gatehouse cannot answer a permission request with a question's answers."
        }),
        (PromptKind::Question, Answer::Answer { responses }) => {
            let answers: Vec<Value> = prompt
                .questions
                .iter()
                .map(|question| {
                    let mut chosen: Vec<String> = Vec::new();
                    if let Some(response) = responses
                        .iter()
                        .find(|response| response.question == question.id)
                    {
                        chosen.extend(response.picks.iter().cloned());
                        chosen.extend(
                            response
                                .text
                                .iter()
                                .map(|text| text.trim().to_owned())
                                .filter(|text| !text.is_empty()),
                        );
                    }
                    json!(chosen)
                })
                .collect();
            json!({ "answers": answers })
        }
        _ => json!({}),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatehouse_core::{Question, QuestionOption, QuestionResponse};

    fn prompt(kind: PromptKind) -> NewPrompt {
        let option = |label: &str| QuestionOption {
            label: label.into(),
            description: String::new(),
        };
        NewPrompt {
            adapter: "opencode".into(),
            session: "ses_1".into(),
            cwd: "/w".into(),
            kind,
            tool: "bash".into(),
            input: json!({}),
            summary: "printf x".into(),
            questions: vec![
                Question {
                    id: "q1".into(),
                    text: "Which color?".into(),
                    header: "Color".into(),
                    multi: false,
                    options: vec![option("Red"), option("Blue")],
                },
                Question {
                    id: "q2".into(),
                    text: "Which size?".into(),
                    header: String::new(),
                    multi: true,
                    options: vec![option("S"), option("M")],
                },
            ],
            correlation: String::new(),
            read_only_reason: None,
            host: String::new(),
            extra: Default::default(),
        }
    }

    #[test]
    fn permission_verdicts_are_replies_and_a_reject_always_has_a_message() {
        let permission = prompt(PromptKind::Permission);
        assert_eq!(
            render(&permission, &Verdict(Answer::Once)),
            r#"{"reply":"once"}"#
        );
        let always = Verdict(Answer::Always {
            suggestion: Some("s1".into()),
            scope: Default::default(),
        });
        // Never for bash (OpenCode's `cat *` lets any script run): the agent's own prompt decides.
        assert_eq!(render(&permission, &always), "{}");
        let edit = NewPrompt {
            tool: "edit".into(),
            ..permission.clone()
        };
        assert_eq!(render(&edit, &always), r#"{"reply":"always"}"#);
        assert_eq!(
            render(
                &permission,
                &Verdict(Answer::Deny {
                    message: Some("use a dry run".into())
                })
            ),
            r#"{"reply":"reject","message":"use a dry run"}"#
        );
        let bare = render(&permission, &Verdict(Answer::Deny { message: None }));
        assert!(bare.contains(gatehouse_core::answer::DEFAULT_DENY_MESSAGE));
        let mixed = render(&permission, &Verdict(Answer::Answer { responses: vec![] }));
        assert!(mixed.starts_with(r#"{"reply":"reject""#), "{mixed}");
    }

    #[test]
    fn answers_follow_the_questions_in_order_and_anything_else_is_nothing() {
        let question = prompt(PromptKind::Question);
        let responses = vec![
            QuestionResponse {
                question: "q2".into(),
                picks: vec!["S".into(), "M".into()],
                text: None,
            },
            QuestionResponse {
                question: "q1".into(),
                picks: vec![],
                text: Some(" Green ".into()),
            },
        ];
        assert_eq!(
            render(&question, &Verdict(Answer::Answer { responses })),
            r#"{"answers":[["Green"],["S","M"]]}"#
        );
        assert_eq!(render(&question, &Verdict(Answer::Once)), "{}");
        assert_eq!(
            render(&question, &Verdict(Answer::Deny { message: None })),
            "{}"
        );
    }
}
