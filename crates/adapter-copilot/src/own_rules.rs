//! Whether Copilot CLI may run a call without asking, as far as gatehouse can tell. Copilot
//! 1.0.102 runs the `permissionRequest` hook for every call its `preToolUse` hook did not decide,
//! also for calls it would run without a dialog (a read-only command such as `ls -la`, a command
//! allowed with `--allow-tool`, or one the person allowed with "Yes, and don't ask again ... in
//! this directory"), and waits for the hook each time; the payload is the same in every case
//! (`permissionSuggestions` is empty). So the hook must not hold such a call, and this module
//! says which calls it can tell apart:
//!
//! - a command whose first words match a command Copilot was told not to ask about again in this
//!   folder or a folder above it: `locations.<folder>.tool_approvals[].commandIdentifiers` in
//!   `~/.copilot/permissions-config.json` (`$COPILOT_HOME/permissions-config.json`), which Copilot
//!   writes when the person answers its dialog that way; any one segment of a compound command
//!   (`;`, `&&`, `||`, `|`) matching is enough, so gatehouse errs toward only watching;
//! - any call of a Copilot started with `--allow-all`, `--allow-all-tools`, `--yolo` or any
//!   `--allow-tool` rule, or with `COPILOT_ALLOW_ALL` set (read from `/proc` for the Copilot that
//!   runs the hook).
//!
//! What it cannot tell: Copilot's own list of read-only commands, and modes switched inside a
//! session (`/allow-all`, `/yolo`). Such calls are held like any other (docs/ARCHITECTURE.md).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The file in which Copilot keeps its "don't ask again" approvals per folder.
pub const APPROVALS_FILE_NAME: &str = "permissions-config.json";

/// The command-line flags that let Copilot run calls without asking.
const ALLOWING_FLAGS: [&str; 4] = ["--allow-all", "--allow-all-tools", "--yolo", "--allow-tool"];

/// Why Copilot may run `command` in `cwd` without asking, given its saved `approvals` (the
/// content of [`APPROVALS_FILE_NAME`], or `Null`) and the `arguments` and allow-all variable of
/// the Copilot that runs the hook; `None` when gatehouse can tell of no such rule.
pub fn may_run_without_asking(
    command: &str,
    cwd: &str,
    approvals: &Value,
    arguments: &[String],
    allow_all_variable: bool,
) -> Option<String> {
    if let Some(flag) = arguments.iter().find(|argument| {
        ALLOWING_FLAGS
            .iter()
            .any(|flag| argument.as_str() == *flag || argument.starts_with(&format!("{flag}=")))
    }) {
        return Some(format!(
            "this Copilot CLI was started with {flag}, so it may run calls without asking; gatehouse only watches them"
        ));
    }
    if allow_all_variable {
        return Some("COPILOT_ALLOW_ALL is set, so Copilot CLI may run calls without asking; gatehouse only watches them".into());
    }
    let locations = approvals.get("locations")?.as_object()?;
    let cwd = Path::new(cwd);
    for (folder, location) in locations {
        if !cwd.starts_with(folder) {
            continue;
        }
        let approvals = location.get("tool_approvals").and_then(Value::as_array);
        for approval in approvals.into_iter().flatten() {
            let identifiers = approval.get("commandIdentifiers").and_then(Value::as_array);
            for identifier in identifiers.into_iter().flatten().filter_map(Value::as_str) {
                if segments(command).any(|segment| starts_with_words(segment, identifier)) {
                    return Some(format!(
                        "Copilot CLI was told not to ask again about `{identifier}` in {folder}, so it runs this without asking; gatehouse only watches it"
                    ));
                }
            }
        }
    }
    None
}

/// The simple commands of a command line, split at `;`, `&`, `|` and newlines.
fn segments(command: &str) -> impl Iterator<Item = &str> {
    command
        .split([';', '&', '|', '\n'])
        .map(str::trim)
        .filter(|segment| !segment.is_empty())
}

/// Whether the words of `identifier` are the first words of `segment`.
fn starts_with_words(segment: &str, identifier: &str) -> bool {
    let mut words = segment.split_whitespace();
    let mut wanted = identifier.split_whitespace().peekable();
    wanted.peek().is_some() && wanted.all(|word| words.next() == Some(word))
}

/// Copilot's approvals file: `$COPILOT_HOME/permissions-config.json`, else
/// `~/.copilot/permissions-config.json`.
pub fn approvals_path() -> Option<PathBuf> {
    crate::install::COPILOT_INSTALLER
        .default_settings_path()
        .and_then(|settings| {
            settings
                .parent()
                .map(|folder| folder.join(APPROVALS_FILE_NAME))
        })
}

/// The approvals Copilot saved, or `Null` when there are none or they cannot be read.
pub fn read_approvals() -> Value {
    approvals_path()
        .and_then(|path| std::fs::read(path).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null)
}

/// The arguments of process `pid`, and whether its environment sets `COPILOT_ALLOW_ALL`.
pub fn arguments_and_allow_all(pid: u32) -> (Vec<String>, bool) {
    let split = |bytes: Vec<u8>| -> Vec<String> {
        bytes
            .split(|byte| *byte == 0)
            .filter(|part| !part.is_empty())
            .map(|part| String::from_utf8_lossy(part).into_owned())
            .collect()
    };
    let arguments = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(split)
        .unwrap_or_default();
    let allow_all = std::fs::read(format!("/proc/{pid}/environ"))
        .map(split)
        .unwrap_or_default()
        .iter()
        .any(|variable| {
            variable
                .strip_prefix("COPILOT_ALLOW_ALL=")
                .is_some_and(|value| !value.is_empty() && value != "false" && value != "0")
        });
    (arguments, allow_all)
}

#[cfg(test)]
mod tests;
