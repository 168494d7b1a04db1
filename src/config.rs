//! Settings: `$XDG_CONFIG_HOME/gatehouse/config.toml` (or `~/.config/gatehouse/config.toml`),
//! overridden by `GATEHOUSE_*` environment variables (`GATEHOUSE_SOCKET`,
//! `GATEHOUSE_HOOK__WAIT_SECONDS`), overridden by command-line flags. Read only by the commands
//! that need it, so the hook's fast path never parses a file it does not use.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Config {
    /// The gateway's socket; the default is under `$XDG_RUNTIME_DIR`.
    pub socket: Option<PathBuf>,
    pub hook: HookConfig,
    pub serve: ServeConfig,
    pub web: gatehouse_web::WebConfig,
    pub notify: gatehouse_web::NotifyConfig,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ServeConfig {
    /// Stop the gateway after this long with no pending prompt and no connection; `0` never.
    /// Unset: never when started by hand, [`DEFAULT_IDLE_EXIT_SECONDS`] under socket activation
    /// (the service manager starts it again on the next connection).
    pub idle_exit_seconds: Option<u64>,
}

/// The idle time after which a socket-activated gateway stops, unless the config says otherwise.
pub const DEFAULT_IDLE_EXIT_SECONDS: u64 = 600;

impl ServeConfig {
    /// How long the gateway may sit idle before it stops; `None` for never.
    pub fn idle_exit(&self, socket_activated: bool) -> Option<Duration> {
        match self.idle_exit_seconds {
            Some(0) => None,
            Some(seconds) => Some(Duration::from_secs(seconds)),
            None if socket_activated => Some(Duration::from_secs(DEFAULT_IDLE_EXIT_SECONDS)),
            None => None,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct HookConfig {
    /// How long a hook holds a prompt for an answer before the agent's terminal is left alone in
    /// charge. The installer sets the agent's hook timeout a margin above it.
    pub wait_seconds: u64,
}

/// The longest a hook may hold a prompt: the gateway's own cap.
pub const MAX_WAIT_SECONDS: u64 = 24 * 60 * 60;

/// How much longer than the hook's wait the agent's own hook timeout is, so that gatehouse's
/// deadline always comes first and the hook exits cleanly.
pub const HOOK_TIMEOUT_MARGIN_SECONDS: u64 = 30;

impl Default for HookConfig {
    fn default() -> Self {
        HookConfig { wait_seconds: 600 }
    }
}

impl HookConfig {
    pub fn wait(&self) -> Duration {
        Duration::from_secs(self.wait_seconds)
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

pub use gatehouse_host_ipc::socket::state_dir;

/// Loads the config file (if any) and the environment overrides.
pub fn load() -> anyhow::Result<Config> {
    let mut builder = config::Config::builder();
    let path = config_path();
    if let Some(path) = &path {
        builder = builder.add_source(
            config::File::from(path.as_path())
                .format(config::FileFormat::Toml)
                .required(false),
        );
    }
    builder = builder.add_source(
        config::Environment::with_prefix("GATEHOUSE")
            .prefix_separator("_")
            .separator("__")
            .try_parsing(true),
    );
    let shown = path.map_or_else(
        || "the config file".to_owned(),
        |path| path.display().to_string(),
    );
    let config: Config = builder
        .build()
        .and_then(|config| config.try_deserialize())
        .with_context(|| format!("cannot read the settings in {shown} or the GATEHOUSE_* environment; fix or remove them"))?;
    if !(1..=MAX_WAIT_SECONDS).contains(&config.hook.wait_seconds) {
        anyhow::bail!(
            "hook.wait_seconds is {} in {shown} or GATEHOUSE_HOOK__WAIT_SECONDS; it must be between 1 and {MAX_WAIT_SECONDS} (a day)",
            config.hook.wait_seconds
        );
    }
    Ok(config)
}
