//! Installs and removes gatehouse's command hooks in a Claude Code settings file.
//!
//! `gatehouse install claude` adds one hook entry per event in [`EVENTS`] to the
//! `hooks` table of a Claude Code settings file, and `gatehouse uninstall claude`
//! removes those entries again. The settings format is:
//!
//! ```json
//! {
//!   "hooks": {
//!     "PermissionRequest": [
//!       { "matcher": "*", "hooks": [ { "type": "command", "command": "...", "timeout": 600 } ] }
//!     ]
//!   }
//! }
//! ```
//!
//! The work is split in two layers. [`plan_install`] and [`plan_uninstall`] are pure: they
//! take the parsed settings and return the new settings plus a list of [`Change`]s.
//! [`install_file`] and [`uninstall_file`] add the file handling around them.
//!
//! # Which entries belong to gatehouse
//!
//! A hook entry belongs to gatehouse when it is a JSON object whose `command` string ends with
//! ` hook claude` and whose program (the first shell word, with quotes and escapes removed) has
//! the file name `gatehouse` (or `gatehouse.exe`). The folder of the program does not matter,
//! so an entry written by a binary that has since moved is still recognised and replaced.
//! See [`is_gatehouse_command`]. Nothing else in the settings is ever changed.
//!
//! # Guarantees
//!
//! - Every other setting and every other hook keeps its value. Entries are matched and edited
//!   in place; foreign hooks that share a matcher group with gatehouse's entry stay in that group.
//! - Key order: the settings are held in a `serde_json::Map`. Without `serde_json`'s
//!   `preserve_order` feature that map sorts keys alphabetically, so a rewritten file has its
//!   keys sorted. With the feature, the original key order is kept (this module only uses
//!   order-preserving edits: in-place updates, appends and `retain`).
//! - Installing is idempotent. When nothing needs to change, no change is reported, the file is
//!   not written and no backup is made.
//! - Installing again with a different binary path or hold timeout updates gatehouse's entry in
//!   place and reports [`Change::Updated`]. If an event holds several gatehouse entries, the
//!   first is kept and the others are removed, so a prompt is never handled twice.
//! - When an event has no gatehouse entry, a new group is appended: `{"matcher": "*", "hooks":
//!   [entry]}` for tool events and `{"hooks": [entry]}` for events without a matcher. A group
//!   that already holds gatehouse's entry keeps its matcher, so a matcher the user narrowed
//!   stays narrowed.
//! - Uninstalling removes gatehouse's entries from every event (not only those in [`EVENTS`]),
//!   then removes the matcher groups it left empty, then the events it left without groups,
//!   then `hooks` if that ended up empty. Containers that were already empty are left alone.
//! - A settings file that is not valid JSON, or whose top level or `hooks` value is not a JSON
//!   object, is refused with an error and never overwritten. A missing file counts as `{}`, and
//!   so does a file that holds only whitespace.
//! - Before a changed file that already exists is written, its previous content is saved to
//!   `<file>.gatehouse-backup` (see [`backup_path`]) with the same permissions. An older backup at
//!   that path is overwritten, so the backup always holds the content from just before the most
//!   recent change.
//! - Files are written atomically: the new content goes to a temporary file in the same folder,
//!   which is flushed to disk and then renamed over the settings file. Missing parent folders are
//!   created. An existing file's permissions are kept. If the settings path is a symbolic link,
//!   the file it points to is updated and the link stays in place.
//! - If the file changes on disk between reading and writing (for example because Claude Code
//!   saved it meanwhile), nothing is written and [`InstallError::SettingsChangedMeanwhile`] is
//!   returned.
//! - The output is pretty-printed JSON with a two-space indent and a trailing newline.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

/// The suffix every gatehouse hook command ends with.
pub const HOOK_COMMAND_SUFFIX: &str = " hook claude";

/// The suffix appended to a settings file's name to form its backup's name.
pub const BACKUP_SUFFIX: &str = ".gatehouse-backup";

/// The timeout, in seconds, of the hooks that only report what happened and never wait for a
/// person.
pub const SHORT_TIMEOUT_SECONDS: u64 = 10;

