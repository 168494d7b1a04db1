//! The probe's private agent of the OpenCode family: a `HOME` whose configuration folder
//! (`~/.config/opencode`, Kilo's `~/.config/kilo`) holds a configuration file with one provider
//! (`@ai-sdk/openai-compatible` at the scripted model's base URL), gatehouse's own plugin
//! running the probe's hook instead of gatehouse, and the agent's plugin package
//! (`@opencode-ai/plugin`, `@kilocode/plugin`) already present, so that the agent does not run
//! `npm install` at start (offline, that kept OpenCode's terminal blank for about 70 s, Kilo's
//! for about 75 s); and the environment that keeps the agent offline. What differs per agent is
//! its [`PrivateConfig`].

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gatehouse_harness::probe::screen::{private_environment, Environment, PrivateHome};
use serde_json::json;

use crate::PluginAgent;

/// How one agent of the family is set up privately and offline.
#[derive(Debug, Clone, Copy)]
pub struct PrivateConfig {
    pub agent: &'static PluginAgent,
    /// The `$schema` its configuration file names.
    pub schema: &'static str,
    /// The npm package it wants in each of its configuration folders.
    pub plugin_package: &'static str,
    /// The variable that names the folder of that package for the probe.
    pub package_variable: &'static str,
    /// The variables that keep it offline: no model list fetched, no update, no sharing, no
    /// LSP download (and Kilo's telemetry, daemon, session ingest and indexing off).
    pub offline_variables: &'static [(&'static str, &'static str)],
    /// Whether its `TMPDIR` is a folder of the private home (Kilo writes `$TMPDIR/kilo` and
    /// unpacks native libraries into `$TMPDIR`, which would outlive the probe).
    pub private_temporary_folder: bool,
}

/// OpenCode's private set-up.
pub const OPENCODE_CONFIG: PrivateConfig = PrivateConfig {
    agent: &crate::OPENCODE,
    schema: "https://opencode.ai/config.json",
    plugin_package: PLUGIN_PACKAGE,
    package_variable: PLUGIN_PACKAGE_VARIABLE,
    offline_variables: &[
        ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
        ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
        ("OPENCODE_DISABLE_SHARE", "1"),
        ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
    ],
    private_temporary_folder: false,
};

/// The npm package OpenCode wants in each of its configuration folders.
pub const PLUGIN_PACKAGE: &str = "@opencode-ai/plugin";

/// The variable that names the folder of `@opencode-ai/plugin` for the probe.
pub const PLUGIN_PACKAGE_VARIABLE: &str = "GATEHOUSE_OPENCODE_PLUGIN_PACKAGE";

/// The private home's temporary folder, when [`PrivateConfig::private_temporary_folder`].
pub const TEMPORARY_FOLDER: &str = "tmp";

impl PrivateConfig {
    /// Fills the probe's private home: the agent's configuration folder with the scripted model
    /// as its provider, the plugin package (a link to `plugin_package`) and gatehouse's own
    /// plugin running the probe's hook; returns the agent's environment: offline, in the
    /// private home.
    pub(super) fn prepare(
        &self,
        private: &PrivateHome,
        plugin_package: &Path,
    ) -> io::Result<Environment> {
        let config = private.home.join(".config").join(self.agent.config_folder);
        self.write_config(&config, &private.base_url, plugin_package)?;
        let plugin = crate::install::plugin_for(self.agent, &private.hook.script)
            .map_err(|error| io::Error::other(error.to_string()))?;
        fs::create_dir_all(config.join("plugin"))?;
        fs::write(
            config.join("plugin").join(crate::install::PLUGIN_FILE_NAME),
            plugin,
        )?;
        self.offline_environment(&private.home, &private.path)
    }

