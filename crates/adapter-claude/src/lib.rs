//! gatehouse's adapter for Claude Code: reads the events that Claude Code's command hooks write
//! to stdin, turns verdicts into the JSON Claude Code applies, states what is proven, and
//! installs the hooks in Claude Code's settings.
//!
//! Architecture invariant: this crate knows Claude Code and nothing of gatehouse's socket.
//!
//! What is proven against the real Claude Code 2.1 (see docs/ARCHITECTURE.md and the end-to-end
//! tests): a PermissionRequest hook can allow or deny a Bash call, and can answer AskUserQuestion
//! with `updatedInput`, while the terminal's own prompt stays live. Everything else is read-only.

pub mod events;
pub mod install;
mod questions;
mod verdict;

use gatehouse_core::kit::HookInstaller;
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, Verdict,
};

/// The adapter's id, as in `gatehouse hook claude`.
pub const ADAPTER_ID: &str = "claude";

/// The Claude Code version whose behaviour the end-to-end tests prove.
pub const VERIFIED_VERSION: &str = "2.1.332";

/// The Claude Code adapter.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClaudeAdapter;

impl Adapter for ClaudeAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn capabilities(&self) -> AdapterCapabilities {
        capabilities()
    }

    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        capabilities().deliverable(prompt)
    }

    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        events::parse(stdin)
    }

    fn render_verdict(&self, prompt: &NewPrompt, verdict: &Verdict) -> String {
        verdict::render(prompt, verdict)
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::ClaudeInstaller)
    }
}

/// Claude Code's capability flags: Bash Once/Deny and question answers are verified; every other
/// permission and every plan is read-only; `always` is never verified.
pub fn capabilities() -> AdapterCapabilities {
    let proven =
        format!("verified against Claude Code {VERIFIED_VERSION} by gatehouse's end-to-end tests");
    let unproven = "not verified against Claude Code; answer it in the terminal";
    let never = "not verified: gatehouse never allows future calls on its own";
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: "Claude Code".into(),
        rules: vec![
            CapabilityRule {
                kind: PromptKind::Permission,
                tool: Some("Bash".into()),
                actions: vec![
                    ActionFlag::verified(Action::Once, proven.clone()),
                    ActionFlag::verified(Action::Deny, proven.clone()),
                    ActionFlag::unverified(Action::Always, never),
                ],
            },
            CapabilityRule {
                kind: PromptKind::Question,
                tool: None,
                actions: vec![ActionFlag::verified(Action::Answer, proven)],
            },
            CapabilityRule {
                kind: PromptKind::Permission,
                tool: None,
                actions: vec![
                    ActionFlag::unverified(Action::Once, unproven),
                    ActionFlag::unverified(Action::Deny, unproven),
                    ActionFlag::unverified(Action::Always, never),
                ],
            },
            CapabilityRule {
                kind: PromptKind::Plan,
                tool: None,
                actions: vec![
                    ActionFlag::unverified(Action::Once, unproven),
                    ActionFlag::unverified(Action::Deny, unproven),
                ],
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bash_and_questions_are_actionable() {
        let capabilities = capabilities();
        assert_eq!(
            capabilities.offered(PromptKind::Permission, "Bash"),
            vec![Action::Once, Action::Deny]
        );
        assert_eq!(
            capabilities.offered(PromptKind::Question, "AskUserQuestion"),
            vec![Action::Answer]
        );
        for tool in ["Write", "Edit", "WebFetch", "mcp__github__create_issue"] {
            assert!(
                capabilities
                    .offered(PromptKind::Permission, tool)
                    .is_empty(),
                "{tool}"
            );
        }
        assert!(capabilities
            .offered(PromptKind::Plan, "ExitPlanMode")
            .is_empty());
    }
}
