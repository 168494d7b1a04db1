//! Why installing or uninstalling failed, in messages that say what happened and what to do.

use std::io;
use std::path::{Path, PathBuf};

/// Why installing or uninstalling failed. The hooks file is unchanged in every case.
///
/// `file` names the kind of file, from [`crate::AgentHooks::file_kind`]. Errors that wrap an I/O
/// or JSON error expose it through `std::error::Error::source`, so print them with their causes
/// (for example with anyhow's `{:#}`).
///
/// The shape errors carry `path: None` when they come from the pure planning layer, which does
/// not know the file, and the file's path when they come from the file layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    #[error(
        "could not read the {file} {path}; check that it exists and is readable, then try again"
    )]
    ReadSettings {
        file: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("the {file} {path} is not valid JSON, so it was left unchanged; fix the file (or move it away), then try again")]
    SettingsNotJson {
        file: &'static str,
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    #[error("{} is not a JSON object, so it was left unchanged; it must look like {{\"hooks\": {{...}}}}, so fix it, then try again", describe(.file, .path.as_deref()))]
    SettingsNotObject {
        file: &'static str,
        path: Option<PathBuf>,
    },

    #[error("the \"hooks\" value in {} is not a JSON object, so it was left unchanged; make it an object such as {{\"hooks\": {{}}}}, then try again", describe(.file, .path.as_deref()))]
    HooksNotObject {
        file: &'static str,
        path: Option<PathBuf>,
    },

    #[error("the \"hooks\".\"{event}\" value in {} is not a JSON array, so it was left unchanged; make it an array of matcher groups, then try again", describe(.file, .path.as_deref()))]
    EventNotArray {
        file: &'static str,
        path: Option<PathBuf>,
        event: String,
    },

    #[error("the hook command {command:?} does not run a program named gatehouse and end with \"{suffix}\", so it could not be recognised later; this is a bug in the caller")]
    CommandNotRecognised {
        command: String,
        suffix: &'static str,
    },

    #[error(
        "could not create the folder {path} for the {file}; check its permissions, then try again"
    )]
    CreateFolder {
        file: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("could not save a backup of {path} to {backup}, so the file was left unchanged; check the folder's permissions and free space, then try again")]
    WriteBackup {
        path: PathBuf,
        backup: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("could not write the {file} {path}; the previous content is still in place; check the folder's permissions and free space, then try again")]
    WriteSettings {
        file: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("the {file} {path} changed while gatehouse was updating it, so gatehouse did not write it; run the command again")]
    SettingsChangedMeanwhile { file: &'static str, path: PathBuf },
}

/// Names the file in an error message, with or without its path.
fn describe(file: &str, path: Option<&Path>) -> String {
    match path {
        Some(path) => format!("the {file} {}", path.display()),
        None => format!("the {file}"),
    }
}

impl InstallError {
    /// Fills in the path of a shape error that came from the pure planning layer.
    pub(crate) fn at_path(self, settings_path: &Path) -> Self {
        let known = Some(settings_path.to_path_buf());
        match self {
            InstallError::SettingsNotObject { file, path: None } => {
                InstallError::SettingsNotObject { file, path: known }
            }
            InstallError::HooksNotObject { file, path: None } => {
                InstallError::HooksNotObject { file, path: known }
            }
            InstallError::EventNotArray {
                file,
                path: None,
                event,
            } => InstallError::EventNotArray {
                file,
                path: known,
                event,
            },
            other => other,
        }
    }
}
