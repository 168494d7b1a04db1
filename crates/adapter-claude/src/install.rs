//! Installs and removes gatehouse's command hooks in a Claude Code settings file
//! (`~/.claude/settings.json`, or a project's `.claude/settings.json`).
//!
//! `gatehouse install claude` adds one hook entry per event in [`EVENTS`] to the `hooks` table of
//! the settings, and `gatehouse uninstall claude` removes those entries again. The algorithm is
//! shared with the other agents and lives in [`gatehouse_hook_settings`]: pure [`plan_install`]
//! and [`plan_uninstall`], and [`install_file`] and [`uninstall_file`] around them, which keep a
//! `.gatehouse-backup`, write atomically and never overwrite a file that is not a JSON object.
//!
//! An entry is gatehouse's when its `command` ends with ` hook claude` and its program (the first
//! shell word) is named `gatehouse`, in any folder. Claude Code runs the command as it is, so no
//! `NAME=value` words come before the program.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};
use gatehouse_hook_settings::{installer, AgentHooks};
use serde_json::Value;

pub use gatehouse_hook_settings::{
    backup_path, Change, HookEvent, HookPlan, HookTimeout, InstallError, InstallReport,
    BACKUP_SUFFIX,
};

/// The suffix every gatehouse hook command for Claude Code ends with.
pub const HOOK_COMMAND_SUFFIX: &str = " hook claude";

/// The timeout, in seconds, of the hooks that only report what happened and never wait for a
/// person.
pub const SHORT_TIMEOUT_SECONDS: u64 = 10;

/// The events gatehouse installs a hook for, in the order they are installed: the prompt, held
/// for [`HookPlan::hold_timeout_seconds`], and what settles it.
pub const EVENTS: [HookEvent; 4] = [
    HookEvent::holding("PermissionRequest", Some("*")),
    HookEvent::within("PostToolUse", Some("*"), SHORT_TIMEOUT_SECONDS),
    HookEvent::within("Stop", None, SHORT_TIMEOUT_SECONDS),
    HookEvent::within("SessionEnd", None, SHORT_TIMEOUT_SECONDS),
];

/// Claude Code, as the shared installer sees it.
pub const CLAUDE_HOOKS: AgentHooks =
    AgentHooks::matcher_groups("Claude Code settings file", HOOK_COMMAND_SUFFIX, &EVENTS);

/// Builds the hook command for a gatehouse binary, quoted for a POSIX shell. `None` when the path
/// is not UTF-8 or not named `gatehouse`, since the command would not be recognised later.
#[must_use]
pub fn hook_command(program: &Path) -> Option<String> {
    CLAUDE_HOOKS.hook_command(program)
}

/// Tells whether a hook command is gatehouse's own (see the module documentation).
#[must_use]
pub fn is_gatehouse_command(command: &str) -> bool {
    CLAUDE_HOOKS.is_gatehouse_command(command)
}

/// Returns the settings with gatehouse's hooks installed, and what changed.
///
/// # Errors
///
/// Fails when `plan.command` is not gatehouse's, or when the settings have the wrong shape.
pub fn plan_install(
    settings: &Value,
    plan: &HookPlan,
) -> Result<(Value, Vec<Change>), InstallError> {
    CLAUDE_HOOKS.plan_install(settings, plan)
}

/// Returns the settings with every gatehouse hook entry removed, and what changed.
///
/// # Errors
///
/// Fails when the settings or their `hooks` value is not a JSON object.
pub fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    CLAUDE_HOOKS.plan_uninstall(settings)
}

/// Installs gatehouse's hooks into the settings file at `path`, creating it when it is missing.
///
/// # Errors
///
/// Fails, leaving the file unchanged, when it cannot be read or written, is not a JSON object of
/// the right shape, or changed meanwhile.
pub fn install_file(path: &Path, plan: &HookPlan) -> Result<InstallReport, InstallError> {
    CLAUDE_HOOKS.install_file(path, plan)
}

/// Removes gatehouse's hooks from the settings file at `path`; a missing file is left missing.
///
/// # Errors
///
/// Fails, leaving the file unchanged, for the same reasons as [`install_file`].
pub fn uninstall_file(path: &Path) -> Result<InstallReport, InstallError> {
    CLAUDE_HOOKS.uninstall_file(path)
}

/// Claude Code's settings: `~/.claude/settings.json`, or a project's `.claude/settings.json`.
pub struct ClaudeInstaller;

impl HookInstaller for ClaudeInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        let user = || {
            std::env::var_os("HOME")
                .map(|home| PathBuf::from(home).join(".claude").join("settings.json"))
        };
        installer::settings_path(scope, user, ".claude/settings.json", &CLAUDE_HOOKS)
    }

    fn settings_described(&self) -> &'static str {
        "~/.claude/settings.json, or a project's .claude/settings.json"
    }

    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let command = installer::hook_command(hook_command(&request.program), &request.program)?;
        let plan = HookPlan {
            command: command.clone(),
            hold_timeout_seconds: request.hold_seconds + request.timeout_margin_seconds,
        };
        let report = install_file(&request.settings, &plan)?;
        let notes = vec![format!(
            "Claude Code runs `{command}`; a prompt is held for up to {} s (hook timeout {} s).",
            request.hold_seconds, plan.hold_timeout_seconds
        )];
        Ok(installer::outcome(report, notes))
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        Ok(installer::outcome(uninstall_file(settings)?, Vec::new()))
    }
}

#[cfg(test)]
mod tests;
