//! What differs between the agents that run gatehouse's OpenCode plugin: OpenCode itself and its
//! forks (Kilo Code CLI). They share one plugin file ([`crate::install`]), one reading of their
//! bus events ([`crate::events`]), one set of verdicts ([`crate::verdict`]) and one probe
//! ([`crate::probe`]); each states only this, its [`crate::probe::ProbeSetup`] and its kit
//! description (`AGENT`), whose installer, events and verdicts are these shared ones for it.

use gatehouse_harness::gated::{ToolUnlock, UnlockGroup, Unlocks};

use crate::effects::AlwaysKept;

/// What a passing probe unlocks for every agent of the plugin: the permission prompts of
/// `tools` ([`bash_unlock`]) and answers to questions, all proved by one set of cases.
/// `elsewhere`: where the person answers the other tools' prompts, such as `answer the others in
/// Kilo's terminal`.
pub const fn unlocks(tools: &'static [ToolUnlock], elsewhere: &'static str) -> Unlocks {
    Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools,
        questions: Some(0),
        elsewhere,
        held: None,
    }
}

/// What a passing probe unlocks for the bash prompts of `agent`: once and deny, never `always`,
/// for the reason the agent states ([`PluginAgent::bash_always_withheld`]).
pub const fn bash_unlock(agent: &PluginAgent) -> ToolUnlock {
    ToolUnlock::once_and_deny(
        crate::events::ANSWERABLE_PERMISSION,
        0,
        agent.bash_always_withheld,
    )
}

/// One agent that loads gatehouse's OpenCode plugin: its names, where it keeps its
/// configuration and plugins, how it names its own process to the plugin's children, and what
/// its `always` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PluginAgent {
    /// The adapter's id, as in `gatehouse hook opencode` (letters only: the plugin spells it).
    pub id: &'static str,
    /// The agent's name for people, as prompts and notes say it, such as `OpenCode`.
    pub name: &'static str,
    /// Its folder in the user's configuration folder (`$XDG_CONFIG_HOME/opencode`, else
    /// `~/.config/opencode`), which holds its `plugin/` folder.
    pub config_folder: &'static str,
    /// A project's folder for it, such as `.opencode`, which holds a `plugin/` folder too.
    pub project_folder: &'static str,
    /// Its configuration file in either folder, such as `opencode.json`.
    pub config_file: &'static str,
    /// The variable in which it names its own process id to its plugins' children (the hook).
    pub pid_variable: &'static str,
    /// Where its plugin file goes, in words for `gatehouse install`'s help and printout.
    pub plugin_paths: &'static str,
    /// What its `always` approves, and for how long.
    pub always: AlwaysKept,
    /// Why its `always` is never offered for `bash`: [`crate::bash_always_withheld!`] of its
    /// name.
    pub bash_always_withheld: &'static str,
}
