//! A file of gatehouse's own in an agent's folders, such as OpenCode's plugin or pi's extension:
//! written owner-only and atomically ([`crate::record::write_atomically`]), its folder made when
//! missing, never over a file that is not gatehouse's, and removed only when it is. Whether a
//! file is gatehouse's is the caller's test of its text (a first line it always writes).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most of an existing file that is read: a file gatehouse writes is far smaller, so a
/// larger one is not gatehouse's (its start is read only to say so).
pub const MAX_OWN_FILE_BYTES: u64 = 1024 * 1024;

/// Why gatehouse's own file could not be written or removed.
#[derive(Debug, thiserror::Error)]
pub enum OwnFileError {
    #[error("{} is not gatehouse's; move it away (gatehouse never overwrites or removes a file it did not write)", .0.display())]
    NotOurs(PathBuf),
    #[error("cannot read {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot write {}: {error}; check that the folder is writable", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot remove {}: {error}", path.display())]
    Remove {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// The text of gatehouse's own file at `path`, if there is one: `Ok(None)` when there is no
/// file, [`OwnFileError::NotOurs`] when the file there fails `is_ours` (or is not UTF-8, or is
/// larger than [`MAX_OWN_FILE_BYTES`]).
pub fn read_own_file(
    path: &Path,
    is_ours: impl Fn(&str) -> bool,
) -> Result<Option<String>, OwnFileError> {
    let not_ours = || OwnFileError::NotOurs(path.to_path_buf());
    let mut bytes = Vec::new();
    match fs::File::open(path).and_then(|file| {
        file.take(MAX_OWN_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map(drop)
    }) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(OwnFileError::Read {
                path: path.to_path_buf(),
                error,
            })
        }
    }
    if bytes.len() as u64 > MAX_OWN_FILE_BYTES {
        return Err(not_ours());
    }
    let text = String::from_utf8(bytes).map_err(|_| not_ours())?;
    if is_ours(&text) {
        Ok(Some(text))
    } else {
        Err(not_ours())
    }
}

/// Writes `text` at `path` (making its folder), unless a file there is not gatehouse's
/// (`is_ours`). Returns whether the file changed.
pub fn write_own_file(
    path: &Path,
    text: &str,
    is_ours: impl Fn(&str) -> bool,
) -> Result<bool, OwnFileError> {
    if read_own_file(path, is_ours)?.as_deref() == Some(text) {
        return Ok(false);
    }
    fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
        .and_then(|()| crate::record::write_atomically(path, text))
        .map_err(|error| OwnFileError::Write {
            path: path.to_path_buf(),
            error,
        })?;
    Ok(true)
}

/// Removes the file at `path` if it is gatehouse's (`is_ours`); a file that is not is never
/// touched. Returns whether a file was removed.
pub fn remove_own_file(path: &Path, is_ours: impl Fn(&str) -> bool) -> Result<bool, OwnFileError> {
    if read_own_file(path, is_ours)?.is_none() {
        return Ok(false);
    }
    fs::remove_file(path).map_err(|error| OwnFileError::Remove {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(text: &str) -> bool {
        text.starts_with("// ours")
    }

    #[test]
    fn only_gatehouses_own_file_is_written_over_or_removed_and_it_is_private() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("made/file.js");
        assert!(write_own_file(&path, "// ours 1", ours).unwrap());
        assert!(
            !write_own_file(&path, "// ours 1", ours).unwrap(),
            "unchanged"
        );
        assert!(write_own_file(&path, "// ours 2", ours).unwrap());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(remove_own_file(&path, ours).unwrap());
        assert!(!remove_own_file(&path, ours).unwrap(), "nothing left");

        let theirs = folder.path().join("theirs.js");
        for text in [&b"// someone else's"[..], &[0xff, 0xfe][..]] {
            fs::write(&theirs, text).unwrap();
            let refused = |result: Result<bool, OwnFileError>| {
                matches!(result, Err(OwnFileError::NotOurs(_)))
            };
            assert!(refused(write_own_file(&theirs, "// ours", ours)));
            assert!(refused(remove_own_file(&theirs, ours)));
            assert_eq!(fs::read(&theirs).unwrap(), text, "left as it was");
        }
        let large = format!("// ours{}", " ".repeat(MAX_OWN_FILE_BYTES as usize));
        fs::write(&theirs, large).unwrap();
        assert!(matches!(
            remove_own_file(&theirs, ours),
            Err(OwnFileError::NotOurs(_))
        ));
    }
}
