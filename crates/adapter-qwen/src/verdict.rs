//! Verdicts in Qwen Code's words: the JSON a `PermissionRequest` hook prints on stdout, in
//! Claude Code's `hookSpecificOutput` form. Qwen Code 0.24.4 ran the command for `decision:
//! {behavior: "allow"}` with no dialog, and for `{behavior: "deny", message: M}` did not run it
//! and gave the model M as the whole tool result (`gatehouse probe qwen` checks both for each
//! version). It reads a decision object with any other behavior, or none, as a deny, and
//! ignores `updatedPermissions`; printing nothing hands the prompt to its own dialog.

use gatehouse_core::Verdict;

/// What Qwen tells the model when the person denies without a message of their own.
pub use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

/// The hook's stdout for a verdict: the kit's rendering in Claude Code's shape. Qwen asks no
/// questions through this hook and ignores a hook's "always", so neither is ever offered; should
/// one arrive anyway, it is a deny.
pub fn render(verdict: &Verdict) -> String {
    gatehouse_harness::verdict::permission_request_decision(verdict, "Qwen Code")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rendering itself is the kit's; here: Qwen's form and name.
    #[test]
    fn once_allows_in_the_decision_and_what_qwen_never_offers_denies_naming_qwen() {
        gatehouse_harness::verdict::testing::assert_permission_request_decisions(
            render,
            "Qwen Code",
        );
    }
}
