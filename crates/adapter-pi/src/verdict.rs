//! Verdicts in the words of gatehouse's pi extension: the one JSON object `gatehouse hook pi
//! tool_call` prints, which the extension turns into pi's own answer for the call it asked about.
//! `{"allow": true}` lets pi run the call (the extension's handler returns nothing); `{"allow":
//! false, "reason": R}` blocks it, and pi hands R to the model as the tool's result (pi 0.73.1
//! reads `{block: true, reason}` from an extension). The extension takes nothing else for a
//! verdict: any other output leaves pi's dialog in charge.

use gatehouse_core::Verdict;
use gatehouse_harness::verdict::{once_or_deny, OnceOrDeny};
use serde_json::json;

/// The hook's stdout for a verdict. pi has no questions or "always" for gatehouse to answer, so
/// neither is ever offered; should one arrive anyway, it is a deny ([`once_or_deny`]).
pub fn render(verdict: &Verdict) -> String {
    match once_or_deny(verdict, "pi") {
        OnceOrDeny::Allow => json!({ "allow": true }),
        OnceOrDeny::Deny(reason) => json!({ "allow": false, "reason": reason }),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_allows_and_everything_else_blocks_with_its_reason_naming_pi() {
        gatehouse_harness::verdict::testing::assert_once_or_deny(
            render,
            "pi",
            r#"{"allow":true}"#,
            |reason| json!({ "allow": false, "reason": reason }).to_string(),
        );
    }
}
