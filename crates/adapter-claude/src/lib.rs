//! gatehouse's adapter for Claude Code: reads the events that Claude Code's command hooks write
//! to stdin, turns verdicts into the JSON Claude Code applies, states what is proven, and
//! installs the hooks in Claude Code's settings.
//!
//! Architecture invariant: this crate knows Claude Code and nothing of gatehouse's socket.
//!
//! What is proven against the real Claude Code 2.1 (see docs/ARCHITECTURE.md and the end-to-end
//! tests): a PermissionRequest hook can allow or deny a Bash call, and can answer AskUserQuestion
//! with `updatedInput`, while the terminal's own prompt stays live. Edits (Write, Edit,
//! MultiEdit), `always` from Claude Code's own suggestions, and plan approval are unlocked per
//! Claude Code version by `gatehouse probe claude` ([`probe`], [`record`]). Everything else is
//! read-only.

pub mod events;
#[doc(hidden)]
pub mod fuzzing;
pub mod install;
pub mod on_disk;
pub mod preview;
pub mod probe;
mod questions;
pub mod record;
pub mod rule_facts;
pub mod suggestions;
pub mod verdict;
pub mod version;

use std::path::PathBuf;

use gatehouse_core::kit::{AgentProbe, HookInstaller};
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, RunningAgent, TerminalLocation, Verdict,
};
use gatehouse_harness::gated::{self, AgentDescription, ToolUnlock};

use crate::record::{Capability, Unlock, Unlocks};

/// The adapter's id, as in `gatehouse hook claude`.
pub const ADAPTER_ID: &str = "claude";

/// Claude Code as the kit knows an agent: its probe record (`claude-probe.json`), the unlock rule
/// per capability ([`record::GROUPS`]), and how the installed Claude Code and the one that runs
/// a hook are found ([`version::CLAUDE`]). Its capability flags are its own
/// ([`capabilities_for`]): Bash once/deny and question answers need no probe.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: "Claude Code",
    short_name: "Claude Code",
    executable: version::CLAUDE,
    unlocks: gated::Unlocks {
        groups: &record::GROUPS,
        tools: &EDIT_TOOL_UNLOCKS,
        questions: None,
        elsewhere: "answer the others in Claude Code's terminal",
        held: None,
    },
    // Claude Code shows its own prompt in its terminal while the hook waits: the first answer
    // wins.
    while_held: Some(gatehouse_core::WhileHeld::OwnPromptStaysLive),
    installer: &install::ClaudeInstaller,
    events: |stdin, _event| parse_in_environment(stdin),
    verdicts: verdict::render,
};

/// The edit tools' permission prompts: once and deny proven by the edits cases, `always` by the
/// always case.
const EDIT_TOOL_UNLOCKS: [ToolUnlock; 3] = [
    edit_tool_unlock(EDIT_TOOLS[0]),
    edit_tool_unlock(EDIT_TOOLS[1]),
    edit_tool_unlock(EDIT_TOOLS[2]),
];

const fn edit_tool_unlock(tool: &'static str) -> ToolUnlock {
    ToolUnlock {
        tool,
        group: Capability::Edits as usize,
        actions: &[Action::Once, Action::Deny],
        also: Some((Action::Always, Capability::Always as usize)),
        not_unlocked: "",
    }
}

/// The Claude Code version whose behaviour the end-to-end tests prove.
pub const VERIFIED_VERSION: &str = "2.1.332";

/// The edit tools whose `once` and `deny` a probe unlocks.
pub const EDIT_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// The Claude Code adapter. It finds the probe record in gatehouse's state folder, which the
/// binary names (`None`: no folder is known, so nothing beyond Bash and questions is unlocked).
#[derive(Debug, Default, Clone)]
pub struct ClaudeAdapter {
    state_dir: Option<PathBuf>,
}

impl ClaudeAdapter {
    pub fn new(state_dir: Option<PathBuf>) -> Self {
        ClaudeAdapter { state_dir }
    }
}