/// The events gatehouse installs a hook for, in the order they are installed.
pub const EVENTS: [HookEvent; 4] = [
    HookEvent {
        name: "PermissionRequest",
        matcher: Some("*"),
        timeout: HookTimeout::HoldTimeout,
    },
    HookEvent {
        name: "PostToolUse",
        matcher: Some("*"),
        timeout: HookTimeout::Seconds(SHORT_TIMEOUT_SECONDS),
    },
    HookEvent {
        name: "Stop",
        matcher: None,
        timeout: HookTimeout::Seconds(SHORT_TIMEOUT_SECONDS),
    },
    HookEvent {
        name: "SessionEnd",
        matcher: None,
        timeout: HookTimeout::Seconds(SHORT_TIMEOUT_SECONDS),
    },
];

/// What to install: the shell command Claude Code runs, and how long a held prompt may wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookPlan {
    /// The full hook command, for example `'/abs/path/to/gatehouse' hook claude`.
    /// It must be recognised by [`is_gatehouse_command`]; [`hook_command`] builds one.
    pub command: String,
    /// The timeout, in seconds, of the `PermissionRequest` hook, which holds the prompt until a
    /// person answers.
    pub hold_timeout_seconds: u64,
}

/// One Claude Code hook event that gatehouse installs a hook for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEvent {
    /// The event name as it appears under `hooks` in the settings, such as `PermissionRequest`.
    pub name: &'static str,
    /// The matcher of a newly added group, or `None` for events that take no matcher.
    pub matcher: Option<&'static str>,
    /// The timeout written into the hook entry.
    pub timeout: HookTimeout,
}

/// How the timeout of a hook entry is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookTimeout {
    /// Use [`HookPlan::hold_timeout_seconds`].
    HoldTimeout,
    /// Use this fixed number of seconds.
    Seconds(u64),
}

impl HookEvent {
    /// Returns the timeout in seconds that this event's entry gets under the given plan.
    #[must_use]
    pub fn timeout_seconds(&self, plan: &HookPlan) -> u64 {
        match self.timeout {
            HookTimeout::HoldTimeout => plan.hold_timeout_seconds,
            HookTimeout::Seconds(seconds) => seconds,
        }
    }

    /// Returns the hook entry gatehouse wants for this event under the given plan.
    fn desired_entry(&self, plan: &HookPlan) -> Map<String, Value> {
        let mut entry = Map::new();
        entry.insert("type".to_owned(), Value::from("command"));
        entry.insert("command".to_owned(), Value::from(plan.command.clone()));
        entry.insert(
            "timeout".to_owned(),
            Value::from(self.timeout_seconds(plan)),
        );
        entry
    }

    /// Returns a new matcher group that holds only the given entry.
    fn new_group(&self, entry: Map<String, Value>) -> Value {
        let mut group = Map::new();
        if let Some(matcher) = self.matcher {
            group.insert("matcher".to_owned(), Value::from(matcher));
        }
        group.insert("hooks".to_owned(), Value::Array(vec![Value::Object(entry)]));
        Value::Object(group)
    }
}

/// One change made to the settings, reported per event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A gatehouse entry was added to an event that had none.
    Added { event: String },
    /// The gatehouse entry of an event was changed in place, or duplicates of it were removed.
    Updated { event: String },
    /// The gatehouse entries of an event were removed.
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

/// The outcome of [`install_file`] or [`uninstall_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    /// The settings file, as the caller named it.
    pub path: PathBuf,
    /// Where the previous content was saved, when an existing file was changed.
    pub backup: Option<PathBuf>,
    /// What changed. When this is empty, the file was not written.
    pub changes: Vec<Change>,
}

/// Why installing or uninstalling failed. The settings file is unchanged in every case.
///
/// Errors that wrap an I/O or JSON error expose it through `std::error::Error::source`, so print
/// them with their causes (for example with anyhow's `{:#}`).
///
/// The shape errors carry `path: None` when they come from [`plan_install`] or
/// [`plan_uninstall`], which do not know the file, and the settings path when they come from
/// [`install_file`] or [`uninstall_file`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    #[error("could not read the Claude Code settings file {path}; check that it exists and is readable, then try again")]
    ReadSettings {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("the Claude Code settings file {path} is not valid JSON, so it was left unchanged; fix the file (or move it away), then try again")]
    SettingsNotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    #[error("{} is not a JSON object, so it was left unchanged; it must look like {{\"hooks\": {{...}}}}, so fix it, then try again", describe_settings(.path.as_deref()))]
    SettingsNotObject { path: Option<PathBuf> },

    #[error("the \"hooks\" value in {} is not a JSON object, so it was left unchanged; make it an object such as {{\"hooks\": {{}}}}, then try again", describe_settings(.path.as_deref()))]
    HooksNotObject { path: Option<PathBuf> },

    #[error("the \"hooks\".\"{event}\" value in {} is not a JSON array, so it was left unchanged; make it an array of matcher groups, then try again", describe_settings(.path.as_deref()))]
    EventNotArray {
        path: Option<PathBuf>,
        event: String,
    },

    #[error("the hook command {command:?} does not run a program named gatehouse and end with \"{HOOK_COMMAND_SUFFIX}\", so it could not be recognised later; this is a bug in the caller")]
    CommandNotRecognised { command: String },

    #[error("could not create the folder {path} for the Claude Code settings; check its permissions, then try again")]
    CreateFolder {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("could not save a backup of {path} to {backup}, so the settings were left unchanged; check the folder's permissions and free space, then try again")]
    WriteBackup {
        path: PathBuf,
        backup: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("could not write the Claude Code settings file {path}; the previous content is still in place; check the folder's permissions and free space, then try again")]
    WriteSettings {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("the Claude Code settings file {path} changed while gatehouse was updating it, so gatehouse did not write it; run the command again")]
    SettingsChangedMeanwhile { path: PathBuf },
}

