//! Verdicts in Gemini CLI's words: what the `BeforeTool` hook prints on stdout. Observed with
//! Gemini CLI 0.61.0 and gatehouse's allow policy for `run_shell_command`
//! ([`crate::policy`]): `{}` runs the call with no dialog; `{"decision":"deny","reason":R}`
//! blocks it and the model gets `{"error": "Tool execution blocked: R"}`; `{"decision":"ask"}`
//! brings Gemini's own dialog ([`NO_VERDICT`], printed whenever the hook has no verdict).
//! `gatehouse probe gemini` checks all three for each version.

use gatehouse_core::answer::deny_message;
use gatehouse_core::{Answer, Verdict};
use serde_json::json;

/// What the hook prints when it has no verdict: Gemini's own dialog decides. Never nothing:
/// with the allow policy, a hook that prints nothing lets the call run.
pub const NO_VERDICT: &str = r#"{"decision":"ask"}"#;

/// The hook's stdout for a verdict.
pub fn render(verdict: &Verdict) -> String {
    match &verdict.0 {
        // No opinion: the allow policy runs the call (Gemini's own heuristics may still ask).
        Answer::Once => json!({}),
        Answer::Deny { message } => json!({ "decision": "deny", "reason": deny_message(message) }),
        // Never offered for Gemini; should one arrive anyway, it must never allow by accident.
        Answer::Answer { .. } => {
            json!({ "decision": "deny", "reason": "gatehouse cannot answer questions for Gemini CLI." })
        }
        Answer::Always { .. } => {
            json!({ "decision": "deny", "reason": "gatehouse cannot allow calls for good in Gemini CLI." })
        }
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_is_no_opinion_deny_carries_its_reason_and_the_rest_deny() {
        assert_eq!(render(&Verdict(Answer::Once)), "{}");
        assert_eq!(
            render(&Verdict(Answer::Deny {
                message: Some("use make clean".into())
            })),
            r#"{"decision":"deny","reason":"use make clean"}"#
        );
        assert!(render(&Verdict(Answer::Deny { message: None })).contains(r#""decision":"deny""#));
        assert!(
            render(&Verdict(Answer::Answer { responses: vec![] })).contains(r#""decision":"deny""#)
        );
        let no_verdict: serde_json::Value = serde_json::from_str(NO_VERDICT).unwrap();
        assert_eq!(no_verdict, json!({ "decision": "ask" }));
    }
}
