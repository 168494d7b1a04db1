//! What every adapter's [`HookInstaller`](gatehouse_core::kit::HookInstaller) shares: finding the
//! settings file of a scope, and turning an [`InstallReport`] into the outcome the binary prints;
//! and [`HeldHooksInstaller`], the whole installer of an agent whose hook holds a prompt for a
//! short wait of its own, described once.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HoldLimits, InstallOutcome, KitError, SettingsScope};
use serde_json::Value;

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
///
/// The wait is `GATEHOUSE_HOOK__WAIT_SECONDS` in the hook's command, so the hook's own deadline
/// (and the hold the gateway shows, from the wait the hook asks for) is the wait installed; the
/// agent's timeout of the holding hook is that wait plus `timeout_margin_seconds`. The person
/// may choose it (`install --hold`, up to `max_wait_seconds`); an install without `--hold`
/// keeps a wait already installed within the limits, so `setup` and `doctor` find a chosen
/// wait current, and writes `wait_seconds` otherwise.
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
    /// How long the hook holds a prompt unless the person chose otherwise, set in its command
    /// as `GATEHOUSE_HOOK__WAIT_SECONDS`.
    pub wait_seconds: u64,
    /// The longest wait the person may choose.
    pub max_wait_seconds: u64,
    /// Why the wait may be no longer, said when a longer one is refused, such as "Qwen Code
    /// gives up on its hook at 60 s".
    pub why_max: &'static str,
    /// How much longer the agent lets the holding hook run than the wait, so that the hook's
    /// own deadline always comes first.
    pub timeout_margin_seconds: u64,
    /// What the person should know after an install, given the hook command, the wait installed
    /// and what changed.
    pub notes: fn(&str, u64, &InstallReport) -> Vec<String>,
    /// What the person should know after an uninstall ([`no_notes`]: nothing).
    pub uninstall_notes: fn() -> Vec<String>,
}

/// No notes after an uninstall.
pub fn no_notes() -> Vec<String> {
    Vec::new()
}

/// The variable of the hook's wait, as its command sets it.
const WAIT_VARIABLE: &str = "GATEHOUSE_HOOK__WAIT_SECONDS";

/// The largest settings file read to learn the wait installed; a larger one keeps the default.
const SETTINGS_READ_LIMIT: u64 = 16 << 20;

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

    /// The hook command for a gatehouse binary, without an event name, holding prompts for
    /// `wait_seconds`: it sets the wait and is quoted for a POSIX shell. `None` when the path is
    /// not UTF-8 or not named `gatehouse`.
    #[must_use]
    pub fn hook_command(&self, program: &Path, wait_seconds: u64) -> Option<String> {
        let command = format!(
            "{WAIT_VARIABLE}={wait_seconds} {}",
            self.hooks.hook_command(program)?
        );
        self.hooks.is_gatehouse_command(&command).then_some(command)
    }

    /// The plan that installs `command`, which holds prompts for `wait_seconds`.
    #[must_use]
    pub fn plan_for(&self, command: &str, wait_seconds: u64) -> crate::HookPlan {
        crate::HookPlan {
            command: command.to_owned(),
            hold_timeout_seconds: wait_seconds.saturating_add(self.timeout_margin_seconds),
        }
    }

    /// The limits of the wait, for `--help` and `--hold`.
    #[must_use]
    pub fn limits(&self) -> HoldLimits {
        HoldLimits {
            default_seconds: self.wait_seconds,
            max_seconds: self.max_wait_seconds,
            why_fixed: None,
        }
    }

    /// The wait the gatehouse hook of the holding event in `settings` sets, when it is one this
    /// installer may write (1 to `max_wait_seconds`).
    #[must_use]
    pub fn installed_wait(&self, settings: &Value) -> Option<u64> {
        let holding = self
            .hooks
            .events
            .iter()
            .find(|event| event.timeout == crate::HookTimeout::HoldTimeout)?;
        let commands = self.hooks.gatehouse_commands(settings, holding.name);
        let first = commands.first()?;
        let value = first
            .split_whitespace()
            .find_map(|word| word.strip_prefix(WAIT_VARIABLE)?.strip_prefix('='))?;
        value
            .parse::<u64>()
            .ok()
            .filter(|wait| (1..=self.max_wait_seconds).contains(wait))
    }

    /// The wait installed in the file at `path`, read as [`HeldHooksInstaller::installed_wait`];
    /// `None` for a file that is missing, too large or not JSON.
    fn installed_wait_in(&self, path: &Path) -> Option<u64> {
        use std::io::Read;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(SETTINGS_READ_LIMIT + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        if bytes.len() as u64 > SETTINGS_READ_LIMIT {
            return None;
        }
        self.installed_wait(&serde_json::from_slice(&bytes).ok()?)
    }

    /// Installs the hooks holding prompts for `wait_seconds`.
    fn install_with_wait(
        &self,
        request: &gatehouse_core::kit::InstallRequest,
        wait_seconds: u64,
    ) -> Result<InstallOutcome, KitError> {
        let command = hook_command(
            self.hook_command(&request.program, wait_seconds),
            &request.program,
        )?;
        let report = self
            .hooks
            .install_file(&request.settings, &self.plan_for(&command, wait_seconds))?;
        let notes = (self.notes)(&command, wait_seconds, &report);
        Ok(outcome(report, notes))
    }
}

/// Why a wait the person asked for is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HoldRefused {
    #[error("--hold 0 would hand every prompt back at once; give a wait of 1 to {max} seconds")]
    Zero { max: u64 },
    #[error("--hold {asked} is longer than {max} seconds, the longest for this agent: {why}; give a wait of 1 to {max} seconds")]
    TooLong {
        asked: u64,
        max: u64,
        why: &'static str,
    },
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

    /// The wait already installed, when it is within the limits; else the default. The
    /// request's hold time is Claude Code's, not this agent's.
    fn install(
        &self,
        request: &gatehouse_core::kit::InstallRequest,
    ) -> Result<InstallOutcome, KitError> {
        let wait = self
            .installed_wait_in(&request.settings)
            .unwrap_or(self.wait_seconds);
        self.install_with_wait(request, wait)
    }

    fn hold_limits(&self) -> Option<HoldLimits> {
        Some(self.limits())
    }

    fn install_holding(
        &self,
        request: &gatehouse_core::kit::InstallRequest,
        hold_seconds: u64,
    ) -> Result<InstallOutcome, KitError> {
        let max = self.max_wait_seconds;
        if hold_seconds == 0 {
            return Err(HoldRefused::Zero { max }.into());
        }
        if hold_seconds > max {
            return Err(HoldRefused::TooLong {
                asked: hold_seconds,
                max,
                why: self.why_max,
            }
            .into());
        }
        self.install_with_wait(request, hold_seconds)
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        let report = self.hooks.uninstall_file(settings)?;
        Ok(outcome(report, (self.uninstall_notes)()))
    }
}

#[cfg(test)]
mod tests;