/// Names the settings in an error message, with or without a known file.
fn describe_settings(path: Option<&Path>) -> String {
    match path {
        Some(path) => format!("the Claude Code settings file {}", path.display()),
        None => "the Claude Code settings".to_owned(),
    }
}

impl InstallError {
    /// Fills in the settings path of a shape error that came from the pure planning layer.
    fn at_path(self, settings_path: &Path) -> Self {
        let known = Some(settings_path.to_path_buf());
        match self {
            InstallError::SettingsNotObject { path: None } => {
                InstallError::SettingsNotObject { path: known }
            }
            InstallError::HooksNotObject { path: None } => {
                InstallError::HooksNotObject { path: known }
            }
            InstallError::EventNotArray { path: None, event } => {
                InstallError::EventNotArray { path: known, event }
            }
            other => other,
        }
    }
}

/// Builds the hook command for a gatehouse binary, quoted for a POSIX shell.
///
/// Returns `None` when the path is not valid UTF-8 (it could not be written into JSON exactly)
/// or when its file name is not `gatehouse`, because such a command would not be recognised as
/// gatehouse's later.
#[must_use]
pub fn hook_command(program: &Path) -> Option<String> {
    let program = program.to_str()?;
    let command = format!("{}{HOOK_COMMAND_SUFFIX}", quote_for_shell(program));
    is_gatehouse_command(&command).then_some(command)
}

