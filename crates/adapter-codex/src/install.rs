//! Installs and removes gatehouse's command hooks in a Codex hooks file: `$CODEX_HOME/hooks.json`,
//! else `~/.codex/hooks.json` (or a project's `.codex/hooks.json`, which Codex loads only for a
//! trusted project). Codex 0.171.0 reads the same shape as Claude Code's settings, and its hook
//! holds a prompt for a short wait of its own, so the installer is the shared
//! [`HeldHooksInstaller`] ([`CODEX_INSTALLER`]), which keeps a `.gatehouse-backup`, writes
//! atomically and never overwrites a file that is not a JSON object.
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

use std::path::Path;

use gatehouse_hook_settings::installer::HeldHooksInstaller;
use gatehouse_hook_settings::AgentHooks;

pub use gatehouse_hook_settings::{
    backup_path, Change, HookEvent, HookPlan, HookTimeout, InstallError, InstallReport,
    BACKUP_SUFFIX,
};

/// How long a Codex hook holds a prompt for an answer. Codex shows no prompt of its own while its
/// PermissionRequest hook runs, so this is short; `release` hands the prompt back at once.
pub const CODEX_WAIT_SECONDS: u64 = 60;

/// How much longer Codex lets the PermissionRequest hook run than gatehouse holds the prompt, so
/// that gatehouse's own deadline always comes first.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 30;

/// The timeout of the PermissionRequest hook, which holds the prompt, for the default wait.
pub const HOLD_TIMEOUT_SECONDS: u64 = CODEX_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS;

/// The longest wait `gatehouse install codex --hold` takes. Codex 0.171.0 set no limit on the
/// PermissionRequest hook's timeout that its fixtures or notes show; ten minutes is gatehouse's,
/// since Codex shows nothing meanwhile and looks hung.
pub const CODEX_MAX_WAIT_SECONDS: u64 = 600;

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

/// Codex's hooks file: `$CODEX_HOME/hooks.json` (else `~/.codex/hooks.json`), or a project's
/// `.codex/hooks.json`, as the shared installer writes it.
pub const CODEX_INSTALLER: HeldHooksInstaller = HeldHooksInstaller {
    hooks: AgentHooks::matcher_groups("Codex hooks file", " hook codex", &EVENTS)
        .with_assignments_before_program(),
    home_variable: "CODEX_HOME",
    home_folder: ".codex",
    file_name: "hooks.json",
    project_file: ".codex/hooks.json",
    described:
        "$CODEX_HOME/hooks.json (else ~/.codex/hooks.json), or a project's .codex/hooks.json",
    wait_seconds: CODEX_WAIT_SECONDS,
    max_wait_seconds: CODEX_MAX_WAIT_SECONDS,
    why_max:
        "Codex shows nothing of its own while its hook holds a prompt, and looks hung for longer",
    timeout_margin_seconds: TIMEOUT_MARGIN_SECONDS,
    notes,
    uninstall_notes,
};

/// What the person should know after an install: Codex's review of new hooks, and how prompts
/// are held (for `wait` seconds).
pub fn notes(command: &str, wait: u64, changed: &InstallReport) -> Vec<String> {
    let mut notes = vec![format!("Codex runs `{command}`.")];
    if !changed.changes.is_empty() {
        notes.push(
            "Codex runs new or changed hooks only after you review them once: at its next start it shows \
             \"Hooks need review\" (or type /hooks); choose to trust gatehouse's hooks there. gatehouse never trusts them for you."
                .into(),
        );
    }
    notes.push(format!(
        "Codex's prompts are listed read-only until `gatehouse probe codex` passes for the installed Codex version; \
         then a Bash or apply_patch prompt is held for up to {wait} s, during which Codex shows no prompt of its own \
         (`gatehouse install codex --hold SECONDS` changes that, up to {CODEX_MAX_WAIT_SECONDS} s; the default is {CODEX_WAIT_SECONDS} s)."
    ));
    notes
}

/// What the person should know after an uninstall: that gatehouse's rules file stays.
pub fn uninstall_notes() -> Vec<String> {
    crate::rules::rules_path_from_environment()
        .and_then(|path| rules_file_note(&path))
        .into_iter()
        .collect()
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
