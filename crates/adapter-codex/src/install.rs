//! Installs and removes gatehouse's command hooks in a Codex hooks file: `$CODEX_HOME/hooks.json`,
//! else `~/.codex/hooks.json` (or a project's `.codex/hooks.json`, which Codex loads only for a
//! trusted project). Codex 0.171.0 reads the same shape as Claude Code's settings, so the
//! algorithm is the shared one in [`gatehouse_hook_settings`]: pure [`plan_install`] and
//! [`plan_uninstall`], and [`install_file`] and [`uninstall_file`] around them, which keep a
//! `.gatehouse-backup`, write atomically and never overwrite a file that is not a JSON object.
//!
//! Codex runs a new or changed hook only after the person reviewed it once: at its next start it
//! shows "Hooks need review" (or `/hooks`). The installer says so and never writes Codex's trust
//! records (`[hooks.state]` in `config.toml`): trusting a hook is the person's decision.
//!
//! `uninstall` removes gatehouse's hooks and leaves gatehouse's rules file
//! (`$CODEX_HOME/rules/gatehouse.rules`, [`crate::rules`]) where it is, saying so
//! ([`rules_file_note`]): each rule in it is an "always" the person answered, which Codex applies
//! by itself, like the rules its own "don't ask again" writes; removing them would silently
//! change what Codex asks about, so that is the person's call (deleting the file or a line).
//!
//! An entry is gatehouse's when its `command` ends with ` hook codex` and its program (the first
//! shell word after any `NAME=value` assignments, since gatehouse's own command sets the short
//! Codex wait that way) is named `gatehouse`, in any folder.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};
use gatehouse_hook_settings::{installer, AgentHooks, EntryShape, EntryStyle};
use serde_json::Value;

pub use gatehouse_hook_settings::{
    backup_path, Change, HookEvent, HookPlan, HookTimeout, InstallError, InstallReport,
    BACKUP_SUFFIX,
};

/// The suffix every gatehouse hook command for Codex ends with.
pub const HOOK_COMMAND_SUFFIX: &str = " hook codex";

/// How long a Codex hook holds a prompt for an answer. Codex shows no prompt of its own while its
/// PermissionRequest hook runs, so this is short; `release` hands the prompt back at once.
pub const CODEX_WAIT_SECONDS: u64 = 60;

/// How much longer Codex lets the PermissionRequest hook run than gatehouse holds the prompt, so
/// that gatehouse's own deadline always comes first.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 30;

/// The timeout of the PermissionRequest hook, which holds the prompt.
pub const HOLD_TIMEOUT_SECONDS: u64 = CODEX_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS;

/// The events gatehouse installs a hook for, in order: the prompt, and what settles it. Codex
/// 0.171.0 caps the timeout of `Interrupt` and `SessionEnd` hooks at 3 seconds.
pub const EVENTS: [HookEvent; 6] = [
    HookEvent::holding("PermissionRequest", Some("*")),
    HookEvent::within("PostToolUse", Some("*"), 10),
    HookEvent::within("UserPromptSubmit", None, 10),
    HookEvent::within("Stop", None, 10),
    HookEvent::within("Interrupt", None, 3),
    HookEvent::within("SessionEnd", None, 3),
];

/// Codex, as the shared installer sees it.
pub const CODEX_HOOKS: AgentHooks = AgentHooks {
    file_kind: "Codex hooks file",
    command_suffix: HOOK_COMMAND_SUFFIX,
    events: &EVENTS,
    allows_assignments_before_program: true,
    entry: EntryStyle::PLAIN,
    entry_shape: EntryShape::MatcherGroups,
    command_names_event: false,
};

/// The hooks file Codex reads for this user: `$CODEX_HOME/hooks.json`, else `~/.codex/hooks.json`.
pub fn default_hooks_path() -> Option<PathBuf> {
    if let Some(codex_home) = std::env::var_os("CODEX_HOME").filter(|folder| !folder.is_empty()) {
        return Some(PathBuf::from(codex_home).join("hooks.json"));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".codex").join("hooks.json"))
}

/// The hook command for a gatehouse binary: it sets the short Codex wait and is quoted for a
/// POSIX shell. `None` when the path is not UTF-8 or not named `gatehouse`.
#[must_use]
pub fn hook_command(program: &Path) -> Option<String> {
    let command = format!(
        "GATEHOUSE_HOOK__WAIT_SECONDS={CODEX_WAIT_SECONDS} {}",
        CODEX_HOOKS.hook_command(program)?
    );
    is_gatehouse_command(&command).then_some(command)
}

