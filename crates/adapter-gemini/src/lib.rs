//! gatehouse's adapter for Gemini CLI: reads the events that Gemini's hooks write to stdin,
//! states Gemini's capability flags, and installs the hooks. It is the first agent gatehouse only
//! watches: every action is unverified, so Gemini's prompts are listed read-only and answered in
//! Gemini's own terminal.
//!
//! Architecture invariant: this crate knows Gemini CLI and nothing of gatehouse's socket.
//!
//! Why read-only (observed with Gemini CLI 0.61.0): the one hook that could answer, BeforeTool,
//! runs for every tool call before Gemini's own policy and Gemini waits for it, so holding it
//! would stall even the calls Gemini runs by itself; and `{"decision":"allow"}` does not skip
//! Gemini's dialog anyway (a hook that fails or times out leaves the dialog as if no hook
//! existed). What gatehouse can do is watch: the Notification hook (`ToolPermission`) fires as
//! the dialog is drawn, so the prompt is registered for watching and the hook returns at once;
//! AfterTool of the same command (Allow in the dialog), the next prompt (BeforeAgent), the end of
//! the turn (AfterAgent) or of the session withdraw it, and the gateway's stale timer the rest
//! (No or Esc in the dialog gives no hook event).
//!
//! Answerable (observed with 0.61.0, fixtures README "answering through a user policy"): with a
//! user policy that allows `run_shell_command` ([`policy`]), Gemini shows no dialog for shell
//! commands and the BeforeTool hook decides: `{}` runs the call, deny blocks it with the
//! reason, `ask` brings Gemini's own dialog back. The price: with that policy, a hook that times
//! out, is killed, exits 1, prints bad JSON or nothing, or is disabled lets the call run
//! unasked. So the hook never prints nothing: [`Adapter::without_verdict`] makes it print
//! [`verdict::NO_VERDICT`] (`ask`) on every path without a verdict, and at its own deadline
//! ([`install::ANSWER_WITHIN_SECONDS`], counting the time the hook is stopped, starved or
//! asleep), long before the hook timeout the installer writes (24 days, so that Gemini's timer is
//! never overdue when Gemini is continued after a Ctrl+Z; settings with a shorter one are not
//! answerable until installed again). A
//! shell command's BeforeTool prompt is offered once and deny only while the probe record passed
//! for the running version and gatehouse's policy is in place; otherwise the hook answers `ask`
//! at once without registering it, and Gemini's dialog is watched as before.
//!
//! Modules: [`events`] (hook input), [`cancel`] (Esc while the hook holds a call), [`verdict`] (hook output), [`policy`] (gatehouse's policy
//! file), [`install`] (`~/.gemini/settings.json`), [`probe`]. The probe record, the unlock rule and finding the Gemini CLI in use are the kit's
//! ([`AGENT`]).

pub mod cancel;
pub mod events;
pub mod install;
pub mod policy;
pub mod probe;
pub mod verdict;

use std::time::Duration;

use gatehouse_core::kit::AgentProbe;
use gatehouse_core::{
    Action, ActionFlag, AdapterCapabilities, CancellationCheck, CapabilityRule, PromptKind,
    WhileHeld, WithoutVerdict,
};
// For the tests (`use super::*`).
#[cfg(test)]
use gatehouse_core::{HookEvent, NewPrompt};

use gatehouse_harness::executable::{AgentExecutable, VersionError};
use gatehouse_harness::gated::{
    AgentDescription, GatedAdapter, GatedAgent, ToolUnlock, UnlockGroup, Unlocks,
};
use gatehouse_harness::record::{ProbeRecord, RecordError, Unlock};

/// The adapter's id, as in `gatehouse hook gemini`.
pub const ADAPTER_ID: &str = "gemini";

/// The agent's name for people.
pub const NAME: &str = "Gemini CLI";

/// Why a prompt shown in Gemini's own dialog is read-only.
pub const READ_ONLY_REASON: &str = "Gemini CLI's hooks cannot answer its dialog: allow does not skip it (observed with 0.61.0); answer in Gemini's terminal (`gatehouse install gemini --answerable` lets gatehouse answer shell commands before the dialog)";

/// Why nothing is offered while gatehouse's policy is not in place.
pub const NO_POLICY_REASON: &str = "gatehouse's Gemini policy is not installed, so Gemini's own dialog decides; `gatehouse install gemini --answerable` installs it";

/// Gemini CLI, as the kit knows it: its probe record (`gemini-probe.json`, with the keys
/// `gemini_version` and `gemini_executable`), how the Gemini CLI in use and its version are
/// found, and the one group of cases (every case) that proves `once` and `deny` for shell
/// commands. Its capability flags and the policy condition are its own ([`Gemini`]).
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: NAME,
    short_name: NAME,
    // `gemini --version` prints the version alone on its first line. Gemini CLI 0.61.0 is a Node
    // script (`bundle/gemini.js`) that starts itself again as a child `node` process, runs its
    // hooks through `bash -c` and names its version in no variable: so a hook asks its nearest
    // `node` ancestor, through the script it runs (the kit's `executable::program_of`, the
    // answer cached per file), else the installed `gemini`.
    executable: AgentExecutable {
        program: "gemini",
        names: &["gemini", "node", "nodejs"],
        pid_variable: None,
        version_variable: None,
        installed_if_not_running: true,
        parse: gatehouse_harness::executable::first_line_version,
    },
    unlocks: Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools: &[ToolUnlock::once_and_deny(
            events::SHELL_TOOL,
            0,
            "gatehouse offers no \"always\" for Gemini CLI",
        )],
        questions: None,
        elsewhere: "answer the others in Gemini's terminal",
        held: None,
    },
    // Gemini waits for its answerable hook before it shows any dialog, and the hook answers
    // `ask` when its hold ends, which brings Gemini's own dialog (a watched prompt is not held).
    while_held: Some(WhileHeld::OwnDialogAfterHold),
    installer: &install::GeminiInstaller,
    events: |stdin, _event| events::parse(stdin),
    verdicts: |_prompt, verdict| verdict::render(verdict),
};

