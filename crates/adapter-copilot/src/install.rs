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

use gatehouse_hook_settings::installer::{self, HeldHooksInstaller};
use gatehouse_hook_settings::AgentHooks;

pub use gatehouse_hook_settings::{
    Change, HookEvent, HookPlan, HookTimeout, InstallError, InstallReport,
};

/// How long a Copilot hook holds a prompt for an answer. Copilot shows no dialog of its own while
/// its permissionRequest hook runs, so this is short; `release` hands the prompt back at once.
pub const COPILOT_WAIT_SECONDS: u64 = 60;

/// How much longer Copilot lets the permissionRequest hook run than gatehouse holds the prompt.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 30;

/// The `timeoutSec` of the permissionRequest hook, which holds the prompt, for the default wait.
pub const HOLD_TIMEOUT_SECONDS: u64 = COPILOT_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS;

/// The longest wait `gatehouse install copilot --hold` takes. Copilot CLI 1.0.102 set no limit on
/// `timeoutSec` that its fixtures or notes show; ten minutes is gatehouse's, since Copilot shows
/// nothing meanwhile and looks hung.
pub const COPILOT_MAX_WAIT_SECONDS: u64 = 600;

/// The events gatehouse installs a hook for: the prompt, and what settles it. `preToolUse` is
/// not needed: a call it lets through reaches `permissionRequest`.
pub const EVENTS: [HookEvent; 5] = [
    HookEvent::holding("permissionRequest", None),
    HookEvent::within("postToolUse", None, 10),
    HookEvent::within("userPromptSubmitted", None, 10),
    HookEvent::within("agentStop", None, 10),
    HookEvent::within("sessionEnd", None, 10),
];

/// Copilot CLI's settings file, `~/.copilot/settings.json` (`$COPILOT_HOME/settings.json`) or a
/// project's `.github/copilot/settings.json`, as the shared installer writes it.
pub const COPILOT_INSTALLER: HeldHooksInstaller = HeldHooksInstaller {
    hooks: AgentHooks::flat(
        "Copilot CLI settings file",
        " hook copilot",
        &EVENTS,
        ("bash", "timeoutSec"),
    )
    .with_assignments_before_program(),
    home_variable: "COPILOT_HOME",
    home_folder: ".copilot",
    file_name: "settings.json",
    project_file: ".github/copilot/settings.json",
    described: "~/.copilot/settings.json ($COPILOT_HOME/settings.json), or a project's .github/copilot/settings.json",
    wait_seconds: COPILOT_WAIT_SECONDS,
    max_wait_seconds: COPILOT_MAX_WAIT_SECONDS,
    why_max: "Copilot CLI shows no dialog of its own while its hook holds a prompt, and looks hung for longer",
    timeout_margin_seconds: TIMEOUT_MARGIN_SECONDS,
    notes,
    uninstall_notes: installer::no_notes,
};

/// What the person should know after an install, prompts being held for `wait` seconds.
pub fn notes(command: &str, wait: u64, _changed: &InstallReport) -> Vec<String> {
    vec![
        format!("Copilot CLI runs `{command} EVENT` for each event."),
        format!(
            "Copilot's prompts are listed read-only until `gatehouse probe copilot` passes for the installed Copilot CLI version; \
             then a bash prompt is held for up to {wait} s, during which Copilot shows no dialog of its own, \
             and a release or the end of that wait hands it to Copilot's dialog \
             (`gatehouse install copilot --hold SECONDS` changes the wait, up to {COPILOT_MAX_WAIT_SECONDS} s; the default is {COPILOT_WAIT_SECONDS} s)."
        ),
    ]
}

#[cfg(test)]
mod tests;
