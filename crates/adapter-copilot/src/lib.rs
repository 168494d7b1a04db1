//! gatehouse's adapter for GitHub Copilot CLI: reads the events that Copilot's hooks write to
//! stdin, renders verdicts, installs the hooks, and probes whether the installed Copilot CLI
//! honours gatehouse's answers. Everything else of the adapter (the capability flags from the
//! probe record, the Copilot CLI that runs a hook and its version) is the kit's
//! ([`gatehouse_harness::gated`]): Copilot states only [`AGENT`].
//!
//! Architecture invariant: this crate knows Copilot CLI and nothing of gatehouse's socket.
//!
//! Copilot runs its `permissionRequest` hooks before it shows its own dialog, and waits for them.
//! Until a probe proves that the Copilot CLI in use honours gatehouse's answers, every action is
//! unverified: the hook registers the prompt for watching and returns at once, so Copilot's own
//! dialog is never delayed, and the prompt is listed read-only until Copilot shows it is over.
//! Once `gatehouse probe copilot` has passed for that version (the kit's probe record,
//! `copilot-probe.json`), `once` and `deny` are verified for `bash` prompts, and the hook holds
//! such a prompt for a short wait ([`install::COPILOT_WAIT_SECONDS`]); a release or the wait's
//! end hands it to Copilot's dialog.
//!
//! Modules: [`events`] (hook input), [`verdict`] (hook output), [`version`] (how `copilot
//! --version` reads), [`own_rules`] (calls Copilot would run without asking), [`install`]
//! (settings.json), [`probe`].

pub mod events;
pub mod install;
pub mod own_rules;
pub mod probe;
pub mod verdict;
pub mod version;

use gatehouse_core::WhileHeld;
use gatehouse_harness::executable::AgentExecutable;
use gatehouse_harness::gated::{AgentDescription, ToolUnlock, UnlockGroup, Unlocks};

/// The adapter's id, as in `gatehouse hook copilot`.
pub const ADAPTER_ID: &str = "copilot";

/// The agent's name for people.
pub const NAME: &str = "GitHub Copilot CLI";

/// Copilot CLI, as the kit knows it.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: NAME,
    short_name: "Copilot CLI",
    // Copilot CLI 1.0.102 names its version in `COPILOT_CLI_BINARY_VERSION` for its hooks, so no
    // program runs; else the nearest ancestor called `copilot` (npm's `copilot` is a Node loader
    // that starts the native `copilot`, which runs hooks through `bash -c`), else the installed one.
    executable: AgentExecutable {
        program: "copilot",
        names: &["copilot"],
        pid_variable: None,
        version_variable: Some("COPILOT_CLI_BINARY_VERSION"),
        installed_if_not_running: true,
        parse: version::parse_version_output,
    },
    unlocks: Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools: &[ToolUnlock::once_and_deny(
            events::ANSWERABLE_TOOL,
            0,
            "no probe checks Copilot's \"don't ask again\"",
        )],
        questions: None,
        elsewhere: "answer the others in Copilot's terminal",
        held: None,
    },
    // Copilot CLI shows no dialog while its hook waits, and its own once the hook gives up.
    while_held: Some(WhileHeld::OwnDialogAfterHold),
    installer: &install::COPILOT_INSTALLER,
    events: |stdin, event| events::parse(stdin, event, running_own_rules),
    verdicts: |_prompt, verdict| verdict::render(verdict),
};

gatehouse_harness::gated_adapter!(CopilotAdapter, Copilot, AGENT, probe::CopilotProbe);

/// Why the Copilot CLI that runs this hook may run `command` in `cwd` without asking: its saved
/// approvals, and its own arguments and environment.
pub fn running_own_rules(command: &str, cwd: &str) -> Option<String> {
    let (arguments, allow_all) = AGENT
        .executable
        .running_process()
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

#[cfg(test)]
mod tests;
