//! Installs and removes gatehouse's command hooks in a Codex hooks file: `$CODEX_HOME/hooks.json`,
//! else `~/.codex/hooks.json` (or a project's `.codex/hooks.json`, which Codex loads only for a
//! trusted project). Codex 0.171.0 reads the same shape as Claude Code's settings:
//!
//! ```json
//! { "hooks": { "PermissionRequest": [
//!     { "matcher": "*", "hooks": [ { "type": "command", "command": "...", "timeout": 90 } ] } ] } }
//! ```
//!
//! Codex runs a new or changed hook only after the person reviewed it once: at its next start it
//! shows "Hooks need review" (or `/hooks`). The installer says so and never writes Codex's trust
//! records (`[hooks.state]` in `config.toml`): trusting a hook is the person's decision.
//!
//! [`plan_install`] and [`plan_uninstall`] are pure; [`install_file`] and [`uninstall_file`] add
//! the file handling: a missing file counts as `{}`; a file that is not a JSON object (or whose
//! `hooks` is not an object, or an event's value not an array) is refused and left alone; when
//! nothing changes nothing is written; otherwise the previous content goes to
//! `<file>.gatehouse-backup`, the new content is written to a temporary file and renamed over the
//! file, and nothing is written if the file changed meanwhile.
//!
//! An entry is gatehouse's when its `command` ends with ` hook codex` and its program (the first
//! shell word after any `NAME=value` assignments) is named `gatehouse`, in any folder. Installing
//! again updates gatehouse's entry in place (keeping a matcher the person narrowed) and removes
//! duplicates; uninstalling removes only gatehouse's entries, then the groups and events that this
//! left empty. Every other key, hook and group is kept as it was.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The suffix every gatehouse hook command for Codex ends with.
pub const HOOK_COMMAND_SUFFIX: &str = " hook codex";

/// The suffix appended to the hooks file's name to form its backup's name.
pub const BACKUP_SUFFIX: &str = ".gatehouse-backup";

/// How long a Codex hook holds a prompt for an answer. Codex shows no prompt of its own while its
/// PermissionRequest hook runs, so this is short; `release` hands the prompt back at once.
pub const CODEX_WAIT_SECONDS: u64 = 60;

/// How much longer Codex lets the PermissionRequest hook run than gatehouse holds the prompt, so
/// that gatehouse's own deadline always comes first.
pub const TIMEOUT_MARGIN_SECONDS: u64 = 30;

/// One event gatehouse hooks, with the matcher of a new group and the hook's timeout in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEvent {
    pub name: &'static str,
    pub matcher: Option<&'static str>,
    pub timeout_seconds: u64,
}

/// The events gatehouse installs a hook for, in order: the prompt, and what settles it. Codex
/// 0.171.0 caps the timeout of `Interrupt` and `SessionEnd` hooks at 3 seconds.
pub const EVENTS: [HookEvent; 6] = [
    HookEvent { name: "PermissionRequest", matcher: Some("*"), timeout_seconds: CODEX_WAIT_SECONDS + TIMEOUT_MARGIN_SECONDS },
    HookEvent { name: "PostToolUse", matcher: Some("*"), timeout_seconds: 10 },
    HookEvent { name: "UserPromptSubmit", matcher: None, timeout_seconds: 10 },
    HookEvent { name: "Stop", matcher: None, timeout_seconds: 10 },
    HookEvent { name: "Interrupt", matcher: None, timeout_seconds: 3 },
    HookEvent { name: "SessionEnd", matcher: None, timeout_seconds: 3 },
];

impl HookEvent {
    fn desired_entry(&self, command: &str) -> Map<String, Value> {
        let mut entry = Map::new();
        entry.insert("type".into(), "command".into());
        entry.insert("command".into(), command.into());
        entry.insert("timeout".into(), self.timeout_seconds.into());
        entry
    }
}

/// One change, per event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added { event: String },
    Updated { event: String },
    Removed { event: String },
}

impl fmt::Display for Change {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Added { event } => write!(formatter, "added the {event} hook"),
            Change::Updated { event } => write!(formatter, "updated the {event} hook"),
            Change::Removed { event } => write!(formatter, "removed the {event} hook"),
        }
    }
}

/// What [`install_file`] or [`uninstall_file`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    pub path: PathBuf,
    /// Where the previous content was saved, when an existing file was changed.
    pub backup: Option<PathBuf>,
    /// What changed; empty when the file was not written.
    pub changes: Vec<Change>,
}

