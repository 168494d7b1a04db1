//! What the hook reads of gatehouse's settings: where the gateway's socket is, and how long a
//! held prompt waits. The config file (`$XDG_CONFIG_HOME/gatehouse/config.toml`, or
//! `~/.config/gatehouse/config.toml`) is overridden by `GATEHOUSE_*` environment variables
//! (`GATEHOUSE_SOCKET`, `GATEHOUSE_HOOK__WAIT_SECONDS`), overridden by `--socket`: the same
//! sources, read the same way ([`sources`]), as every other command of gatehouse's.
//!
//! The hook reads only its own keys, and only when it needs them: an observation or a prompt
//! only registered needs no wait, so when `--socket` or `GATEHOUSE_SOCKET` names the socket it
//! reads no file at all. Errors elsewhere in the file (the web front end's section, say) are not
//! the hook's to report.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::{HoldMode, HookEvent};
use serde::Deserialize;

/// `[hook]`: how the hook holds a prompt.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct HookConfig {
    /// How long a hook holds a prompt for an answer before the agent's terminal is left alone in
    /// charge. The installer sets the agent's hook timeout a margin above it.
    pub wait_seconds: u64,
}

/// The longest a hook may hold a prompt: the gateway's own cap.
pub const MAX_WAIT_SECONDS: u64 = 24 * 60 * 60;

impl Default for HookConfig {
    fn default() -> Self {
        HookConfig { wait_seconds: 600 }
    }
}

impl HookConfig {
    pub fn wait(&self) -> Duration {
        Duration::from_secs(self.wait_seconds)
    }

    /// Refuses a wait outside 1 s to [`MAX_WAIT_SECONDS`]; `shown` names where it was set.
    pub fn check(&self, shown: &str) -> Result<(), String> {
        if (1..=MAX_WAIT_SECONDS).contains(&self.wait_seconds) {
            return Ok(());
        }
        Err(format!(
            "hook.wait_seconds is {} in {shown} or GATEHOUSE_HOOK__WAIT_SECONDS; it must be between 1 and {MAX_WAIT_SECONDS} (a day)",
            self.wait_seconds
        ))
    }
}

/// Where the config file is looked for.
pub fn config_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("gatehouse").join("config.toml"))
}

/// The settings' sources, lowest first: the config file at `path` (if there is one), then the
/// `GATEHOUSE_*` environment (`GATEHOUSE_HOOK__WAIT_SECONDS` is `hook.wait_seconds`).
pub fn sources(path: Option<&Path>) -> config::ConfigBuilder<config::builder::DefaultState> {
    let mut builder = config::Config::builder();
    if let Some(path) = path {
        builder = builder.add_source(
            config::File::from(path)
                .format(config::FileFormat::Toml)
                .required(false),
        );
    }
    builder.add_source(
        config::Environment::with_prefix("GATEHOUSE")
            .prefix_separator("_")
            .separator("__")
            .try_parsing(true),
    )
}

/// The file or environment a setting that cannot be read came from, as an error names it.
pub fn shown(path: Option<&Path>) -> String {
    path.map_or_else(
        || "the config file".to_owned(),
        |path| path.display().to_string(),
    )
}

/// The hook's keys of the settings.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct HookKeys {
    socket: Option<PathBuf>,
    hook: HookConfig,
}

/// Where the gateway is and how long a held prompt waits for it.
#[derive(Debug, Clone)]
pub struct HookSettings {
    pub socket: PathBuf,
    pub wait: Duration,
}

/// The settings the hook needs for `event`: the socket from `socket_flag`, else the settings,
/// else the default path; the wait from the settings, read only for a prompt that is held.
pub fn for_event(socket_flag: Option<&Path>, event: &HookEvent) -> Result<HookSettings, String> {
    let held = matches!(
        event,
        HookEvent::Prompt {
            hold: HoldMode::UntilOutcome | HoldMode::WhileActionable,
            ..
        }
    );
    let socket_known = socket_flag.is_some()
        || std::env::var_os(gatehouse_host_ipc::socket::SOCKET_ENV)
            .is_some_and(|value| !value.is_empty());
    let keys = if held || !socket_known {
        read_keys()?
    } else {
        HookKeys::default()
    };
    let socket = socket_flag
        .map(Path::to_path_buf)
        .or(keys.socket)
        .or_else(|| std::env::var_os(gatehouse_host_ipc::socket::SOCKET_ENV).map(PathBuf::from))
        .unwrap_or_else(gatehouse_host_ipc::socket::default_socket_path);
    Ok(HookSettings {
        socket,
        wait: keys.hook.wait(),
    })
}

/// The hook's keys from the config file and the environment.
fn read_keys() -> Result<HookKeys, String> {
    let path = config_path();
    let shown = shown(path.as_deref());
    let keys: HookKeys = sources(path.as_deref())
        .build()
        .and_then(|config| config.try_deserialize())
        .map_err(|error| format!("cannot read the settings in {shown} or the GATEHOUSE_* environment; fix or remove them: {error}"))?;
    keys.hook.check(&shown)?;
    Ok(keys)
}
