//! What every adapter's [`HookInstaller`](gatehouse_core::kit::HookInstaller) shares: finding the
//! settings file of a scope, and turning an [`InstallReport`] into the outcome the binary prints;
//! and [`HeldHooksInstaller`], the whole installer of an agent whose hook holds a prompt for a
//! short wait of its own, described once.

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

/// An agent whose hook holds a prompt for a short wait of its own (the agent shows no dialog
/// while its hook waits), described once: its hooks, where its settings live, the wait, and what
/// the person should know. It is a whole `HookInstaller`, with no code of the agent's own.
#[derive(Debug, Clone, Copy)]
pub struct HeldHooksInstaller {
    pub hooks: AgentHooks,
    /// The variable that moves the agent's folder, such as `QWEN_HOME`: its `file_name` is used.
    pub home_variable: &'static str,
    /// The agent's folder in `HOME` otherwise, such as `.qwen`.
    pub home_folder: &'static str,
    /// The settings file's name in that folder, such as `settings.json`.
    pub file_name: &'static str,
    /// The settings file inside a project folder, such as `.qwen/settings.json`.
    pub project_file: &'static str,
    /// For `--help`: where the user and project settings are.
    pub described: &'static str,
    /// How long the hook holds a prompt, set in its command as `GATEHOUSE_HOOK__WAIT_SECONDS`.
    pub wait_seconds: u64,
    /// The agent's timeout of the holding hook, in seconds.
    pub hold_timeout_seconds: u64,
    /// What the person should know after an install, given the hook command and what changed.
    pub notes: fn(&str, &InstallReport) -> Vec<String>,
    /// What the person should know after an uninstall ([`no_notes`]: nothing).
    pub uninstall_notes: fn() -> Vec<String>,
}

/// No notes after an uninstall.
pub fn no_notes() -> Vec<String> {
    Vec::new()
}

impl HeldHooksInstaller {
    /// The user's settings file: `$HOME_VARIABLE/FILE`, else `~/HOME_FOLDER/FILE`.
    pub fn default_settings_path(&self) -> Option<PathBuf> {
        if let Some(folder) =
            std::env::var_os(self.home_variable).filter(|folder| !folder.is_empty())
        {
            return Some(PathBuf::from(folder).join(self.file_name));
        }
        std::env::var_os("HOME").map(|home| {
            PathBuf::from(home)
                .join(self.home_folder)
                .join(self.file_name)
        })
    }

    /// The hook command for a gatehouse binary, without an event name: it sets the wait and is
    /// quoted for a POSIX shell. `None` when the path is not UTF-8 or not named `gatehouse`.
    #[must_use]
    pub fn hook_command(&self, program: &Path) -> Option<String> {
        let command = format!(
            "GATEHOUSE_HOOK__WAIT_SECONDS={} {}",
            self.wait_seconds,
            self.hooks.hook_command(program)?
        );
        self.hooks.is_gatehouse_command(&command).then_some(command)
    }

    /// The plan that installs `command`.
    #[must_use]
    pub fn plan_for(&self, command: &str) -> crate::HookPlan {
        crate::HookPlan {
            command: command.to_owned(),
            hold_timeout_seconds: self.hold_timeout_seconds,
        }
    }
}

impl gatehouse_core::kit::HookInstaller for HeldHooksInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        settings_path(
            scope,
            || self.default_settings_path(),
            self.project_file,
            &self.hooks,
        )
    }

    fn settings_described(&self) -> &'static str {
        self.described
    }

    /// The wait is the agent's own, whatever the request.
    fn install(
        &self,
        request: &gatehouse_core::kit::InstallRequest,
    ) -> Result<InstallOutcome, KitError> {
        let command = hook_command(self.hook_command(&request.program), &request.program)?;
        let report = self
            .hooks
            .install_file(&request.settings, &self.plan_for(&command))?;
        let notes = (self.notes)(&command, &report);
        Ok(outcome(report, notes))
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        let report = self.hooks.uninstall_file(settings)?;
        Ok(outcome(report, (self.uninstall_notes)()))
    }
}
