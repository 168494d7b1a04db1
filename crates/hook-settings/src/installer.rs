//! What every adapter's [`HookInstaller`](gatehouse_core::kit::HookInstaller) shares: finding the
//! settings file of a scope, and turning an [`InstallReport`] into the outcome the binary prints.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{InstallOutcome, KitError, SettingsScope};

use crate::{AgentHooks, InstallReport};

/// The settings file of `scope`: `user` for the user's own (from the environment; `None` when it
/// cannot be told), `project_relative` inside a project folder, or the file given.
pub fn settings_path(
    scope: &SettingsScope,
    user: impl FnOnce() -> Option<PathBuf>,
    project_relative: &str,
    hooks: &AgentHooks,
) -> Result<PathBuf, KitError> {
    match scope {
        SettingsScope::File(path) => Ok(path.clone()),
        SettingsScope::Project(folder) => Ok(folder.join(project_relative)),
        SettingsScope::User => user().ok_or_else(|| {
            format!(
                "the user's {} cannot be found: HOME is not set",
                hooks.file_kind
            )
            .into()
        }),
    }
}

/// The hook command for `program`, or an error that says why it would not be recognised.
pub fn hook_command(command: Option<String>, program: &Path) -> Result<String, KitError> {
    command.ok_or_else(|| {
        format!(
            "the gatehouse binary at {} must be named `gatehouse` and have a UTF-8 path for its hooks to be recognised",
            program.display()
        )
        .into()
    })
}

/// The outcome of an install or uninstall, with the adapter's notes for the person.
pub fn outcome(report: InstallReport, notes: Vec<String>) -> InstallOutcome {
    InstallOutcome {
        path: report.path,
        changes: report.changes.iter().map(ToString::to_string).collect(),
        backup: report.backup,
        notes,
    }
}
