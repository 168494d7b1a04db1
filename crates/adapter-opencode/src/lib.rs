//! gatehouse's adapter for OpenCode (npm `opencode-ai`): reads the events gatehouse's OpenCode
//! plugin hands to `gatehouse hook opencode`, renders verdicts the plugin turns into OpenCode's
//! own replies, states OpenCode's capability flags, installs the plugin and probes whether the
//! installed OpenCode honours gatehouse's answers.
//!
//! Everything else of the adapter (the capability flags from the probe record, the OpenCode
//! that runs a hook and its version) is the kit's ([`gatehouse_harness::gated`]): OpenCode
//! states only [`AGENT`].
//!
//! Architecture invariant: this crate knows OpenCode and nothing of gatehouse's socket.
//!
//! OpenCode has no command hooks. A terminal session opens no port either; but a plugin runs in
//! its process, sees its bus events and can reply through its in-process client. gatehouse's
//! plugin ([`install`]) runs the hook for each `permission.asked` and `question.asked` and
//! replies with the verdict; OpenCode's own prompt stays live meanwhile and the first answer
//! wins both ways, so a prompt is held until an outcome, as with Claude Code. Until
//! `gatehouse probe opencode` has passed for the OpenCode in use (the kit's probe record,
//! `opencode-probe.json`), everything is
//! read-only with the reason; once it has, `once`, `deny` (OpenCode's reject, with a message)
//! and `always` are verified for `bash` prompts, and answers for questions. What each answer
//! really does in OpenCode is in the prompt itself ([`effects`]).
//!
//! Modules: [`events`] (hook input), [`verdict`] (hook output), [`effects`] (what each answer
//! does), [`version`] (how `opencode --version` reads), [`install`] (the plugin file),
//! [`probe`].

pub mod effects;
pub mod events;
pub mod install;
pub mod probe;
pub mod verdict;
pub mod version;

use gatehouse_core::{Action, AdapterCapabilities, WhileHeld};
use gatehouse_harness::executable::AgentExecutable;
use gatehouse_harness::gated::{AgentDescription, ToolUnlock, UnlockGroup, Unlocks};

/// The adapter's id, as in `gatehouse hook opencode`.
pub const ADAPTER_ID: &str = "opencode";

/// The agent's name for people.
pub const NAME: &str = "OpenCode";

/// OpenCode, as the kit knows it: one group of cases proves `once`, `deny` (OpenCode's reject,
/// with a message) and `always` for `bash` prompts, and answers to questions.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: NAME,
    short_name: NAME,
    // gatehouse's plugin runs inside OpenCode's process and starts the hook itself (no shell
    // between), so that process is the hook's parent, named by `OPENCODE_PID` (npm's `opencode`
    // is the native executable itself, `opencode-ai/bin/opencode.exe`). Never the installed one
    // instead: a hook not run by an OpenCode cannot say which version asks.
    executable: AgentExecutable {
        program: "opencode",
        names: &["opencode", "opencode.exe"],
        pid_variable: Some("OPENCODE_PID"),
        version_variable: None,
        installed_if_not_running: false,
        parse: version::parse_version_output,
    },
    unlocks: Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools: &[ToolUnlock {
            tool: events::ANSWERABLE_PERMISSION,
            group: 0,
            actions: &[Action::Once, Action::Deny, Action::Always],
            also: None,
            not_unlocked: "",
        }],
        questions: Some(0),
        elsewhere: "answer the others in OpenCode's terminal",
        held: None,
    },
    // OpenCode's own prompt stays on screen while the hook waits; the first answer wins.
    while_held: Some(WhileHeld::OwnPromptStaysLive),
    installer: &install::OpenCodeInstaller,
    events: |stdin, event| events::parse(stdin, event, &events::HookEnvironment::current()),
    verdicts: verdict::render,
};

gatehouse_harness::gated_adapter!(OpenCodeAdapter, OpenCode, AGENT, probe::OpenCodeProbe);

/// OpenCode's capability flags with no probe: every action exists, none is verified.
pub fn capabilities() -> AdapterCapabilities {
    AGENT.capabilities()
}

#[cfg(test)]
mod tests;
