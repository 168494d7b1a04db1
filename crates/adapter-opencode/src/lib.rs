//! gatehouse's adapter for OpenCode (npm `opencode-ai`): reads the events gatehouse's OpenCode
//! plugin hands to `gatehouse hook opencode`, renders verdicts the plugin turns into OpenCode's
//! own replies, states OpenCode's capability flags, installs the plugin and probes whether the
//! installed OpenCode honours gatehouse's answers.
//!
//! Architecture invariant: this crate knows OpenCode and nothing of gatehouse's socket.
//!
//! OpenCode has no command hooks. A terminal session opens no port either; but a plugin runs in
//! its process, sees its bus events and can reply through its in-process client. gatehouse's
//! plugin ([`install`]) runs the hook for each `permission.asked` and `question.asked` and
//! replies with the verdict; OpenCode's own prompt stays live meanwhile and the first answer
//! wins both ways, so a prompt is held until an outcome, as with Claude Code. Until
//! `gatehouse probe opencode` has passed for the OpenCode in use ([`record`]), everything is
//! read-only with the reason; once it has, `once`, `deny` (OpenCode's reject, with a message)
//! and `always` are verified for `bash` prompts, and answers for questions. What each answer
//! really does in OpenCode is in the prompt itself ([`effects`]).
//!
//! Modules: [`events`] (hook input), [`verdict`] (hook output), [`effects`] (what each answer
//! does), [`record`] (the probe record and the unlock rule), [`version`] (which OpenCode is in
//! use), [`install`] (the plugin file), [`probe`].

pub mod effects;
pub mod events;
pub mod install;
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

/// The adapter's id, as in `gatehouse hook opencode`.
pub const ADAPTER_ID: &str = "opencode";

/// The agent's name for people.
pub const NAME: &str = "OpenCode";

/// The OpenCode adapter. It finds the probe record in gatehouse's state folder, which the binary
/// names (`None`: no folder is known, so nothing is unlocked).
#[derive(Debug, Default, Clone)]
pub struct OpenCodeAdapter {
    state_dir: Option<PathBuf>,
}

impl OpenCodeAdapter {
    pub fn new(state_dir: Option<PathBuf>) -> Self {
        OpenCodeAdapter { state_dir }
    }
}

impl Adapter for OpenCodeAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        NAME
    }

    /// Reads the probe record and, when it passed, runs the installed `opencode --version`.
    fn capabilities(&self) -> AdapterCapabilities {
        capabilities_for(&installed_unlock(self.state_dir.as_deref()))
    }

    fn parse_hook_event(&self, stdin: &[u8], event: Option<&str>) -> Result<HookEvent, ParseError> {
        events::parse(stdin, event, &events::HookEnvironment::current())
    }

    fn render_verdict(&self, prompt: &NewPrompt, verdict: &Verdict) -> String {
        verdict::render(prompt, verdict)
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::OpenCodeInstaller)
    }

    fn probe(&self) -> Option<&dyn AgentProbe> {
        Some(&probe::OpenCodeProbe)
    }

    /// For a prompt that may be answered, the OpenCode that runs the plugin (the hook's parent,
    /// `OPENCODE_PID`) and its version, cached per executable file.
    fn running_agent(&self, prompt: &NewPrompt) -> Option<RunningAgent> {
        prompt.read_only_reason.is_none().then(|| {
            let probed = self
                .state_dir
                .as_deref()
                .and_then(|folder| record::read(&record::record_path(folder)).ok().flatten())
                .map(|record| record.opencode_executable);
            gatehouse_harness::executable::report_running_agent(
                &version::OPENCODE,
                probed.as_deref(),
                self.state_dir.as_deref(),
            )
        })
    }

    /// The unlock rule applied to the probe record as it is now, for the reported version.
    fn capabilities_for_agent(&self, agent: &RunningAgent) -> AdapterCapabilities {
        capabilities_for(&reported_unlock(self.state_dir.as_deref(), agent))
    }

    /// The most a prompt can be offered (every probe passed); the hook narrows it to the running
    /// OpenCode with [`Adapter::capabilities_for_agent`].
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        let at_best = Unlock::Verified {
            version: String::new(),
            evidence: String::new(),
        };
        capabilities_for(&at_best).deliverable(prompt)
    }
}

