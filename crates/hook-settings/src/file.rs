//! Reading, backing up and writing the hooks file around the pure edits of [`crate::plan`].
//!
//! - A missing file counts as `{}`, and so does a file that holds only whitespace. A UTF-8 byte
//!   order mark is skipped. A file that is not valid JSON, or whose top level or `hooks` value is
//!   not a JSON object, is refused with an error and never overwritten.
//! - When the plan changes nothing, the file is not written and no backup is made.
//! - Before a changed file that already exists is written, its previous content is saved to
//!   `<file>.gatehouse-backup` (see [`backup_path`]) with the same permissions. An older backup at
//!   that path is overwritten, so the backup always holds the content from just before the most
//!   recent change.
//! - Files are written atomically: the new content goes to a newly created temporary file with a
//!   unique name in the same folder, which is flushed to disk and then renamed over the file.
//!   Missing parent folders are created. An existing file's permissions are kept; a new file gets
//!   mode 0600. The temporary file is created with mode 0600 and given the kept permissions before
//!   any content is written, so the content is never open to others for a moment, whatever the
//!   umask. If the path is a symbolic link, the file it points to is updated and the link stays
//!   in place.
//! - If the file changes on disk between reading and the rename (for example because the agent
//!   saved it meanwhile), nothing is written and [`InstallError::SettingsChangedMeanwhile`] is
//!   returned.
//! - The output is pretty-printed JSON with a two-space indent and a trailing newline.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use crate::{AgentHooks, Change, HookPlan, InstallError, InstallReport};

/// The suffix appended to a hooks file's name to form its backup's name.
pub const BACKUP_SUFFIX: &str = ".gatehouse-backup";

/// Returns where the backup of the hooks file at `path` is saved: the same path with
/// `.gatehouse-backup` appended.
#[must_use]
pub fn backup_path(path: &Path) -> PathBuf {
    let mut backup = path.as_os_str().to_owned();
    backup.push(BACKUP_SUFFIX);
    PathBuf::from(backup)
}

impl AgentHooks {
    /// Installs gatehouse's hooks into the hooks file at `path`.
    ///
    /// A missing file is treated as `{}` and created, together with its parent folders.
    ///
    /// # Errors
    ///
    /// Fails, leaving the file unchanged, when it cannot be read, is not valid JSON, has the wrong
    /// shape (see [`AgentHooks::plan_install`]), changed meanwhile, or when the backup or the new
    /// content cannot be written.
    pub fn install_file(
        &self,
        path: &Path,
        plan: &HookPlan,
    ) -> Result<InstallReport, InstallError> {
        self.apply_to_file(path, |settings| self.plan_install(settings, plan))
    }

    /// Removes gatehouse's hooks from the hooks file at `path`. A missing file has nothing to
    /// remove and is not created.
    ///
    /// # Errors
    ///
    /// Fails, leaving the file unchanged, for the same reasons as [`AgentHooks::install_file`].
    pub fn uninstall_file(&self, path: &Path) -> Result<InstallReport, InstallError> {
        self.apply_to_file(path, |settings| self.plan_uninstall(settings))
    }

    /// Reads the hooks file, applies a plan, and writes the result when it changed.
    pub(crate) fn apply_to_file(
        &self,
        path: &Path,
        make_plan: impl FnOnce(&Value) -> Result<(Value, Vec<Change>), InstallError>,
    ) -> Result<InstallReport, InstallError> {
        let target = self.resolve_symbolic_links(path)?;
        let original = self.read_if_present(&target)?;
        let settings = match &original {
            Some(content) => self.parse_settings(path, &content.bytes)?,
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
            file: self.file_kind,
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
                    file: self.file_kind,
                    path: path.to_path_buf(),
                }
            } else {
                InstallError::WriteSettings {
                    file: self.file_kind,
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

    /// Follows symbolic links from `path` to the file they finally name, so that writing replaces
    /// that file and keeps the links. The final file does not need to exist.
    fn resolve_symbolic_links(&self, path: &Path) -> Result<PathBuf, InstallError> {
        // Forty links is the limit Linux applies before it reports a loop.
        const MAXIMUM_LINKS: usize = 40;
        let read_error = |source| InstallError::ReadSettings {
            file: self.file_kind,
            path: path.to_path_buf(),
            source,
        };
        let mut current = path.to_path_buf();
        for _ in 0..MAXIMUM_LINKS {
            match fs::symlink_metadata(&current) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    let link = fs::read_link(&current).map_err(read_error)?;
                    current = folder_of(&current).join(link);
                }
                Ok(_) => return Ok(current),
                Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(current),
                Err(source) => return Err(read_error(source)),
            }
        }
        Err(read_error(io::Error::other(
            "too many levels of symbolic links",
        )))
    }

