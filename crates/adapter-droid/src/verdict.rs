//! Verdicts in Factory Droid's words: the JSON a `PreToolUse` hook prints on stdout, in Claude
//! Code's `hookSpecificOutput` form. Droid 0.225.2 ran the command for `{"permissionDecision":
//! "allow"}` with no dialog (even in Auto (Off)), and for `{"permissionDecision": "deny",
//! "permissionDecisionReason": M}` did not run it and gave the model `Error: M` as the tool
//! result (`gatehouse probe droid` checks both for each version). `ask` shows Droid's dialog, as
//! printing nothing does; gatehouse prints nothing without a verdict.

use gatehouse_core::Verdict;
use gatehouse_harness::verdict::{once_or_deny, OnceOrDeny};
use serde_json::json;

/// What Droid tells the model when the person denies without a message of their own.
pub use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

/// The hook's stdout for a verdict. Droid asks no questions through this hook and no probe
/// checks its "always allow", so neither an answer nor `always` is ever offered; should one
/// arrive anyway, it is a deny ([`once_or_deny`]).
pub fn render(verdict: &Verdict) -> String {
    let decision = match once_or_deny(verdict, "Droid") {
        OnceOrDeny::Allow => {
            json!({ "hookEventName": "PreToolUse", "permissionDecision": "allow" })
        }
        OnceOrDeny::Deny(message) => json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": message,
        }),
    };
    json!({ "hookSpecificOutput": decision }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_allows_and_everything_else_denies_with_its_reason_naming_droid() {
        gatehouse_harness::verdict::testing::assert_once_or_deny(
            render,
            "Droid",
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            |message| {
                json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse",
                    "permissionDecision": "deny", "permissionDecisionReason": message } })
                .to_string()
            },
        );
    }
}
