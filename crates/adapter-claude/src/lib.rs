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

use gatehouse_core::kit::{AgentProbe, HookInstaller};
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, RunningAgent, TerminalLocation, Verdict,
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

    /// Reads the probe record and, when there is one, runs the installed `claude --version`:
    /// called when a gateway starts and every few seconds after, so a probe takes effect without
    /// a restart.
    fn capabilities(&self) -> AdapterCapabilities {
        capabilities_for(&installed_unlocks(self.state_dir.as_deref()))
    }

    /// Claude Code shows its own prompt in its terminal while the hook waits: the first answer
    /// wins.
    fn while_held(&self) -> Option<gatehouse_core::WhileHeld> {
        Some(gatehouse_core::WhileHeld::OwnPromptStaysLive)
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
        needs_a_probe(prompt).then(|| running_agent(self.state_dir.as_deref()))
    }

    /// The unlock rule applied to the probe record as it is now, for the reported version.
    fn capabilities_for_agent(&self, agent: &RunningAgent) -> AdapterCapabilities {
        capabilities_for(&reported_unlocks(self.state_dir.as_deref(), agent))
    }

    /// Reads the terminal from the hook's environment (`TMUX`, `TMUX_PANE`, `CLAUDE_PID`) and
    /// the file an edit changes from disk, for its diff. What is offered is the gateway's to
    /// decide, for the Claude Code the hook reports ([`Adapter::running_agent`]).
    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        parse_in_environment(stdin)
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

/// What the record in `state_dir`, as it is now, unlocks for the Claude Code a hook reported.
/// Never runs a program.
pub fn reported_unlocks(state_dir: Option<&Path>, agent: &RunningAgent) -> Unlocks {
    let Some(state_dir) = state_dir else {
        return Unlocks::none(
            "neither XDG_STATE_HOME nor HOME is set, so no probe record can be found",
        );
    };
    record::unlock(record::read(&record::record_path(state_dir)), |_| {
        gatehouse_harness::executable::reported_version(agent)
    })
}

/// The Claude Code that runs this hook, and its version ([`version::CLAUDE`]): the ancestor
/// `CLAUDE_PID` names or that runs an executable called `claude`, asked for its version once per
/// executable file (the answer is kept in the version cache in `state_dir`). Where processes
/// cannot be looked at (not Linux), the installed one is asked instead.
pub fn running_agent(state_dir: Option<&Path>) -> RunningAgent {
    let probed = state_dir
        .and_then(|folder| record::read(&record::record_path(folder)).ok().flatten())
        .map(|record| record.claude_executable);
    gatehouse_harness::executable::report_running_agent(
        &version::CLAUDE,
        probed.as_deref(),
        state_dir,
    )
}

