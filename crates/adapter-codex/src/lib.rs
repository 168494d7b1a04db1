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
//! are verified for Bash prompts and for file changes (`apply_patch`, shown as a diff,
//! [`patch`]), each kind by its own cases, and the hook holds such a prompt for an answer, as for
//! Claude Code; Codex shows no prompt of its own meanwhile, so the installer gives Codex's hook a
//! short wait ([`install::CODEX_WAIT_SECONDS`]). "always" for a Bash prompt, once its probe case
//! passed, is allow now and a rule in gatehouse's own rules file that Codex reads from the next
//! session on ([`rules`]).
//!
//! Modules: [`events`] (hook input), [`patch`] (Codex's patch format, as a diff), [`verdict`]
//! (hook output), [`rules`] (the rules file of "always"), [`record`] (the probe record and the
//! unlock rule per kind), [`version`] (which Codex is in use), [`install`] (hooks.json),
//! [`probe`].

pub mod events;
pub mod install;
pub mod patch;
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

use crate::record::{Unlock, Unlocks};

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
        capabilities_for(&installed_unlocks(self.state_dir.as_deref()))
    }

    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        // The terminal pane is the hook's to find, for every agent.
        events::parse(stdin)
    }

    /// For "always", writes the rule into `$CODEX_HOME/rules/gatehouse.rules` (of the hook's
    /// environment, which is Codex's) before it answers allow ([`verdict::render_for`]).
    fn render_verdict(&self, prompt: &NewPrompt, verdict: &Verdict) -> String {
        let path = rules::rules_path_from_environment();
        let shell = rules::person_shell();
        verdict::render_for(
            prompt,
            verdict,
            &verdict::RulesTarget {
                path: path.as_deref(),
                shell: shell.as_deref(),
            },
        )
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::CodexInstaller)
    }

    fn probe(&self) -> Option<&dyn AgentProbe> {
        Some(&probe::CodexProbe)
    }

    /// For a Bash or apply_patch prompt, the Codex that runs this hook and its version
    /// ([`version::running_codex`]); the gateway decides with it what is offered.
    fn running_agent(&self, prompt: &NewPrompt) -> Option<RunningAgent> {
        (events::PROBED_TOOLS.contains(&prompt.tool.as_str()) && prompt.read_only_reason.is_none())
            .then(|| running_agent(self.state_dir.as_deref()))
    }

    /// The unlock rule applied to the probe record as it is now, for the reported version.
    fn capabilities_for_agent(&self, agent: &RunningAgent) -> AdapterCapabilities {
        capabilities_for(&reported_unlocks(self.state_dir.as_deref(), agent))
    }

    /// The most a prompt can be offered (every probe passed); the hook narrows it to the
    /// running Codex with [`Adapter::capabilities_for_agent`].
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        capabilities_for(&Unlocks::at_best()).deliverable(prompt)
    }
}

/// Codex's capability flags with no probe: every action exists, none is verified, so every
/// prompt is read-only.
pub fn capabilities() -> AdapterCapabilities {
    capabilities_for(&Unlocks::read_only(
        "no probe has checked that this Codex honours gatehouse's answers",
    ))
}

/// Codex's capability flags for `unlocks`. Read-only: one rule for every tool, each action
/// unverified with the reason. Each verified kind adds its rule: `once` and `deny` for Bash
/// (shell), for apply_patch (patch), and `always` for Bash when both shell and always are
/// verified (offered for a prompt only with its suggestion, the rule gatehouse can write for
/// exactly that command). Other tools stay read-only.
pub fn capabilities_for(unlocks: &Unlocks) -> AdapterCapabilities {
    let every_tool = |evidence: &str| CapabilityRule {
        kind: PromptKind::Permission,
        tool: None,
        actions: [Action::Once, Action::Deny, Action::Always]
            .map(|action| ActionFlag::unverified(action, evidence))
            .into(),
    };
    let flag = |action: Action, unlock: &Unlock| match unlock {
        Unlock::Verified { evidence, .. } => ActionFlag::verified(action, evidence.clone()),
        Unlock::ReadOnly { reason } => ActionFlag::unverified(action, reason.clone()),
    };
    let mut rules = Vec::new();
    if let Unlock::Verified { .. } = &unlocks.shell {
        let always = match &unlocks.always {
            Unlock::Verified { .. } => flag(Action::Always, &unlocks.always),
            Unlock::ReadOnly { reason } => ActionFlag::unverified(Action::Always, reason.clone()),
        };
        rules.push(CapabilityRule {
            kind: PromptKind::Permission,
            tool: Some(events::ANSWERABLE_TOOL.into()),
            actions: vec![
                flag(Action::Once, &unlocks.shell),
                flag(Action::Deny, &unlocks.shell),
                always,
            ],
        });
    }
    if let Unlock::Verified { .. } = &unlocks.patch {
        rules.push(CapabilityRule {
            kind: PromptKind::Permission,
            tool: Some(events::PATCH_TOOL.into()),
            actions: vec![
                flag(Action::Once, &unlocks.patch),
                flag(Action::Deny, &unlocks.patch),
                ActionFlag::unverified(
                    Action::Always,
                    "Codex's \"don't ask again for these files\" keeps no rule that gatehouse could write",
                ),
            ],
        });
    }
    let every_other = match (&unlocks.shell, &unlocks.patch) {
        (Unlock::ReadOnly { reason }, Unlock::ReadOnly { .. }) => reason.clone(),
        (Unlock::Verified { .. }, Unlock::ReadOnly { reason }) => format!(
            "the probe proves Bash prompts only ({} prompts: {reason}); answer the others in Codex's terminal",
            events::PATCH_TOOL
        ),
        (Unlock::ReadOnly { reason }, Unlock::Verified { .. }) => format!(
            "the probe proves {} prompts only (Bash prompts: {reason}); answer the others in Codex's terminal",
            events::PATCH_TOOL
        ),
        _ => "the probe proves Bash and apply_patch prompts only; answer the others in Codex's terminal".into(),
    };
    rules.push(every_tool(&every_other));
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: "Codex".into(),
        rules,
    }
}

