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

/// `[hook]`: the hook's own (`gatehouse-hook` reads it too), with its bounds.
pub use gatehouse_hook::settings::HookConfig;

/// How much longer than the hook's wait the agent's own hook timeout is, so that gatehouse's
/// deadline always comes first and the hook exits cleanly.
pub const HOOK_TIMEOUT_MARGIN_SECONDS: u64 = 30;

/// Where the config file is looked for (the hook's rule, as it reads the file too).
pub use gatehouse_hook::settings::config_path;

pub use gatehouse_host_ipc::socket::state_dir;

/// Loads the config file (if any) and the environment overrides, from the same sources, read
/// the same way, as the hook.
pub fn load() -> anyhow::Result<Config> {
    let path = config_path();
    let shown = gatehouse_hook::settings::shown(path.as_deref());
    let config: Config = gatehouse_hook::settings::sources(path.as_deref())
        .build()
        .and_then(|config| config.try_deserialize())
        .with_context(|| format!("cannot read the settings in {shown} or the GATEHOUSE_* environment; fix or remove them"))?;
    config.hook.check(&shown).map_err(anyhow::Error::msg)?;
    Ok(config)
}
