//! gatehouse's adapter for GitHub Copilot CLI: reads the events that Copilot's hooks write to
//! stdin, renders verdicts, states Copilot's capability flags, installs the hooks, and probes
//! whether the installed Copilot CLI honours gatehouse's answers.
//!
//! Architecture invariant: this crate knows Copilot CLI and nothing of gatehouse's socket.
//!
//! Copilot runs its `permissionRequest` hooks before it shows its own dialog, and waits for them.
//! Until a probe proves that the Copilot CLI in use honours gatehouse's answers, every action is
//! unverified: the hook registers the prompt for watching and returns at once, so Copilot's own
//! dialog is never delayed, and the prompt is listed read-only until Copilot shows it is over.
//! Once `gatehouse probe copilot` has passed for that version ([`record`]), `once` and `deny` are
//! verified for `bash` prompts, and the hook holds such a prompt for a short wait
//! ([`install::COPILOT_WAIT_SECONDS`]); a release or the wait's end hands it to Copilot's dialog.
//!
//! Modules: [`events`] (hook input), [`verdict`] (hook output), [`record`] (the probe record and
//! the unlock rule), [`version`] (which Copilot CLI is in use), [`own_rules`] (calls Copilot
//! would run without asking), [`install`] (settings.json), [`probe`].

pub mod events;
pub mod install;
pub mod own_rules;
pub mod probe;
pub mod record;
pub mod verdict;
pub mod version;

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{AgentProbe, HookInstaller};
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, RunningAgent, Verdict,
};

use crate::record::Unlock;

/// The adapter's id, as in `gatehouse hook copilot`.
pub const ADAPTER_ID: &str = "copilot";

/// The agent's name for people.
pub const NAME: &str = "GitHub Copilot CLI";

/// The Copilot CLI adapter. It finds the probe record in gatehouse's state folder, which the
/// binary names (`None`: no folder is known, so nothing is unlocked).
#[derive(Debug, Default, Clone)]
pub struct CopilotAdapter {
    state_dir: Option<PathBuf>,
}

impl CopilotAdapter {
    pub fn new(state_dir: Option<PathBuf>) -> Self {
        CopilotAdapter { state_dir }
    }
}

impl Adapter for CopilotAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        NAME
    }

    /// Reads the probe record and, when it passed, runs the installed `copilot --version`.
    fn capabilities(&self) -> AdapterCapabilities {
        capabilities_for(&installed_unlock(self.state_dir.as_deref()))
    }

    fn parse_hook_event(&self, stdin: &[u8], event: Option<&str>) -> Result<HookEvent, ParseError> {
        events::parse(stdin, event, running_own_rules)
    }

    fn render_verdict(&self, _prompt: &NewPrompt, verdict: &Verdict) -> String {
        verdict::render(verdict)
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::CopilotInstaller)
    }

    fn probe(&self) -> Option<&dyn AgentProbe> {
        Some(&probe::CopilotProbe)
    }

    /// For a `bash` prompt, the Copilot CLI that runs this hook and its version (Copilot CLI
    /// 1.0.102 names it in `COPILOT_CLI_BINARY_VERSION`, so no program runs); the gateway decides
    /// with it what is offered.
    fn running_agent(&self, prompt: &NewPrompt) -> Option<RunningAgent> {
        (prompt.tool == events::ANSWERABLE_TOOL && prompt.read_only_reason.is_none())
            .then(|| running_agent(self.state_dir.as_deref()))
    }

    /// The unlock rule applied to the probe record as it is now, for the reported version.
    fn capabilities_for_agent(&self, agent: &RunningAgent) -> AdapterCapabilities {
        capabilities_for(&reported_unlock(self.state_dir.as_deref(), agent))
    }

    /// The most a `bash` prompt can be offered (every probe passed); the hook narrows it to the
    /// running Copilot CLI with [`Adapter::capabilities_for_agent`].
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        let at_best = Unlock::Verified {
            version: String::new(),
            evidence: String::new(),
        };
        capabilities_for(&at_best).deliverable(prompt)
    }
}

/// Copilot's capability flags with no probe: every action exists, none is verified.
pub fn capabilities() -> AdapterCapabilities {
    capabilities_for(&Unlock::ReadOnly {
        reason: "no probe has checked that this Copilot CLI honours gatehouse's answers".into(),
    })
}

