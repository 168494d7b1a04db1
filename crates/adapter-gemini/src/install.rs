//! Installs and removes gatehouse's command hooks in a Gemini CLI settings file:
//! `$GEMINI_CLI_HOME/.gemini/settings.json` (Gemini's own override of the home folder), else
//! `~/.gemini/settings.json`, or a project's `.gemini/settings.json`.
//!
//! Gemini CLI 0.61.0 reads the same shape as Claude Code's settings (`hooks.<Event>` holds matcher
//! groups of `{"type": "command", ...}` entries), with two differences that the shared
//! [`gatehouse_hook_settings`] algorithm takes as the agent's [`EntryStyle`]: an entry has a
//! `name` (Gemini shows it in its warnings and `/hooks`), and `timeout` is in milliseconds.
//! Matchers are regular expressions over the tool name for the tool events; Notification and the
//! agent events take none.
//!
//! Every hook only reports what happened and returns at once (the Notification hook registers
//! the prompt for watching), so every timeout is short ([`TIMEOUT_SECONDS`]): above the hook's
//! 2-second budget for a stuck gateway, far below Gemini's default of 60 s. BeforeTool, which
//! runs for every tool call and which Gemini waits for, is not hooked.
//!
//! An entry is gatehouse's when its `command` ends with ` hook gemini 2>/dev/null` (see
//! [`HOOK_COMMAND_SUFFIX`]) and its program (the first shell word) is named `gatehouse`, in any
//! folder.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};
use gatehouse_hook_settings::{installer, AgentHooks, EntryShape, EntryStyle, TimeoutUnit};
use serde_json::Value;

pub use gatehouse_hook_settings::{
    backup_path, Change, HookEvent, HookPlan, HookTimeout, InstallError, InstallReport,
    BACKUP_SUFFIX,
};

/// The suffix every gatehouse hook command for Gemini CLI ends with. Gemini CLI 0.61.0 reads a
/// hook's stderr as its output when stdout is empty, and shows it in its terminal (as "ℹ ...
/// [gatehouse]"): the one line the hook writes when it cannot do its job (no gateway, say) would
/// show up on every event. So the command sends stderr nowhere, and with the gateway down Gemini
/// looks as if gatehouse were not installed; `gatehouse status` says whether the gateway is up.
pub const HOOK_COMMAND_SUFFIX: &str = " hook gemini 2>/dev/null";

/// The `name` of gatehouse's entries.
pub const ENTRY_NAME: &str = "gatehouse";

/// The timeout of every hook, in seconds (written as milliseconds).
pub const TIMEOUT_SECONDS: u64 = 5;

/// AfterTool is hooked for the shell tool only, the one whose prompts are watched.
pub const SHELL_MATCHER: &str = "^run_shell_command$";

const fn event(name: &'static str, matcher: Option<&'static str>) -> HookEvent {
    HookEvent::within(name, matcher, TIMEOUT_SECONDS)
}

/// The events gatehouse installs a hook for, in order: the dialog, and what settles it. Gemini
/// CLI 0.61.0 has no event for No or Esc in its dialog.
pub const EVENTS: [HookEvent; 5] = [
    event("Notification", None),
    event("AfterTool", Some(SHELL_MATCHER)),
    event("BeforeAgent", None),
    event("AfterAgent", None),
    event("SessionEnd", None),
];

/// Gemini CLI, as the shared installer sees it.
pub const GEMINI_HOOKS: AgentHooks = AgentHooks {
    file_kind: "Gemini CLI settings file",
    command_suffix: HOOK_COMMAND_SUFFIX,
    events: &EVENTS,
    allows_assignments_before_program: false,
    entry: EntryStyle {
        name: Some(ENTRY_NAME),
        timeout_unit: TimeoutUnit::Milliseconds,
    },
    entry_shape: EntryShape::MatcherGroups,
    command_names_event: false,
};

/// The settings file Gemini CLI reads for this user: `$GEMINI_CLI_HOME/.gemini/settings.json`,
/// else `~/.gemini/settings.json`.
pub fn default_settings_path() -> Option<PathBuf> {
    let home = std::env::var_os("GEMINI_CLI_HOME")
        .filter(|folder| !folder.is_empty())
        .or_else(|| std::env::var_os("HOME"))?;
    Some(PathBuf::from(home).join(".gemini").join("settings.json"))
}

