//! Sample values for tests of gatehouse and of programs built on it: a toy agent whose Bash
//! prompts may be answered once or denied, and such a prompt. Built for the core's own tests and
//! with the `testing` feature, which only test builds turn on.

use crate::capability::{Action, ActionFlag, AdapterCapabilities, CapabilityRule};
use crate::prompt::{NewPrompt, PromptKind};

/// The toy agent's adapter id.
pub const TOY: &str = "toy";

/// The toy agent's flags: `once` and `deny`, verified, for its Bash prompts; nothing else.
pub fn toy_capabilities() -> AdapterCapabilities {
    AdapterCapabilities {
        adapter: TOY.into(),
        name: "Toy Agent".into(),
        rules: vec![CapabilityRule {
            kind: PromptKind::Permission,
            tool: Some("Bash".into()),
            actions: vec![
                ActionFlag::verified(Action::Once, "tested"),
                ActionFlag::verified(Action::Deny, "tested"),
            ],
        }],
    }
}

/// A toy agent's Bash prompt for `command`, in session `s1` and folder `/project`, correlated by
/// its command; change any field with struct update syntax.
pub fn toy_bash(command: &str) -> NewPrompt {
    NewPrompt {
        adapter: TOY.into(),
        session: "s1".into(),
        cwd: "/project".into(),
        kind: PromptKind::Permission,
        tool: "Bash".into(),
        input: serde_json::json!({ "command": command }),
        summary: command.into(),
        questions: Vec::new(),
        correlation: command.into(),
        read_only_reason: None,
        host: String::new(),
        extra: Default::default(),
    }
}
