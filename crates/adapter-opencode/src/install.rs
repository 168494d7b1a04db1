//! Installs and removes gatehouse's OpenCode plugin for one agent of the family
//! ([`PluginAgent`]): one file of gatehouse's own, `gatehouse.js`, in the agent's user plugin
//! folder (`$XDG_CONFIG_HOME/opencode/plugin/`, else `~/.config/opencode/plugin/`; Kilo's is
//! `kilo/plugin/` there) or a project's (`.opencode/plugin/`, Kilo's `.kilo/plugin/`). OpenCode
//! 1.18.33 and Kilo Code CLI 7.7.7 load every plugin file there at start. Nothing else of the
//! person's configuration is read or changed.
//!
//! The plugin ([`PLUGIN_SOURCE`], embedded in the binary) is the same for every agent but for
//! its name and adapter id. It runs the hook by the absolute path of the gatehouse binary that
//! installed it, written into the file as a JSON string literal, as other agents' hook commands
//! name it. A file of that name that is not gatehouse's (its first line is not
//! `// gatehouse's NAME plugin: ...`, [`PLUGIN_MARKER`]) is never overwritten or removed.

use std::fs;
use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};

use crate::PluginAgent;

/// The plugin, with placeholders for the gatehouse binary, the agent's name and adapter id.
pub const PLUGIN_SOURCE: &str = include_str!("plugin.js");

/// The plugin's file name in the agent's plugin folder.
pub const PLUGIN_FILE_NAME: &str = "gatehouse.js";

/// How every gatehouse plugin file starts: this, the agent's name, then [`PLUGIN_MARKER_END`].
pub const PLUGIN_MARKER: &str = "// gatehouse's ";

/// What ends the first line's words of a gatehouse plugin file, after the agent's name.
pub const PLUGIN_MARKER_END: &str = " plugin:";

/// The placeholder the binary's path replaces, quotes included.
const PROGRAM_PLACEHOLDER: &str = "\"@GATEHOUSE_PROGRAM@\"";

/// The placeholder of the agent's name (in comments) and of its adapter id.
const NAME_PLACEHOLDER: &str = "@AGENT_NAME@";
const ADAPTER_PLACEHOLDER: &str = "@ADAPTER_ID@";

/// Why the plugin could not be installed or removed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("the gatehouse binary's path {0:?} is not an absolute path in UTF-8, so the plugin cannot name it")]
    Program(PathBuf),
    #[error(
        "the adapter id {0:?} is not made of lowercase letters, so the plugin cannot spell it"
    )]
    AdapterId(&'static str),
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
    #[error("neither XDG_CONFIG_HOME nor HOME is set, so {0}'s plugin folder cannot be told")]
    NoHome(&'static str),
}

/// The plugin of `agent` that runs `program` as its hook.
pub fn plugin_for(agent: &PluginAgent, program: &Path) -> Result<String, InstallError> {
    let text = program
        .to_str()
        .filter(|_| program.is_absolute())
        .ok_or_else(|| InstallError::Program(program.to_path_buf()))?;
    // The id is written into a string literal and a comment as it is: letters only.
    if agent.id.is_empty() || !agent.id.bytes().all(|byte| byte.is_ascii_lowercase()) {
        return Err(InstallError::AdapterId(agent.id));
    }
    let literal = serde_json::to_string(text).expect("a string is always JSON");
    Ok(PLUGIN_SOURCE
        .replacen(PROGRAM_PLACEHOLDER, &literal, 1)
        .replace(ADAPTER_PLACEHOLDER, agent.id)
        .replace(NAME_PLACEHOLDER, &visible_name(agent.name)))
}

/// The agent's name as the plugin's comments say it: on one line, with no character that could
/// end a comment.
fn visible_name(name: &str) -> String {
    name.chars()
        .map(|character| match character {
            'A'..='Z' | 'a'..='z' | '0'..='9' | ' ' | '-' | '.' => character,
            _ => '_',
        })
        .collect()
}

/// Whether `text` is a gatehouse plugin file, for any agent: its first line starts with
/// [`PLUGIN_MARKER`] and names the agent before [`PLUGIN_MARKER_END`].
pub fn is_gatehouse_plugin(text: &str) -> bool {
    let first_line = text.lines().next().unwrap_or_default();
    first_line
        .strip_prefix(PLUGIN_MARKER)
        .and_then(|rest| rest.split_once(PLUGIN_MARKER_END))
        .is_some_and(|(name, _)| !name.is_empty() && name.len() <= 64)
}

/// The user's configuration folder of `agent`: `$XDG_CONFIG_HOME/opencode`, else
/// `~/.config/opencode` (Kilo's `kilo` there).
pub fn user_config_folder(agent: &PluginAgent) -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|folder| folder.is_absolute());
    xdg.or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|config| config.join(agent.config_folder))
}

/// Writes the plugin of `agent` for `program` at `path`, unless a file there is not
/// gatehouse's. Returns whether the file changed.
pub fn install_plugin(
    agent: &PluginAgent,
    path: &Path,
    program: &Path,
) -> Result<bool, InstallError> {
    let plugin = plugin_for(agent, program)?;
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

/// The plugin folders of one agent of the family, as `gatehouse install ID` uses them.
pub struct PluginInstaller {
    pub agent: &'static PluginAgent,
}

impl HookInstaller for PluginInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        Ok(match scope {
            SettingsScope::User => user_config_folder(self.agent)
                .ok_or(InstallError::NoHome(self.agent.name))?
                .join("plugin")
                .join(PLUGIN_FILE_NAME),
            SettingsScope::Project(folder) => folder
                .join(self.agent.project_folder)
                .join("plugin")
                .join(PLUGIN_FILE_NAME),
            SettingsScope::File(path) => path.clone(),
        })
    }

    fn settings_described(&self) -> &'static str {
        self.agent.plugin_paths
    }

    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let agent = self.agent;
        let (name, id) = (agent.name, agent.id);
        let changed = install_plugin(agent, &request.settings, &request.program)?;
        Ok(InstallOutcome {
            path: request.settings.clone(),
            changes: if changed {
                vec![format!(
                    "wrote gatehouse's plugin, which runs {} hook {id} for each permission prompt and question",
                    request.program.display()
                )]
            } else {
                Vec::new()
            },
            backup: None,
            notes: vec![
                format!("{name} loads plugins when it starts: restart {name} for the plugin to take effect."),
                format!("{name}'s own prompt stays live, and the first answer wins. Until `gatehouse probe {id}` passes for the installed {name}, its prompts are listed read-only."),
                format!("{name} asks only where its `permission` settings say \"ask\" (such as `\"permission\": {{\"bash\": \"ask\"}}` in {}); gatehouse changes none of them.", agent.config_file),
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
                vec![format!("{} unloads it when it restarts.", self.agent.name)]
            } else {
                Vec::new()
            },
        })
    }
}

#[cfg(test)]
mod tests;
