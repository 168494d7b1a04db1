//! Verdicts in Gemini CLI's words: what the `BeforeTool` hook prints on stdout. Observed with
//! Gemini CLI 0.61.0 and gatehouse's allow policy for `run_shell_command`
//! ([`crate::policy`]): `{}` runs the call with no dialog; `{"decision":"deny","reason":R}`
//! blocks it and the model gets `{"error": "Tool execution blocked: R"}`; `{"decision":"ask"}`
//! brings Gemini's own dialog ([`NO_VERDICT`], printed whenever the hook has no verdict).
//! `gatehouse probe gemini` checks all three for each version.

use gatehouse_core::Verdict;
use gatehouse_harness::verdict::{once_or_deny, OnceOrDeny};
use serde_json::json;

/// What the hook prints when it has no verdict: Gemini's own dialog decides. Never nothing:
/// with the allow policy, a hook that prints nothing lets the call run.
pub const NO_VERDICT: &str = r#"{"decision":"ask"}"#;

/// The hook's stdout for a verdict: `once` is no opinion (the allow policy runs the call, though
/// Gemini's own heuristics may still ask); an answer or `always`, never offered for Gemini, is a
/// deny ([`once_or_deny`]).
pub fn render(verdict: &Verdict) -> String {
    match once_or_deny(verdict, "Gemini CLI") {
        OnceOrDeny::Allow => json!({}),
        OnceOrDeny::Deny(message) => json!({ "decision": "deny", "reason": message }),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_is_no_opinion_deny_carries_its_reason_and_the_rest_deny() {
        gatehouse_harness::verdict::testing::assert_once_or_deny(
            render,
            "Gemini CLI",
            "{}",
            |reason| json!({ "decision": "deny", "reason": reason }).to_string(),
        );
        assert_eq!(
            render(&Verdict(gatehouse_core::Answer::Deny {
                message: Some("use make clean".into())
            })),
            r#"{"decision":"deny","reason":"use make clean"}"#
        );
        let no_verdict: serde_json::Value = serde_json::from_str(NO_VERDICT).unwrap();
        assert_eq!(no_verdict, json!({ "decision": "ask" }));
    }
}
