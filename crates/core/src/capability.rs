//! Capability flags: for each kind of prompt (and, where it matters, each tool) which actions an
//! adapter has, and whether each is verified against the real agent. An action is offered only
//! when it is verified; everything else is shown read-only.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::prompt::PromptKind;

/// What a front end can do with a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Allow this one tool call.
    Once,
    /// Refuse it, optionally with a message for the agent.
    Deny,
    /// Answer the prompt's questions.
    Answer,
    /// Allow this and future calls like it, by one of the agent's own suggestions. Offered only
    /// where an adapter verified it and the prompt carries a suggestion
    /// ([`AdapterCapabilities::offered_for`]).
    Always,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Once => "once",
            Action::Deny => "deny",
            Action::Answer => "answer",
            Action::Always => "always",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for Action {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "once" => Ok(Action::Once),
            "deny" => Ok(Action::Deny),
            "answer" => Ok(Action::Answer),
            "always" => Ok(Action::Always),
            other => Err(format!(
                "`{other}` is not an action; use once, deny, answer or always"
            )),
        }
    }
}

/// One action an adapter has for a kind of prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionFlag {
    pub action: Action,
    /// Proven to work against the real agent; only verified actions are offered.
    pub verified: bool,
    /// How it was verified, or why it is not, for people reading `status`.
    pub evidence: String,
}

impl ActionFlag {
    pub fn verified(action: Action, evidence: impl Into<String>) -> Self {
        ActionFlag {
            action,
            verified: true,
            evidence: evidence.into(),
        }
    }

    pub fn unverified(action: Action, evidence: impl Into<String>) -> Self {
        ActionFlag {
            action,
            verified: false,
            evidence: evidence.into(),
        }
    }
}

/// The actions for one kind of prompt, for one tool or (with `tool: None`) for every tool that no
/// more specific rule names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapabilityRule {
    pub kind: PromptKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub actions: Vec<ActionFlag>,
}

impl CapabilityRule {
    /// The actions this rule offers: verified ones only, and never `always`.
    pub fn offered(&self) -> Vec<Action> {
        let mut actions: Vec<Action> = self
            .actions
            .iter()
            .filter(|flag| flag.verified && flag.action != Action::Always)
            .map(|flag| flag.action)
            .collect();
        actions.sort();
        actions.dedup();
        actions
    }
}

/// Everything one adapter can do, as `hello` and `status` report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterCapabilities {
    /// The adapter's id, such as `claude`.
    pub adapter: String,
    /// A name for people, such as `Claude Code`.
    pub name: String,
    pub rules: Vec<CapabilityRule>,
}

impl AdapterCapabilities {
    /// The rule that applies to a prompt: the one naming its tool, else the kind's catch-all.
    pub fn rule_for(&self, kind: PromptKind, tool: &str) -> Option<&CapabilityRule> {
        let for_kind = || self.rules.iter().filter(move |rule| rule.kind == kind);
        for_kind()
            .find(|rule| rule.tool.as_deref() == Some(tool))
            .or_else(|| for_kind().find(|rule| rule.tool.is_none()))
    }

    /// The actions offered for a prompt: verified ones only, and never `always`.
    pub fn offered(&self, kind: PromptKind, tool: &str) -> Vec<Action> {
        self.rule_for(kind, tool)
            .map(CapabilityRule::offered)
            .unwrap_or_default()
    }

    /// The actions offered for one prompt: [`Self::offered`] for its kind and tool, plus
    /// `always` when its rule verifies `always` and the prompt carries at least one of the
    /// agent's own suggestions (gatehouse never makes up a rule of its own).
    pub fn offered_for(&self, prompt: &crate::NewPrompt) -> Vec<Action> {
        let mut actions = self.offered(prompt.kind, &prompt.tool);
        let always_verified = self
            .rule_for(prompt.kind, &prompt.tool)
            .is_some_and(|rule| {
                rule.actions
                    .iter()
                    .any(|flag| flag.verified && flag.action == Action::Always)
            });
        if always_verified && !prompt.extra.suggestions.is_empty() && !actions.is_empty() {
            actions.push(Action::Always);
            actions.sort();
        }
        actions
    }

    /// The actions whose verdicts a hook may deliver for `prompt`: none when the adapter marked
    /// the prompt read-only, else what these flags offer for it ([`Self::offered_for`]).
    pub fn deliverable(&self, prompt: &crate::NewPrompt) -> Vec<Action> {
        if prompt.read_only_reason.is_some() {
            return Vec::new();
        }
        self.offered_for(prompt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AdapterCapabilities {
        AdapterCapabilities {
            adapter: "toy".into(),
            name: "Toy".into(),
            rules: vec![
                CapabilityRule {
                    kind: PromptKind::Permission,
                    tool: Some("Bash".into()),
                    actions: vec![
                        ActionFlag::verified(Action::Once, "tested"),
                        ActionFlag::verified(Action::Deny, "tested"),
                        ActionFlag::verified(
                            Action::Always,
                            "claimed, but always is never offered",
                        ),
                    ],
                },
                CapabilityRule {
                    kind: PromptKind::Permission,
                    tool: None,
                    actions: vec![ActionFlag::unverified(Action::Once, "not tested")],
                },
            ],
        }
    }

    #[test]
    fn a_tool_rule_wins_over_the_catch_all() {
        assert_eq!(
            sample().offered(PromptKind::Permission, "Bash"),
            vec![Action::Once, Action::Deny]
        );
    }

    #[test]
    fn unverified_actions_are_not_offered() {
        assert!(sample().offered(PromptKind::Permission, "Write").is_empty());
    }

    #[test]
    fn a_kind_without_rules_is_read_only() {
        assert!(sample()
            .offered(PromptKind::Question, "AskUserQuestion")
            .is_empty());
    }
}