/// Whether answers are unlocked for the installed Codex, as the gateway sees it: the record in
/// `state_dir` against `codex --version` of [`version::installed_codex`].
pub fn installed_unlocks(state_dir: Option<&Path>) -> Unlocks {
    unlocks_with(state_dir, |record| {
        let executable =
            version::installed_codex(Some(&record.codex_executable)).ok_or(version::not_found())?;
        version::version_of(&executable)
    })
}

/// Whether answers are unlocked for the Codex a hook reported: the record in `state_dir` as it
/// is now, against the reported version. Never runs a program.
pub fn reported_unlocks(state_dir: Option<&Path>, agent: &RunningAgent) -> Unlocks {
    unlocks_with(state_dir, |_| {
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

fn unlocks_with(
    state_dir: Option<&Path>,
    version_in_use: impl FnOnce(&record::ProbeRecord) -> Result<String, version::VersionError>,
) -> Unlocks {
    let Some(state_dir) = state_dir else {
        return Unlocks::read_only(
            "neither XDG_STATE_HOME nor HOME is set, so no probe record can be found",
        );
    };
    record::unlocks(
        record::read(&record::record_path(state_dir)),
        version_in_use,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verified() -> Unlock {
        Unlock::Verified {
            version: "0.171.0".into(),
            evidence: "by probe on 2026-11-30 for Codex 0.171.0".into(),
        }
    }

    fn read_only(reason: &str) -> Unlock {
        Unlock::ReadOnly {
            reason: reason.into(),
        }
    }

    #[test]
    fn read_only_offers_nothing() {
        let flags = capabilities_for(&Unlocks::read_only("no probe"));
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
        let flags = capabilities_for(&Unlocks {
            shell: verified(),
            patch: read_only("the probe of Codex 0.171.0 did not check file changes"),
            always: read_only("not checked"),
        });
        assert_eq!(
            flags.offered(PromptKind::Permission, "Bash"),
            vec![Action::Once, Action::Deny]
        );
        assert!(flags
            .offered(PromptKind::Permission, "apply_patch")
            .is_empty());
        assert!(flags
            .rule_for(PromptKind::Permission, "apply_patch")
            .unwrap()
            .actions[0]
            .evidence
            .contains("did not check file changes"));
        let once = &flags
            .rule_for(PromptKind::Permission, "Bash")
            .unwrap()
            .actions[0];
        assert_eq!(once.evidence, "by probe on 2026-11-30 for Codex 0.171.0");
    }

    #[test]
    fn each_verified_kind_offers_its_own_actions() {
        let patch_only = capabilities_for(&Unlocks {
            shell: read_only("shell failed"),
            patch: verified(),
            always: verified(),
        });
        assert_eq!(
            patch_only.offered(PromptKind::Permission, "apply_patch"),
            vec![Action::Once, Action::Deny]
        );
        assert!(patch_only
            .offered(PromptKind::Permission, "Bash")
            .is_empty());
        let all = capabilities_for(&Unlocks::at_best());
        let bash_rule = all.rule_for(PromptKind::Permission, "Bash").unwrap();
        assert!(bash_rule
            .actions
            .iter()
            .any(|flag| flag.action == Action::Always && flag.verified));
        let patch_rule = all.rule_for(PromptKind::Permission, "apply_patch").unwrap();
        assert!(!patch_rule
            .actions
            .iter()
            .any(|flag| flag.action == Action::Always && flag.verified));
        assert!(all.offered(PromptKind::Permission, "WebSearch").is_empty());
    }
}
