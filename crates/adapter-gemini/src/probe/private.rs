//! The probe's private Gemini CLI: a `HOME` whose `.gemini/settings.json` selects api-key auth,
//! turns folder trust, updates, telemetry and tips off (as in the captured fixtures) and runs the
//! probe's BeforeTool hook for the shell tool, with gatehouse's policy file beside it; and the
//! offline environment that points Gemini at the scripted model.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gatehouse_harness::probe::{shell_quote, ProbeHook};
use serde_json::json;

/// The private folders and the files of the probe's hook.
pub(super) struct PrivateGemini {
    pub(super) home: PathBuf,
    pub(super) workspace: PathBuf,
    /// The hook that saves Gemini's events and prints the case's verdict.
    pub(super) hook: ProbeHook,
}

impl PrivateGemini {
    pub(super) fn prepare(root: &Path) -> io::Result<PrivateGemini> {
        let private = PrivateGemini {
            home: root.join("home"),
            workspace: root.join("workspace"),
            hook: ProbeHook::write(root, "BeforeTool", true)?,
        };
        let gemini_folder = private.home.join(".gemini");
        for folder in [&gemini_folder, &private.workspace] {
            fs::create_dir_all(folder)?;
        }
        let settings = json!({
            "security": { "auth": { "selectedType": "gemini-api-key" }, "folderTrust": { "enabled": false } },
            "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
            "privacy": { "usageStatisticsEnabled": false },
            "telemetry": { "enabled": false },
            "ui": { "hideTips": true, "hideBanner": true },
            "hooksConfig": { "enabled": true },
            "hooks": { "BeforeTool": [ { "matcher": crate::install::SHELL_MATCHER, "hooks": [
                { "name": "gatehouse-probe", "type": "command", "command": shell_quote(&private.hook.script), "timeout": 30000 }
            ] } ] },
        });
        fs::write(
            gemini_folder.join("settings.json"),
            serde_json::to_string_pretty(&settings)?,
        )?;
        let policy = crate::policy::path_beside(&gemini_folder.join("settings.json"));
        crate::policy::write(&policy).map_err(|error| io::Error::other(error.to_string()))?;
        Ok(private)
    }

    /// Gemini's environment: offline, the scripted model as its API.
    pub(super) fn environment(&self, base_url: &str) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        [
            ("PATH", path),
            ("HOME", self.home.display().to_string()),
            ("TERM", "xterm-256color".to_owned()),
            ("GEMINI_API_KEY", "unused".to_owned()),
            ("GOOGLE_GEMINI_BASE_URL", base_url.to_owned()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect()
    }
}
