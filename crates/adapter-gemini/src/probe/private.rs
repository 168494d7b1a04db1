//! The probe's private Gemini CLI: a `HOME` whose `.gemini/settings.json` selects api-key auth,
//! turns folder trust, updates, telemetry and tips off (as in the captured fixtures) and runs the
//! probe's BeforeTool hook for the shell tool, with gatehouse's policy file beside it; and the
//! offline environment that points Gemini at the scripted model.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gatehouse_harness::probe::screen::{private_environment, Environment, PrivateHome};
use gatehouse_harness::probe::shell_quote;
use serde_json::{json, Value};

/// Gemini's settings for a private home, offline, with `hooks` (Gemini's `hooks` object, turned
/// on) when given. The end-to-end tests' private home can use them too.
pub fn private_settings(hooks: Option<Value>) -> Value {
    let mut settings = json!({
        "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } },
        "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
        "privacy": { "usageStatisticsEnabled": false },
        "telemetry": { "enabled": false },
        "ui": { "hideTips": true, "hideBanner": true },
    });
    if let Some(hooks) = hooks {
        settings["hooksConfig"] = json!({ "enabled": true });
        settings["hooks"] = hooks;
    }
    settings
}

/// Writes `home/.gemini/settings.json` with [`private_settings`]; returns its path.
pub fn write_private_settings(home: &Path, hooks: Option<Value>) -> io::Result<PathBuf> {
    let folder = home.join(".gemini");
    fs::create_dir_all(&folder)?;
    let path = folder.join("settings.json");
    fs::write(
        &path,
        serde_json::to_string_pretty(&private_settings(hooks))?,
    )?;
    Ok(path)
}

/// Fills the probe's private home: `.gemini/settings.json` running the probe's hook for the
/// shell tool, and gatehouse's policy beside it; returns Gemini's environment: offline, the
/// scripted model as its API.
pub(super) fn prepare(private: &PrivateHome) -> io::Result<Environment> {
    let hooks = json!({ "BeforeTool": [ { "matcher": crate::install::SHELL_MATCHER, "hooks": [
        { "name": "gatehouse-probe", "type": "command", "command": shell_quote(&private.hook.script), "timeout": 30000 }
    ] } ] });
    let settings = write_private_settings(&private.home, Some(hooks))?;
    let policy = crate::policy::path_beside(&settings);
    crate::policy::write(&policy).map_err(|error| io::Error::other(error.to_string()))?;
    Ok(private_environment(
        &private.home,
        &private.path,
        &[
            ("GEMINI_API_KEY", "unused"),
            ("GOOGLE_GEMINI_BASE_URL", &private.base_url),
        ],
    ))
}
