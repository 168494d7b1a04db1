//! Adds and removes gatehouse's command hooks in an agent's JSON hooks file, for any agent whose
//! file has this shape (Claude Code's settings and Codex's `hooks.json` both do):
//!
//! ```json
//! {
//!   "hooks": {
//!     "PermissionRequest": [
//!       { "matcher": "*", "hooks": [ { "type": "command", "command": "...", "timeout": 600 } ] }
//!     ]
//!   }
//! }
//! ```
//!
//! Some agents (Copilot CLI) have a flat shape instead: each event holds its entries directly,
//! with their own keys for the command and the timeout ([`EntryShape::Flat`]):
//!
//! ```json
//! { "hooks": { "permissionRequest": [ { "type": "command", "bash": "...", "timeoutSec": 90 } ] } }
//! ```
//!
//! An adapter describes its agent once, in an [`AgentHooks`]: the suffix of gatehouse's hook
//! command, the events to hook, how error messages name the file, whether `NAME=value` words
//! may come before the program, the [`EntryStyle`] of its entries (Gemini CLI's carry a `name`
//! and read `timeout` in milliseconds), the [`EntryShape`] of where they sit (Copilot CLI's are
//! flat), and whether the command names its event. Everything else is the same for every agent:
//!
//! - [`command`]: which hook commands are gatehouse's ([`AgentHooks::is_gatehouse_command`]).
//! - [`plan`]: the pure edits, [`AgentHooks::plan_install`] and [`AgentHooks::plan_uninstall`].
//! - [`file`]: reading, backing up and atomically writing the file,
//!   [`AgentHooks::install_file`] and [`AgentHooks::uninstall_file`].
//!
//! - [`installer`]: what every adapter's `HookInstaller` shares (paths of a scope, the outcome).
//!
//! This crate knows no particular agent and nothing of gatehouse's socket.

pub mod command;
mod error;
pub mod file;
pub mod installer;
pub mod plan;

use std::fmt;
use std::path::PathBuf;

pub use error::InstallError;
pub use file::{backup_path, BACKUP_SUFFIX};

/// What an adapter tells this crate about its agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentHooks {
    /// How error messages name the file, such as `Claude Code settings file`.
    pub file_kind: &'static str,
    /// The suffix every gatehouse hook command for this agent ends with, such as ` hook claude`.
    pub command_suffix: &'static str,
    /// The events gatehouse installs a hook for, in the order they are installed.
    pub events: &'static [HookEvent],
    /// Whether the command may set environment variables before the program, as in
    /// `NAME=value gatehouse hook codex`.
    pub allows_assignments_before_program: bool,
    /// What the agent's entries hold besides `type`, `command` and `timeout`, and the unit of
    /// `timeout`.
    pub entry: EntryStyle,
    /// Where an event's entries sit and which keys hold their command and timeout.
    pub entry_shape: EntryShape,
    /// Whether each event's command ends with the event's name, as in
    /// `gatehouse hook copilot permissionRequest`, for agents whose events do not name themselves.
    pub command_names_event: bool,
}

impl AgentHooks {
    /// The hooks of the shape Claude Code reads (Codex, Qwen Code and Gemini CLI read it too):
    /// each event's matcher groups hold plain command entries (timeouts in seconds), the one
    /// command of every event is `PROGRAM` then `command_suffix`.
    #[must_use]
    pub const fn matcher_groups(
        file_kind: &'static str,
        command_suffix: &'static str,
        events: &'static [HookEvent],
    ) -> AgentHooks {
        AgentHooks {
            file_kind,
            command_suffix,
            events,
            allows_assignments_before_program: false,
            entry: EntryStyle::PLAIN,
            entry_shape: EntryShape::MatcherGroups,
            command_names_event: false,
        }
    }

    /// The hooks of the flat shape (Copilot CLI's): each event's array holds plain command
    /// entries with the command under `command_key` and the timeout under `timeout_key`, and
    /// each command ends with its event's name, since the agent's payloads do not name it.
    #[must_use]
    pub const fn flat(
        file_kind: &'static str,
        command_suffix: &'static str,
        events: &'static [HookEvent],
        (command_key, timeout_key): (&'static str, &'static str),
    ) -> AgentHooks {
        AgentHooks {
            entry_shape: EntryShape::Flat {
                command_key,
                timeout_key,
            },
            command_names_event: true,
            ..AgentHooks::matcher_groups(file_kind, command_suffix, events)
        }
    }

    /// The same hooks, whose commands may start with `NAME=value` words (as a command that sets
    /// the hook's wait, [`installer::HeldHooksInstaller`]).
    #[must_use]
    pub const fn with_assignments_before_program(self) -> AgentHooks {
        AgentHooks {
            allows_assignments_before_program: true,
            ..self
        }
    }

    /// The same hooks, with entries of `entry`'s style (such as Gemini CLI's, named and with
    /// timeouts in milliseconds).
    #[must_use]
    pub const fn with_entry(self, entry: EntryStyle) -> AgentHooks {
        AgentHooks { entry, ..self }
    }
}

/// How one agent's hook entries look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryStyle {
    /// A `name` written first in each of gatehouse's entries, for agents that show hooks by name
    /// (Gemini CLI); `None` writes no name.
    pub name: Option<&'static str>,
    /// The unit in which the agent reads `timeout`.
    pub timeout_unit: TimeoutUnit,
}

