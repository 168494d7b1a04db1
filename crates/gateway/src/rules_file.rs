//! The rules file: gatehouse's own `rules.json` (beside the audit log, in gatehouse's state
//! folder; never in an agent's settings or workspace), the `serde_json` of a `Vec<Rule>`, each
//! rule checked again as it is read ([`gatehouse_core::rules::Rule::new`]).
//!
//! Only a file the person alone can change is used: a regular file (no link), owned by the
//! gateway's user, writable by no one else, in a folder owned by that user and writable by no one
//! else. Any other file, and a file that does not parse, decides nothing: [`RulesFile::rules`]
//! is then empty and [`RulesFile::problem`] says why (never "allow everything"). A missing file
//! is no rules and no problem.
//!
//! [`RulesFile::refresh`] looks at the file's identity (device, inode, modification time, size)
//! with one `stat`, and reads it again only when that changed, so it is cheap enough to run as
//! each prompt arrives. [`save`] writes the file atomically, owner-only.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use gatehouse_core::rules::Rule;
use thiserror::Error;

/// The rules file's name in gatehouse's state folder.
pub const RULES_FILE_NAME: &str = "rules.json";

/// The most a rules file may be: a file larger than this is refused, not read.
pub const MAX_RULES_FILE_BYTES: u64 = 1024 * 1024;

/// Where the rules file is, in the state folder `state_dir` (the audit log's folder).
pub fn rules_path(state_dir: &Path) -> PathBuf {
    state_dir.join(RULES_FILE_NAME)
}

/// Why a rules file is not used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesFileError {
    #[error("cannot look at the rules file {path}: {error}; check its folder's permissions")]
    Unreadable { path: String, error: String },
    #[error("the rules file {path} is not a regular file (a link, a folder or a device); remove it and make rules with `gatehouse rule add`")]
    NotRegular { path: String },
    #[error("the rules file {path} belongs to user {owner}, not to you ({me}); remove it and make rules with `gatehouse rule add`")]
    OtherOwner { path: String, owner: u32, me: u32 },
    #[error("the rules file {path} may be changed by other users (mode {mode:04o}); read it (`cat {path}`) for rules you did not make, then run `chmod 600 {path}`")]
    OthersMayWrite { path: String, mode: u32 },
    #[error("the folder {path} of the rules file belongs to user {owner}, not to you ({me}), so its owner could swap the file: keep gatehouse's state in a folder of your own")]
    FolderOtherOwner { path: String, owner: u32, me: u32 },
    #[error("the folder {path} of the rules file may be changed by other users (mode {mode:04o}), so they could swap the file: run `chmod go-w {path}`")]
    FolderOthersMayWrite { path: String, mode: u32 },
    #[error("the rules file {path} is {bytes} bytes, more than the {MAX_RULES_FILE_BYTES} a rules file may be; remove rules with `gatehouse rule remove`")]
    TooLarge { path: String, bytes: u64 },
    #[error("the rules file {path} does not hold rules gatehouse can use ({error}), so no rule decides anything; fix it, or remove it and make rules again with `gatehouse rule add`")]
    Malformed { path: String, error: String },
}

/// What identifies one version of the file, from one `stat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    device: u64,
    inode: u64,
    modified_nanos: i128,
    size: u64,
}

impl Fingerprint {
    fn of(metadata: &fs::Metadata) -> Fingerprint {
        Fingerprint {
            device: metadata.dev(),
            inode: metadata.ino(),
            modified_nanos: i128::from(metadata.mtime()) * 1_000_000_000
                + i128::from(metadata.mtime_nsec()),
            size: metadata.size(),
        }
    }
}

/// The rules file as last read, and whether it is used.
#[derive(Debug)]
pub struct RulesFile {
    path: PathBuf,
    /// `None` until the first refresh, or while the file is missing.
    seen: Option<Fingerprint>,
    rules: Vec<Rule>,
    problem: Option<RulesFileError>,
    refreshed: bool,
}

