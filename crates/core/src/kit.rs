//! What an adapter offers beyond parsing and rendering, so that the binary can install hooks,
//! probe an agent and describe it without any code of its own per agent: a [`HookInstaller`]
//! (where the agent's hook settings live and how gatehouse's entries are added and removed) and
//! an [`AgentProbe`] (a live check that proves capabilities for the installed agent version).
//!
//! These are interfaces and plain data; the adapters implement them (with file and process I/O
//! of their own), and the binary prints what they return.

use std::error::Error;
use std::path::PathBuf;

/// Any failure of an installer or a probe, with words that say what went wrong.
pub type KitError = Box<dyn Error + Send + Sync>;

/// Which hook settings an installer changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsScope {
    /// The user's own settings, such as `~/.claude/settings.json`.
    User,
    /// The settings of the project in this folder, such as `<folder>/.claude/settings.json`.
    Project(PathBuf),
    /// This file, whatever the agent's default.
    File(PathBuf),
}

/// What the binary asks an installer to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRequest {
    /// The settings file to change (from [`HookInstaller::settings_path`]).
    pub settings: PathBuf,
    /// The `gatehouse` binary that the hooks run.
    pub program: PathBuf,
    /// How long the hook holds a prompt for a person, in seconds: agents whose hook waits get a
    /// hook timeout above it.
    pub hold_seconds: u64,
    /// How much longer than `hold_seconds` the agent's own hook timeout is.
    pub timeout_margin_seconds: u64,
}

/// How long an installer's holding hook may hold a prompt, for `gatehouse install AGENT --hold
/// SECONDS` and its `--help`: for agents that show no dialog of their own while their hook
/// waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldLimits {
    /// The wait installed when none is asked for (and none is installed yet).
    pub default_seconds: u64,
    /// The longest wait that may be asked for.
    pub max_seconds: u64,
    /// Why the wait cannot be chosen at all, when it cannot; `--hold` is then refused with it.
    pub why_fixed: Option<&'static str>,
}

/// What an install or an uninstall did, for the binary to print.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InstallOutcome {
    /// The settings file.
    pub path: PathBuf,
    /// Each change in words, such as "added the PermissionRequest hook"; empty when the file was
    /// left as it was.
    pub changes: Vec<String>,
    /// Where the previous content was saved, when the file was changed.
    pub backup: Option<PathBuf>,
    /// What the person should know next, in the agent's words, such as "Codex runs new hooks
    /// only after you review them once".
    pub notes: Vec<String>,
}

/// Where and how gatehouse's hooks go into an agent's own settings.
pub trait HookInstaller: Send + Sync {
    /// The settings file of `scope`. Fails with words when it cannot be told (no `HOME`, say).
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError>;

    /// For `--help`: where the user and project settings are, such as
    /// "~/.claude/settings.json, or a project's .claude/settings.json".
    fn settings_described(&self) -> &'static str;

    /// Adds or updates gatehouse's hook entries, changing nothing else.
    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError>;

    /// Removes gatehouse's hook entries, and only those (and whatever
    /// [`HookInstaller::install_answerable`] wrote, first).
    fn uninstall(&self, settings: &std::path::Path) -> Result<InstallOutcome, KitError>;

    /// How long this agent's holding hook may hold a prompt, for `--hold`; `None` for an agent
    /// whose hook holds no prompt while the agent shows nothing (its own prompt stays live, or
    /// it is only watched).
    fn hold_limits(&self) -> Option<HoldLimits> {
        None
    }

    /// [`HookInstaller::install`] with the hook's wait set to `hold_seconds`, which the person
    /// asked for (`--hold`): refused with the reason above [`HoldLimits::max_seconds`], or when
    /// the wait is fixed.
    fn install_holding(
        &self,
        _request: &InstallRequest,
        _hold_seconds: u64,
    ) -> Result<InstallOutcome, KitError> {
        Err("this agent's hook holds no prompt while the agent shows nothing, so there is no wait to set: drop --hold".into())
    }

    /// For an agent that can be made answerable only at a price (its own safety net changes:
    /// Gemini CLI runs a call unasked when a hook that decides fails), that price in words,
    /// which the binary prints and the person accepts before
    /// [`HookInstaller::install_answerable`] runs. `None`: the plain install is all there is.
    fn answerable_price(&self) -> Option<&'static str> {
        None
    }

    /// The install the person chose at [`HookInstaller::answerable_price`]: the plain install
    /// and what makes gatehouse's answers count.
    fn install_answerable(&self, _request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        Err("this agent has no answerable install: `gatehouse install` is all there is".into())
    }
}

/// What the binary hands a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeRequest {
    /// The agent's executable to probe, if the person named one; else the probe finds it.
    pub executable: Option<PathBuf>,
    /// gatehouse's state folder, where the probe keeps its record.
    pub state_dir: PathBuf,
}

/// The result of a probe, for the binary to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeOutcome {
    /// Whether every case passed, so the record unlocks what it proves.
    pub passed: bool,
    /// The version of the agent that was probed.
    pub agent_version: String,
    /// Where the record was saved.
    pub record: PathBuf,
    /// One sentence on what the record means, such as "once and deny are offered for Codex
    /// 0.171.0's Bash prompts".
    pub meaning: String,
}

/// A live, offline check of the installed agent that proves (or not) what gatehouse may offer.
pub trait AgentProbe: Send + Sync {
    /// For `--help` and errors: the executable's name, such as `codex`.
    fn executable_name(&self) -> &'static str;

    /// Runs every case, reporting each line of progress as it goes, and saves the record.
    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError>;
}