/// OpenCode's capability flags with no probe: every action exists, none is verified.
pub fn capabilities() -> AdapterCapabilities {
    capabilities_for(&Unlock::ReadOnly {
        reason: "no probe has checked that this OpenCode honours gatehouse's answers".into(),
    })
}

/// OpenCode's capability flags for `unlock`. Read-only: every permission and question, each
/// action unverified with the reason. Verified: `once`, `deny` and `always` for `bash`, and
/// answers for questions, with the probe as evidence; other permissions stay read-only.
pub fn capabilities_for(unlock: &Unlock) -> AdapterCapabilities {
    let every_permission = |evidence: &str| CapabilityRule {
        kind: PromptKind::Permission,
        tool: None,
        actions: [Action::Once, Action::Deny, Action::Always]
            .map(|action| ActionFlag::unverified(action, evidence))
            .into(),
    };
    let questions = |flag: ActionFlag| CapabilityRule {
        kind: PromptKind::Question,
        tool: None,
        actions: vec![flag],
    };
    let rules = match unlock {
        Unlock::ReadOnly { reason } => vec![
            every_permission(reason),
            questions(ActionFlag::unverified(Action::Answer, reason.clone())),
        ],
        Unlock::Verified { evidence, .. } => vec![
            CapabilityRule {
                kind: PromptKind::Permission,
                tool: Some(events::ANSWERABLE_PERMISSION.into()),
                actions: [Action::Once, Action::Deny, Action::Always]
                    .map(|action| ActionFlag::verified(action, evidence.clone()))
                    .into(),
            },
            every_permission(
                "the probe proves bash prompts only; answer the others in OpenCode's terminal",
            ),
            questions(ActionFlag::verified(Action::Answer, evidence.clone())),
        ],
    };
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: NAME.into(),
        rules,
    }
}

/// Whether answers are unlocked for the installed OpenCode, as the gateway sees it.
pub fn installed_unlock(state_dir: Option<&Path>) -> Unlock {
    unlock_with(state_dir, |record| {
        let executable = version::installed_opencode(Some(&record.opencode_executable))
            .ok_or(version::not_found())?;
        version::version_of(&executable)
    })
}

/// Whether answers are unlocked for the OpenCode a hook reported: the record in `state_dir` as
/// it is now, against the reported version. Never runs a program.
pub fn reported_unlock(state_dir: Option<&Path>, agent: &RunningAgent) -> Unlock {
    unlock_with(state_dir, |_| {
        gatehouse_harness::executable::reported_version(agent)
    })
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
        let flags = capabilities();
        assert!(flags.offered(PromptKind::Permission, "bash").is_empty());
        assert!(flags.offered(PromptKind::Question, "question").is_empty());
        let rule = flags.rule_for(PromptKind::Question, "question").unwrap();
        assert!(rule.actions[0].evidence.contains("no probe"));
    }

    #[test]
    fn a_verified_probe_offers_once_deny_and_always_for_bash_and_answers_for_questions() {
        let flags = capabilities_for(&Unlock::Verified {
            version: "1.18.33".into(),
            evidence: "by probe on 2026-12-01 for OpenCode 1.18.33".into(),
        });
        assert_eq!(
            flags.offered(PromptKind::Permission, "bash"),
            vec![Action::Once, Action::Deny]
        );
        let bash = flags.rule_for(PromptKind::Permission, "bash").unwrap();
        assert!(bash
            .actions
            .iter()
            .any(|flag| flag.action == Action::Always && flag.verified));
        assert!(flags.offered(PromptKind::Permission, "edit").is_empty());
        assert_eq!(
            flags.offered(PromptKind::Question, "question"),
            vec![Action::Answer]
        );
    }
}
