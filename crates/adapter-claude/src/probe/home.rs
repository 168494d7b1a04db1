//! The probe's private Claude Code: a home whose `~/.claude.json` lets Claude Code 2.1.332 start
//! straight into its input box (onboarding done, theme chosen, the probe's API key approved, the
//! workspace trusted), a workspace, and a PermissionRequest hook that hands each event to the
//! probe and prints the verdict the probe renders for it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gatehouse_harness::probe::shell_quote;
use serde_json::json;

/// The API key the probe gives Claude Code; only the scripted model on loopback sees it.
pub const API_KEY: &str = "sk-ant-gatehouse-probe-0123456789abcdefghij";

/// The model the probe names; the scripted model answers for any.
pub const MODEL: &str = "claude-haiku-4-5";

/// How long the probe's hook waits for the probe's verdict, in seconds.
const HOOK_WAIT_SECONDS: u32 = 30;

/// Writes `home/.claude.json` so that Claude Code `claude_version` starts straight into its input
/// box: onboarding done, dark theme chosen, `api_key` approved (Claude Code keeps its last 20
/// characters) and `workspace` trusted.
pub fn write_first_run_config(
    home: &Path,
    workspace: &Path,
    claude_version: &str,
    api_key: &str,
) -> io::Result<()> {
    let key_suffix = &api_key[api_key.len().saturating_sub(20)..];
    let mut projects = serde_json::Map::new();
    projects.insert(
        workspace.display().to_string(),
        json!({ "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true }),
    );
    let config = json!({
        "hasCompletedOnboarding": true,
        "lastOnboardingVersion": claude_version,
        "theme": "dark",
        "customApiKeyResponses": { "approved": [key_suffix], "rejected": [] },
        "projects": projects,
    });
    fs::write(
        home.join(".claude.json"),
        serde_json::to_string_pretty(&config)?,
    )
}

/// The folders and files of one private Claude Code.
pub struct PrivateClaude {
    pub home: PathBuf,
    pub workspace: PathBuf,
    /// Each PermissionRequest event, one file each (`event-XXXXXX`); the hook prints
    /// `<event file>.verdict` once the probe has written it.
    pub events: PathBuf,
}

impl PrivateClaude {
    /// Prepares `root` (an empty, private folder).
    pub fn prepare(root: &Path, claude_version: &str) -> io::Result<PrivateClaude> {
        let private = PrivateClaude {
            home: root.join("home"),
            workspace: root.join("workspace"),
            events: root.join("events"),
        };
        for folder in [
            &private.home.join(".claude"),
            &private.workspace,
            &private.events,
        ] {
            fs::create_dir_all(folder)?;
        }
        write_first_run_config(&private.home, &private.workspace, claude_version, API_KEY)?;
        let hook = root.join("permission-request-hook.sh");
        let script = format!(
            "#!/bin/sh\n\
             # The probe's PermissionRequest hook: hands the event to the probe, prints its verdict.\n\
             event=$(mktemp {events}/event-XXXXXX) || exit 0\n\
             cat > \"$event.part\" && mv \"$event.part\" \"$event.json\"\n\
             tries=0\n\
             while [ ! -f \"$event.json.verdict\" ] && [ $tries -lt {limit} ]; do sleep 0.05; tries=$((tries+1)); done\n\
             cat \"$event.json.verdict\" 2>/dev/null\n\
             exit 0\n",
            events = shell_quote(&private.events),
            limit = HOOK_WAIT_SECONDS * 20,
        );
        fs::write(&hook, script)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&hook, fs::Permissions::from_mode(0o700))?;
        }
        let settings = json!({ "hooks": { "PermissionRequest": [
            { "matcher": "*", "hooks": [{ "type": "command", "command": shell_quote(&hook), "timeout": HOOK_WAIT_SECONDS + 10 }] }
        ] } });
        fs::write(
            private.home.join(".claude").join("settings.json"),
            serde_json::to_string_pretty(&settings)?,
        )?;
        Ok(private)
    }

    /// Claude Code's whole environment: nothing of the person's is inherited but `PATH`.
    pub fn environment(&self, base_url: &str) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        [
            ("PATH", path.as_str()),
            ("HOME", &self.home.display().to_string()),
            ("TERM", "xterm-256color"),
            ("LANG", "C.UTF-8"),
            ("SHELL", "/bin/sh"),
            ("ANTHROPIC_BASE_URL", base_url),
            ("ANTHROPIC_API_KEY", API_KEY),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("DISABLE_AUTOUPDATER", "1"),
        ]
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect()
    }

    /// The event files the hook has written so far, oldest first by name order of arrival.
    pub fn event_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(&self.events)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.path())
                    .filter(|path| {
                        path.extension()
                            .is_some_and(|extension| extension == "json")
                    })
                    .filter_map(|path| {
                        let modified = fs::metadata(&path).and_then(|m| m.modified()).ok()?;
                        Some((modified, path))
                    })
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files.into_iter().map(|(_, path)| path).collect()
    }
}
