//! The probe's private OpenCode: a `HOME` whose `~/.config/opencode` holds an `opencode.json`
//! with one provider (`@ai-sdk/openai-compatible` at the scripted model's base URL), gatehouse's
//! own plugin running the probe's hook instead of gatehouse, and `@opencode-ai/plugin` already
//! present, so that OpenCode does not run `npm install` at start (offline, that kept its terminal
//! blank for about 70 s); and the environment that keeps OpenCode offline.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gatehouse_harness::probe::screen::{private_environment, Environment, PrivateHome};
use serde_json::json;

/// The npm package OpenCode wants in each of its configuration folders.
pub const PLUGIN_PACKAGE: &str = "@opencode-ai/plugin";

/// The variable that names the folder of `@opencode-ai/plugin` for the probe.
pub const PLUGIN_PACKAGE_VARIABLE: &str = "GATEHOUSE_OPENCODE_PLUGIN_PACKAGE";

/// Fills the probe's private home: `~/.config/opencode` with the scripted model as its provider,
/// `@opencode-ai/plugin` (a link to `plugin_package`) and gatehouse's own plugin running the
/// probe's hook; returns OpenCode's environment: offline, in the private home.
pub(super) fn prepare(private: &PrivateHome, plugin_package: &Path) -> io::Result<Environment> {
    let config = private.home.join(".config").join("opencode");
    write_config(&config, &private.base_url, plugin_package)?;
    let plugin = crate::install::plugin_for(&private.hook.script)
        .map_err(|error| io::Error::other(error.to_string()))?;
    fs::create_dir_all(config.join("plugin"))?;
    fs::write(
        config.join("plugin").join(crate::install::PLUGIN_FILE_NAME),
        plugin,
    )?;
    Ok(offline_environment(&private.home, &private.path))
}

/// Writes an OpenCode configuration folder (`~/.config/opencode`): `opencode.json` with the
/// provider `fake` (`@ai-sdk/openai-compatible` at `base_url`, its one model `fake-model`), bash
/// prompts asked (`"permission": {"bash": "ask"}`), no LSP or formatter; and `@opencode-ai/plugin`
/// (a link to `plugin_package`) in its `node_modules`, listed in a `package-lock.json`.
pub fn write_config(folder: &Path, base_url: &str, plugin_package: &Path) -> io::Result<()> {
    let config = json!({
        "$schema": "https://opencode.ai/config.json",
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
    fs::create_dir_all(folder.join("node_modules").join("@opencode-ai"))?;
    fs::write(
        folder.join("opencode.json"),
        serde_json::to_string_pretty(&config)?,
    )?;
    let version = package_version(plugin_package).unwrap_or_else(|| "*".into());
    let link = folder.join("node_modules").join(PLUGIN_PACKAGE);
    #[cfg(unix)]
    std::os::unix::fs::symlink(plugin_package, &link)?;
    let package = json!({ "dependencies": { PLUGIN_PACKAGE: version } });
    fs::write(
        folder.join("package.json"),
        serde_json::to_string_pretty(&package)?,
    )?;
    let lock = json!({
        "name": "opencode",
        "lockfileVersion": 3,
        "requires": true,
        "packages": {
            "": { "dependencies": { PLUGIN_PACKAGE: version } },
            format!("node_modules/{PLUGIN_PACKAGE}"): { "version": version }
        }
    });
    fs::write(
        folder.join("package-lock.json"),
        serde_json::to_string_pretty(&lock)?,
    )
}

/// The environment that runs OpenCode offline in `home`: no model list fetched, no update, no
/// sharing, no LSP download.
pub fn offline_environment(home: &Path, path: &str) -> Environment {
    private_environment(
        home,
        path,
        &[
            ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
            ("OPENCODE_DISABLE_SHARE", "1"),
            ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
        ],
    )
}

/// Where `@opencode-ai/plugin` is for the probe: the folder `GATEHOUSE_OPENCODE_PLUGIN_PACKAGE`
/// names; else the one installed beside the probed OpenCode (the `node_modules` that holds
/// `opencode-ai`, as a project or `npm install -g` lays it out); else the one OpenCode itself
/// installed in the person's `~/.config/opencode/node_modules` on its first start with a network.
pub fn find_plugin_package(opencode: &Path) -> Result<PathBuf, String> {
    let is_package = |folder: &Path| folder.join("package.json").is_file();
    if let Some(named) = std::env::var_os(PLUGIN_PACKAGE_VARIABLE).map(PathBuf::from) {
        return if is_package(&named) {
            Ok(named)
        } else {
            Err(format!(
                "{PLUGIN_PACKAGE_VARIABLE} names {}, which holds no package.json of {PLUGIN_PACKAGE}",
                named.display()
            ))
        };
    }
    let beside = opencode
        .ancestors()
        .find(|folder| {
            folder
                .file_name()
                .is_some_and(|name| name == "node_modules")
        })
        .map(|node_modules| node_modules.join(PLUGIN_PACKAGE));
    let in_config = crate::install::user_config_folder()
        .map(|folder| folder.join("node_modules").join(PLUGIN_PACKAGE));
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
            format!(
                "the probe needs the npm package {PLUGIN_PACKAGE}, so that OpenCode starts offline without waiting for npm, and found none (looked in: {}); OpenCode installs it into ~/.config/opencode/node_modules when it first starts with a network, or run `npm install {PLUGIN_PACKAGE}` in ~/.config/opencode, or set {PLUGIN_PACKAGE_VARIABLE} to its folder",
                if looked.is_empty() { "nowhere".to_owned() } else { looked.join(", ") }
            )
        })
}

/// The version in a package folder's `package.json`.
fn package_version(folder: &Path) -> Option<String> {
    let text = fs::read_to_string(folder.join("package.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["version"].as_str().map(str::to_owned)
}