/// Why installing or uninstalling failed. The hooks file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("could not read the Codex hooks file {path}: {source}; check that it is readable, then try again")]
    Read { path: PathBuf, source: io::Error },
    #[error("the Codex hooks file {path} is not valid JSON ({source}), so it was left unchanged; fix it (or move it away), then try again")]
    NotJson { path: PathBuf, source: serde_json::Error },
    #[error("the Codex hooks file {path} does not have the shape {{\"hooks\": {{\"Event\": [...]}}}} ({problem}), so it was left unchanged; fix it, then try again")]
    WrongShape { path: PathBuf, problem: String },
    #[error("the hook command {command:?} would not be recognised as gatehouse's later; this is a bug in the caller")]
    CommandNotRecognised { command: String },
    #[error("could not write {path}: {source}; the previous content is still in place; check the folder's permissions and free space, then try again")]
    Write { path: PathBuf, source: io::Error },
    #[error("the Codex hooks file {path} changed while gatehouse was updating it, so gatehouse did not write it; run the command again")]
    ChangedMeanwhile { path: PathBuf },
}

/// The hooks file Codex reads for this user: `$CODEX_HOME/hooks.json`, else `~/.codex/hooks.json`.
pub fn default_hooks_path() -> Option<PathBuf> {
    if let Some(codex_home) = std::env::var_os("CODEX_HOME").filter(|folder| !folder.is_empty()) {
        return Some(PathBuf::from(codex_home).join("hooks.json"));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".codex").join("hooks.json"))
}

/// The hook command for a gatehouse binary: it sets the short Codex wait and is quoted for a
/// POSIX shell. `None` when the path is not UTF-8 or not named `gatehouse`.
pub fn hook_command(program: &Path) -> Option<String> {
    let program = program.to_str()?;
    let quoted = format!("'{}'", program.replace('\'', r"'\''"));
    let command = format!("GATEHOUSE_HOOK__WAIT_SECONDS={CODEX_WAIT_SECONDS} {quoted}{HOOK_COMMAND_SUFFIX}");
    is_gatehouse_command(&command).then_some(command)
}

/// Whether a hook command is gatehouse's (see the module documentation).
pub fn is_gatehouse_command(command: &str) -> bool {
    if !command.ends_with(HOOK_COMMAND_SUFFIX) {
        return false;
    }
    let Some(words) = shell_words(command) else { return false };
    let Some(program) = words.iter().find(|word| !is_assignment(word)) else { return false };
    let file_name = program.rsplit(['/', '\\']).next().unwrap_or_default();
    file_name == "gatehouse" || file_name.eq_ignore_ascii_case("gatehouse.exe")
}

/// Whether a shell word is a `NAME=value` assignment.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.chars().next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
            && name.chars().all(|character| character.is_ascii_alphanumeric() || character == '_')
    })
}

/// Splits a POSIX shell command into words, removing quotes and backslash escapes; `None` when a
/// quote is not closed.
fn shell_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut characters = command.chars();
    while let Some(character) = characters.next() {
        match character {
            character if character.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match characters.next()? {
                        '\'' => break,
                        other => current.push(other),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match characters.next()? {
                        '"' => break,
                        '\\' => {
                            let escaped = characters.next()?;
                            if !matches!(escaped, '$' | '`' | '"' | '\\' | '\n') {
                                current.push('\\');
                            }
                            current.push(escaped);
                        }
                        other => current.push(other),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(characters.next()?),
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    Some(words)
}

fn is_gatehouse_entry(entry: &Value) -> bool {
    entry.get("command").and_then(Value::as_str).is_some_and(is_gatehouse_command)
}

/// The positions `(group, entry)` of gatehouse's entries among an event's groups, in order.
fn gatehouse_positions(groups: &[Value]) -> Vec<(usize, usize)> {
    let mut positions = Vec::new();
    for (group_index, group) in groups.iter().enumerate() {
        let entries = group.get("hooks").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for (entry_index, entry) in entries.iter().enumerate() {
            if is_gatehouse_entry(entry) {
                positions.push((group_index, entry_index));
            }
        }
    }
    positions
}

/// Removes the entries at `positions` (in document order), then the groups this left empty.
fn remove_entries(groups: &mut Vec<Value>, positions: &[(usize, usize)]) {
    for &(group_index, entry_index) in positions.iter().rev() {
        let entries = groups[group_index]["hooks"].as_array_mut().expect("positions point into hooks arrays");
        entries.remove(entry_index);
        if entries.is_empty() {
            groups.remove(group_index);
        }
    }
}

/// The hooks with gatehouse's entries installed for `command`, and what changed. When nothing
/// needs to change, the result equals the input and the list is empty.
pub fn plan_install(settings: &Value, command: &str) -> Result<(Value, Vec<Change>), String> {
    let mut updated = settings.clone();
    let root = updated.as_object_mut().ok_or_else(|| "the top level is not an object".to_owned())?;
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| "\"hooks\" is not an object".to_owned())?;
    let mut changes = Vec::new();
    for event in &EVENTS {
        let groups = hooks
            .entry(event.name)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| format!("\"hooks\".\"{}\" is not an array", event.name))?;
        let desired = event.desired_entry(command);
        let positions = gatehouse_positions(groups);
        let Some((&(group_index, entry_index), duplicates)) = positions.split_first() else {
            let mut group = Map::new();
            if let Some(matcher) = event.matcher {
                group.insert("matcher".into(), matcher.into());
            }
            group.insert("hooks".into(), Value::Array(vec![Value::Object(desired)]));
            groups.push(Value::Object(group));
            changes.push(Change::Added { event: event.name.into() });
            continue;
        };
        let entry = groups[group_index]["hooks"][entry_index].as_object_mut().expect("gatehouse's entries are objects");
        let mut changed = false;
        for (key, value) in desired {
            if entry.get(&key) != Some(&value) {
                entry.insert(key, value);
                changed = true;
            }
        }
        if !duplicates.is_empty() {
            remove_entries(groups, duplicates);
            changed = true;
        }
        if changed {
            changes.push(Change::Updated { event: event.name.into() });
        }
    }
    if changes.is_empty() {
        return Ok((settings.clone(), changes));
    }
    Ok((updated, changes))
}

/// The hooks with every gatehouse entry removed, and what changed.
pub fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), String> {
    let mut updated = settings.clone();
    let root = updated.as_object_mut().ok_or_else(|| "the top level is not an object".to_owned())?;
    let Some(hooks) = root.get_mut("hooks") else { return Ok((settings.clone(), Vec::new())) };
    let hooks = hooks.as_object_mut().ok_or_else(|| "\"hooks\" is not an object".to_owned())?;
    let mut changes = Vec::new();
    let mut emptied = Vec::new();
    for (name, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else { continue };
        let positions = gatehouse_positions(groups);
        if positions.is_empty() {
            continue;
        }
        remove_entries(groups, &positions);
        changes.push(Change::Removed { event: name.clone() });
        if groups.is_empty() {
            emptied.push(name.clone());
        }
    }
    if changes.is_empty() {
        return Ok((settings.clone(), changes));
    }
    hooks.retain(|name, _| !emptied.contains(name));
    if hooks.is_empty() {
        root.retain(|key, _| key != "hooks");
    }
    Ok((updated, changes))
}

