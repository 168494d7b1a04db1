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
pub mod suggestions;
pub mod verdict;
pub mod version;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use gatehouse_core::kit::{AgentProbe, HookInstaller};
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, TerminalLocation, Verdict,
};

use crate::record::{Gate, Unlocks};

/// The adapter's id, as in `gatehouse hook claude`.
pub const ADAPTER_ID: &str = "claude";

/// The Claude Code version whose behaviour the end-to-end tests prove.
pub const VERIFIED_VERSION: &str = "2.1.332";

/// The edit tools whose `once` and `deny` a probe unlocks.
pub const EDIT_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// The Claude Code adapter. It finds the probe record in gatehouse's state folder, which the
/// binary names (`None`: no folder is known, so nothing beyond Bash and questions is unlocked).
#[derive(Debug, Default, Clone)]
pub struct ClaudeAdapter {
    state_dir: Option<PathBuf>,
    /// What the record unlocks for the Claude Code that runs this hook: asked at most once per
    /// process, so that the prompt's marks and the check of the verdict agree.
    running: OnceLock<Unlocks>,
}

impl ClaudeAdapter {
    pub fn new(state_dir: Option<PathBuf>) -> Self {
        ClaudeAdapter {
            state_dir,
            running: OnceLock::new(),
        }
    }

    /// An adapter whose hook sees `unlocks` for the Claude Code that runs it, for tests.
    pub fn with_running_unlocks(unlocks: Unlocks) -> Self {
        ClaudeAdapter {
            state_dir: None,
            running: OnceLock::from(unlocks),
        }
    }

    /// What the record unlocks for the Claude Code that runs this hook ([`running_unlocks`]).
    fn running_unlocks(&self) -> &Unlocks {
        self.running
            .get_or_init(|| running_unlocks(self.state_dir.as_deref()))
    }
}

impl Adapter for ClaudeAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        "Claude Code"
    }

    /// Reads the probe record and, when there is one, runs the installed `claude --version`:
    /// called when a gateway starts and every few seconds after, so a probe takes effect without
    /// a restart.
    fn capabilities(&self) -> AdapterCapabilities {
        capabilities_for(&installed_unlocks(self.state_dir.as_deref()))
    }

    /// What the hook may deliver, for the Claude Code that runs it: the version its prompt was
    /// marked for ([`limit_to`]), asked once.
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        if !needs_a_probe(prompt) {
            return capabilities().deliverable(prompt);
        }
        capabilities_for(self.running_unlocks()).deliverable(prompt)
    }

    /// Reads the terminal from the hook's environment (`TMUX`, `TMUX_PANE`, `CLAUDE_PID`) and
    /// the file an edit changes from disk, for its diff. A prompt that only a probe can make
    /// answerable is marked for what the probe record unlocks for the Claude Code that runs this
    /// hook ([`limit_to`]), not the one the gateway finds installed.
    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        let mut event = parse_in_environment(stdin)?;
        if let HookEvent::Prompt { prompt, .. } = &mut event {
            if needs_a_probe(prompt) {
                limit_to(prompt, self.running_unlocks());
            }
        }
        Ok(event)
    }

    fn render_verdict(&self, prompt: &NewPrompt, verdict: &Verdict) -> String {
        verdict::render(prompt, verdict)
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::ClaudeInstaller)
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
    let flag = |action: Action, gate: &Gate| match gate {
        Gate::Verified(evidence) => ActionFlag::verified(action, evidence.clone()),
        Gate::ReadOnly(reason) => ActionFlag::unverified(action, reason.clone()),
    };
    let mut rules = vec![
        CapabilityRule {
            kind: PromptKind::Permission,
            tool: Some("Bash".into()),
            actions: vec![
                ActionFlag::verified(Action::Once, proven.clone()),
                ActionFlag::verified(Action::Deny, proven.clone()),
                flag(Action::Always, &unlocks.always),
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
            flag(Action::Once, &unlocks.edits),
            flag(Action::Deny, &unlocks.edits),
            flag(Action::Always, &unlocks.always),
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
            flag(Action::Once, &unlocks.plan),
            flag(Action::Deny, &unlocks.plan),
        ],
    });
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: "Claude Code".into(),
        rules,
    }
}

/// What the record in `state_dir` unlocks for the installed Claude Code.
pub fn installed_unlocks(state_dir: Option<&Path>) -> Unlocks {
    let Some(state_dir) = state_dir else {
        return Unlocks::none(
            "neither XDG_STATE_HOME nor HOME is set, so no probe record can be found",
        );
    };
    record::unlock(record::read(&record::record_path(state_dir)), |record| {
        let executable = version::installed_claude(Some(&record.claude_executable))
            .ok_or(version::not_found())?;
        version::version_of(&executable)
    })
}

/// What the record in `state_dir` unlocks for the Claude Code that runs this hook
/// ([`version::running_claude`]). Where processes cannot be looked at (not Linux), the installed
/// one is asked instead, as the gateway does.
pub fn running_unlocks(state_dir: Option<&Path>) -> Unlocks {
    let Some(state_dir) = state_dir else {
        return Unlocks::none(
            "neither XDG_STATE_HOME nor HOME is set, so no probe record can be found",
        );
    };
    record::unlock(record::read(&record::record_path(state_dir)), |record| {
        let executable = match version::running_claude()? {
            Some(running) => running,
            None => version::installed_claude(Some(&record.claude_executable))
                .ok_or(version::not_found())?,
        };
        version::version_of(&executable)
    })
}

/// Whether anything gatehouse may offer for `prompt` depends on a probe (edits, plans, `always`).
pub fn needs_a_probe(prompt: &NewPrompt) -> bool {
    capabilities_for(&Unlocks::all()).deliverable(prompt) != capabilities().deliverable(prompt)
}