/// Copilot's capability flags for `unlock`. Read-only: one rule for every tool, each action
/// unverified with the reason. Verified: `once` and `deny` for `bash`, with the probe as
/// evidence; other tools stay read-only. `always` is never verified.
pub fn capabilities_for(unlock: &Unlock) -> AdapterCapabilities {
    let every_tool = |evidence: &str| CapabilityRule {
        kind: PromptKind::Permission,
        tool: None,
        actions: [Action::Once, Action::Deny, Action::Always]
            .map(|action| ActionFlag::unverified(action, evidence))
            .into(),
    };
    let rules = match unlock {
        Unlock::ReadOnly { reason } => vec![every_tool(reason)],
        Unlock::Verified { evidence, .. } => vec![
            CapabilityRule {
                kind: PromptKind::Permission,
                tool: Some(events::ANSWERABLE_TOOL.into()),
                actions: vec![
                    ActionFlag::verified(Action::Once, evidence.clone()),
                    ActionFlag::verified(Action::Deny, evidence.clone()),
                    ActionFlag::unverified(
                        Action::Always,
                        "no probe checks Copilot's \"don't ask again\"",
                    ),
                ],
            },
            every_tool(
                "the probe proves bash prompts only; answer the others in Copilot's terminal",
            ),
        ],
    };
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: NAME.into(),
        rules,
    }
}

/// Whether answers are unlocked for the installed Copilot CLI, as the gateway sees it.
pub fn installed_unlock(state_dir: Option<&Path>) -> Unlock {
    unlock_with(state_dir, |record| {
        let executable = version::installed_copilot(Some(&record.copilot_executable))
            .ok_or(version::not_found())?;
        version::version_of(&executable)
    })
}

/// Whether answers are unlocked for the Copilot CLI a hook reported: the record in `state_dir`
/// as it is now, against the reported version. Never runs a program.
pub fn reported_unlock(state_dir: Option<&Path>, agent: &RunningAgent) -> Unlock {
    unlock_with(state_dir, |_| {
        gatehouse_harness::executable::reported_version(agent)
    })
}

/// The Copilot CLI that runs this hook, and its version: `COPILOT_CLI_BINARY_VERSION` when
/// Copilot set it, else `--version` of the nearest ancestor called `copilot` (or of the installed
/// one), answered from the version cache in `state_dir` when that executable was asked before.
pub fn running_agent(state_dir: Option<&Path>) -> RunningAgent {
    let probed = state_dir
        .and_then(|folder| record::read(&record::record_path(folder)).ok().flatten())
        .map(|record| record.copilot_executable);
    gatehouse_harness::executable::report_running_agent(
        &version::COPILOT,
        probed.as_deref(),
        state_dir,
    )
}

/// Why the Copilot CLI that runs this hook may run `command` in `cwd` without asking: its saved
/// approvals, and its own arguments and environment.
pub fn running_own_rules(command: &str, cwd: &str) -> Option<String> {
    let (arguments, allow_all) = version::running_copilot_process()
        .map(|(pid, _)| own_rules::arguments_and_allow_all(pid))
        .unwrap_or_default();
    own_rules::may_run_without_asking(
        command,
        cwd,
        &own_rules::read_approvals(),
        &arguments,
        allow_all,
    )
}

fn unlock_with(
    state_dir: Option<&Path>,
    version_in_use: impl FnOnce(&record::ProbeRecord) -> Result<String, version::VersionError>,
) -> Unlock {
    let Some(state_dir) = state_dir else {
        return Unlock::ReadOnly {
            reason: "neither XDG_STATE_HOME nor HOME is set, so no probe record can be found"
                .into(),
        };
    };
    record::unlock(
        record::read(&record::record_path(state_dir)),
        version_in_use,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_offers_nothing_and_says_why() {
        let flags = capabilities_for(&Unlock::ReadOnly {
            reason: "no probe".into(),
        });
        assert!(flags.offered(PromptKind::Permission, "bash").is_empty());
        let rule = flags.rule_for(PromptKind::Permission, "bash").unwrap();
        assert_eq!(rule.actions[0].evidence, "no probe");
        assert!(capabilities()
            .offered(PromptKind::Permission, "bash")
            .is_empty());
    }

    #[test]
    fn a_verified_probe_offers_once_and_deny_for_bash_only() {
        let flags = capabilities_for(&Unlock::Verified {
            version: "1.0.102".into(),
            evidence: "by probe on 2026-12-01 for Copilot CLI 1.0.102".into(),
        });
        assert_eq!(
            flags.offered(PromptKind::Permission, "bash"),
            vec![Action::Once, Action::Deny]
        );
        assert!(flags.offered(PromptKind::Permission, "edit").is_empty());
        assert!(flags.offered(PromptKind::Permission, "Bash").is_empty());
        let once = &flags
            .rule_for(PromptKind::Permission, "bash")
            .unwrap()
            .actions[0];
        assert_eq!(
            once.evidence,
            "by probe on 2026-12-01 for Copilot CLI 1.0.102"
        );
    }
}