/// Whether a hook command is gatehouse's (see the module documentation).
#[must_use]
pub fn is_gatehouse_command(command: &str) -> bool {
    CODEX_HOOKS.is_gatehouse_command(command)
}

/// What to install for a hook command: Codex's hold timeout is fixed.
fn plan_for(command: &str) -> HookPlan {
    HookPlan {
        command: command.to_owned(),
        hold_timeout_seconds: HOLD_TIMEOUT_SECONDS,
    }
}

/// The hooks with gatehouse's entries installed for `command`, and what changed.
///
/// # Errors
///
/// Fails when `command` is not gatehouse's, or when the hooks file has the wrong shape.
pub fn plan_install(settings: &Value, command: &str) -> Result<(Value, Vec<Change>), InstallError> {
    CODEX_HOOKS.plan_install(settings, &plan_for(command))
}

/// The hooks with every gatehouse entry removed, and what changed.
///
/// # Errors
///
/// Fails when the top level or its `hooks` value is not a JSON object.
pub fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    CODEX_HOOKS.plan_uninstall(settings)
}

/// Installs gatehouse's hooks, running `command`, into the hooks file at `path`.
///
/// # Errors
///
/// Fails, leaving the file unchanged, when it cannot be read or written, is not a JSON object of
/// the right shape, or changed meanwhile.
pub fn install_file(path: &Path, command: &str) -> Result<InstallReport, InstallError> {
    CODEX_HOOKS.install_file(path, &plan_for(command))
}

/// Removes gatehouse's hooks from the hooks file at `path`; a missing file is left missing.
///
/// # Errors
///
/// Fails, leaving the file unchanged, for the same reasons as [`install_file`].
pub fn uninstall_file(path: &Path) -> Result<InstallReport, InstallError> {
    CODEX_HOOKS.uninstall_file(path)
}

/// Codex's hooks file: `$CODEX_HOME/hooks.json` (else `~/.codex/hooks.json`), or a project's
/// `.codex/hooks.json`.
pub struct CodexInstaller;

impl HookInstaller for CodexInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        installer::settings_path(scope, default_hooks_path, ".codex/hooks.json", &CODEX_HOOKS)
    }

    fn settings_described(&self) -> &'static str {
        "$CODEX_HOME/hooks.json (else ~/.codex/hooks.json), or a project's .codex/hooks.json"
    }

    /// Codex's wait is its own (it shows no prompt while its hook waits), whatever the request.
    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let command = installer::hook_command(hook_command(&request.program), &request.program)?;
        let report = install_file(&request.settings, &command)?;
        let mut notes = vec![format!("Codex runs `{command}`.")];
        if !report.changes.is_empty() {
            notes.push(
                "Codex runs new or changed hooks only after you review them once: at its next start it shows \
                 \"Hooks need review\" (or type /hooks); choose to trust gatehouse's hooks there. gatehouse never trusts them for you."
                    .into(),
            );
        }
        notes.push(format!(
            "Codex's prompts are listed read-only until `gatehouse probe codex` passes for the installed Codex version; \
             then a Bash or apply_patch prompt is held for up to {CODEX_WAIT_SECONDS} s, during which Codex shows no prompt of its own."
        ));
        Ok(installer::outcome(report, notes))
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        let notes = crate::rules::rules_path_from_environment()
            .and_then(|path| rules_file_note(&path))
            .into_iter()
            .collect();
        Ok(installer::outcome(uninstall_file(settings)?, notes))
    }
}

/// What `uninstall` tells the person about gatehouse's rules file at `path`; `None` when there
/// is none.
pub fn rules_file_note(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let count = match crate::rules::read_rules(&text) {
        Ok(rules) if rules.len() == 1 => "1 rule".to_owned(),
        Ok(rules) => format!("{} rules", rules.len()),
        Err(_) => "rules".to_owned(),
    };
    Some(format!(
        "gatehouse's Codex rules file {} stays: it holds {count} from \"always\" answers, which Codex applies by itself at the start of each session, gatehouse or not. Delete the file (or a line of it) to have Codex ask about those commands again.",
        path.display()
    ))
}

#[cfg(test)]
mod tests;
