//! Installs and removes gatehouse's pi extension: one file of gatehouse's own, `gatehouse.ts`, in
//! pi's user extensions folder (`~/.pi/agent/extensions/`, or `$PI_CODING_AGENT_DIR/extensions/`)
//! or a project's (`.pi/extensions/`), which pi 0.73.1 loads at start (TypeScript as it is, no
//! build step). Nothing else of the person's configuration is read or changed. The file is
//! written owner-only and atomically, and a file of that name that is not gatehouse's (its first
//! line is not [`EXTENSION_MARKER`]) is never overwritten or removed
//! ([`gatehouse_harness::own_file`]).
//!
//! The extension ([`EXTENSION_SOURCE`], embedded in the binary) runs the hook by the absolute
//! path of the lean `gatehouse-hook` beside the installing `gatehouse` (else `gatehouse`
//! itself), with the tools to ask about ([`DEFAULT_TOOLS`] unless [`TOOLS_VARIABLE`] names
//! others; a reinstall keeps the ones installed) and its own bound on a held call: gatehouse's
//! hold and a margin. Each is written into the file as a JSON literal.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};
use gatehouse_harness::own_file::{read_own_file, remove_own_file, write_own_file, OwnFileError};
use gatehouse_hook_settings::command::hook_executable_beside;

/// The extension, with placeholders for the hook program, the tools and the hold's bound.
pub const EXTENSION_SOURCE: &str = include_str!("extension.ts");

/// The extension's file name in pi's extensions folder.
pub const EXTENSION_FILE_NAME: &str = "gatehouse.ts";

/// How every gatehouse pi extension starts.
pub const EXTENSION_MARKER: &str = "// gatehouse's pi extension:";

/// The tools whose calls the extension asks about unless the person chooses others: pi's shell
/// and its two file-writing tools; `read` (and any other tool) runs as pi runs it.
pub const DEFAULT_TOOLS: [&str; 3] = ["bash", "write", "edit"];

/// The variable that chooses the tools at install, such as `GATEHOUSE_PI_TOOLS=bash,write`.
pub const TOOLS_VARIABLE: &str = "GATEHOUSE_PI_TOOLS";

/// The most tools that may be chosen.
const MAX_TOOLS: usize = 64;

/// The placeholders, quotes included.
const HOOK_PLACEHOLDER: &str = "\"@GATEHOUSE_HOOK@\"";
const TOOLS_PLACEHOLDER: &str = "\"@GATEHOUSE_TOOLS@\"";
const DEADLINE_PLACEHOLDER: &str = "\"@HOLD_DEADLINE_MS@\"";

/// How the line that names the tools starts in a written extension.
const TOOLS_LINE: &str = "const TOOLS = ";

/// Why the extension could not be installed or removed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("the gatehouse binary's path {0:?} is not an absolute path in UTF-8, so the extension cannot name it")]
    Program(PathBuf),
    #[error("{TOOLS_VARIABLE} names {0:?}, which is not a list of pi tool names (letters, digits, `_` and `-`, separated by commas, at most {MAX_TOOLS}); set it as in {TOOLS_VARIABLE}=bash,write,edit")]
    Tools(String),
    /// Not gatehouse's extension, or it could not be read, written or removed.
    #[error(transparent)]
    File(#[from] OwnFileError),
    #[error(
        "neither PI_CODING_AGENT_DIR nor HOME is set, so pi's extensions folder cannot be told"
    )]
    NoHome,
}

/// The tools chosen in `text` (the value of [`TOOLS_VARIABLE`]): names separated by commas.
pub fn tools_from(text: &str) -> Result<Vec<String>, InstallError> {
    let tools: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|tool| !tool.is_empty())
        .map(str::to_owned)
        .collect();
    let named = |tool: &String| {
        tool.len() <= 64
            && tool
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
    };
    if tools.is_empty() || tools.len() > MAX_TOOLS || !tools.iter().all(named) {
        return Err(InstallError::Tools(text.to_owned()));
    }
    Ok(tools)
}

/// The tools an installed extension asks about, as its `TOOLS` line names them.
pub fn installed_tools(extension: &str) -> Option<Vec<String>> {
    let line = extension
        .lines()
        .find_map(|line| line.strip_prefix(TOOLS_LINE))?;
    let tools: Vec<String> = serde_json::from_str(line).ok()?;
    tools_from(&tools.join(",")).ok()
}

