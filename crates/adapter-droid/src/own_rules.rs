//! Whether Factory Droid runs a shell call without asking, as far as gatehouse can tell. Droid
//! 0.225.2 runs its `PreToolUse` hook for every call, before it decides whether to ask, and
//! waits for it each time; a call it runs by its own rules must not be held for an answer nobody
//! needs to give. Droid's payload says enough for two of its rules:
//!
//! - its autonomy level (`permission_mode`): in Auto (Off) it asks about every command; in Auto
//!   (Low), (Medium) and (High) it runs the commands whose risk (the `riskLevel` the model gave
//!   the call: `low`, `medium`, `high`) is at most that level without asking, as its modes say;
//!   any other mode (`spec`, or one gatehouse does not know) is left to Droid alone;
//! - its command allowlist: the person's `commandAllowlist` in `~/.factory/settings.json`, else
//!   Droid's own (`ls`, `pwd`, `git status`, ...), whose commands it runs in any mode. Droid
//!   0.225.2 ran `git log --oneline -3` unasked for `git log` and asked for `ls -la; touch x.txt`,
//!   so here a command is allowlisted when each of its simple commands (split at `;`, `&`, `|`
//!   and new lines) starts with the words of an allowlisted command, and none of them redirects,
//!   substitutes or groups (`>`, `<`, `$`, backquotes, parentheses, braces).
//!
//! What it cannot tell (such calls are held like any other; Droid then runs them once the hold
//! ends): a project's own allowlist, and rules Droid keeps elsewhere. Either error is safe: a call
//! only watched that Droid asks about is answered in Droid's dialog, a call held that Droid would
//! run is only delayed.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Droid 0.225.2's own allowlist, which the person's `commandAllowlist` replaces.
pub const DEFAULT_ALLOWLIST: [&str; 9] = [
    "ls",
    "pwd",
    "dir",
    "git status",
    "git diff",
    "git log",
    "git show",
    "git blame",
    "git ls-files",
];

/// The largest settings file read for the allowlist; a larger one counts as unreadable.
const SETTINGS_MAX_BYTES: u64 = 4 * 1024 * 1024;

/// The characters that make a simple command more than a program and its words, which the
/// allowlist is never taken to cover.
const SHELL_SYNTAX: [char; 8] = ['>', '<', '$', '`', '(', ')', '{', '}'];

/// Droid's autonomy levels that run calls by risk, and the highest risk each runs unasked.
const AUTO_LEVELS: [(&str, &str, usize); 3] = [
    ("auto-low", "Auto (Low)", 0),
    ("auto-medium", "Auto (Medium)", 1),
    ("auto-high", "Auto (High)", 2),
];

/// The risk levels Droid's model gives a command, lowest first.
const RISKS: [&str; 3] = ["low", "medium", "high"];

/// Why Droid runs `command` without asking (or why gatehouse leaves it to Droid), in `mode`
/// (the payload's `permission_mode`) at `risk` (the call's `riskLevel`), with `allowlist`;
/// `None` when Droid asks about it, so that gatehouse may hold it.
pub fn runs_without_asking(
    command: &str,
    mode: &str,
    risk: Option<&str>,
    allowlist: &[String],
) -> Option<String> {
    if let Some(entry) = allowlisted(command, allowlist) {
        return Some(format!(
            "Droid runs commands of its allowlist without asking (this one starts with `{entry}`); gatehouse only watches it"
        ));
    }
    if mode == "off" {
        return None;
    }
    let Some((_, level_name, highest)) = AUTO_LEVELS.iter().find(|(name, _, _)| *name == mode)
    else {
        return Some(
            "Droid is in a mode other than its Auto levels (such as Spec), which gatehouse leaves to Droid; answer it in Droid's terminal"
                .into(),
        );
    };
    let rank = risk.and_then(|risk| RISKS.iter().position(|known| *known == risk))?;
    (rank <= *highest).then(|| {
        format!(
            "Droid's autonomy level {level_name} runs {}-risk commands without asking; gatehouse only watches it",
            RISKS[rank]
        )
    })
}

/// The allowlisted command that covers `command`, if every simple command of it starts with the
/// words of one (see the module documentation).
fn allowlisted<'a>(command: &str, allowlist: &'a [String]) -> Option<&'a str> {
    let mut segments = command
        .split([';', '&', '|', '\n', '\r'])
        .map(str::trim)
        .filter(|segment| !segment.is_empty())
        .peekable();
    segments.peek()?;
    let mut first = None;
    for segment in segments {
        if segment.contains(SHELL_SYNTAX) {
            return None;
        }
        let entry = allowlist
            .iter()
            .find(|entry| starts_with_words(segment, entry))?;
        first.get_or_insert(entry.as_str());
    }
    first
}

/// Whether the words of `entry` are the first words of `segment`.
fn starts_with_words(segment: &str, entry: &str) -> bool {
    let mut words = segment.split_whitespace();
    let mut wanted = entry.split_whitespace().peekable();
    wanted.peek().is_some() && wanted.all(|word| words.next() == Some(word))
}

/// The allowlist in Droid's `settings` (its `commandAllowlist`, an array of commands), else
/// Droid's own.
pub fn allowlist_in(settings: &Value) -> Vec<String> {
    match settings.get("commandAllowlist").and_then(Value::as_array) {
        Some(entries) => entries
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        None => DEFAULT_ALLOWLIST.map(str::to_owned).to_vec(),
    }
}

/// Droid's user settings file, as its installer finds it.
pub fn settings_path() -> Option<PathBuf> {
    crate::install::DROID_INSTALLER.default_settings_path()
}

/// The allowlist of the person's Droid settings ([`allowlist_in`], [`read_allowlist_from`]).
pub fn read_allowlist() -> Vec<String> {
    match settings_path() {
        Some(path) => read_allowlist_from(&path),
        None => allowlist_in(&Value::Null),
    }
}

/// The allowlist of the Droid settings file at `path` ([`allowlist_in`]); Droid's own when the
/// file is missing, larger than 4 MiB or not JSON.
pub fn read_allowlist_from(path: &Path) -> Vec<String> {
    use std::io::Read;
    let settings = std::fs::File::open(path)
        .ok()
        .and_then(|file| {
            let mut bytes = Vec::new();
            file.take(SETTINGS_MAX_BYTES + 1)
                .read_to_end(&mut bytes)
                .ok()?;
            (bytes.len() as u64 <= SETTINGS_MAX_BYTES).then_some(bytes)
        })
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null);
    allowlist_in(&settings)
}

#[cfg(test)]
mod tests;
