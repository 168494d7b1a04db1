//! Installs and removes gatehouse's Cline hook files: one small bash script per event that
//! gatehouse reads ([`EVENTS`]), named `<Event>.bash`, in Cline's user hooks folder
//! (`$CLINE_DIR/hooks/`, else `~/.cline/hooks/`) or a project's (`.clinerules/hooks/`). Cline
//! 3.0.65 runs every regular file there whose name is an event's (with no extension or one of
//! `.sh`, `.bash`, `.js`, `.py`, ...), in path order, as `bash FILE` when it has no shebang, with
//! no execute bit needed; so each file is written owner-only (0600) and atomically, and a file of
//! that name that is not gatehouse's (its first line is not [`HOOK_MARKER`]) is never overwritten
//! or removed ([`gatehouse_harness::own_file`]). The person's own hooks (`PreToolUse.sh`, ...)
//! run beside them. The settings path the binary names is the `PreToolUse` file; the others sit
//! beside it.
//!
//! Every file is the same script ([`hook_script`]): it starts the hook (the lean
//! `gatehouse-hook` beside the installing `gatehouse`, else `gatehouse hook cline`) in the
//! background on the file's stdin, with its output thrown away, and exits 0 at once, printing
//! nothing. Cline waits for its `PreToolUse` and `PostToolUse` hooks and shows its own dialog
//! only after, so a hook that waited for a slow, stopped or wedged gateway would hold the very
//! dialog that decides; and printing nothing is "no opinion", so the script never cancels.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};
use gatehouse_harness::own_file::{read_own_file, remove_own_file, write_own_file, OwnFileError};
use gatehouse_hook_settings::AgentHooks;

use crate::auto_approve::{self, AutoApprove};

/// The Cline events gatehouse's hook files are named after: the prompt, and what settles it.
pub const EVENTS: [&str; 6] = [
    "PreToolUse",
    "PostToolUse",
    "TaskComplete",
    "TaskCancel",
    "TaskError",
    "SessionShutdown",
];

/// The extension of gatehouse's hook files: one Cline reads, and one a person's own hooks
/// rarely take (they are `PreToolUse` or `PreToolUse.sh`), so both run side by side.
pub const HOOK_EXTENSION: &str = "bash";

/// How every gatehouse Cline hook file starts.
pub const HOOK_MARKER: &str = "# gatehouse's Cline hook:";

/// gatehouse's hook command for Cline, as the other agents' settings carry it.
const COMMAND: AgentHooks = AgentHooks::matcher_groups("Cline hook file", " hook cline", &[]);

/// Why the hook files could not be installed or removed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("the gatehouse binary's path {0:?} is not a path in UTF-8 to a file named gatehouse, so a hook file cannot name it")]
    Program(PathBuf),
    /// Not gatehouse's hook file, or it could not be read, written or removed.
    #[error(transparent)]
    File(#[from] OwnFileError),
    #[error("neither CLINE_DIR nor HOME is set, so Cline's hooks folder cannot be told")]
    NoHome,
}

/// The file name of gatehouse's hook for `event`, such as `PreToolUse.bash`.
pub fn file_name(event: &str) -> String {
    format!("{event}.{HOOK_EXTENSION}")
}

/// The script of every hook file, running `command` (gatehouse's hook command, quoted for the
/// shell).
pub fn hook_script(command: &str) -> String {
    format!(
        "{HOOK_MARKER} hands this Cline event to gatehouse and returns at once, printing nothing,\n\
         # so it never answers for Cline and never delays Cline's own dialog. Written by\n\
         # `gatehouse install cline`, with one such file per event beside it; `gatehouse uninstall cline`\n\
         # removes them. Cline runs it as `bash FILE`; the hook reads this file's stdin in the background.\n\
         {command} 0<&0 >/dev/null 2>&1 &\n\
         exit 0\n"
    )
}

/// Whether `text` is a gatehouse Cline hook file: its first line starts with [`HOOK_MARKER`].
pub fn is_gatehouse_hook(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|line| line.starts_with(HOOK_MARKER))
}

/// Cline's user folder: `$CLINE_DIR`, else `~/.cline`.
fn cline_folder() -> Option<PathBuf> {
    let variable = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    variable("CLINE_DIR")
        .map(PathBuf::from)
        .or_else(|| variable("HOME").map(|home| PathBuf::from(home).join(".cline")))
}

/// The hook files of every event in the folder of `settings` (the `PreToolUse` file).
fn hook_files(settings: &Path) -> Vec<(&'static str, PathBuf)> {
    let folder = settings.parent().unwrap_or(Path::new("."));
    EVENTS
        .iter()
        .map(|event| (*event, folder.join(file_name(event))))
        .collect()
}

