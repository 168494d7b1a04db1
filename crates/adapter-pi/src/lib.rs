//! gatehouse's adapter for pi (npm `@mariozechner/pi-coding-agent`, the `pi` command): reads
//! the events gatehouse's pi extension hands to `gatehouse hook pi`, renders the verdicts the
//! extension turns into pi's answers, installs the extension, and probes whether the installed pi
//! honours gatehouse's answers. The rest of the adapter (the capability flags from the probe
//! record, the pi that runs a hook and its version) is the kit's ([`gatehouse_harness::gated`]):
//! pi states only [`AGENT`].
//!
//! Architecture invariant: this crate knows pi and nothing of gatehouse's socket.
//!
//! pi has no permission prompt of its own and no hooks: every tool call runs unless an extension
//! blocks it. gatehouse's extension ([`install`]) runs inside pi's process and, for each call of
//! the tools chosen at install (bash, write and edit by default), asks in pi's own dialog and
//! through gatehouse's hook at once, taking the first answer. So pi's dialog stays live while a
//! prompt is held, as Claude Code's does. Until `gatehouse probe pi` has passed for the pi in use
//! (the kit's record, `pi-probe.json`), every prompt is read-only with the reason and the dialog
//! decides; once it has, `once` and `deny` (a block whose reason reaches the model) are verified
//! for `bash` prompts. pi has no "always".
//!
//! Modules: [`events`] (hook input), [`verdict`] (hook output), [`install`] (the extension
//! file), [`probe`].

pub mod events;
pub mod install;
pub mod probe;
pub mod verdict;

use gatehouse_core::WhileHeld;
use gatehouse_harness::executable::{first_line_version, AgentExecutable};
use gatehouse_harness::gated::{AgentDescription, ToolUnlock, UnlockGroup, Unlocks};

/// The adapter's id, as in `gatehouse hook pi`.
pub const ADAPTER_ID: &str = "pi";

/// pi, as the kit knows it.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: "pi",
    short_name: "pi",
    // The extension runs inside pi's process and starts the hook itself (no shell between),
    // naming pi's version in `GATEHOUSE_PI_VERSION` (from the package.json of the script pi
    // runs: pi 0.73.1 sets its process title, so `/proc` no longer names the script) and the
    // process in `GATEHOUSE_PI_PID`. Never the installed one instead: a hook not run by a pi
    // cannot say which version asks. The installed pi's `--version` prints on stderr.
    executable: AgentExecutable {
        program: "pi",
        names: &["pi"],
        pid_variable: Some(events::PID_VARIABLE),
        version_variable: Some(events::VERSION_VARIABLE),
        installed_if_not_running: false,
        parse: first_line_version,
    },
    unlocks: Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools: &[ToolUnlock::once_and_deny(
            events::ANSWERABLE_TOOL,
            0,
            "pi has no \"always\": each call is asked about",
        )],
        questions: None,
        elsewhere: "answer the others in pi's dialog",
        held: None,
    },
    // pi's own dialog stays on screen while the hook waits; the first answer wins.
    while_held: Some(WhileHeld::OwnPromptStaysLive),
    installer: &install::PI_INSTALLER,
    events: |stdin, event| events::parse(stdin, event, &events::HookEnvironment::current()),
    verdicts: |_prompt, verdict| verdict::render(verdict),
};

gatehouse_harness::gated_adapter!(PiAdapter, Pi, AGENT, probe::PiProbe);

#[cfg(test)]
mod tests;
