//! gatehouse's adapter for Codex: reads the events that Codex's hooks write to stdin, renders
//! verdicts, states Codex's capability flags, installs the hooks, and probes whether the
//! installed Codex honours gatehouse's answers.
//!
//! Architecture invariant: this crate knows Codex and nothing of gatehouse's socket.
//!
//! Codex runs its PermissionRequest hooks before it shows its own approval prompt, and waits for
//! them. Until a probe proves that the Codex in use honours gatehouse's answers, every action is
//! unverified: the hook registers the prompt for watching and returns at once, so Codex's own
//! prompt is never delayed, and the prompt is listed read-only until Codex shows it is over.
//! Once `gatehouse probe codex` has passed for that Codex version ([`record`]), `once` and `deny`
//! are verified for Bash prompts, and the hook holds such a prompt for an answer, as for Claude
//! Code; Codex shows no prompt of its own meanwhile, so the installer gives Codex's hook a short
//! wait ([`install::CODEX_WAIT_SECONDS`]).
//!
//! Modules: [`events`] (hook input), [`verdict`] (hook output), [`record`] (the probe record and
//! the unlock rule), [`version`] (which Codex is in use), [`install`] (hooks.json), [`probe`].

pub mod events;
pub mod patch;
pub mod install;
pub mod probe;
pub mod record;
pub mod rules;
pub mod verdict;
pub mod version;

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{AgentProbe, HookInstaller};
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, RunningAgent, Verdict,
};

use crate::record::Unlock;

/// The adapter's id, as in `gatehouse hook codex`.
pub const ADAPTER_ID: &str = "codex";

/// The Codex adapter. It finds the probe record in gatehouse's state folder, which the binary
/// names (`None`: no folder is known, so nothing is unlocked).
#[derive(Debug, Default, Clone)]
pub struct CodexAdapter {
    state_dir: Option<PathBuf>,
}

impl CodexAdapter {
    pub fn new(state_dir: Option<PathBuf>) -> Self {
        CodexAdapter { state_dir }
    }
}

impl Adapter for CodexAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        "Codex"
    }

    /// Reads the probe record and, when it passed, runs the installed `codex --version`: called
    /// when a gateway starts and every few seconds after, so a new probe takes effect without a
    /// restart.
    fn capabilities(&self) -> AdapterCapabilities {
        capabilities_for(&installed_unlock(self.state_dir.as_deref()))
    }

    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        // The terminal pane is the hook's to find, for every agent.
        events::parse(stdin)
    }

    fn render_verdict(&self, _prompt: &NewPrompt, verdict: &Verdict) -> String {
        verdict::render(verdict)
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::CodexInstaller)
    }

    fn probe(&self) -> Option<&dyn AgentProbe> {
        Some(&probe::CodexProbe)
    }

    /// For a Bash prompt, the Codex that runs this hook and its version
    /// ([`version::running_codex`]); the gateway decides with it what is offered.
    fn running_agent(&self, prompt: &NewPrompt) -> Option<RunningAgent> {
        (prompt.tool == events::ANSWERABLE_TOOL && prompt.read_only_reason.is_none())
            .then(|| running_agent(self.state_dir.as_deref()))
    }

    /// The unlock rule applied to the probe record as it is now, for the reported version.
    fn capabilities_for_agent(&self, agent: &RunningAgent) -> AdapterCapabilities {
        capabilities_for(&reported_unlock(self.state_dir.as_deref(), agent))
    }

    /// The most a Bash prompt can be offered (every probe passed); the hook narrows it to the
    /// running Codex with [`Adapter::capabilities_for_agent`].
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        let at_best = Unlock::Verified {
            version: String::new(),
            evidence: String::new(),
        };
        capabilities_for(&at_best).deliverable(prompt)
    }
}

/// Codex's capability flags with no probe: every action exists, none is verified, so every
/// prompt is read-only.
pub fn capabilities() -> AdapterCapabilities {
    capabilities_for(&Unlock::ReadOnly {
        reason: "no probe has checked that this Codex honours gatehouse's answers".into(),
    })
}

/// Codex's capability flags for `unlock`. Read-only: one rule for every tool, each action
/// unverified with the reason. Verified: `once` and `deny` for Bash, with the probe as evidence;
/// other tools stay read-only. `always` is never verified.
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
                        "no probe checks Codex's \"don't ask again\"",
                    ),
                ],
            },
            every_tool("the probe proves Bash prompts only; answer the others in Codex's terminal"),
        ],
    };
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: "Codex".into(),
        rules,
    }
}

/// Whether answers are unlocked for the installed Codex, as the gateway sees it: the record in
/// `state_dir` against `codex --version` of [`version::installed_codex`].
pub fn installed_unlock(state_dir: Option<&Path>) -> Unlock {
    unlock_with(state_dir, |record| {
        let executable =
            version::installed_codex(Some(&record.codex_executable)).ok_or(version::not_found())?;
        version::version_of(&executable)
    })
}

/// Whether answers are unlocked for the Codex a hook reported: the record in `state_dir` as it
/// is now, against the reported version. Never runs a program.
pub fn reported_unlock(state_dir: Option<&Path>, agent: &RunningAgent) -> Unlock {
    unlock_with(state_dir, |_| {
        gatehouse_harness::executable::reported_version(agent)
    })
}

/// The Codex that runs this hook, and its version: `--version` of the nearest ancestor called
/// `codex`, else of the installed one, answered from the version cache in `state_dir` when that
/// executable was asked before.
pub fn running_agent(state_dir: Option<&Path>) -> RunningAgent {
    let probed = state_dir
        .and_then(|folder| record::read(&record::record_path(folder)).ok().flatten())
        .map(|record| record.codex_executable);
    gatehouse_harness::executable::report_running_agent(
        &version::CODEX,
        probed.as_deref(),
        state_dir,
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
    fn read_only_offers_nothing() {
        let flags = capabilities_for(&Unlock::ReadOnly {
            reason: "no probe".into(),
        });
        assert!(flags.offered(PromptKind::Permission, "Bash").is_empty());
        assert!(flags
            .offered(PromptKind::Permission, "apply_patch")
            .is_empty());
        assert_eq!(
            flags
                .rule_for(PromptKind::Permission, "Bash")
                .unwrap()
                .actions[0]
                .evidence,
            "no probe"
        );
    }

    #[test]
    fn a_verified_probe_offers_once_and_deny_for_bash_only() {
        assert!(capabilities()
            .offered(PromptKind::Permission, "Bash")
            .is_empty());
        let flags = capabilities_for(&Unlock::Verified {
            version: "0.171.0".into(),
            evidence: "by probe on 2026-11-30 for Codex 0.171.0".into(),
        });
        assert_eq!(
            flags.offered(PromptKind::Permission, "Bash"),
            vec![Action::Once, Action::Deny]
        );
        assert!(flags
            .offered(PromptKind::Permission, "apply_patch")
            .is_empty());
        let once = &flags
            .rule_for(PromptKind::Permission, "Bash")
            .unwrap()
            .actions[0];
        assert_eq!(once.evidence, "by probe on 2026-11-30 for Codex 0.171.0");
    }
}
