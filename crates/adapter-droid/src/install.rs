//! Installs and removes gatehouse's command hooks in Factory Droid's settings:
//! `~/.factory/settings.json` (`$FACTORY_HOME_OVERRIDE/.factory/settings.json` when that is set:
//! Droid reads it in place of `HOME`), or a project's `.factory/settings.json`. Droid reads
//! Claude Code's hooks shape (`{"hooks": {"PreToolUse": [{"matcher": "Execute", "hooks":
//! [{"type": "command", "command": ..., "timeout": 60}]}]}}`, timeouts in seconds), which the
//! shared [`gatehouse_hook_settings`] writes: it keeps a `.gatehouse-backup`, writes atomically,
//! changes nothing but gatehouse's entries and never overwrites a file that is not a JSON object.
//! Droid 0.225.2 picked up edited hooks without a restart.
//!
//! Droid shows no dialog while its `PreToolUse` hook waits, and when the hook's `timeout` passes
//! it kills the hook and shows its own dialog, ignoring a later answer; so gatehouse holds a
//! Droid prompt for [`DROID_WAIT_SECONDS`], under the hook's [`HOLD_TIMEOUT_SECONDS`]: the command
//! sets `GATEHOUSE_HOOK__WAIT_SECONDS`, as in `GATEHOUSE_HOOK__WAIT_SECONDS=40 '/path/gatehouse'
//! hook droid`. The tool events match `Execute`, Droid's shell tool, alone: the hook is not
//! started for Droid's other tools.
//!
//! An entry is gatehouse's when its `command` ends with ` hook droid` and its program (after any
//! `NAME=value` words) is named `gatehouse`, in any folder.

use gatehouse_hook_settings::installer::{self, HeldHooksInstaller};
use gatehouse_hook_settings::{AgentHooks, HookEvent, InstallReport};

use crate::events::ANSWERABLE_TOOL;

/// How long a Droid hook holds a prompt for an answer: Droid shows no dialog meanwhile (the
/// person at its terminal sees "Executing..."), so the wait is short. `release` hands the prompt
/// back at once.
pub const DROID_WAIT_SECONDS: u64 = 40;

/// How much longer the `PreToolUse` hook's `timeout` is than the wait.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 20;

/// The `timeout` of the `PreToolUse` hook, which holds the prompt, for the default wait: Droid's
/// own default, well above the wait, so that gatehouse's own deadline always comes first.
pub const HOLD_TIMEOUT_SECONDS: u64 = DROID_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS;

/// The longest wait `gatehouse install droid --hold` takes. Droid 0.225.2 applied the hook's
/// `timeout` as written in its fixtures and notes, with no limit seen; ten minutes is
/// gatehouse's, since Droid shows only "Executing..." meanwhile and looks hung.
pub const DROID_MAX_WAIT_SECONDS: u64 = 600;

/// How long an unlocked prompt is held, in words for people (in the flags' evidence).
pub const HELD: &str = "Droid shows no dialog while gatehouse holds its prompt: \
    answer within 40 s (or the wait `gatehouse install droid --hold` set), or release it to \
    Droid's own dialog (which comes by itself when that wait ends)";

/// The events gatehouse installs a hook for: the prompt, and what settles it.
pub const EVENTS: [HookEvent; 4] = [
    HookEvent::holding("PreToolUse", Some(ANSWERABLE_TOOL)),
    HookEvent::within("PostToolUse", Some(ANSWERABLE_TOOL), 10),
    HookEvent::within("Stop", None, 10),
    HookEvent::within("SessionEnd", None, 10),
];

/// Droid's settings file, `~/.factory/settings.json` (`$FACTORY_HOME_OVERRIDE/.factory/...`) or
/// a project's `.factory/settings.json`, as the shared installer writes it. The override names a
/// home, not Droid's folder, so the file's name carries the folder.
pub const DROID_INSTALLER: HeldHooksInstaller = HeldHooksInstaller {
    hooks: AgentHooks::matcher_groups("Factory Droid settings file", " hook droid", &EVENTS)
        .with_assignments_before_program(),
    home_variable: "FACTORY_HOME_OVERRIDE",
    home_folder: "",
    file_name: ".factory/settings.json",
    project_file: ".factory/settings.json",
    described: "~/.factory/settings.json ($FACTORY_HOME_OVERRIDE/.factory/settings.json), or a project's .factory/settings.json",
    wait_seconds: DROID_WAIT_SECONDS,
    max_wait_seconds: DROID_MAX_WAIT_SECONDS,
    why_max: "Droid shows only \"Executing...\" while its hook holds a prompt, and looks hung for longer",
    timeout_margin_seconds: TIMEOUT_MARGIN_SECONDS,
    notes,
    uninstall_notes: installer::no_notes,
};

/// What the person should know after an install: how prompts are held, and which calls Droid
/// runs by itself.
pub fn notes(command: &str, wait: u64, _changed: &InstallReport) -> Vec<String> {
    vec![
        format!("Factory Droid runs `{command}` for each event (for its Execute tool alone, before and after each call)."),
        format!(
            "Droid's prompts are listed read-only until `gatehouse probe droid` passes for the installed Droid version; \
             then a shell prompt is held for up to {wait} s (`--hold` changes it, up to {DROID_MAX_WAIT_SECONDS} s), during which Droid shows no dialog of its own \
             (it shows \"Executing...\"; Esc there cancels the turn), and a release or the end of that wait hands it to \
             Droid's dialog. There is no \"always\" from gatehouse: choose it in Droid's own dialog."
        ),
        "Calls Droid runs without asking are only watched: the commands of its allowlist (`commandAllowlist`, \
         by default `ls`, `pwd`, `git status`, ...) and, in its Auto (Low/Medium/High) levels, the commands whose \
         risk is at most that level. gatehouse leaves Droid's autonomy level as it is (ctrl+L or shift+tab in Droid)."
            .to_owned(),
    ]
}

#[cfg(test)]
mod tests;
