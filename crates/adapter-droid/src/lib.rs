//! gatehouse's adapter for Factory Droid (npm `@factory/cli`, the `droid` command): reads the
//! events that Droid's hooks write to stdin, renders verdicts, installs the hooks, and probes
//! whether the installed Droid honours gatehouse's answers. The rest of the adapter (the
//! capability flags from the probe record, the Droid that runs a hook and its version) is the
//! kit's ([`gatehouse_harness::gated`]): Droid states only [`AGENT`].
//!
//! Architecture invariant: this crate knows Factory Droid and nothing of gatehouse's socket.
//!
//! Droid has no permission event: it runs its Claude-style `PreToolUse` hooks before it decides
//! whether to ask, waits for them, and shows no dialog meanwhile ("Executing... (Press ESC to
//! stop)"); a hook's `allow` runs the call with no dialog, its `deny` blocks it and hands the
//! reason to the model, and no answer, or any failure of the hook (an exit 1, output that is not
//! JSON, its `timeout`), leaves the call to Droid's own rules and dialog. So, once `gatehouse
//! probe droid` has passed for the Droid version in use, a shell prompt (`Execute`) that Droid
//! would ask about is held for at most [`install::DROID_WAIT_SECONDS`], under the hook's
//! timeout, and a release hands it to Droid's dialog at once; before, every prompt is only
//! watched, read-only, and Droid's dialog comes at once. Calls Droid runs without asking (its
//! allowlist, its autonomy level, [`own_rules`]) are only watched, and other tools are nothing for
//! gatehouse. Droid's "always allow" raises its own autonomy level; no probe checks it, so there is
//! no "always" through the hook.
//!
//! Modules: [`events`] (hook input), [`own_rules`] (calls Droid runs without asking),
//! [`verdict`] (hook output), [`install`] (`~/.factory/settings.json`), [`probe`].

pub mod events;
pub mod install;
pub mod own_rules;
pub mod probe;
pub mod verdict;

use gatehouse_core::WhileHeld;
use gatehouse_harness::executable::{first_line_version, AgentExecutable};
use gatehouse_harness::gated::{AgentDescription, ToolUnlock, UnlockGroup, Unlocks};

/// The adapter's id, as in `gatehouse hook droid`.
pub const ADAPTER_ID: &str = "droid";

/// Factory Droid, as the kit knows it.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: "Factory Droid",
    short_name: "Droid",
    // Droid 0.225.2 gives its hooks no variable naming its version or process. npm's `droid` is
    // the native executable itself, and its agent process (`droid exec`, a child of the
    // terminal's `droid`) runs the hooks, so the nearest ancestor called `droid` is asked; else
    // the installed one.
    executable: AgentExecutable {
        program: "droid",
        names: &["droid"],
        pid_variable: None,
        version_variable: None,
        installed_if_not_running: true,
        parse: parse_version_output,
    },
    unlocks: Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools: &[ToolUnlock::once_and_deny(
            events::ANSWERABLE_TOOL,
            0,
            "Droid's \"always allow\" raises its own autonomy level for the session, which no probe \
             checks and a hook cannot set: release the prompt and choose it in Droid's own dialog",
        )],
        questions: None,
        elsewhere: "answer the others in Droid's terminal",
        held: Some(install::HELD),
    },
    // Droid shows no dialog while its hook waits, and its own once the hook returns without an
    // answer.
    while_held: Some(WhileHeld::OwnDialogAfterHold),
    installer: &install::DROID_INSTALLER,
    events: |stdin, _event| events::parse(stdin, own_rules::read_allowlist),
    verdicts: |_prompt, verdict| verdict::render(verdict),
};

/// The version in the output of `droid --version`, which is the version alone (`0.225.2`): its
/// first line, when that is one word that may be a version (the kit's [`first_line_version`])
/// and has a dot.
pub fn parse_version_output(output: &str) -> Option<String> {
    first_line_version(output).filter(|version| version.contains('.'))
}

gatehouse_harness::gated_adapter!(DroidAdapter, Droid, AGENT, probe::DroidProbe);

#[cfg(test)]
mod tests;
