//! The probe's private Copilot CLI: a `HOME` whose `.copilot/settings.json` runs the probe's
//! `permissionRequest` hook and whose `.copilot/config.json` trusts the workspace, and the
//! offline BYOK environment that points Copilot at the scripted model.

use std::fs;
use std::io;
use std::path::Path;

use gatehouse_harness::probe::screen::{private_environment, Environment, PrivateHome};
use gatehouse_harness::probe::shell_quote;
use serde_json::json;

/// Fills the probe's private home: `.copilot/settings.json` running the probe's hook, the
/// workspace trusted; returns Copilot's environment: offline, no updates, the scripted model as
/// its BYOK provider.
pub(super) fn prepare(private: &PrivateHome) -> io::Result<Environment> {
    let copilot_folder = private.home.join(".copilot");
    fs::create_dir_all(&copilot_folder)?;
    let settings = json!({ "banner": "never", "hooks": { "permissionRequest": [
        { "type": "command", "bash": shell_quote(&private.hook.script), "timeoutSec": 30 }
    ] } });
    fs::write(
        copilot_folder.join("settings.json"),
        serde_json::to_string_pretty(&settings)?,
    )?;
    write_trusted_folder(&private.home, &private.workspace)?;
    Ok(byok_environment(
        &private.home,
        &private.base_url,
        &private.path,
    ))
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
pub fn byok_environment(home: &Path, base_url: &str, path: &str) -> Environment {
    private_environment(
        home,
        path,
        &[
            ("COPILOT_OFFLINE", "true"),
            ("COPILOT_AUTO_UPDATE", "false"),
            ("COPILOT_PROVIDER_BASE_URL", base_url),
            ("COPILOT_PROVIDER_API_KEY", "unused"),
            ("COPILOT_MODEL", "gpt-4.1"),
        ],
    )
}
