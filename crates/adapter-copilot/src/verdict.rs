//! Verdicts in Copilot CLI's words: the JSON a `permissionRequest` hook prints on stdout, at the
//! top level (Claude Code's `hookSpecificOutput` form is ignored by Copilot). Copilot CLI 1.0.102
//! ran the command for `{"behavior":"allow"}` with no dialog, and for
//! `{"behavior":"deny","message":M}` did not run it and told the model "Permission denied by a
//! PermissionRequest hook: M" (`gatehouse probe copilot` checks both for each version).

use gatehouse_core::answer::deny_message;
use gatehouse_core::{Answer, Verdict};
use serde_json::json;

/// What Copilot tells the model when the person denies without a message of their own.
pub use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

/// The hook's stdout for a verdict.
pub fn render(verdict: &Verdict) -> String {
    match &verdict.0 {
        Answer::Once => json!({ "behavior": "allow" }),
        Answer::Deny { message } => {
            json!({ "behavior": "deny", "message": deny_message(message) })
        }
        // Copilot asks no questions through this hook, so no such verdict is ever offered; should
        // one arrive anyway, it must never allow by accident.
        Answer::Answer { .. } => {
            json!({ "behavior": "deny", "message": "gatehouse cannot answer questions for Copilot CLI." })
        }
        // No probe proves Copilot's "don't ask again", so `always` is never offered; should one
        // arrive anyway, it must never allow by accident.
        Answer::Always { .. } => {
            json!({ "behavior": "deny", "message": "gatehouse cannot allow calls for good in Copilot CLI." })
        }
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_allows_and_deny_carries_its_message_at_the_top_level() {
        assert_eq!(render(&Verdict(Answer::Once)), r#"{"behavior":"allow"}"#);
        assert_eq!(
            render(&Verdict(Answer::Deny {
                message: Some("use make clean".into())
            })),
            r#"{"behavior":"deny","message":"use make clean"}"#
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
