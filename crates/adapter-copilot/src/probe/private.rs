//! The probe's private Copilot CLI: a `HOME` whose `.copilot/settings.json` runs the probe's
//! `permissionRequest` hook and whose `.copilot/config.json` trusts the workspace, and the
//! offline BYOK environment that points Copilot at the scripted model.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gatehouse_harness::probe::{shell_quote, ProbeHook};
use serde_json::json;

/// The private folders and the files of the probe's hook.
pub(super) struct PrivateCopilot {
    pub(super) home: PathBuf,
    pub(super) workspace: PathBuf,
    /// The hook that saves Copilot's events and prints the case's verdict.
    pub(super) hook: ProbeHook,
}

impl PrivateCopilot {
    pub(super) fn prepare(root: &Path) -> io::Result<PrivateCopilot> {
        let private = PrivateCopilot {
            home: root.join("home"),
            workspace: root.join("workspace"),
            hook: ProbeHook::write(root, "permissionRequest", true)?,
        };
        let copilot_folder = private.home.join(".copilot");
        for folder in [&copilot_folder, &private.workspace] {
            fs::create_dir_all(folder)?;
        }
        let hook = &private.hook.script;
        let settings = json!({ "banner": "never", "hooks": { "permissionRequest": [
            { "type": "command", "bash": shell_quote(hook), "timeoutSec": 30 }
        ] } });
        fs::write(
            copilot_folder.join("settings.json"),
            serde_json::to_string_pretty(&settings)?,
        )?;
        write_trusted_folder(&private.home, &private.workspace)?;
        Ok(private)
    }

    /// Copilot's environment: offline, no updates, the scripted model as its BYOK provider.
    pub(super) fn environment(&self, base_url: &str) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        byok_environment(&self.home, base_url, &path)
    }
}

/// Writes `~/.copilot/config.json` in `home` listing `workspace` as trusted, as Copilot CLI
/// 1.0.102 does when the person answers its folder trust dialog with "remember".
pub fn write_trusted_folder(home: &Path, workspace: &Path) -> io::Result<()> {
    let config = json!({ "trustedFolders": [workspace.display().to_string()] });
    let folder = home.join(".copilot");
    fs::create_dir_all(&folder)?;
    fs::write(
        folder.join("config.json"),
        serde_json::to_string_pretty(&config)?,
    )
}

/// The environment that runs Copilot CLI offline against a BYOK chat-completions API at
/// `base_url`, in the private `home`.
pub fn byok_environment(home: &Path, base_url: &str, path: &str) -> Vec<(String, String)> {
    [
        ("PATH", path.to_owned()),
        ("HOME", home.display().to_string()),
        ("TERM", "xterm-256color".to_owned()),
        ("COPILOT_OFFLINE", "true".to_owned()),
        ("COPILOT_AUTO_UPDATE", "false".to_owned()),
        ("COPILOT_PROVIDER_BASE_URL", base_url.to_owned()),
        ("COPILOT_PROVIDER_API_KEY", "unused".to_owned()),
        ("COPILOT_MODEL", "gpt-4.1".to_owned()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect()
}