/// What the person should know about Cline's "Auto-approve all", with its saved value now.
pub fn auto_approve_note(saved: AutoApprove) -> String {
    let now = match saved {
        AutoApprove::Off => "Its saved setting here is off, so Cline asks.",
        AutoApprove::On => "Its saved setting here is on (or not saved yet), so Cline asks nothing until you turn it off.",
    };
    format!(
        "Cline's TUI starts with \"Auto-approve all\" on, under which every tool call runs without asking, \
         with or without gatehouse. To be asked, press Shift+Tab in Cline's TUI until its footer says \
         \"Auto-approve all disabled\" (Cline saves it as toolAutoApprove: false in \
         ~/.cline/data/settings/global-settings.json), or start Cline with --auto-approve false. {now}"
    )
}

/// Cline's hook files, as gatehouse installs them.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClineInstaller;

impl HookInstaller for ClineInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        let hooks = match scope {
            SettingsScope::User => cline_folder().ok_or(InstallError::NoHome)?.join("hooks"),
            SettingsScope::Project(folder) => folder.join(".clinerules/hooks"),
            SettingsScope::File(path) => return Ok(path.clone()),
        };
        Ok(hooks.join(file_name(EVENTS[0])))
    }

    fn settings_described(&self) -> &'static str {
        "~/.cline/hooks/ ($CLINE_DIR/hooks/), or a project's .clinerules/hooks/: one file per event, PreToolUse.bash, PostToolUse.bash, TaskComplete.bash, TaskCancel.bash, TaskError.bash and SessionShutdown.bash"
    }

    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let command = COMMAND
            .hook_command(&request.program)
            .ok_or_else(|| InstallError::Program(request.program.clone()))?;
        let script = hook_script(&command);
        let files = hook_files(&request.settings);
        // Nothing is written while any file there is not gatehouse's.
        for (_, path) in &files {
            read_own_file(path, is_gatehouse_hook).map_err(InstallError::from)?;
        }
        let mut written = Vec::new();
        for (event, path) in &files {
            if write_own_file(path, &script, is_gatehouse_hook).map_err(InstallError::from)? {
                written.push(*event);
            }
        }
        let (changes, beside) = in_words(&written, "wrote", &format!(", which runs {command}"));
        let mut notes = beside;
        notes.extend([
            "Cline runs these files (as `bash FILE`) for its events; each hands the event to gatehouse and returns at once, printing nothing, so gatehouse never answers for Cline and never delays its dialog. Restart a Cline that is running for it to find them.".into(),
            "gatehouse only watches Cline: its prompts are listed read-only, because Cline's hooks cannot allow a call, only cancel the whole turn. Answer them in Cline's own dialog ([y] Approve, [n] Deny); gatehouse then withdraws them.".into(),
            auto_approve_note(auto_approve::saved_setting()),
        ]);
        Ok(InstallOutcome {
            path: request.settings.clone(),
            changes,
            backup: None,
            notes,
        })
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        let files = hook_files(settings);
        for (_, path) in &files {
            read_own_file(path, is_gatehouse_hook).map_err(InstallError::from)?;
        }
        let mut removed = Vec::new();
        for (event, path) in &files {
            if remove_own_file(path, is_gatehouse_hook).map_err(InstallError::from)? {
                removed.push(*event);
            }
        }
        let (changes, mut notes) = in_words(&removed, "removed", "");
        if !removed.is_empty() {
            notes.push("Cline no longer hands its events to gatehouse; its own dialog and \"Auto-approve all\" decide, as without gatehouse.".into());
        }
        Ok(InstallOutcome {
            path: settings.to_path_buf(),
            changes,
            backup: None,
            notes,
        })
    }
}

/// What was `done` (`wrote`, `removed`) to the hook files of `events`, in words: the change to
/// the settings file the binary names (the `PreToolUse` file, with `more` after it), and a note
/// for the files beside it. Only the first is a change: the binary (and `setup`'s and
/// `doctor`'s trial installs on a copy of that one file) count changes to that file alone.
fn in_words(events: &[&str], done: &str, more: &str) -> (Vec<String>, Vec<String>) {
    let (main, beside): (Vec<&str>, Vec<&str>) =
        events.iter().partition(|event| **event == EVENTS[0]);
    let changes = main
        .iter()
        .map(|event| format!("{done} gatehouse's {event} hook file{more}"))
        .collect();
    let notes = match beside.is_empty() {
        true => Vec::new(),
        false => vec![format!(
            "Also {done} gatehouse's hook files beside it for {}, which settle its prompts.",
            beside.join(", ")
        )],
    };
    (changes, notes)
}

#[cfg(test)]
mod tests;