/// Quotes a word for a POSIX shell by wrapping it in single quotes.
fn quote_for_shell(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Tells whether a hook command is gatehouse's own: it ends with ` hook claude` and its program
/// (the first shell word, with quotes and escapes removed) has the file name `gatehouse` or
/// `gatehouse.exe`, in any folder.
#[must_use]
pub fn is_gatehouse_command(command: &str) -> bool {
    if !command.ends_with(HOOK_COMMAND_SUFFIX) {
        return false;
    }
    let Some(program) = first_shell_word(command) else {
        return false;
    };
    // Both separators are accepted so that Windows paths are recognised too.
    let file_name = program.rsplit(['/', '\\']).next().unwrap_or_default();
    file_name == "gatehouse" || file_name.eq_ignore_ascii_case("gatehouse.exe")
}

/// Returns the first word of a POSIX shell command with quotes and backslash escapes removed,
/// or `None` when there is no word or a quote is not closed.
fn first_shell_word(command: &str) -> Option<String> {
    #[derive(PartialEq)]
    enum Quoting {
        None,
        Single,
        Double,
    }

    let mut word = String::new();
    let mut quoting = Quoting::None;
    let mut started = false;
    let mut characters = command.trim_start().chars();
    while let Some(character) = characters.next() {
        match quoting {
            Quoting::None => match character {
                character if character.is_whitespace() => break,
                '\'' => quoting = Quoting::Single,
                '"' => quoting = Quoting::Double,
                '\\' => word.push(characters.next()?),
                other => word.push(other),
            },
            Quoting::Single => match character {
                '\'' => quoting = Quoting::None,
                other => word.push(other),
            },
            Quoting::Double => match character {
                '"' => quoting = Quoting::None,
                '\\' => {
                    let escaped = characters.next()?;
                    // Inside double quotes a backslash only escapes these characters.
                    if !matches!(escaped, '$' | '`' | '"' | '\\' | '\n') {
                        word.push('\\');
                    }
                    word.push(escaped);
                }
                other => word.push(other),
            },
        }
        started = true;
    }
    if quoting != Quoting::None || !started || word.is_empty() {
        return None;
    }
    Some(word)
}

/// Tells whether a hook entry (one element of a matcher group's `hooks` array) is gatehouse's.
fn is_gatehouse_entry(entry: &Value) -> bool {
    entry
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(is_gatehouse_command)
}

/// Returns the `hooks` array of a matcher group, or `None` when the group does not have the
/// expected shape (such groups are never touched).
fn group_entries_mut(group: &mut Value) -> Option<&mut Vec<Value>> {
    group.get_mut("hooks")?.as_array_mut()
}

/// Returns the positions `(group index, entry index)` of gatehouse's entries in an event's
/// groups, in document order.
fn gatehouse_entry_positions(groups: &[Value]) -> Vec<(usize, usize)> {
    let mut positions = Vec::new();
    for (group_index, group) in groups.iter().enumerate() {
        let Some(entries) = group.get("hooks").and_then(Value::as_array) else {
            continue;
        };
        for (entry_index, entry) in entries.iter().enumerate() {
            if is_gatehouse_entry(entry) {
                positions.push((group_index, entry_index));
            }
        }
    }
    positions
}

/// Removes the entries at the given positions, then removes each group that this left empty.
/// The positions must be in document order, as [`gatehouse_entry_positions`] returns them.
fn remove_entries(groups: &mut Vec<Value>, positions: &[(usize, usize)]) {
    // Going backwards keeps the indexes of the positions still to be removed valid.
    for &(group_index, entry_index) in positions.iter().rev() {
        let entries = group_entries_mut(&mut groups[group_index])
            .expect("positions come from gatehouse_entry_positions on the same groups");
        entries.remove(entry_index);
        if entries.is_empty() {
            groups.remove(group_index);
        }
    }
}

/// Returns the settings with gatehouse's hooks installed, and what changed.
///
/// When nothing needs to change, the returned settings equal the input and the list is empty.
/// See the module documentation for the rules.
///
/// # Errors
///
/// Fails when `plan.command` is not recognised by [`is_gatehouse_command`], or when the settings,
/// their `hooks` value or one of gatehouse's events has the wrong JSON type.
pub fn plan_install(
    settings: &Value,
    plan: &HookPlan,
) -> Result<(Value, Vec<Change>), InstallError> {
    if !is_gatehouse_command(&plan.command) {
        return Err(InstallError::CommandNotRecognised {
            command: plan.command.clone(),
        });
    }

    let mut updated = settings.clone();
    let root = updated
        .as_object_mut()
        .ok_or(InstallError::SettingsNotObject { path: None })?;
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(InstallError::HooksNotObject { path: None })?;

    let mut changes = Vec::new();
    for event in &EVENTS {
        let groups = hooks
            .entry(event.name)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| InstallError::EventNotArray {
                path: None,
                event: event.name.to_owned(),
            })?;
        if let Some(change) = install_event(event, groups, plan) {
            changes.push(change);
        }
    }

    if changes.is_empty() {
        // Returning the input untouched guarantees that no empty container was added.
        return Ok((settings.clone(), changes));
    }
    Ok((updated, changes))
}

/// Installs gatehouse's entry into one event's matcher groups and returns what changed.
fn install_event(event: &HookEvent, groups: &mut Vec<Value>, plan: &HookPlan) -> Option<Change> {
    let desired = event.desired_entry(plan);
    let positions = gatehouse_entry_positions(groups);
    let Some((&(first_group, first_entry), duplicates)) = positions.split_first() else {
        groups.push(event.new_group(desired));
        return Some(Change::Added {
            event: event.name.to_owned(),
        });
    };

    let mut changed = false;
    let entry = group_entries_mut(&mut groups[first_group])
        .and_then(|entries| entries.get_mut(first_entry))
        .and_then(Value::as_object_mut)
        .expect("gatehouse entries are objects inside a group's hooks array");
    // Only the keys gatehouse owns are set; any other key on the entry is kept.
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

    changed.then(|| Change::Updated {
        event: event.name.to_owned(),
    })
}

