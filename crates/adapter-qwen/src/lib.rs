//! gatehouse's adapter for Qwen Code (npm `@qwen-code/qwen-code`): reads the events that Qwen's
//! hooks write to stdin, renders verdicts, installs the hooks, and probes whether the installed
//! Qwen Code honours gatehouse's answers. The rest of the adapter (the capability flags from the
//! probe record, the Qwen Code that runs a hook and its version) is the kit's
//! ([`gatehouse_harness::gated`]): Qwen states only [`AGENT`].
//!
//! Architecture invariant: this crate knows Qwen Code and nothing of gatehouse's socket.
//!
//! Qwen runs its `PermissionRequest` hooks before it shows its own dialog and waits for them,
//! showing no dialog meanwhile; at 60 s it stops waiting, shows its dialog and ignores a later
//! answer. So, once `gatehouse probe qwen` has passed for the Qwen Code version in use, a shell
//! prompt is held for at most [`install::QWEN_WAIT_SECONDS`], well under that, and a release
//! hands it to Qwen's dialog at once; before, every prompt is only watched, read-only, and
//! Qwen's dialog comes at once. Qwen ignores `updatedPermissions` and sends no suggestions, so
//! there is no "always" through the hook.
//!
//! Modules: [`events`] (hook input), [`verdict`] (hook output), [`install`] (`~/.qwen/settings.json`),
//! [`probe`].

pub mod events;
pub mod install;
pub mod probe;
pub mod verdict;

use gatehouse_core::WhileHeld;
use gatehouse_harness::executable::{first_line_version, AgentExecutable};
use gatehouse_harness::gated::{AgentDescription, ToolUnlock, UnlockGroup, Unlocks};

/// The adapter's id, as in `gatehouse hook qwen`.
pub const ADAPTER_ID: &str = "qwen";

/// Qwen Code, as the kit knows it.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: "Qwen Code",
    short_name: "Qwen Code",
    // Qwen Code 0.24.4 names its version in `QWEN_CODE_STARTUP_VERSION` for its hooks, so no
    // program runs. Otherwise: `qwen` is a Node script, so the hook's ancestor is `node`, and
    // the installed `qwen` is asked.
    executable: AgentExecutable {
        program: "qwen",
        names: &["qwen"],
        pid_variable: None,
        version_variable: Some("QWEN_CODE_STARTUP_VERSION"),
        installed_if_not_running: true,
        parse: parse_version_output,
    },
    unlocks: Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools: &[ToolUnlock::once_and_deny(
            events::ANSWERABLE_TOOL,
            0,
            "Qwen Code ignores a hook's \"always\" (updatedPermissions) and sends no suggestions: \
                       release the prompt and choose \"Always allow\" in Qwen's own dialog",
        )],
        questions: None,
        elsewhere: "answer the others in Qwen's terminal",
        held: Some(install::HELD),
    },
    // Qwen Code shows no dialog while its hook waits, and at 60 s shows its own.
    while_held: Some(WhileHeld::OwnDialogAfterHold),
    installer: &install::QWEN_INSTALLER,
    events: events::parse,
    verdicts: |_prompt, verdict| verdict::render(verdict),
};

/// The version in the output of `qwen --version`, which is the version alone (`0.24.4`): its
/// first line, when that is one word that may be a version (the kit's
/// [`first_line_version`]) and has a dot.
pub fn parse_version_output(output: &str) -> Option<String> {
    first_line_version(output).filter(|version| version.contains('.'))
}

gatehouse_harness::gated_adapter!(QwenAdapter, Qwen, AGENT, probe::QwenProbe);

#[cfg(test)]
mod tests;
