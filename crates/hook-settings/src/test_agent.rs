//! A made-up agent and the helpers the tests of every module share.
//!
//! The agent has the same kinds of events as a real one: one that holds a prompt, one with a
//! matcher and a fixed timeout, and two without a matcher.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::{AgentHooks, Change, EntryStyle, HookEvent, HookPlan, TimeoutUnit};

/// The events of the made-up agent.
const EVENTS: [HookEvent; 4] = [
    HookEvent::holding("PermissionRequest", Some("*")),
    HookEvent::within("PostToolUse", Some("*"), 10),
    HookEvent::within("Stop", None, 10),
    HookEvent::within("SessionEnd", None, 10),
];

/// The made-up agent, whose commands may not start with `NAME=value` words.
pub(crate) const EXAMPLE: AgentHooks =
    AgentHooks::matcher_groups("example settings file", " hook example", &EVENTS);

/// The same agent, with named entries and timeouts in milliseconds (as Gemini CLI reads them).
pub(crate) const EXAMPLE_NAMED_MILLISECONDS: AgentHooks = EXAMPLE.with_entry(EntryStyle {
    name: Some("gatehouse"),
    timeout_unit: TimeoutUnit::Milliseconds,
});

/// The same agent, with commands that may start with `NAME=value` words.
pub(crate) const EXAMPLE_WITH_ASSIGNMENTS: AgentHooks = EXAMPLE.with_assignments_before_program();

pub(crate) const COMMAND: &str = "'/opt/gatehouse/bin/gatehouse' hook example";
pub(crate) const MOVED_COMMAND: &str = "'/home/me/.local/bin/gatehouse' hook example";

pub(crate) fn plan_with(command: &str, hold_timeout_seconds: u64) -> HookPlan {
    HookPlan {
        command: command.to_owned(),
        hold_timeout_seconds,
    }
}

pub(crate) fn default_plan() -> HookPlan {
    plan_with(COMMAND, 600)
}

pub(crate) fn gatehouse_entry(command: &str, timeout: u64) -> Value {
    json!({"type": "command", "command": command, "timeout": timeout})
}

pub(crate) fn foreign_entry(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

/// The settings a fresh install of `default_plan` produces.
pub(crate) fn freshly_installed() -> Value {
    json!({
        "hooks": {
            "PermissionRequest": [{"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 600)]}],
            "PostToolUse": [{"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 10)]}],
            "Stop": [{"hooks": [gatehouse_entry(COMMAND, 10)]}],
            "SessionEnd": [{"hooks": [gatehouse_entry(COMMAND, 10)]}]
        }
    })
}

pub(crate) fn added(event: &str) -> Change {
    Change::Added {
        event: event.to_owned(),
    }
}

pub(crate) fn updated(event: &str) -> Change {
    Change::Updated {
        event: event.to_owned(),
    }
}

pub(crate) fn removed(event: &str) -> Change {
    Change::Removed {
        event: event.to_owned(),
    }
}

pub(crate) fn all_added() -> Vec<Change> {
    EXAMPLE
        .events
        .iter()
        .map(|event| added(event.name))
        .collect()
}

pub(crate) fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Lists the files in a folder, to show that no temporary or backup file was left behind.
pub(crate) fn file_names_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A made-up agent of the flat shape whose commands name their event, like Copilot CLI.
pub(crate) const FLAT: AgentHooks = AgentHooks::flat(
    "flat settings file",
    " hook flat",
    &EVENTS,
    ("bash", "timeoutSec"),
)
.with_assignments_before_program();

pub(crate) const FLAT_COMMAND: &str = "WAIT=60 '/opt/gatehouse/bin/gatehouse' hook flat";

pub(crate) fn flat_entry(event: &str, timeout: u64) -> Value {
    json!({"type": "command", "bash": format!("{FLAT_COMMAND} {event}"), "timeoutSec": timeout})
}

/// The settings a fresh install of the flat agent produces, with a hold timeout of 90.
pub(crate) fn flat_installed() -> Value {
    json!({
        "hooks": {
            "PermissionRequest": [flat_entry("PermissionRequest", 90)],
            "PostToolUse": [flat_entry("PostToolUse", 10)],
            "Stop": [flat_entry("Stop", 10)],
            "SessionEnd": [flat_entry("SessionEnd", 10)]
        }
    })
}