    /// Reads the hooks file, returning `None` when it does not exist.
    fn read_if_present(&self, target: &Path) -> Result<Option<ExistingFile>, InstallError> {
        let read_error = |source| InstallError::ReadSettings {
            file: self.file_kind,
            path: target.to_path_buf(),
            source,
        };
        let Some(bytes) = read_bytes_if_present(target).map_err(read_error)? else {
            return Ok(None);
        };
        let permissions = fs::metadata(target).map_err(read_error)?.permissions();
        Ok(Some(ExistingFile { bytes, permissions }))
    }

    /// Parses the file's bytes. A UTF-8 byte order mark is skipped and whitespace-only content
    /// counts as an empty object.
    fn parse_settings(&self, path: &Path, bytes: &[u8]) -> Result<Value, InstallError> {
        const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";
        let bytes = bytes.strip_prefix(BYTE_ORDER_MARK).unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Value::Object(Map::new()));
        }
        serde_json::from_slice(bytes).map_err(|source| InstallError::SettingsNotJson {
            file: self.file_kind,
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Marks the I/O error raised when the file changed between reading and writing.
#[derive(Debug)]
struct ChangedMeanwhile;

impl fmt::Display for ChangedMeanwhile {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("the file changed while it was being updated")
    }
}

impl std::error::Error for ChangedMeanwhile {}

/// The content and permissions of a hooks file that exists.
struct ExistingFile {
    bytes: Vec<u8>,
    permissions: fs::Permissions,
}

/// Reads a file's bytes, returning `None` when it does not exist.
fn read_bytes_if_present(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
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

/// Creates a new, empty temporary file for `file_name` in `folder`, with a name no other file has
/// and mode 0600 (on Unix) whatever the umask.
pub(crate) fn create_temporary_file(
    folder: &Path,
    file_name: &str,
) -> io::Result<(PathBuf, fs::File)> {
    loop {
        let count = TEMPORARY_FILE_COUNTER.fetch_add(1, Ordering::Relaxed);
        let candidate = folder.join(format!(
            ".{file_name}.gatehouse-{}-{count}.tmp",
            std::process::id()
        ));
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(&candidate) {
            Ok(file) => return Ok((candidate, file)),
            // A file left behind by an earlier crash may hold this name; try the next one.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
}

/// Writes `bytes` to `path` atomically: creates a private temporary file in the same folder
/// (which must exist), applies `permissions` to it, writes and flushes it, runs
/// `check_before_rename`, and renames the temporary file over `path`. The temporary file is
/// removed on any failure.
pub(crate) fn write_atomically(
    path: &Path,
    bytes: &[u8],
    permissions: Option<&fs::Permissions>,
    check_before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    let folder = folder_of(path);
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::other("the path does not name a file"))?
        .to_string_lossy();
    let (temporary_path, mut temporary_file) = create_temporary_file(folder, &file_name)?;

    let result = (|| {
        // The kept permissions first: the content is never open to more than they allow.
        if let Some(permissions) = permissions {
            temporary_file.set_permissions(permissions.clone())?;
        }
        temporary_file.write_all(bytes)?;
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
