//! Verdicts in Codex's words: the JSON a PermissionRequest hook prints on stdout. Codex 0.171.0
//! ran the command for `{"behavior":"allow"}` without showing its own prompt, and for
//! `{"behavior":"deny","message":...}` showed "Blocked by hook" with the message and did not run
//! it (`gatehouse probe codex` checks both again for each Codex version).

use gatehouse_core::answer::deny_message;
use gatehouse_core::{Answer, Verdict};
use serde_json::json;

/// What Codex tells the model when the person denies without a message of their own.
pub use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

/// The hook's stdout for a verdict.
pub fn render(verdict: &Verdict) -> String {
    let decision = match &verdict.0 {
        Answer::Once => json!({ "behavior": "allow" }),
        Answer::Deny { message } => {
            json!({ "behavior": "deny", "message": deny_message(message) })
        }
        // Codex asks no questions through this hook, so no such verdict is ever offered; should
        // one arrive anyway, it must never allow by accident.
        Answer::Answer { .. } => {
            json!({ "behavior": "deny", "message": "gatehouse cannot answer questions for Codex." })
        }
        // `always` is never verified for Codex, so never offered nor deliverable; should one
        // arrive anyway, it must not keep a rule nobody proved.
        Answer::Always { .. } => {
            json!({ "behavior": "deny", "message": "gatehouse cannot allow Codex calls from now on." })
        }
    };
    json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_allows_and_deny_carries_its_message() {
        assert_eq!(
            render(&Verdict(Answer::Once)),
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#
        );
        assert_eq!(
            render(&Verdict(Answer::Deny {
                message: Some("use make clean".into())
            })),
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"use make clean"}}}"#
        );
        assert!(render(&Verdict(Answer::Deny {
            message: Some("  ".into())
        }))
        .contains(DEFAULT_DENY_MESSAGE));
        assert!(
            render(&Verdict(Answer::Answer { responses: vec![] })).contains(r#""behavior":"deny""#)
        );
    }
}
