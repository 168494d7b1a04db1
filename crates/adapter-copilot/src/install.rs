//! Installs and removes gatehouse's command hooks in Copilot CLI's settings: `~/.copilot/settings.json`
//! (`$COPILOT_HOME/settings.json` when that is set), or a project's `.github/copilot/settings.json`
//! (both were checked with Copilot CLI 1.0.102: it runs the hooks of both). Copilot's hooks are
//! flat, one command per entry with the keys `bash` and `timeoutSec`:
//! `{"hooks": {"permissionRequest": [{"type": "command", "bash": "...", "timeoutSec": 90}]}}`,
//! which the shared [`gatehouse_hook_settings`] writes as [`EntryShape::Flat`]; it keeps a
//! `.gatehouse-backup`, writes atomically and never overwrites a file that is not a JSON object.
//!
//! Most of Copilot's payloads do not name their event, so each command ends with it:
//! `GATEHOUSE_HOOK__WAIT_SECONDS=60 '/path/gatehouse' hook copilot permissionRequest`. An entry is
//! gatehouse's when its `bash` command ends with ` hook copilot` and at most one event word, and
//! its program (after any `NAME=value` words) is named `gatehouse`, in any folder.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};
use gatehouse_hook_settings::{installer, AgentHooks, EntryShape, EntryStyle};
use serde_json::Value;

pub use gatehouse_hook_settings::{
    Change, HookEvent, HookPlan, HookTimeout, InstallError, InstallReport,
};

/// The suffix every gatehouse hook command for Copilot CLI ends with, before its event name.
pub const HOOK_COMMAND_SUFFIX: &str = " hook copilot";

/// How long a Copilot hook holds a prompt for an answer. Copilot shows no dialog of its own while
/// its permissionRequest hook runs, so this is short; `release` hands the prompt back at once.
pub const COPILOT_WAIT_SECONDS: u64 = 60;

/// How much longer Copilot lets the permissionRequest hook run than gatehouse holds the prompt.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 30;

/// The `timeoutSec` of the permissionRequest hook, which holds the prompt.
pub const HOLD_TIMEOUT_SECONDS: u64 = COPILOT_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS;

/// The events gatehouse installs a hook for: the prompt, and what settles it. `preToolUse` is
/// not needed: a call it lets through reaches `permissionRequest`.
pub const EVENTS: [HookEvent; 5] = [
    HookEvent::holding("permissionRequest", None),
    HookEvent::within("postToolUse", None, 10),
    HookEvent::within("userPromptSubmitted", None, 10),
    HookEvent::within("agentStop", None, 10),
    HookEvent::within("sessionEnd", None, 10),
];

/// Copilot CLI, as the shared installer sees it.
pub const COPILOT_HOOKS: AgentHooks = AgentHooks {
    file_kind: "Copilot CLI settings file",
    command_suffix: HOOK_COMMAND_SUFFIX,
    events: &EVENTS,
    allows_assignments_before_program: true,
    entry: EntryStyle::PLAIN,
    entry_shape: EntryShape::Flat {
        command_key: "bash",
        timeout_key: "timeoutSec",
    },
    command_names_event: true,
};

/// The settings file Copilot CLI reads for this user: `$COPILOT_HOME/settings.json`, else
/// `~/.copilot/settings.json`.
pub fn default_settings_path() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("COPILOT_HOME").filter(|folder| !folder.is_empty()) {
        return Some(PathBuf::from(home).join("settings.json"));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".copilot").join("settings.json"))
}

/// The hook command for a gatehouse binary, without the event name that each entry adds: it sets
/// the short wait and is quoted for a POSIX shell. `None` when the path is not UTF-8 or not named
/// `gatehouse`.
#[must_use]
pub fn hook_command(program: &Path) -> Option<String> {
    let command = format!(
        "GATEHOUSE_HOOK__WAIT_SECONDS={COPILOT_WAIT_SECONDS} {}",
        COPILOT_HOOKS.hook_command(program)?
    );
    is_gatehouse_command(&command).then_some(command)
}

/// Whether a hook command is gatehouse's (see the module documentation).
#[must_use]
pub fn is_gatehouse_command(command: &str) -> bool {
    COPILOT_HOOKS.is_gatehouse_command(command)
}

fn plan_for(command: &str) -> HookPlan {
    HookPlan {
        command: command.to_owned(),
        hold_timeout_seconds: HOLD_TIMEOUT_SECONDS,
    }
}

/// The settings with gatehouse's entries installed for `command`, and what changed.
///
/// # Errors
///
/// Fails when `command` is not gatehouse's, or when the settings have the wrong shape.
pub fn plan_install(settings: &Value, command: &str) -> Result<(Value, Vec<Change>), InstallError> {
    COPILOT_HOOKS.plan_install(settings, &plan_for(command))
}

/// The settings with every gatehouse entry removed, and what changed.
///
/// # Errors
///
/// Fails when the top level or its `hooks` value is not a JSON object.
pub fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    COPILOT_HOOKS.plan_uninstall(settings)
}

/// Copilot CLI's settings file: `~/.copilot/settings.json`, or a project's
/// `.github/copilot/settings.json`.
pub struct CopilotInstaller;

impl HookInstaller for CopilotInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        installer::settings_path(
            scope,
            default_settings_path,
            ".github/copilot/settings.json",
            &COPILOT_HOOKS,
        )
    }

    fn settings_described(&self) -> &'static str {
        "~/.copilot/settings.json ($COPILOT_HOME/settings.json), or a project's .github/copilot/settings.json"
    }

    /// Copilot's wait is its own (it shows no dialog while its hook waits), whatever the request.
    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let command = installer::hook_command(hook_command(&request.program), &request.program)?;
        let report = COPILOT_HOOKS.install_file(&request.settings, &plan_for(&command))?;
        let notes = vec![
            format!("Copilot CLI runs `{command} EVENT` for each event."),
            format!(
                "Copilot's prompts are listed read-only until `gatehouse probe copilot` passes for the installed Copilot CLI version; \
                 then a bash prompt is held for up to {COPILOT_WAIT_SECONDS} s, during which Copilot shows no dialog of its own, \
                 and a release or the end of that wait hands it to Copilot's dialog."
            ),
        ];
        Ok(installer::outcome(report, notes))
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        Ok(installer::outcome(
            COPILOT_HOOKS.uninstall_file(settings)?,
            Vec::new(),
        ))
    }
}

#[cfg(test)]
mod tests;