impl RulesFile {
    /// The rules file at `path`, not read yet ([`Self::refresh`] reads it).
    pub fn at(path: PathBuf) -> RulesFile {
        RulesFile {
            path,
            seen: None,
            rules: Vec::new(),
            problem: None,
            refreshed: false,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The rules in use: none while the file is refused.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Why the file is not used, if it is not.
    pub fn problem(&self) -> Option<&RulesFileError> {
        self.problem.as_ref()
    }

    /// Reads the file again if it changed since the last look (or was never read), and checks
    /// it; the folder's and the file's ownership are checked at every look, as they can change
    /// without the file's identity changing. Returns whether what is in use changed.
    pub fn refresh(&mut self) -> bool {
        let before = (self.rules.clone(), self.problem.clone());
        match self.look() {
            Ok(None) => {
                self.seen = None;
                self.rules.clear();
                self.problem = None;
            }
            Ok(Some(fingerprint)) if self.refreshed && self.seen == Some(fingerprint) => {}
            Ok(Some(fingerprint)) => {
                self.seen = Some(fingerprint);
                match read_rules(&self.path) {
                    Ok(rules) => {
                        self.rules = rules;
                        self.problem = None;
                    }
                    Err(problem) => self.refuse(problem),
                }
            }
            Err(problem) => {
                self.seen = None;
                self.refuse(problem);
            }
        }
        self.refreshed = true;
        let changed = before != (self.rules.clone(), self.problem.clone());
        if changed {
            match &self.problem {
                Some(problem) => tracing::warn!("{problem}"),
                None => tracing::info!(
                    "{} rule(s) in use from {}",
                    self.rules.len(),
                    self.path.display()
                ),
            }
        }
        changed
    }

    fn refuse(&mut self, problem: RulesFileError) {
        self.rules.clear();
        self.problem = Some(problem);
    }

    /// The file's fingerprint once its folder and it pass the checks; `None` when missing.
    fn look(&self) -> Result<Option<Fingerprint>, RulesFileError> {
        let shown = self.path.display().to_string();
        let me = unsafe { libc::geteuid() };
        if let Some(folder) = self.path.parent() {
            let metadata = match fs::metadata(folder) {
                Ok(metadata) => metadata,
                Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(error) => return Err(unreadable(folder, &error)),
            };
            let folder_shown = folder.display().to_string();
            if metadata.uid() != me {
                return Err(RulesFileError::FolderOtherOwner {
                    path: folder_shown,
                    owner: metadata.uid(),
                    me,
                });
            }
            let mode = metadata.permissions().mode() & 0o7777;
            if mode & 0o022 != 0 {
                return Err(RulesFileError::FolderOthersMayWrite {
                    path: folder_shown,
                    mode,
                });
            }
        }
        let metadata = match fs::symlink_metadata(&self.path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(unreadable(&self.path, &error)),
        };
        check_file(&shown, &metadata, me)?;
        Ok(Some(Fingerprint::of(&metadata)))
    }
}

fn unreadable(path: &Path, error: &io::Error) -> RulesFileError {
    RulesFileError::Unreadable {
        path: path.display().to_string(),
        error: error.to_string(),
    }
}

/// Refuses a file that is not regular, not `me`'s, writable by others, or too large.
fn check_file(shown: &str, metadata: &fs::Metadata, me: u32) -> Result<(), RulesFileError> {
    if !metadata.file_type().is_file() {
        return Err(RulesFileError::NotRegular { path: shown.into() });
    }
    if metadata.uid() != me {
        return Err(RulesFileError::OtherOwner {
            path: shown.into(),
            owner: metadata.uid(),
            me,
        });
    }
    let mode = metadata.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(RulesFileError::OthersMayWrite {
            path: shown.into(),
            mode,
        });
    }
    if metadata.size() > MAX_RULES_FILE_BYTES {
        return Err(RulesFileError::TooLarge {
            path: shown.into(),
            bytes: metadata.size(),
        });
    }
    Ok(())
}

/// Reads and parses the file at `path`, opened without following a link, and checks what was
/// opened (the path may have changed since it was looked at).
fn read_rules(path: &Path) -> Result<Vec<Rule>, RulesFileError> {
    use std::io::Read;
    let shown = path.display().to_string();
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|error| unreadable(path, &error))?;
    let metadata = file.metadata().map_err(|error| unreadable(path, &error))?;
    check_file(&shown, &metadata, unsafe { libc::geteuid() })?;
    let mut text = Vec::new();
    file.take(MAX_RULES_FILE_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(|error| unreadable(path, &error))?;
    serde_json::from_slice::<Vec<Rule>>(&text).map_err(|error| RulesFileError::Malformed {
        path: shown,
        error: error.to_string(),
    })
}

/// Reads the rules at `path` for a command that changes them: none when the file is missing;
/// refused like the gateway refuses it.
pub fn load(path: &Path) -> Result<Vec<Rule>, RulesFileError> {
    let mut file = RulesFile::at(path.to_owned());
    file.refresh();
    match file.problem {
        Some(problem) => Err(problem),
        None => Ok(file.rules),
    }
}

/// Writes `rules` to `path` atomically, owner-only: a new file beside it (mode 0600), synced,
/// then renamed over it; the folder is made owner-only if missing.
pub fn save(path: &Path, rules: &[Rule]) -> io::Result<()> {
    let folder = path
        .parent()
        .ok_or_else(|| io::Error::other("the rules file's path has no folder"))?;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)?;
    let text = serde_json::to_vec_pretty(rules).map_err(io::Error::other)?;
    let temporary = folder.join(format!(".{RULES_FILE_NAME}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&temporary)?;
        file.write_all(&text)?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        fs::File::open(folder)?.sync_all()
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

#[cfg(test)]
mod tests;