impl EntryStyle {
    /// `{"type": "command", "command": ..., "timeout": <seconds>}`, as Claude Code and Codex read it.
    pub const PLAIN: EntryStyle = EntryStyle {
        name: None,
        timeout_unit: TimeoutUnit::Seconds,
    };
}

/// The unit of an entry's `timeout`. Timeouts are given in seconds ([`HookTimeout`]) and written
/// in the agent's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutUnit {
    Seconds,
    /// Gemini CLI's: a timeout of 5 seconds is written as `5000`.
    Milliseconds,
}

impl TimeoutUnit {
    /// `seconds` in this unit.
    #[must_use]
    pub fn written(self, seconds: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => seconds,
            TimeoutUnit::Milliseconds => seconds.saturating_mul(1000),
        }
    }
}

/// Where an event's hook entries sit in the file, and the keys of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryShape {
    /// An event holds matcher groups, `{"matcher": M, "hooks": [entry]}`, and an entry is
    /// `{"type": "command", "command": ..., "timeout": ...}` (Claude Code, Codex).
    MatcherGroups,
    /// An event holds its entries directly, `{"type": "command", COMMAND_KEY: ..., TIMEOUT_KEY:
    /// ...}`, and matchers are not used (Copilot CLI: `bash` and `timeoutSec`).
    Flat {
        command_key: &'static str,
        timeout_key: &'static str,
    },
}

impl EntryShape {
    /// The key of an entry's command.
    #[must_use]
    pub fn command_key(&self) -> &'static str {
        match self {
            EntryShape::MatcherGroups => "command",
            EntryShape::Flat { command_key, .. } => command_key,
        }
    }

    /// The key of an entry's timeout, in seconds.
    #[must_use]
    pub fn timeout_key(&self) -> &'static str {
        match self {
            EntryShape::MatcherGroups => "timeout",
            EntryShape::Flat { timeout_key, .. } => timeout_key,
        }
    }
}

/// One hook event that gatehouse installs a hook for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEvent {
    /// The event name as it appears under `hooks`, such as `PermissionRequest`.
    pub name: &'static str,
    /// The matcher of a newly added group, or `None` for events that take no matcher.
    pub matcher: Option<&'static str>,
    /// The timeout written into the hook entry.
    pub timeout: HookTimeout,
}

impl AgentHooks {
    /// The command of `event`'s entry under `plan`: the plan's command, followed by the event's
    /// name when the agent's commands name their event.
    #[must_use]
    pub fn command_for(&self, event: &HookEvent, plan: &HookPlan) -> String {
        if self.command_names_event {
            format!("{} {}", plan.command, event.name)
        } else {
            plan.command.clone()
        }
    }
}

/// How the timeout of a hook entry is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookTimeout {
    /// Use [`HookPlan::hold_timeout_seconds`], for the hook that holds a prompt for a person.
    HoldTimeout,
    /// Use this fixed number of seconds.
    Seconds(u64),
}

impl HookEvent {
    /// The event whose hook holds a prompt for a person ([`HookTimeout::HoldTimeout`]).
    pub const fn holding(name: &'static str, matcher: Option<&'static str>) -> HookEvent {
        HookEvent {
            name,
            matcher,
            timeout: HookTimeout::HoldTimeout,
        }
    }

    /// An event whose hook returns within `seconds`.
    pub const fn within(
        name: &'static str,
        matcher: Option<&'static str>,
        seconds: u64,
    ) -> HookEvent {
        HookEvent {
            name,
            matcher,
            timeout: HookTimeout::Seconds(seconds),
        }
    }

    /// Returns the timeout in seconds that this event's entry gets under the given plan.
    #[must_use]
    pub fn timeout_seconds(&self, plan: &HookPlan) -> u64 {
        match self.timeout {
            HookTimeout::HoldTimeout => plan.hold_timeout_seconds,
            HookTimeout::Seconds(seconds) => seconds,
        }
    }
}

/// What to install: the shell command the agent runs, and how long a held prompt may wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookPlan {
    /// The full hook command, for example `'/abs/path/to/gatehouse' hook claude`. It must be
    /// recognised by [`AgentHooks::is_gatehouse_command`]; [`AgentHooks::hook_command`] builds one.
    pub command: String,
    /// The timeout, in seconds, of the events whose timeout is [`HookTimeout::HoldTimeout`].
    pub hold_timeout_seconds: u64,
}

/// One change made to the hooks file, reported per event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A gatehouse entry was added to an event that had none.
    Added { event: String },
    /// The gatehouse entry of an event was changed in place, or duplicates of it were removed.
    Updated { event: String },
    /// The gatehouse entries of an event were removed.
    Removed { event: String },
}

impl fmt::Display for Change {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Added { event } => write!(formatter, "added the {event} hook"),
            Change::Updated { event } => write!(formatter, "updated the {event} hook"),
            Change::Removed { event } => write!(formatter, "removed the {event} hook"),
        }
    }
}

/// The outcome of [`AgentHooks::install_file`] or [`AgentHooks::uninstall_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// The hooks file, as the caller named it.
    pub path: PathBuf,
    /// Where the previous content was saved, when an existing file was changed.
    pub backup: Option<PathBuf>,
    /// What changed. When this is empty, the file was not written.
    pub changes: Vec<Change>,
}

#[cfg(test)]
mod test_agent;
