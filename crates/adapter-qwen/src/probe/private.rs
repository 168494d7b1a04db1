//! A private Qwen Code: a `HOME` whose `.qwen/settings.json` selects OpenAI-compatible auth, asks
//! before every shell command (approval mode `default`), turns off what would reach the network
//! or ask the model on its own (updates, statistics, telemetry, follow-up suggestions) and
//! the bundled ripgrep (npm installs it without its executable bit, and Qwen then shows a
//! warning box: Qwen's own file search is used instead), and the environment that points Qwen at
//! a scripted chat-completions API. The probe and the end-to-end tests both use it.

use std::fs;
use std::io;
use std::path::Path;

use gatehouse_harness::probe::screen::{private_environment, Environment};
use serde_json::{json, Value};

/// The model name Qwen is given; the scripted model answers whatever it is.
pub const MODEL: &str = "gpt-4.1";

/// Qwen's settings for a private home, with `hooks` (Qwen's `hooks` object) when given.
pub fn private_settings(hooks: Option<Value>) -> Value {
    let mut settings = json!({
        "security": { "auth": { "selectedType": "openai" }, "folderTrust": { "enabled": false } },
        "general": { "enableAutoUpdate": false },
        "privacy": { "usageStatisticsEnabled": false },
        "telemetry": { "enabled": false },
        "ui": {
            "hideTips": true,
            "hideBanner": true,
            "autoModeAcknowledged": true,
            "enableFollowupSuggestions": false
        },
        "model": { "name": MODEL },
        "tools": { "approvalMode": "default", "useRipgrep": false }
    });
    if let Some(hooks) = hooks {
        settings["hooks"] = hooks;
    }
    settings
}

/// Writes `home/.qwen/settings.json` with [`private_settings`].
pub fn write_private_settings(home: &Path, hooks: Option<Value>) -> io::Result<()> {
    let folder = home.join(".qwen");
    fs::create_dir_all(&folder)?;
    fs::write(
        folder.join("settings.json"),
        serde_json::to_string_pretty(&private_settings(hooks))? + "\n",
    )
}

/// The environment that runs Qwen Code offline in `home` against a chat-completions API at
/// `base_url`.
pub fn offline_environment(home: &Path, base_url: &str, path: &str) -> Environment {
    private_environment(
        home,
        path,
        &[
            ("OPENAI_BASE_URL", base_url),
            ("OPENAI_API_KEY", "unused"),
            ("OPENAI_MODEL", MODEL),
        ],
    )
}
