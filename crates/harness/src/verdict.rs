//! Verdicts in the shape of Claude Code's `PermissionRequest` hooks, which Codex and Qwen Code
//! read too: `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision":
//! {"behavior": "allow"}}}`, or a deny with its `message`. Only `once` allows; anything no probe
//! proves for such an agent (an answer to questions, `always`) is rendered as a deny, so that a
//! verdict that should never have been offered never allows by accident.

use gatehouse_core::answer::deny_message;
use gatehouse_core::{Answer, Verdict};
use serde_json::json;

/// The hook's stdout for `verdict`; `agent` (such as `Qwen Code`) names the agent in the deny
/// messages of verdicts it never offers.
pub fn permission_request_decision(verdict: &Verdict, agent: &str) -> String {
    let deny = |message: &str| json!({ "behavior": "deny", "message": message });
    let decision = match &verdict.0 {
        Answer::Once => json!({ "behavior": "allow" }),
        Answer::Deny { message } => deny(deny_message(message)),
        Answer::Answer { .. } => deny(&format!("gatehouse cannot answer questions for {agent}.")),
        Answer::Always { .. } => deny(&format!(
            "gatehouse cannot allow {agent} calls from now on."
        )),
    };
    json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
        .to_string()
}

#[cfg(test)]
mod tests {
    use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

    use super::*;

    #[test]
    fn once_allows_deny_carries_its_message_and_nothing_else_allows() {
        let render = |answer| permission_request_decision(&Verdict(answer), "Agent");
        assert_eq!(
            render(Answer::Once),
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#
        );
        assert_eq!(
            render(Answer::Deny {
                message: Some("use make clean".into())
            }),
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"use make clean"}}}"#
        );
        assert!(render(Answer::Deny {
            message: Some("  ".into())
        })
        .contains(DEFAULT_DENY_MESSAGE));
        let question = render(Answer::Answer { responses: vec![] });
        assert!(
            question.contains(r#""behavior":"deny""#)
                && question.contains("cannot answer questions for Agent"),
            "{question}"
        );
    }
}
