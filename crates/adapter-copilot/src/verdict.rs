//! Verdicts in Copilot CLI's words: the JSON a `permissionRequest` hook prints on stdout, at the
//! top level (Claude Code's `hookSpecificOutput` form is ignored by Copilot). Copilot CLI 1.0.102
//! ran the command for `{"behavior":"allow"}` with no dialog, and for
//! `{"behavior":"deny","message":M}` did not run it and told the model "Permission denied by a
//! PermissionRequest hook: M" (`gatehouse probe copilot` checks both for each version).

use gatehouse_core::Verdict;
use gatehouse_harness::verdict::{once_or_deny, OnceOrDeny};
use serde_json::json;

/// What Copilot tells the model when the person denies without a message of their own.
pub use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

/// The hook's stdout for a verdict. Copilot asks no questions through this hook and no probe
/// proves its "don't ask again", so neither an answer nor `always` is ever offered; should one
/// arrive anyway, it is a deny ([`once_or_deny`]).
pub fn render(verdict: &Verdict) -> String {
    match once_or_deny(verdict, "Copilot CLI") {
        OnceOrDeny::Allow => json!({ "behavior": "allow" }),
        OnceOrDeny::Deny(message) => json!({ "behavior": "deny", "message": message }),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_allows_and_deny_carries_its_message_at_the_top_level() {
        gatehouse_harness::verdict::testing::assert_once_or_deny(
            render,
            "Copilot CLI",
            r#"{"behavior":"allow"}"#,
            |message| json!({ "behavior": "deny", "message": message }).to_string(),
        );
        assert_eq!(
            render(&Verdict(gatehouse_core::Answer::Deny {
                message: Some("use make clean".into())
            })),
            r#"{"behavior":"deny","message":"use make clean"}"#
        );
    }
}
