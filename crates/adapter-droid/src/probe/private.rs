//! A private Factory Droid: a `HOME` whose `.factory/settings.json` offers one custom model, a
//! scripted chat-completions API on loopback (`generic-chat-completion-api`), trusts the
//! workspace (so Droid skips its "Trust this folder?" screen) and draws no logo animation; and the
//! environment that runs Droid offline: Airgap mode (only custom models, no call to Factory's
//! API), no automatic update, no keyring. Droid starts in its default autonomy level, Auto (Off):
//! every command but its allowlist's is asked. The probe and the end-to-end tests both use it.

use std::fs;
use std::io;
use std::path::Path;

use gatehouse_harness::probe::screen::{private_environment, Environment};
use serde_json::{json, Value};

/// The model name Droid sends; the scripted model answers whatever it is.
pub const MODEL: &str = "gatehouse-scripted";

/// How Droid lists the custom model.
pub const MODEL_DISPLAY_NAME: &str = "Scripted Model";

/// Droid's settings for a private home whose model is at `base_url` and which trusts
/// `workspace`, with `hooks` (Droid's `hooks` object) when given.
pub fn private_settings(base_url: &str, workspace: &Path, hooks: Option<Value>) -> Value {
    let mut trusted = serde_json::Map::new();
    trusted.insert(
        workspace.display().to_string(),
        json!({ "trustedAt": "2026-12-02T00:00:00.000Z" }),
    );
    let mut settings = json!({
        "customModels": [{
            "model": MODEL,
            "id": "custom:Scripted-Model-0",
            "index": 0,
            "baseUrl": base_url,
            "apiKey": "unused",
            "displayName": MODEL_DISPLAY_NAME,
            "maxOutputTokens": 4096,
            "noImageSupport": true,
            "provider": "generic-chat-completion-api"
        }],
        "logoAnimation": "off",
        "trustedFolders": trusted,
    });
    if let Some(hooks) = hooks {
        settings["hooks"] = hooks;
    }
    settings
}

/// Writes `home/.factory/settings.json` with [`private_settings`].
pub fn write_private_settings(
    home: &Path,
    base_url: &str,
    workspace: &Path,
    hooks: Option<Value>,
) -> io::Result<()> {
    let folder = home.join(".factory");
    fs::create_dir_all(&folder)?;
    fs::write(
        folder.join("settings.json"),
        serde_json::to_string_pretty(&private_settings(base_url, workspace, hooks))? + "\n",
    )
}

/// The environment that runs Droid offline in `home`, its `PATH` as given.
pub fn offline_environment(home: &Path, path: &str) -> Environment {
    private_environment(
        home,
        path,
        &[
            ("FACTORY_AIRGAP_ENABLED", "true"),
            ("FACTORY_DROID_AUTO_UPDATE_ENABLED", "false"),
            ("FACTORY_DISABLE_KEYRING", "1"),
        ],
    )
}