/// Whether anything gatehouse may offer for `prompt` depends on a probe (edits, plans, `always`).
pub fn needs_a_probe(prompt: &NewPrompt) -> bool {
    capabilities_for(&Unlocks::all()).deliverable(prompt) != capabilities().deliverable(prompt)
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

    /// A state folder with a passing probe record for Claude Code 2.1.332, removed when dropped.
    fn probed_state() -> tempfile::TempDir {
        let folder = tempfile::tempdir().unwrap();
        let cases = [
            ("write-once", record::Capability::Edits),
            ("always-session", record::Capability::Always),
            ("plan-deny", record::Capability::Plan),
        ]
        .map(|(case, capability)| record::CaseResult {
            case: case.into(),
            capability,
            passed: true,
            evidence: "written by the test".into(),
        });
        let probed = record::ProbeRecord {
            claude_version: VERIFIED_VERSION.into(),
            claude_executable: "/usr/bin/claude".into(),
            probed_at: gatehouse_core::Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
            passed: true,
            cases: cases.into(),
            gatehouse_version: "0.1.0".into(),
        };
        record::write(&record::record_path(folder.path()), &probed).unwrap();
        folder
    }

    fn running(version: &str) -> RunningAgent {
        RunningAgent::new(Some("/proc/1/exe".into()), Ok(version.into()))
    }

    /// A record that `gatehouse probe claude` wrote before the kit held Claude's record
    /// (captured from that code; its plan-deny case failed), where it always was: it unlocks
    /// the same.
    #[test]
    fn a_record_written_before_the_kit_still_reads_the_same() {
        let state = tempfile::tempdir().unwrap();
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/records/claude-probe-before-the-kit.json"
            ),
            state.path().join("claude-probe.json"),
        )
        .unwrap();
        let adapter = ClaudeAdapter::new(Some(state.path().to_path_buf()));
        let flags = adapter.capabilities_for_agent(&running("2.1.332"));
        let evidence = "by probe on 2026-12-01 for Claude Code 2.1.332";
        for tool in EDIT_TOOLS {
            let rule = flags.rule_for(PromptKind::Permission, tool).unwrap();
            assert_eq!(
                rule.actions,
                [
                    ActionFlag::verified(Action::Once, evidence),
                    ActionFlag::verified(Action::Deny, evidence),
                    ActionFlag::verified(Action::Always, evidence),
                ]
            );
        }
        let bash = flags.rule_for(PromptKind::Permission, "Bash").unwrap();
        assert_eq!(bash.actions[2], ActionFlag::verified(Action::Always, evidence));
        let plan = flags.rule_for(PromptKind::Plan, "ExitPlanMode").unwrap();
        for flag in &plan.actions {
            assert!(!flag.verified, "{flag:?}");
            assert!(flag.evidence.contains("failed (plan-deny)"), "{flag:?}");
        }
        let other = adapter.capabilities_for_agent(&running("9.9.9"));
        for tool in EDIT_TOOLS {
            assert!(other.offered(PromptKind::Permission, tool).is_empty());
        }
        assert_eq!(
            other.offered(PromptKind::Permission, "Bash"),
            [Action::Once, Action::Deny]
        );
    }

    #[test]
    fn an_edit_under_a_claude_code_the_record_does_not_cover_is_read_only_and_says_why() {
        let state = probed_state();
        let adapter = ClaudeAdapter::new(Some(state.path().to_path_buf()));
        let prompt = write_prompt();
        assert!(needs_a_probe(&prompt));
        let flags = adapter.capabilities_for_agent(&running("9.9.9"));
        assert!(flags.offered_for(&prompt).is_empty());
        let rule = flags.rule_for(PromptKind::Permission, "Write").unwrap();
        assert!(
            rule.actions[0]
                .evidence
                .contains("the probe ran for Claude Code 2.1.332, but Claude Code 9.9.9 is in use"),
            "{rule:?}"
        );
        assert!(adapter
            .deliverable_for(&prompt, Some(&running("9.9.9")))
            .is_empty());
        let unknown = RunningAgent::new(None, Err("no claude among the ancestors".into()));
        assert!(adapter.deliverable_for(&prompt, Some(&unknown)).is_empty());
    }

    #[test]
    fn an_edit_under_the_probed_claude_code_keeps_what_the_probe_unlocked() {
        let state = probed_state();
        let adapter = ClaudeAdapter::new(Some(state.path().to_path_buf()));
        let prompt = write_prompt();
        assert_eq!(
            adapter
                .capabilities_for_agent(&running(VERIFIED_VERSION))
                .offered_for(&prompt),
            [Action::Once, Action::Deny, Action::Always]
        );
        assert_eq!(
            adapter.deliverable_for(&prompt, Some(&running(VERIFIED_VERSION))),
            [Action::Once, Action::Deny, Action::Always]
        );
    }

    #[test]
    fn the_hooks_own_check_uses_the_running_claude_codes_unlocks() {
        let state = probed_state();
        let adapter = ClaudeAdapter::new(Some(state.path().to_path_buf()));
        let prompt = bash_prompt_with_a_suggestion();
        assert!(needs_a_probe(&prompt));
        assert_eq!(
            adapter.deliverable_for(&prompt, Some(&running("9.9.9"))),
            [Action::Once, Action::Deny]
        );
        let mut plain_bash = bash_prompt_with_a_suggestion();
        plain_bash.extra.suggestions.clear();
        assert!(!needs_a_probe(&plain_bash), "no version is asked for Bash");
        assert_eq!(adapter.running_agent(&plain_bash), None);
    }
}
