//! Whether Cline asks before it runs a tool call: its "Auto-approve all" (Shift+Tab in its TUI),
//! which it saves as `toolAutoApprove` in its global settings, `$CLINE_GLOBAL_SETTINGS_PATH`, else
//! `$CLINE_DATA_DIR/settings/global-settings.json`, else `data/settings/global-settings.json` in
//! Cline's folder (`$CLINE_DIR`, else `~/.cline`). By Cline 3.0.65's code, the setting in effect
//! is the `--auto-approve` flag, else the saved `toolAutoApprove`, else on: so only a saved
//! `false` means Cline asks (the flag, which a hook cannot see, can override either way), and a
//! fresh home, a missing file or one that is not JSON all mean it runs every call unasked.
//!
//! The file is read as the hook's own input is: at most [`MAX_SETTINGS_BYTES`], a regular file
//! only (never blocking on a FIFO put there).

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The most of Cline's global settings that is read; a larger file is read as "on".
pub const MAX_SETTINGS_BYTES: u64 = 256 * 1024;

/// Cline's saved "Auto-approve all", as a hook finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoApprove {
    /// `toolAutoApprove: false`: Cline asks in its dialog before each call.
    Off,
    /// Anything else: Cline runs every call without asking.
    On,
}

/// The setting saved where Cline, with this process's environment, keeps it.
pub fn saved_setting() -> AutoApprove {
    let variable = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let path = settings_path(
        variable("CLINE_GLOBAL_SETTINGS_PATH").map(PathBuf::from),
        variable("CLINE_DATA_DIR").map(PathBuf::from),
        variable("CLINE_DIR").map(PathBuf::from),
        variable("HOME").map(PathBuf::from),
    );
    match path.and_then(|path| read_bounded(&path)) {
        Some(text) => setting_in(&text),
        None => AutoApprove::On,
    }
}

/// Where Cline keeps its global settings, from its variables and `HOME`.
pub fn settings_path(
    settings: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    cline_dir: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    if settings.is_some() {
        return settings;
    }
    let data_dir = data_dir.or_else(|| {
        cline_dir
            .or_else(|| home.map(|home| home.join(".cline")))
            .map(|folder| folder.join("data"))
    })?;
    Some(data_dir.join("settings/global-settings.json"))
}

/// The setting in the text of Cline's global settings.
pub fn setting_in(text: &str) -> AutoApprove {
    match serde_json::from_str::<Value>(text) {
        Ok(settings) if settings.get("toolAutoApprove") == Some(&Value::Bool(false)) => {
            AutoApprove::Off
        }
        _ => AutoApprove::On,
    }
}

/// The text of the regular file at `path`, when it is one of at most [`MAX_SETTINGS_BYTES`].
fn read_bounded(path: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_SETTINGS_BYTES + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= MAX_SETTINGS_BYTES).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_saved_false_means_cline_asks() {
        assert_eq!(
            setting_in(r#"{"toolAutoApprove": false}"#),
            AutoApprove::Off
        );
        for on in [
            r#"{"toolAutoApprove": true}"#,
            r#"{"toolAutoApprove": "false"}"#,
            r#"{}"#,
            "not json",
            "",
        ] {
            assert_eq!(setting_in(on), AutoApprove::On, "{on}");
        }
    }

    #[test]
    fn the_settings_are_found_where_cline_looks_first() {
        let some = |path: &str| Some(PathBuf::from(path));
        assert_eq!(
            settings_path(some("/s.json"), some("/d"), some("/c"), some("/h")),
            some("/s.json")
        );
        assert_eq!(
            settings_path(None, some("/d"), some("/c"), some("/h")),
            some("/d/settings/global-settings.json")
        );
        assert_eq!(
            settings_path(None, None, some("/c"), some("/h")),
            some("/c/data/settings/global-settings.json")
        );
        assert_eq!(
            settings_path(None, None, None, some("/h")),
            some("/h/.cline/data/settings/global-settings.json")
        );
        assert_eq!(settings_path(None, None, None, None), None);
    }

    #[test]
    fn a_file_that_is_not_regular_or_too_large_is_not_read() {
        let folder = tempfile::tempdir().unwrap();
        assert_eq!(read_bounded(folder.path()), None, "a folder");
        let large = folder.path().join("large.json");
        std::fs::write(&large, " ".repeat(MAX_SETTINGS_BYTES as usize + 1)).unwrap();
        assert_eq!(read_bounded(&large), None);
        let fifo = folder.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|status| status.success()) {
            assert_eq!(read_bounded(&fifo), None, "never blocks on a FIFO");
        }
        let small = folder.path().join("global-settings.json");
        std::fs::write(&small, r#"{"toolAutoApprove": false}"#).unwrap();
        assert_eq!(
            read_bounded(&small).as_deref(),
            Some(r#"{"toolAutoApprove": false}"#)
        );
    }
}
