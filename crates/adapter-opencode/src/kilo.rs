//! Kilo Code CLI (npm `@kilocode/cli`, an OpenCode fork): the same plugin, events, verdicts and
//! probe as OpenCode's, described a second time. What differs is only stated here: its names,
//! its folders (`~/.config/kilo/plugin/`, a project's `.kilo/plugin/`), `KILO_PID`, its
//! executable (npm's `kilo` is a Node script that runs the native `bin/.kilo`), and what its
//! `always` does: Kilo Code CLI 7.7.7 writes the pattern into `~/.config/kilo/kilo.json`, so it
//! holds in every session and project, after a restart too ([`AlwaysKept::InUserConfiguration`]),
//! where OpenCode saves nothing. Its probe's set-up is [`probe`].
//!
//! Until `gatehouse probe kilo` has passed for the Kilo in use (the kit's record,
//! `kilo-probe.json`), every prompt is read-only with the reason; once it has, `once` and `deny`
//! (Kilo's reject, with a message) are verified for `bash` prompts, and answers for questions.
//! `always` is never offered for `bash` ([`crate::bash_always_withheld!`]): Kilo checks a pattern
//! only against the commands it finds in a script, and would save `cat *` for every project.

pub mod probe;

use gatehouse_core::{AdapterCapabilities, WhileHeld};
use gatehouse_harness::executable::AgentExecutable;
use gatehouse_harness::gated::AgentDescription;

use crate::effects::AlwaysKept;
use crate::{events, install, verdict, version, PluginAgent};

/// The adapter's id, as in `gatehouse hook kilo`.
pub const ADAPTER_ID: &str = "kilo";

/// The agent's name for people.
pub const NAME: &str = "Kilo Code CLI";

/// How prompts, notes and the unlock rule name it, as its own screen does (`Kilo 7.7.7`).
pub const SHORT_NAME: &str = "Kilo";

/// Kilo, as gatehouse's plugin and its installer know it.
pub const KILO: PluginAgent = PluginAgent {
    id: ADAPTER_ID,
    name: SHORT_NAME,
    config_folder: "kilo",
    project_folder: ".kilo",
    config_file: "kilo.json",
    pid_variable: "KILO_PID",
    plugin_paths: "~/.config/kilo/plugin/gatehouse.js ($XDG_CONFIG_HOME/kilo/plugin/), or a project's .kilo/plugin/gatehouse.js",
    always: AlwaysKept::InUserConfiguration("~/.config/kilo/kilo.json"),
    bash_always_withheld: crate::bash_always_withheld!("Kilo"),
};

/// Kilo Code CLI, as the kit knows it: one group of cases proves `once` and `deny` (Kilo's
/// reject, with a message) for `bash` prompts, and answers to questions; `always` is never
/// offered for `bash`, with [`KILO`]'s reason.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: NAME,
    short_name: SHORT_NAME,
    // gatehouse's plugin runs inside Kilo's process and starts the hook itself (no shell
    // between), so that process is the hook's parent, named by `KILO_PID`. npm's `kilo` is a
    // Node script that runs the native executable `@kilocode/cli/bin/.kilo` (a copy of
    // `@kilocode/cli-linux-x64/bin/kilo`), which is the process. Never the installed one
    // instead: a hook not run by a Kilo cannot say which version asks.
    executable: AgentExecutable {
        program: "kilo",
        names: &[".kilo", "kilo"],
        pid_variable: Some("KILO_PID"),
        version_variable: None,
        installed_if_not_running: false,
        parse: version::parse_version_output,
    },
    unlocks: crate::plugin_agent::unlocks(
        &[crate::plugin_agent::bash_unlock(&KILO)],
        "answer the others in Kilo's terminal",
    ),
    // Kilo's own prompt stays on screen while the hook waits; the first answer wins.
    while_held: Some(WhileHeld::OwnPromptStaysLive),
    installer: &install::PluginInstaller { agent: &KILO },
    events: |stdin, event| {
        events::parse(
            &KILO,
            stdin,
            event,
            &events::HookEnvironment::current(&KILO),
        )
    },
    verdicts: verdict::render,
};

gatehouse_harness::gated_adapter!(KiloAdapter, Kilo, AGENT, probe::KiloProbe);

/// Kilo's capability flags with no probe: every action exists, none is verified.
pub fn capabilities() -> AdapterCapabilities {
    AGENT.capabilities()
}

#[cfg(test)]
mod tests;