/// Installs gatehouse's hooks, running `command`, into the hooks file at `path`.
pub fn install_file(path: &Path, command: &str) -> Result<InstallReport, InstallError> {
    if !is_gatehouse_command(command) {
        return Err(InstallError::CommandNotRecognised { command: command.into() });
    }
    apply_to_file(path, |settings| plan_install(settings, command))
}

/// Removes gatehouse's hooks from the hooks file at `path`; a missing file is left missing.
pub fn uninstall_file(path: &Path) -> Result<InstallReport, InstallError> {
    apply_to_file(path, plan_uninstall)
}

/// Where the backup of `path` is saved.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut backup = path.as_os_str().to_owned();
    backup.push(BACKUP_SUFFIX);
    PathBuf::from(backup)
}

fn read_if_present(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

fn apply_to_file(
    path: &Path,
    make_plan: impl FnOnce(&Value) -> Result<(Value, Vec<Change>), String>,
) -> Result<InstallReport, InstallError> {
    // Writing through a symbolic link keeps the link and updates the file it names.
    let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let original = read_if_present(&target).map_err(|source| InstallError::Read { path: path.into(), source })?;
    let settings = match original.as_deref() {
        Some(bytes) if !bytes.iter().all(u8::is_ascii_whitespace) => {
            serde_json::from_slice(bytes).map_err(|source| InstallError::NotJson { path: path.into(), source })?
        }
        _ => Value::Object(Map::new()),
    };
    let (updated, changes) = make_plan(&settings).map_err(|problem| InstallError::WrongShape { path: path.into(), problem })?;
    if changes.is_empty() {
        return Ok(InstallReport { path: path.into(), backup: None, changes });
    }
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InstallError::Write { path, source }
    };
    let folder = target.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(folder).map_err(write_error(folder))?;
    let backup = match &original {
        Some(bytes) => {
            let backup = backup_path(&target);
            write_atomically(&backup, bytes, &target).map_err(write_error(&backup))?;
            Some(backup)
        }
        None => None,
    };
    if read_if_present(&target).ok().flatten() != original {
        return Err(InstallError::ChangedMeanwhile { path: path.into() });
    }
    let mut text = serde_json::to_string_pretty(&updated).expect("a JSON value always serialises");
    text.push('\n');
    write_atomically(&target, text.as_bytes(), &target).map_err(write_error(path))?;
    Ok(InstallReport { path: path.into(), backup, changes })
}

/// Writes `bytes` to a temporary file beside `path`, with the permissions of `permissions_from`
/// when it exists, and renames it over `path`.
fn write_atomically(path: &Path, bytes: &[u8], permissions_from: &Path) -> io::Result<()> {
    let file_name = path.file_name().ok_or_else(|| io::Error::other("the path does not name a file"))?.to_string_lossy();
    let temporary = path.with_file_name(format!(".{file_name}.gatehouse-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        if let Ok(metadata) = fs::metadata(permissions_from) {
            file.set_permissions(metadata.permissions())?;
        }
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests;
