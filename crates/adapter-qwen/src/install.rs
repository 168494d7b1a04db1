//! Installs and removes gatehouse's command hooks in Qwen Code's settings:
//! `~/.qwen/settings.json` (`$QWEN_HOME/settings.json` when that is set), or a project's
//! `.qwen/settings.json`. Qwen reads Claude Code's hooks shape
//! (`{"hooks": {"PermissionRequest": [{"matcher": "*", "hooks": [{"type": "command", "command":
//! ..., "timeout": 55}]}]}}`), which the shared [`gatehouse_hook_settings`] writes: it keeps a
//! `.gatehouse-backup`, writes atomically, changes nothing but gatehouse's entries and never
//! overwrites a file that is not a JSON object.
//!
//! Qwen shows no dialog while its `PermissionRequest` hook waits, and at 60 s shows it anyway and
//! ignores a later answer, so gatehouse holds a Qwen prompt for [`QWEN_WAIT_SECONDS`], well under
//! that: the command sets `GATEHOUSE_HOOK__WAIT_SECONDS`, as in
//! `GATEHOUSE_HOOK__WAIT_SECONDS=40 '/path/gatehouse' hook qwen`. Qwen reads a hook's `timeout` in
//! seconds (a value of 1000 or more as milliseconds): the holding hook's is
//! [`HOLD_TIMEOUT_SECONDS`], still under 60.
//!
//! An entry is gatehouse's when its `command` ends with ` hook qwen` and its program (after any
//! `NAME=value` words) is named `gatehouse`, in any folder.

use gatehouse_hook_settings::installer::{self, HeldHooksInstaller};
use gatehouse_hook_settings::{AgentHooks, HookEvent, InstallReport};

/// How long a Qwen hook holds a prompt for an answer: well under the 60 s after which Qwen shows
/// its own dialog and ignores a later answer. `release` hands the prompt back at once.
pub const QWEN_WAIT_SECONDS: u64 = 40;

/// How much longer the `PermissionRequest` hook's `timeout` is than the wait.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 15;

/// The `timeout` of the `PermissionRequest` hook, which holds the prompt, for the default wait:
/// above the wait, under Qwen's 60 s.
pub const HOLD_TIMEOUT_SECONDS: u64 = QWEN_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS;

/// The longest wait `gatehouse install qwen --hold` takes: its timeout (the wait plus the
/// margin, 59 s) stays under the 60 s after which Qwen ignores its hook, and the hook's own
/// deadline (the wait, and 2 s for a verdict that arrives then) comes well before.
pub const QWEN_MAX_WAIT_SECONDS: u64 = 44;

const _: () = assert!(QWEN_MAX_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS < 60);

/// How long an unlocked prompt is held, in words for people (in the flags' evidence).
pub const HELD: &str = "Qwen Code shows no dialog while gatehouse holds its prompt: \
    answer within 40 s (or the wait `gatehouse install qwen --hold` set), or release it to Qwen's \
    own dialog (which comes by itself when that wait ends; Qwen gives up on its hook at 60 s and \
    ignores a later answer)";

/// The events gatehouse installs a hook for: the prompt, and what settles it.
pub const EVENTS: [HookEvent; 5] = [
    HookEvent::holding("PermissionRequest", Some("*")),
    HookEvent::within("PostToolUse", Some("*"), 10),
    HookEvent::within("PostToolBatch", None, 10),
    HookEvent::within("Stop", None, 10),
    HookEvent::within("SessionEnd", None, 10),
];

/// Qwen Code's settings file, `~/.qwen/settings.json` (`$QWEN_HOME/settings.json`) or a
/// project's `.qwen/settings.json`, as the shared installer writes it.
pub const QWEN_INSTALLER: HeldHooksInstaller = HeldHooksInstaller {
    hooks: AgentHooks::matcher_groups("Qwen Code settings file", " hook qwen", &EVENTS)
        .with_assignments_before_program(),
    home_variable: "QWEN_HOME",
    home_folder: ".qwen",
    file_name: "settings.json",
    project_file: ".qwen/settings.json",
    described:
        "~/.qwen/settings.json ($QWEN_HOME/settings.json), or a project's .qwen/settings.json",
    wait_seconds: QWEN_WAIT_SECONDS,
    max_wait_seconds: QWEN_MAX_WAIT_SECONDS,
    why_max:
        "Qwen Code gives up on its hook at 60 s, whatever its timeout, and ignores a later answer",
    timeout_margin_seconds: TIMEOUT_MARGIN_SECONDS,
    notes,
    uninstall_notes: installer::no_notes,
};

/// What the person should know after an install: how prompts are held, and Qwen's own approval
/// mode.
pub fn notes(command: &str, wait: u64, _changed: &InstallReport) -> Vec<String> {
    vec![
        format!("Qwen Code runs `{command}` for each event."),
        format!(
            "Qwen's prompts are listed read-only until `gatehouse probe qwen` passes for the installed Qwen Code version; \
             then a shell prompt is held for up to {wait} s (`--hold` changes it, up to {QWEN_MAX_WAIT_SECONDS} s), during which Qwen shows no dialog of its own \
             (Qwen stops waiting for its hook at 60 s and ignores a later answer), and a release or the end of that wait \
             hands it to Qwen's dialog. Qwen ignores a hook's \"always\": choose \"Always allow\" in Qwen's own dialog."
        ),
        "Qwen Code starts in approval mode `auto` unless you chose another: a model classifier decides first, \
         runs what it finds safe without asking anyone (gatehouse never sees those calls) and passes only the \
         rest to gatehouse. gatehouse leaves your mode as it is; set `tools.approvalMode` to `default` in \
         Qwen's settings (or cycle with shift+tab) to have every shell command asked."
            .to_owned(),
    ]
}

#[cfg(test)]
mod tests;