/// What the answerable hook prints whenever it has no verdict, and its deadline.
pub const WITHOUT_VERDICT: WithoutVerdict = WithoutVerdict {
    output: verdict::NO_VERDICT,
    answer_within: Duration::from_secs(install::ANSWER_WITHIN_SECONDS),
};

/// The Gemini CLI adapter: the kit's, with Gemini's events, verdicts, installer and probe, the
/// policy as the condition for answers, its hook's `ask` without a verdict, and its
/// cancellation check. It finds the probe record in gatehouse's state folder, which the binary
/// names (`None`: no folder is known, so nothing is unlocked).
pub type GeminiAdapter = GatedAdapter<Gemini>;

/// What Gemini CLI brings of its own.
#[derive(Debug, Default, Clone)]
pub struct Gemini;

impl GatedAgent for Gemini {
    const AGENT: AgentDescription = AGENT;

    fn probe(&self) -> &dyn AgentProbe {
        &probe::GeminiProbe
    }

    /// `ask` for the answerable BeforeTool hook (its command names the event), nothing for the
    /// watching hooks, whose silence Gemini reads as no opinion.
    fn without_verdict(&self, event: Option<&str>) -> Option<WithoutVerdict> {
        (event == Some(install::ANSWER_EVENT)).then_some(WITHOUT_VERDICT)
    }

    /// Esc in Gemini while the hook holds the call shows only in the session's transcript.
    fn cancellation_check(&self, stdin: &[u8]) -> Option<CancellationCheck> {
        cancel::transcript_check(stdin)
    }

    /// First, a `gatehouse.toml` of any text without the hook that makes it safe is a danger;
    /// then, without gatehouse's policy, Gemini's own dialog decides.
    fn installed_not_answerable(&self) -> Option<String> {
        if let Some(danger) = install::default_settings_path().and_then(|path| {
            install::policy_without_hook(&path, &install::other_settings_files(None))
        }) {
            return Some(danger);
        }
        policy_not_installed().or_else(hook_timeout_outdated)
    }

    /// Where the hook runs: gatehouse's policy must be where this Gemini reads it, and Gemini's
    /// timeout for the hook must be the one that never decides before the hook does.
    fn running_not_answerable(&self) -> Option<String> {
        policy_not_installed().or_else(hook_timeout_outdated)
    }

    /// A shell command's BeforeTool prompt that nothing would be offered for is nothing for
    /// gatehouse: the hook answers `ask` at once, and the Notification of Gemini's dialog lists
    /// it read-only, as when only watched (rather than listing it twice).
    fn ignore_undeliverable(&self) -> bool {
        true
    }

    /// Gemini's own words ([`capabilities_for`]).
    fn capabilities_for(&self, unlocks: &[Unlock]) -> AdapterCapabilities {
        capabilities_for(&the_one_group(unlocks.to_vec()))
    }
}

/// [`NO_POLICY_REASON`] unless gatehouse's policy is installed.
fn policy_not_installed() -> Option<String> {
    (!policy::default_path().is_some_and(|path| policy::is_installed(&path)))
        .then(|| NO_POLICY_REASON.into())
}

/// [`install::answer_hook_timeout_problem`] for the user's settings: an answerable hook whose
/// Gemini timeout could come before the hook's own deadline (one an older gatehouse wrote) is not
/// answerable, so the hook hands each command to Gemini's dialog at once.
fn hook_timeout_outdated() -> Option<String> {
    install::answer_hook_timeout_problem(&install::default_settings_path()?)
}

/// Gemini's capability flags with no probe: every action exists, none is verified.
pub fn capabilities() -> AdapterCapabilities {
    capabilities_for(&Unlock::ReadOnly {
        reason: READ_ONLY_REASON.into(),
    })
}

/// Gemini's capability flags for `unlock`. Read-only: one rule for every tool, each action
/// unverified with the reason. Verified: `once` and `deny` for `run_shell_command`, with the
/// probe as evidence; other tools stay read-only. `always` is never verified.
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
                tool: Some(events::SHELL_TOOL.into()),
                actions: vec![
                    ActionFlag::verified(Action::Once, evidence.clone()),
                    ActionFlag::verified(Action::Deny, evidence.clone()),
                    ActionFlag::unverified(
                        Action::Always,
                        "gatehouse offers no \"always\" for Gemini CLI",
                    ),
                ],
            },
            every_tool(
                "the probe proves shell commands only; answer the others in Gemini's terminal",
            ),
        ],
    };
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: NAME.into(),
        rules,
    }
}

/// The kit's standard rule ([`AgentDescription::unlock`]) for Gemini's one group of cases:
/// verified only for a passing record whose version equals the version of the Gemini CLI in use.
/// `version_in_use` is asked only when the record passed.
pub fn unlock(
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
) -> Unlock {
    the_one_group(AGENT.unlock(record, version_in_use))
}

/// What the rule says for Gemini's one group of cases.
fn the_one_group(unlocks: Vec<Unlock>) -> Unlock {
    unlocks
        .into_iter()
        .next()
        .unwrap_or_else(|| Unlock::ReadOnly {
            reason: "Gemini's probe proves nothing".into(),
        })
}

#[cfg(test)]
mod tests;