    /// Writes the agent's configuration folder (such as `~/.config/opencode`): its
    /// configuration file with the provider `fake` (`@ai-sdk/openai-compatible` at `base_url`,
    /// its one model `fake-model`), bash prompts asked (`"permission": {"bash": "ask"}`), no LSP
    /// or formatter; and the plugin package (a link to `plugin_package`) in its `node_modules`,
    /// listed in a `package-lock.json`.
    pub fn write_config(
        &self,
        folder: &Path,
        base_url: &str,
        plugin_package: &Path,
    ) -> io::Result<()> {
        let config = json!({
            "$schema": self.schema,
            "autoupdate": false,
            "share": "disabled",
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
            "enabled_providers": ["fake"],
            "provider": { "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted model (loopback)",
                "options": { "baseURL": base_url, "apiKey": "unused" },
                "models": { "fake-model": {
                    "name": "Scripted model",
                    "tool_call": true,
                    "limit": { "context": 128000, "output": 4096 }
                } }
            } },
            "permission": { "bash": "ask" },
            "lsp": false,
            "formatter": false
        });
        let package_name = self.plugin_package;
        let link = folder.join("node_modules").join(package_name);
        fs::create_dir_all(link.parent().unwrap_or(folder))?;
        fs::write(
            folder.join(self.agent.config_file),
            serde_json::to_string_pretty(&config)?,
        )?;
        let version = package_version(plugin_package).unwrap_or_else(|| "*".into());
        #[cfg(unix)]
        std::os::unix::fs::symlink(plugin_package, &link)?;
        let package = json!({ "dependencies": { package_name: version } });
        fs::write(
            folder.join("package.json"),
            serde_json::to_string_pretty(&package)?,
        )?;
        let lock = json!({
            "name": self.agent.config_folder,
            "lockfileVersion": 3,
            "requires": true,
            "packages": {
                "": { "dependencies": { package_name: version } },
                format!("node_modules/{package_name}"): { "version": version }
            }
        });
        fs::write(
            folder.join("package-lock.json"),
            serde_json::to_string_pretty(&lock)?,
        )
    }

    /// The environment that runs the agent offline in `home` (with its own temporary folder
    /// there, made now, when [`Self::private_temporary_folder`]).
    pub fn offline_environment(&self, home: &Path, path: &str) -> io::Result<Environment> {
        let mut environment = private_environment(home, path, self.offline_variables);
        if self.private_temporary_folder {
            let temporary = home.join(TEMPORARY_FOLDER);
            fs::create_dir_all(&temporary)?;
            environment.push(("TMPDIR".into(), temporary.display().to_string()));
        }
        Ok(environment)
    }

    /// Where the plugin package is for the probe: the folder [`Self::package_variable`] names;
    /// else the one installed beside the probed `agent` executable (the `node_modules` that
    /// holds it, as a project or `npm install -g` lays it out); else the one the agent itself
    /// installed in the person's configuration folder on its first start with a network.
    pub fn find_plugin_package(&self, agent: &Path) -> Result<PathBuf, String> {
        let (package, variable) = (self.plugin_package, self.package_variable);
        let is_package = |folder: &Path| folder.join("package.json").is_file();
        if let Some(named) = std::env::var_os(variable).map(PathBuf::from) {
            return if is_package(&named) {
                Ok(named)
            } else {
                Err(format!(
                    "{variable} names {}, which holds no package.json of {package}",
                    named.display()
                ))
            };
        }
        let beside = agent
            .ancestors()
            .find(|folder| {
                folder
                    .file_name()
                    .is_some_and(|name| name == "node_modules")
            })
            .map(|node_modules| node_modules.join(package));
        let in_config = crate::install::user_config_folder(self.agent)
            .map(|folder| folder.join("node_modules").join(package));
        let candidates: Vec<PathBuf> = beside.into_iter().chain(in_config).collect();
        candidates
            .iter()
            .find(|folder| is_package(folder))
            .cloned()
            .ok_or_else(|| {
                let looked: Vec<String> = candidates
                    .iter()
                    .map(|folder| folder.display().to_string())
                    .collect();
                let (name, folder) = (self.agent.name, self.agent.config_folder);
                format!(
                    "the probe needs the npm package {package}, so that {name} starts offline without waiting for npm, and found none (looked in: {}); {name} installs it into ~/.config/{folder}/node_modules when it first starts with a network, or run `npm install {package}` in ~/.config/{folder}, or set {variable} to its folder",
                    if looked.is_empty() { "nowhere".to_owned() } else { looked.join(", ") }
                )
            })
    }
}

/// OpenCode's [`PrivateConfig::write_config`]: `opencode.json` and `@opencode-ai/plugin`.
pub fn write_config(folder: &Path, base_url: &str, plugin_package: &Path) -> io::Result<()> {
    OPENCODE_CONFIG.write_config(folder, base_url, plugin_package)
}

/// OpenCode's [`PrivateConfig::offline_environment`].
pub fn offline_environment(home: &Path, path: &str) -> Environment {
    private_environment(home, path, OPENCODE_CONFIG.offline_variables)
}

/// OpenCode's [`PrivateConfig::find_plugin_package`]: `@opencode-ai/plugin`.
pub fn find_plugin_package(opencode: &Path) -> Result<PathBuf, String> {
    OPENCODE_CONFIG.find_plugin_package(opencode)
}

/// The version in a package folder's `package.json`.
fn package_version(folder: &Path) -> Option<String> {
    let text = fs::read_to_string(folder.join("package.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["version"].as_str().map(str::to_owned)
}
