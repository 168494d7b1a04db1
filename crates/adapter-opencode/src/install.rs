//! Installs and removes gatehouse's OpenCode plugin for one agent of the family
//! ([`PluginAgent`]): one file of gatehouse's own, `gatehouse.js`, in the agent's user plugin
//! folder (`$XDG_CONFIG_HOME/opencode/plugin/`, else `~/.config/opencode/plugin/`; Kilo's is
//! `kilo/plugin/` there) or a project's (`.opencode/plugin/`, Kilo's `.kilo/plugin/`). OpenCode
//! 1.18.33 and Kilo Code CLI 7.7.7 load every plugin file there at start. Nothing else of the
//! person's configuration is read or changed.
//!
//! The plugin ([`PLUGIN_SOURCE`], embedded in the binary) is the same for every agent but for
//! its name and adapter id. It runs the hook by an absolute path written into the file as a JSON
//! string literal, as other agents' hook commands name it: the small hook executable
//! `gatehouse-hook` beside the gatehouse binary that installed it, when it is there, else that
//! binary (`gatehouse hook`, as plugins written before run it). The plugin's words,
//! `hook ADAPTER EVENT`, suit both. A file of that name that is not gatehouse's (its first line
//! is not `// gatehouse's NAME plugin: ...`, [`PLUGIN_MARKER`]) is never overwritten or removed.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope};
use gatehouse_harness::own_file::{remove_own_file, write_own_file, OwnFileError};
use gatehouse_hook_settings::command::hook_executable_beside;

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
    /// Not gatehouse's plugin, or it could not be read, written or removed.
    #[error(transparent)]
    File(#[from] OwnFileError),
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
    Ok(write_own_file(path, &plugin, is_gatehouse_plugin)?)
}

/// What the plugin runs for the gatehouse binary `program`: the hook executable beside it, when
/// it is there (it starts in a fraction of the binary's time), else `program` itself.
pub fn hook_program(program: &Path) -> PathBuf {
    hook_executable_beside(program).unwrap_or_else(|| program.to_path_buf())
}

/// Removes the plugin at `path` if it is gatehouse's. Returns whether a file was removed.
pub fn uninstall_plugin(path: &Path) -> Result<bool, InstallError> {
    Ok(remove_own_file(path, is_gatehouse_plugin)?)
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
        let hook = hook_program(&request.program);
        let changed = install_plugin(agent, &request.settings, &hook)?;
        Ok(InstallOutcome {
            path: request.settings.clone(),
            changes: if changed {
                vec![format!(
                    "wrote gatehouse's plugin, which runs {} hook {id} for each permission prompt and question",
                    hook.display()
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
