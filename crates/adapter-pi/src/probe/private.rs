//! A private pi: a `HOME` whose `~/.pi/agent` offers one provider, a scripted chat-completions
//! API on loopback (`openai-completions`, no developer role), as its default model; and the
//! environment that runs pi offline: no download of its helper programs, no version check, no
//! telemetry, and a private `TMPDIR` (pi's TypeScript loader caches compiled extensions in
//! `$TMPDIR/jiti`). The probe and the end-to-end tests both use it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gatehouse_harness::probe::screen::{private_environment, Environment};
use serde_json::json;

/// The provider and model pi is given; the scripted model answers whatever the model is.
pub const PROVIDER: &str = "scripted";
pub const MODEL: &str = "scripted-model";

/// pi's user folder in a private `home`.
pub fn agent_folder(home: &Path) -> PathBuf {
    home.join(".pi/agent")
}

/// Writes `~/.pi/agent/models.json` and `settings.json` in `home`, for a model at `base_url`
/// (the scripted model's, ending in `/v1`).
pub fn write_private_settings(home: &Path, base_url: &str) -> io::Result<()> {
    let folder = agent_folder(home);
    fs::create_dir_all(&folder)?;
    let models = json!({ "providers": { PROVIDER: {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": "unused",
        "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
        "models": [{ "id": MODEL, "name": "Scripted Model", "reasoning": false,
            "contextWindow": 128000, "maxTokens": 4096 }],
    } } });
    let settings = json!({
        "defaultProvider": PROVIDER,
        "defaultModel": MODEL,
        "enableInstallTelemetry": false,
        "lastChangelogVersion": "0.73.1",
    });
    for (name, value) in [("models.json", models), ("settings.json", settings)] {
        fs::write(
            folder.join(name),
            serde_json::to_string_pretty(&value)? + "\n",
        )?;
    }
    fs::create_dir_all(home.join("tmp"))
}

/// The environment that runs pi offline in `home`, its `PATH` as given.
pub fn offline_environment(home: &Path, path: &str) -> Environment {
    let tmp = home.join("tmp").display().to_string();
    private_environment(
        home,
        path,
        &[
            ("PI_OFFLINE", "1"),
            ("PI_SKIP_VERSION_CHECK", "1"),
            ("PI_TELEMETRY", "0"),
            ("TMPDIR", &tmp),
        ],
    )
}
