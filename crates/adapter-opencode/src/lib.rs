//! gatehouse's adapters for OpenCode (npm `opencode-ai`) and the agents built from it (Kilo Code
//! CLI, npm `@kilocode/cli`, in [`kilo`]): reads the events gatehouse's OpenCode plugin hands to
//! `gatehouse hook opencode` (`gatehouse hook kilo`), renders verdicts the plugin turns into the
//! agent's own replies, states each agent's capability flags, installs the plugin and probes
//! whether the installed agent honours gatehouse's answers.
//!
//! One plugin, one reading of events, one set of verdicts and one probe serve every agent of the
//! family; each states only what differs ([`PluginAgent`]: its names, folders, process variable
//! and what its `always` does; its probe's [`probe::ProbeSetup`]) and its kit description.
//! Everything else of an adapter (the capability flags from the probe record, the agent that
//! runs a hook and its version) is the kit's ([`gatehouse_harness::gated`]): OpenCode states
//! only [`OPENCODE`] and [`AGENT`], Kilo [`kilo::KILO`] and [`kilo::AGENT`].
//!
//! Architecture invariant: this crate knows OpenCode and its forks and nothing of gatehouse's
//! socket.
//!
//! OpenCode has no command hooks. A terminal session opens no port either; but a plugin runs in
//! its process, sees its bus events and can reply through its in-process client. gatehouse's
//! plugin ([`install`]) runs the hook for each `permission.asked` and `question.asked` and
//! replies with the verdict; OpenCode's own prompt stays live meanwhile and the first answer
//! wins both ways, so a prompt is held until an outcome, as with Claude Code. Until
//! `gatehouse probe opencode` has passed for the OpenCode in use (the kit's probe record,
//! `opencode-probe.json`), everything is
//! read-only with the reason; once it has, `once` and `deny` (OpenCode's reject, with a message)
//! are verified for `bash` prompts, and answers for questions. `always` is never offered for
//! `bash` ([`bash_always_withheld!`]: OpenCode checks a pattern only against the commands it
//! finds in a script, so `cat *` lets any code run). What each answer really does in OpenCode is
//! in the prompt itself ([`effects`]).
//!
//! Modules: [`plugin_agent`] (what differs per agent), [`events`] (hook input), [`verdict`]
//! (hook output), [`effects`] (what each answer does), [`version`] (how `opencode --version`
//! reads), [`install`] (the plugin file), [`probe`], [`kilo`] (Kilo Code CLI).

pub mod effects;
pub mod events;
pub mod install;
pub mod kilo;
pub mod plugin_agent;
pub mod probe;
pub mod verdict;
pub mod version;

pub use plugin_agent::PluginAgent;

use effects::AlwaysKept;
use gatehouse_core::{AdapterCapabilities, WhileHeld};
use gatehouse_harness::executable::AgentExecutable;
use gatehouse_harness::gated::AgentDescription;

/// The adapter's id, as in `gatehouse hook opencode`.
pub const ADAPTER_ID: &str = "opencode";

/// The agent's name for people.
pub const NAME: &str = "OpenCode";

/// OpenCode, as gatehouse's plugin and its installer know it.
pub const OPENCODE: PluginAgent = PluginAgent {
    id: ADAPTER_ID,
    name: NAME,
    config_folder: "opencode",
    project_folder: ".opencode",
    config_file: "opencode.json",
    pid_variable: "OPENCODE_PID",
    plugin_paths: "~/.config/opencode/plugin/gatehouse.js ($XDG_CONFIG_HOME/opencode/plugin/), or a project's .opencode/plugin/gatehouse.js",
    always: AlwaysKept::UntilRestart,
    bash_always_withheld: bash_always_withheld!("OpenCode"),
};

/// OpenCode, as the kit knows it: one group of cases proves `once` and `deny` (OpenCode's
/// reject, with a message) for `bash` prompts, and answers to questions; `always` is never
/// offered for `bash`, with [`OPENCODE`]'s reason.
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
    unlocks: plugin_agent::unlocks(
        &[plugin_agent::bash_unlock(&OPENCODE)],
        "answer the others in OpenCode's terminal",
    ),
    // OpenCode's own prompt stays on screen while the hook waits; the first answer wins.
    while_held: Some(WhileHeld::OwnPromptStaysLive),
    installer: &install::PluginInstaller { agent: &OPENCODE },
    events: |stdin, event| {
        events::parse(
            &OPENCODE,
            stdin,
            event,
            &events::HookEnvironment::current(&OPENCODE),
        )
    },
    verdicts: verdict::render,
};

gatehouse_harness::gated_adapter!(OpenCodeAdapter, OpenCode, AGENT, probe::OpenCodeProbe);

/// OpenCode's capability flags with no probe: every action exists, none is verified.
pub fn capabilities() -> AdapterCapabilities {
    AGENT.capabilities()
}

#[cfg(test)]
mod tests;
