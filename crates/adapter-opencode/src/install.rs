//! Installs and removes gatehouse's OpenCode plugin: one file of gatehouse's own,
//! `gatehouse.js`, in OpenCode's user plugin folder (`$XDG_CONFIG_HOME/opencode/plugin/`, else
//! `~/.config/opencode/plugin/`) or a project's `.opencode/plugin/`. OpenCode 1.18.33 loads every
//! plugin file there at start. Nothing else of the person's configuration is read or changed.
//!
//! The plugin ([`PLUGIN_SOURCE`], embedded in the binary) runs the hook by the absolute path of
//! the gatehouse binary that installed it, written into the file as a JSON string literal, as
//! other agents' hook commands name it. A file of that name that is not gatehouse's (it does not
//! start with [`PLUGIN_MARKER`]) is never overwritten or removed.

use std::fs;
use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};

/// The plugin, with a placeholder for the gatehouse binary.
pub const PLUGIN_SOURCE: &str = include_str!("plugin.js");

/// The plugin's file name in OpenCode's plugin folder.
pub const PLUGIN_FILE_NAME: &str = "gatehouse.js";

/// How every gatehouse plugin file starts.
pub const PLUGIN_MARKER: &str = "// gatehouse's OpenCode plugin:";

/// The placeholder the binary's path replaces, quotes included.
const PROGRAM_PLACEHOLDER: &str = "\"@GATEHOUSE_PROGRAM@\"";

/// Why the plugin could not be installed or removed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("the gatehouse binary's path {0:?} is not an absolute path in UTF-8, so the plugin cannot name it")]
    Program(PathBuf),
    #[error("{} is not gatehouse's plugin; move it away (gatehouse never overwrites or removes a file it did not write)", .0.display())]
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
    #[error("neither XDG_CONFIG_HOME nor HOME is set, so OpenCode's plugin folder cannot be told")]
    NoHome,
}

/// The plugin that runs `program` as its hook.
pub fn plugin_for(program: &Path) -> Result<String, InstallError> {
    let text = program
        .to_str()
        .filter(|_| program.is_absolute())
        .ok_or_else(|| InstallError::Program(program.to_path_buf()))?;
    let literal = serde_json::to_string(text).expect("a string is always JSON");
    Ok(PLUGIN_SOURCE.replacen(PROGRAM_PLACEHOLDER, &literal, 1))
}

/// Whether `text` is a gatehouse plugin file.
pub fn is_gatehouse_plugin(text: &str) -> bool {
    text.starts_with(PLUGIN_MARKER)
}

/// OpenCode's user configuration folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn user_config_folder() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|folder| folder.is_absolute());
    xdg.or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|config| config.join("opencode"))
}

/// Writes the plugin for `program` at `path`, unless a file there is not gatehouse's. Returns
/// whether the file changed.
pub fn install_plugin(path: &Path, program: &Path) -> Result<bool, InstallError> {
    let plugin = plugin_for(program)?;
    match read_bounded(path) {
        Ok(existing) if existing == plugin => return Ok(false),
        Ok(existing) if !is_gatehouse_plugin(&existing) => {
            return Err(InstallError::NotOurs(path.to_path_buf()))
        }
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
            return Err(InstallError::NotOurs(path.to_path_buf()))
        }
        Err(error) => {
            return Err(InstallError::Read {
                path: path.to_path_buf(),
                error,
            })
        }
    }
    write_atomically(path, &plugin).map_err(|error| InstallError::Write {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(true)
}

/// Removes the plugin at `path` if it is gatehouse's. Returns whether a file was removed.
pub fn uninstall_plugin(path: &Path) -> Result<bool, InstallError> {
    match read_bounded(path) {
        Ok(existing) if is_gatehouse_plugin(&existing) => {
            fs::remove_file(path).map_err(|error| InstallError::Remove {
                path: path.to_path_buf(),
                error,
            })?;
            Ok(true)
        }
        Ok(_) => Err(InstallError::NotOurs(path.to_path_buf())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
            Err(InstallError::NotOurs(path.to_path_buf()))
        }
        Err(error) => Err(InstallError::Read {
            path: path.to_path_buf(),
            error,
        }),
    }
}

/// The most of an existing file that is read: a gatehouse plugin is far smaller, so a larger
/// file is not one (its start is read only to say so).
const MAX_EXISTING_BYTES: u64 = 1024 * 1024;

/// The text of the file at `path`, at most [`MAX_EXISTING_BYTES`] of it; `InvalidData` when it is
/// not UTF-8 or larger than that (not a gatehouse plugin either way).
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_EXISTING_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_EXISTING_BYTES {
        return Err(std::io::ErrorKind::InvalidData.into());
    }
    String::from_utf8(bytes).map_err(|_| std::io::ErrorKind::InvalidData.into())
}

/// Creates `path`'s folder and writes `text` there atomically, readable by its owner only (the
/// kit's [`gatehouse_harness::record::write_atomically`]).
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    gatehouse_harness::record::write_atomically(path, text)
}

/// OpenCode's plugin folders, as `gatehouse install opencode` uses them.
pub struct OpenCodeInstaller;

impl HookInstaller for OpenCodeInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        Ok(match scope {
            SettingsScope::User => user_config_folder()
                .ok_or(InstallError::NoHome)?
                .join("plugin")
                .join(PLUGIN_FILE_NAME),
            SettingsScope::Project(folder) => folder
                .join(".opencode")
                .join("plugin")
                .join(PLUGIN_FILE_NAME),
            SettingsScope::File(path) => path.clone(),
        })
    }

    fn settings_described(&self) -> &'static str {
        "~/.config/opencode/plugin/gatehouse.js ($XDG_CONFIG_HOME/opencode/plugin/), or a project's .opencode/plugin/gatehouse.js"
    }

    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let changed = install_plugin(&request.settings, &request.program)?;
        Ok(InstallOutcome {
            path: request.settings.clone(),
            changes: if changed {
                vec![format!(
                    "wrote gatehouse's plugin, which runs {} hook opencode for each permission prompt and question",
                    request.program.display()
                )]
            } else {
                Vec::new()
            },
            backup: None,
            notes: vec![
                "OpenCode loads plugins when it starts: restart OpenCode for the plugin to take effect.".into(),
                "OpenCode's own prompt stays live, and the first answer wins. Until `gatehouse probe opencode` passes for the installed OpenCode, its prompts are listed read-only.".into(),
                "OpenCode asks only where its `permission` settings say \"ask\" (such as `\"permission\": {\"bash\": \"ask\"}` in opencode.json); gatehouse changes none of them.".into(),
            ],
        })
    }

    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        let removed = uninstall_plugin(settings)?;
        Ok(InstallOutcome {
            path: settings.to_path_buf(),
            changes: if removed {
                vec!["removed gatehouse's plugin".into()]
            } else {
                Vec::new()
            },
            backup: None,
            notes: if removed {
                vec!["OpenCode unloads it when it restarts.".into()]
            } else {
                Vec::new()
            },
        })
    }
}

#[cfg(test)]
mod tests;
