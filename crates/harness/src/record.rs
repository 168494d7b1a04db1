//! A probe's record of what it proved, kept as JSON in gatehouse's state folder: read (a missing
//! record is none yet) and written atomically (a temporary file renamed over it), whatever the
//! agent. What a record holds, and what it unlocks, is the adapter's.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a probe record could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read the probe record {path}: {source}; run the probe again")]
    Read { path: PathBuf, source: io::Error },
    #[error("the probe record {path} is not valid: {source}; run the probe again")]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot write the probe record {path}: {source}; check that folder's permissions, then run the probe again")]
    Write { path: PathBuf, source: io::Error },
}

/// Reads the record at `path`; a missing file is `Ok(None)`.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, RecordError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RecordError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|source| RecordError::Invalid {
            path: path.to_path_buf(),
            source,
        })
}

/// Writes the record atomically, creating its folder.
pub fn write<T: Serialize>(path: &Path, record: &T) -> Result<(), RecordError> {
    let write_error = |source| RecordError::Write {
        path: path.to_path_buf(),
        source,
    };
    let folder = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder).map_err(write_error)?;
    let mut text = serde_json::to_string_pretty(record)
        .map_err(|error| write_error(io::Error::other(error)))?;
    text.push('\n');
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = folder.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = fs::File::create(&temporary)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
        })
        .and_then(|()| fs::rename(&temporary, path));
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result.map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_written_and_read_back_and_a_missing_one_is_none() {
        let folder =
            std::env::temp_dir().join(format!("gatehouse-harness-record-{}", std::process::id()));
        let path = folder.join("state/agent-probe.json");
        assert!(read::<Vec<String>>(&path).unwrap().is_none());
        write(&path, &vec!["passed".to_owned()]).unwrap();
        assert_eq!(
            read::<Vec<String>>(&path).unwrap(),
            Some(vec!["passed".to_owned()])
        );
        fs::write(&path, "{not json").unwrap();
        assert!(matches!(
            read::<Vec<String>>(&path),
            Err(RecordError::Invalid { .. })
        ));
        fs::remove_dir_all(&folder).unwrap();
    }
}