/// The extension that runs `hook` (the hook program) for calls of `tools`, killing a hook that
/// holds a call longer than `hold_deadline_seconds`.
pub fn extension_for(
    hook: &Path,
    tools: &[String],
    hold_deadline_seconds: u64,
) -> Result<String, InstallError> {
    let text = hook
        .to_str()
        .filter(|_| hook.is_absolute())
        .ok_or_else(|| InstallError::Program(hook.to_path_buf()))?;
    let program = serde_json::to_string(text).expect("a string is always JSON");
    let tools = serde_json::to_string(tools).expect("a list of strings is always JSON");
    Ok(EXTENSION_SOURCE
        .replacen(HOOK_PLACEHOLDER, &program, 1)
        .replacen(TOOLS_PLACEHOLDER, &tools, 1)
        .replacen(
            DEADLINE_PLACEHOLDER,
            &hold_deadline_seconds.saturating_mul(1000).to_string(),
            1,
        ))
}

/// Whether `text` is a gatehouse pi extension: its first line starts with [`EXTENSION_MARKER`].
pub fn is_gatehouse_extension(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|line| line.starts_with(EXTENSION_MARKER))
}

/// pi's user folder: `$PI_CODING_AGENT_DIR` (absolute), else `~/.pi/agent`.
pub fn agent_folder() -> Option<PathBuf> {
    std::env::var_os("PI_CODING_AGENT_DIR")
        .map(PathBuf::from)
        .filter(|folder| folder.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pi/agent")))
}

/// The tools to ask about: [`TOOLS_VARIABLE`]'s when set, else those of the extension already at
/// `path`, else [`DEFAULT_TOOLS`].
fn chosen_tools(path: &Path) -> Result<Vec<String>, InstallError> {
    if let Some(text) = std::env::var_os(TOOLS_VARIABLE) {
        return tools_from(&text.to_string_lossy());
    }
    let installed = read_own_file(path, is_gatehouse_extension)?;
    Ok(installed
        .as_deref()
        .and_then(installed_tools)
        .unwrap_or_else(|| DEFAULT_TOOLS.map(str::to_owned).to_vec()))
}

/// `gatehouse install pi`: the extension in pi's extensions folders.
pub struct PiInstaller;

/// The one installer.
pub const PI_INSTALLER: PiInstaller = PiInstaller;

impl HookInstaller for PiInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        Ok(match scope {
            SettingsScope::User => agent_folder()
                .ok_or(InstallError::NoHome)?
                .join("extensions")
                .join(EXTENSION_FILE_NAME),
            SettingsScope::Project(folder) => {
                folder.join(".pi/extensions").join(EXTENSION_FILE_NAME)
            }
            SettingsScope::File(path) => path.clone(),
        })
    }

    fn settings_described(&self) -> &'static str {
        "~/.pi/agent/extensions/gatehouse.ts ($PI_CODING_AGENT_DIR/extensions/), or a project's .pi/extensions/gatehouse.ts; the tools asked about are bash, write and edit, or those GATEHOUSE_PI_TOOLS names (such as GATEHOUSE_PI_TOOLS=bash)"
    }

    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let path = &request.settings;
        let tools = chosen_tools(path)?;
        let hook = hook_executable_beside(&request.program).unwrap_or(request.program.clone());
        let deadline = request
            .hold_seconds
            .saturating_add(request.timeout_margin_seconds);
        let extension = extension_for(&hook, &tools, deadline)?;
        let changed =
            write_own_file(path, &extension, is_gatehouse_extension).map_err(InstallError::from)?;
        let tools = tools.join(", ");
        Ok(InstallOutcome {
            path: path.clone(),
            changes: if changed {
                vec![format!(
                    "wrote gatehouse's extension, which runs {} hook pi for each call of {tools}",
                    hook.display()
                )]
            } else {
                Vec::new()
            },
            backup: None,
            notes: vec![
                "pi loads extensions when it starts: restart pi (or /reload) for the extension to take effect.".into(),
                format!("pi has no permission prompt of its own; with the extension, each call of {tools} waits for an answer in pi's own dialog (Yes/No) or from gatehouse, whichever comes first. Other tools (read, ...) run as pi runs them; choose the tools with {TOOLS_VARIABLE}=bash,write,edit gatehouse install pi."),
                "Until `gatehouse probe pi` passes for the installed pi, its prompts are listed read-only and pi's dialog decides. If gatehouse cannot answer (no gateway, a failure), pi's dialog still asks; a call never runs unasked while the extension is installed.".into(),
            ],
        })
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        let removed =
            remove_own_file(settings, is_gatehouse_extension).map_err(InstallError::from)?;
        Ok(InstallOutcome {
            path: settings.to_path_buf(),
            changes: if removed {
                vec!["removed gatehouse's extension".into()]
            } else {
                Vec::new()
            },
            backup: None,
            notes: if removed {
                vec!["pi unloads it when it restarts; from then on pi runs every tool call without asking, as it does without gatehouse.".into()]
            } else {
                Vec::new()
            },
        })
    }
}

#[cfg(test)]
mod tests;