/// The hook command for a gatehouse binary, quoted for a POSIX shell. `None` when the path is
/// not UTF-8 or not named `gatehouse`.
#[must_use]
pub fn hook_command(program: &Path) -> Option<String> {
    GEMINI_HOOKS.hook_command(program)
}

/// Whether a hook command is gatehouse's (see the module documentation).
#[must_use]
pub fn is_gatehouse_command(command: &str) -> bool {
    GEMINI_HOOKS.is_gatehouse_command(command)
}

/// What to install for a hook command: no hook holds a prompt, so there is no hold timeout.
fn plan_for(command: &str) -> HookPlan {
    HookPlan {
        command: command.to_owned(),
        hold_timeout_seconds: TIMEOUT_SECONDS,
    }
}

/// The settings with gatehouse's entries installed for `command`, and what changed.
///
/// # Errors
///
/// Fails when `command` is not gatehouse's, or when the settings have the wrong shape.
pub fn plan_install(settings: &Value, command: &str) -> Result<(Value, Vec<Change>), InstallError> {
    GEMINI_HOOKS.plan_install(settings, &plan_for(command))
}

/// The settings with every gatehouse entry removed, and what changed.
///
/// # Errors
///
/// Fails when the top level or its `hooks` value is not a JSON object.
pub fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    GEMINI_HOOKS.plan_uninstall(settings)
}

/// Installs gatehouse's hooks, running `command`, into the settings file at `path`.
///
/// # Errors
///
/// Fails, leaving the file unchanged, when it cannot be read or written, is not a JSON object of
/// the right shape, or changed meanwhile.
pub fn install_file(path: &Path, command: &str) -> Result<InstallReport, InstallError> {
    GEMINI_HOOKS.install_file(path, &plan_for(command))
}

/// Removes gatehouse's hooks from the settings file at `path`; a missing file is left missing.
///
/// # Errors
///
/// Fails, leaving the file unchanged, for the same reasons as [`install_file`].
pub fn uninstall_file(path: &Path) -> Result<InstallReport, InstallError> {
    GEMINI_HOOKS.uninstall_file(path)
}

/// What the person should know after an install, given the settings file as it now is.
pub fn notes(command: &str, settings: &Value) -> Vec<String> {
    let mut notes = vec![
        format!("Gemini CLI runs `{command}`; each hook returns at once (timeout {TIMEOUT_SECONDS} s)."),
        "Gemini's prompts are listed read-only: its hooks cannot answer its dialog, so answer them in Gemini's terminal. \
         gatehouse does not make Gemini's YOLO mode (--approval-mode yolo) safe: there a failing hook lets the call run."
            .to_owned(),
    ];
    if settings.pointer("/hooksConfig/enabled") == Some(&Value::Bool(false)) {
        notes.push(
            "This file turns Gemini's hooks off (hooksConfig.enabled is false): Gemini runs none until you set it to true."
                .to_owned(),
        );
    }
    notes
}

/// Gemini CLI's settings file: `~/.gemini/settings.json` (or under `$GEMINI_CLI_HOME`), or a
/// project's `.gemini/settings.json`.
pub struct GeminiInstaller;

impl HookInstaller for GeminiInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        installer::settings_path(
            scope,
            default_settings_path,
            ".gemini/settings.json",
            &GEMINI_HOOKS,
        )
    }

    fn settings_described(&self) -> &'static str {
        "~/.gemini/settings.json (under $GEMINI_CLI_HOME if set), or a project's .gemini/settings.json"
    }

    /// No Gemini hook waits for a person, whatever the request's hold time.
    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let command = installer::hook_command(hook_command(&request.program), &request.program)?;
        let report = install_file(&request.settings, &command)?;
        let settings = std::fs::read(&request.settings)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or(Value::Null);
        Ok(installer::outcome(report, notes(&command, &settings)))
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        Ok(installer::outcome(uninstall_file(settings)?, Vec::new()))
    }
}

#[cfg(test)]
mod tests;