/// Marks `prompt` for what `unlocks` allows of it: read-only, with the reason and where to answer
/// instead, when its once and deny are not unlocked (an edit, a plan); without Claude Code's
/// suggestions when `always` is not, so that no front end offers it.
pub fn limit_to(prompt: &mut NewPrompt, unlocks: &Unlocks) {
    let allowed = capabilities_for(unlocks).deliverable(prompt);
    if allowed.is_empty() && prompt.read_only_reason.is_none() {
        let capability = if prompt.kind == PromptKind::Plan {
            record::Capability::Plan
        } else {
            record::Capability::Edits
        };
        let reason = match unlocks.gate(capability) {
            Gate::ReadOnly(reason) => reason.as_str(),
            Gate::Verified(_) => "not unlocked for this Claude Code",
        };
        prompt.read_only_reason = Some(format!(
            "{reason}; meanwhile answer it in Claude Code's terminal"
        ));
    } else if !allowed.contains(&Action::Always) {
        prompt.extra.suggestions.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suggested(mut prompt: NewPrompt) -> NewPrompt {
        prompt.extra.suggestions = suggestions::from_event(Some(&serde_json::json!([
            { "type": "setMode", "mode": "acceptEdits", "destination": "session" }
        ])));
        prompt
    }

    fn write_prompt() -> NewPrompt {
        match events::parse(include_bytes!(
            "../tests/data/claude-code-2.1.332/PermissionRequest-Write.json"
        ))
        .unwrap()
        {
            HookEvent::Prompt { prompt, .. } => prompt,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_probe_unlocks_edits_always_and_plans() {
        let flags = capabilities_for(&Unlocks::all());
        for tool in EDIT_TOOLS {
            assert_eq!(
                flags.offered(PromptKind::Permission, tool),
                vec![Action::Once, Action::Deny]
            );
        }
        assert_eq!(
            flags.offered(PromptKind::Plan, "ExitPlanMode"),
            vec![Action::Once, Action::Deny]
        );
        let prompt = write_prompt();
        assert_eq!(
            flags.offered_for(&prompt),
            vec![Action::Once, Action::Deny, Action::Always]
        );
        for tool in ["WebFetch", "mcp__github__create_issue"] {
            assert!(flags.offered(PromptKind::Permission, tool).is_empty());
        }
        assert!(capabilities().offered_for(&suggested(prompt)).is_empty());
    }

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

    fn bash_prompt_with_a_suggestion() -> NewPrompt {
        match events::parse(include_bytes!(
            "../tests/data/claude-code-2.1.332/PermissionRequest-Bash-addRules.json"
        ))
        .unwrap()
        {
            HookEvent::Prompt { prompt, .. } => prompt,
            other => panic!("{other:?}"),
        }
    }

    const ANOTHER_VERSION: &str = "the probe ran for Claude Code 2.1.332, but Claude Code 9.9.9 is in use; run `gatehouse probe claude` for this version";

    #[test]
    fn an_edit_under_a_claude_code_the_record_does_not_cover_is_read_only_and_says_why() {
        let mut prompt = write_prompt();
        assert!(needs_a_probe(&prompt));
        limit_to(&mut prompt, &Unlocks::none(ANOTHER_VERSION));
        assert_eq!(
            prompt.read_only_reason.as_deref(),
            Some(
                format!("{ANOTHER_VERSION}; meanwhile answer it in Claude Code's terminal")
                    .as_str()
            )
        );
        // Whatever the gateway's installed Claude Code unlocks, a read-only prompt offers nothing.
        assert!(capabilities_for(&Unlocks::all())
            .deliverable(&prompt)
            .is_empty());
    }

    #[test]
    fn an_edit_under_the_probed_claude_code_keeps_what_the_probe_unlocked() {
        let mut prompt = write_prompt();
        limit_to(&mut prompt, &Unlocks::all());
        assert_eq!(prompt.read_only_reason, None);
        assert_eq!(
            capabilities_for(&Unlocks::all()).offered_for(&prompt),
            [Action::Once, Action::Deny, Action::Always]
        );
    }

    #[test]
    fn without_always_unlocked_a_bash_prompt_loses_the_suggestions_but_not_once_and_deny() {
        let mut prompt = bash_prompt_with_a_suggestion();
        assert!(needs_a_probe(&prompt));
        limit_to(&mut prompt, &Unlocks::none(ANOTHER_VERSION));
        assert_eq!(prompt.read_only_reason, None);
        assert!(prompt.extra.suggestions.is_empty());
        assert_eq!(
            capabilities_for(&Unlocks::all()).offered_for(&prompt),
            [Action::Once, Action::Deny]
        );
        let mut plain_bash = bash_prompt_with_a_suggestion();
        plain_bash.extra.suggestions.clear();
        assert!(!needs_a_probe(&plain_bash), "no version is asked for Bash");
    }

    #[test]
    fn the_hooks_own_check_uses_the_running_claude_codes_unlocks() {
        let prompt = write_prompt();
        let other_version = ClaudeAdapter::with_running_unlocks(Unlocks::none(ANOTHER_VERSION));
        assert!(other_version.deliverable_actions(&prompt).is_empty());
        let bash = bash_prompt_with_a_suggestion();
        assert_eq!(
            other_version.deliverable_actions(&bash),
            [Action::Once, Action::Deny]
        );
        let probed = ClaudeAdapter::with_running_unlocks(Unlocks::all());
        assert_eq!(
            probed.deliverable_actions(&prompt),
            [Action::Once, Action::Deny, Action::Always]
        );
    }
}