/// Returns the settings with every gatehouse hook entry removed, and what changed.
///
/// When nothing needs to change, the returned settings equal the input and the list is empty.
/// See the module documentation for the rules.
///
/// # Errors
///
/// Fails when the settings or their `hooks` value is not a JSON object.
pub fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    let mut updated = settings.clone();
    let root = updated
        .as_object_mut()
        .ok_or(InstallError::SettingsNotObject { path: None })?;
    let Some(hooks_value) = root.get_mut("hooks") else {
        return Ok((settings.clone(), Vec::new()));
    };
    let hooks = hooks_value
        .as_object_mut()
        .ok_or(InstallError::HooksNotObject { path: None })?;

    let mut changes = Vec::new();
    let mut emptied_events = Vec::new();
    for (event_name, groups_value) in hooks.iter_mut() {
        // An event whose value is not an array cannot hold gatehouse's entry; leave it alone.
        let Some(groups) = groups_value.as_array_mut() else {
            continue;
        };
        let positions = gatehouse_entry_positions(groups);
        if positions.is_empty() {
            continue;
        }
        remove_entries(groups, &positions);
        changes.push(Change::Removed {
            event: event_name.clone(),
        });
        if groups.is_empty() {
            emptied_events.push(event_name.clone());
        }
    }

    if changes.is_empty() {
        return Ok((settings.clone(), changes));
    }
    // `retain` keeps the order of the remaining keys, unlike `Map::remove` with `preserve_order`.
    hooks.retain(|event_name, _| !emptied_events.contains(event_name));
    if hooks.is_empty() {
        root.retain(|key, _| key != "hooks");
    }
    Ok((updated, changes))
}

/// Installs gatehouse's hooks into the settings file at `path`.
///
/// A missing file is treated as `{}` and created, together with its parent folders. When the
/// plan changes nothing, the file is not written and no backup is made.
///
/// # Errors
///
/// Fails, leaving the file unchanged, when it cannot be read, is not valid JSON, has the wrong
/// shape (see [`plan_install`]), or when the backup or the new content cannot be written.
pub fn install_file(path: &Path, plan: &HookPlan) -> Result<InstallReport, InstallError> {
    apply_to_file(path, |settings| plan_install(settings, plan))
}

/// Removes gatehouse's hooks from the settings file at `path`.
///
/// A missing file has nothing to remove and is not created.
///
/// # Errors
///
/// Fails, leaving the file unchanged, when it cannot be read, is not valid JSON, has the wrong
/// shape (see [`plan_uninstall`]), or when the backup or the new content cannot be written.
pub fn uninstall_file(path: &Path) -> Result<InstallReport, InstallError> {
    apply_to_file(path, plan_uninstall)
}

/// Returns where the backup of the settings file at `path` is saved: the same path with
/// `.gatehouse-backup` appended.
#[must_use]
pub fn backup_path(path: &Path) -> PathBuf {
    let mut backup = path.as_os_str().to_owned();
    backup.push(BACKUP_SUFFIX);
    PathBuf::from(backup)
}

/// Reads the settings file, applies a plan, and writes the result when it changed.
fn apply_to_file(
    path: &Path,
    make_plan: impl FnOnce(&Value) -> Result<(Value, Vec<Change>), InstallError>,
) -> Result<InstallReport, InstallError> {
    let target = resolve_symbolic_links(path)?;
    let original = read_if_present(&target)?;
    let settings = match &original {
        Some(content) => parse_settings(path, &content.bytes)?,
        None => Value::Object(Map::new()),
    };

    let (updated, changes) = make_plan(&settings).map_err(|error| error.at_path(path))?;
    if changes.is_empty() {
        return Ok(InstallReport {
            path: path.to_path_buf(),
            backup: None,
            changes,
        });
    }

    let mut new_text =
        serde_json::to_string_pretty(&updated).expect("a serde_json::Value always serialises");
    new_text.push('\n');

    let folder = folder_of(&target);
    fs::create_dir_all(folder).map_err(|source| InstallError::CreateFolder {
        path: folder.to_path_buf(),
        source,
    })?;

    let backup = match &original {
        Some(content) => {
            let backup = backup_path(&target);
            write_atomically(&backup, &content.bytes, Some(&content.permissions), || {
                Ok(())
            })
            .map_err(|source| InstallError::WriteBackup {
                path: path.to_path_buf(),
                backup: backup.clone(),
                source,
            })?;
            Some(backup)
        }
        None => None,
    };

    let permissions = original.as_ref().map(|content| &content.permissions);
    let expected_bytes = original.as_ref().map(|content| content.bytes.as_slice());
    write_atomically(&target, new_text.as_bytes(), permissions, || {
        if read_bytes_if_present(&target)?.as_deref() == expected_bytes {
            Ok(())
        } else {
            Err(io::Error::other(ChangedMeanwhile))
        }
    })
    .map_err(|source| {
        if source
            .get_ref()
            .is_some_and(|inner| inner.is::<ChangedMeanwhile>())
        {
            InstallError::SettingsChangedMeanwhile {
                path: path.to_path_buf(),
            }
        } else {
            InstallError::WriteSettings {
                path: path.to_path_buf(),
                source,
            }
        }
    })?;

    Ok(InstallReport {
        path: path.to_path_buf(),
        backup,
        changes,
    })
}