impl Adapter for ClaudeAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        "Claude Code"
    }

    /// Reads the probe record and, when a capability passed, asks the installed Claude Code its
    /// version (the kit's [`AgentDescription::installed_unlock`]): called when a gateway starts
    /// and every few seconds after, so a probe takes effect without a restart.
    fn capabilities(&self) -> AdapterCapabilities {
        capabilities_for(&Unlocks::of(
            AGENT.installed_unlock(self.state_dir.as_deref()),
        ))
    }

    fn while_held(&self) -> Option<gatehouse_core::WhileHeld> {
        AGENT.while_held
    }

    /// The most the hook may deliver for `prompt` (every probe passed); the hook narrows it to
    /// the Claude Code that runs it with [`Adapter::capabilities_for_agent`].
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        capabilities_for(&Unlocks::all()).deliverable(prompt)
    }

    /// For a prompt that only a probe can make answerable (an edit, a plan, `always`), the
    /// Claude Code that runs this hook and its version ([`running_agent`]); the gateway decides
    /// with it what is offered. A Bash prompt or a question needs none.
    fn running_agent(&self, prompt: &NewPrompt) -> Option<RunningAgent> {
        needs_a_probe(prompt).then(|| AGENT.running_agent(self.state_dir.as_deref()))
    }

    /// The unlock rule applied to the probe record as it is now, for the reported version.
    fn capabilities_for_agent(&self, agent: &RunningAgent) -> AdapterCapabilities {
        capabilities_for(&Unlocks::of(
            AGENT.reported_unlock(self.state_dir.as_deref(), agent),
        ))
    }

    /// Reads the terminal from the hook's environment (`TMUX`, `TMUX_PANE`, `CLAUDE_PID`) and
    /// the file an edit changes from disk, for its diff. What is offered is the gateway's to
    /// decide, for the Claude Code the hook reports ([`Adapter::running_agent`]).
    fn parse_hook_event(&self, stdin: &[u8], event: Option<&str>) -> Result<HookEvent, ParseError> {
        (AGENT.events)(stdin, event)
    }

    fn render_verdict(&self, prompt: &NewPrompt, verdict: &Verdict) -> String {
        (AGENT.verdicts)(prompt, verdict)
    }

    /// The script a Bash call runs and the file an edit, write or read touches
    /// ([`rule_facts::rule_facts`]).
    fn rule_facts(&self, prompt: &NewPrompt) -> Option<gatehouse_core::adapter::RuleFacts> {
        rule_facts::rule_facts(prompt)
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(AGENT.installer)
    }

    fn probe(&self) -> Option<&dyn AgentProbe> {
        Some(&probe::ClaudeProbe)
    }
}

/// Reads one hook event in the hook's surroundings: the terminal from its environment, the file
/// an edit changes from disk.
fn parse_in_environment(stdin: &[u8]) -> Result<HookEvent, ParseError> {
    let variable = |name: &str| std::env::var(name).ok();
    let surroundings = events::Surroundings {
        terminal: TerminalLocation::from_values(
            variable("TMUX").as_deref(),
            variable("TMUX_PANE").as_deref(),
            variable("CLAUDE_PID").as_deref(),
        ),
        read_file: &on_disk::read,
    };
    events::parse_in(stdin, &surroundings)
}

/// Claude Code's capability flags with no probe: Bash once/deny and question answers.
pub fn capabilities() -> AdapterCapabilities {
    capabilities_for(&Unlocks::none(
        "no probe has checked this Claude Code version; run `gatehouse probe claude`",
    ))
}

/// Claude Code's capability flags for what a probe unlocked. Bash once/deny and question
/// answers are always verified (by the end-to-end tests); edits, `always` and plans only as
/// `unlocks` says; every other tool (WebFetch, MCP tools, ...) is read-only.
pub fn capabilities_for(unlocks: &Unlocks) -> AdapterCapabilities {
    let proven =
        format!("verified against Claude Code {VERIFIED_VERSION} by gatehouse's end-to-end tests");
    let unproven = "not verified against Claude Code; answer it in the terminal";
    let flag = |action: Action, capability: Capability| match unlocks.gate(capability) {
        Unlock::Verified { evidence, .. } => ActionFlag::verified(action, evidence),
        Unlock::ReadOnly { reason } => ActionFlag::unverified(action, reason),
    };
    let mut rules = vec![
        CapabilityRule {
            kind: PromptKind::Permission,
            tool: Some("Bash".into()),
            actions: vec![
                ActionFlag::verified(Action::Once, proven.clone()),
                ActionFlag::verified(Action::Deny, proven.clone()),
                flag(Action::Always, Capability::Always),
            ],
        },
        CapabilityRule {
            kind: PromptKind::Question,
            tool: None,
            actions: vec![ActionFlag::verified(Action::Answer, proven)],
        },
    ];
    rules.extend(EDIT_TOOLS.map(|tool| CapabilityRule {
        kind: PromptKind::Permission,
        tool: Some(tool.into()),
        actions: vec![
            flag(Action::Once, Capability::Edits),
            flag(Action::Deny, Capability::Edits),
            flag(Action::Always, Capability::Always),
        ],
    }));
    rules.push(CapabilityRule {
        kind: PromptKind::Permission,
        tool: None,
        actions: vec![
            ActionFlag::unverified(Action::Once, unproven),
            ActionFlag::unverified(Action::Deny, unproven),
            ActionFlag::unverified(Action::Always, unproven),
        ],
    });
    rules.push(CapabilityRule {
        kind: PromptKind::Plan,
        tool: None,
        actions: vec![
            flag(Action::Once, Capability::Plan),
            flag(Action::Deny, Capability::Plan),
        ],
    });
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: "Claude Code".into(),
        rules,
    }
}

/// Whether anything gatehouse may offer for `prompt` depends on a probe (edits, plans, `always`).
pub fn needs_a_probe(prompt: &NewPrompt) -> bool {
    capabilities_for(&Unlocks::all()).deliverable(prompt) != capabilities().deliverable(prompt)
}

#[cfg(test)]
mod tests;