/// Marks the I/O error raised when the settings file changed between reading and writing.
#[derive(Debug)]
struct ChangedMeanwhile;

impl fmt::Display for ChangedMeanwhile {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("the file changed while it was being updated")
    }
}

impl std::error::Error for ChangedMeanwhile {}

/// The content and permissions of a settings file that exists.
struct ExistingFile {
    bytes: Vec<u8>,
    permissions: fs::Permissions,
}

/// Follows symbolic links from `path` to the file they finally name, so that writing replaces
/// that file and keeps the links. The final file does not need to exist.
fn resolve_symbolic_links(path: &Path) -> Result<PathBuf, InstallError> {
    // Forty links is the limit Linux applies before it reports a loop.
    const MAXIMUM_LINKS: usize = 40;
    let mut current = path.to_path_buf();
    for _ in 0..MAXIMUM_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link =
                    fs::read_link(&current).map_err(|source| InstallError::ReadSettings {
                        path: path.to_path_buf(),
                        source,
                    })?;
                current = folder_of(&current).join(link);
            }
            Ok(_) => return Ok(current),
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(source) => {
                return Err(InstallError::ReadSettings {
                    path: path.to_path_buf(),
                    source,
                })
            }
        }
    }
    Err(InstallError::ReadSettings {
        path: path.to_path_buf(),
        source: io::Error::other("too many levels of symbolic links"),
    })
}

/// Reads the settings file, returning `None` when it does not exist.
fn read_if_present(target: &Path) -> Result<Option<ExistingFile>, InstallError> {
    let read_error = |source| InstallError::ReadSettings {
        path: target.to_path_buf(),
        source,
    };
    let Some(bytes) = read_bytes_if_present(target).map_err(read_error)? else {
        return Ok(None);
    };
    let permissions = fs::metadata(target).map_err(read_error)?.permissions();
    Ok(Some(ExistingFile { bytes, permissions }))
}

/// Reads a file's bytes, returning `None` when it does not exist.
fn read_bytes_if_present(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Parses settings bytes. A UTF-8 byte order mark is skipped and whitespace-only content counts
/// as an empty object.
fn parse_settings(path: &Path, bytes: &[u8]) -> Result<Value, InstallError> {
    const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";
    let bytes = bytes.strip_prefix(BYTE_ORDER_MARK).unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_slice(bytes).map_err(|source| InstallError::SettingsNotJson {
        path: path.to_path_buf(),
        source,
    })
}

/// Returns the folder that holds `path`, using `.` for a bare file name.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Counts temporary files made by this process, so that their names never collide.
static TEMPORARY_FILE_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: writes and flushes a temporary file in the same folder
/// (which must exist), applies `permissions`, runs `check_before_rename`, and
/// renames the temporary file over `path`. The temporary file is removed on any failure.
fn write_atomically(
    path: &Path,
    bytes: &[u8],
    permissions: Option<&fs::Permissions>,
    check_before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    let folder = folder_of(path);
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::other("the settings path does not name a file"))?
        .to_string_lossy();
    let (temporary_path, mut temporary_file) = loop {
        let count = TEMPORARY_FILE_COUNTER.fetch_add(1, Ordering::Relaxed);
        let candidate = folder.join(format!(
            ".{file_name}.gatehouse-{}-{count}.tmp",
            std::process::id()
        ));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => break (candidate, file),
            // A file left behind by an earlier crash may hold this name; try the next one.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    };

    let result = (|| {
        temporary_file.write_all(bytes)?;
        if let Some(permissions) = permissions {
            temporary_file.set_permissions(permissions.clone())?;
        }
        temporary_file.sync_all()?;
        drop(temporary_file);
        check_before_rename()?;
        fs::rename(&temporary_path, path)
    })();
    if result.is_err() {
        // The temporary file is ours; removing it is best effort and its failure is not news.
        let _ = fs::remove_file(&temporary_path);
        return result;
    }

    // Flushing the folder makes the rename itself durable on Unix. Failing to do so does not
    // undo the write, so the error is ignored.
    #[cfg(unix)]
    if let Ok(folder_handle) = fs::File::open(folder) {
        let _ = folder_handle.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests;
