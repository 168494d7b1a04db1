//! What `gatehouse web` takes from the binary when it serves: the `[web]` and `[notify]` sections
//! of config.toml (the binary reads the file and the environment), the open-file limit in force,
//! and the binary's words for the gateway's errors.

use gatehouse_host_ipc::ClientErrorWords;
use serde::Deserialize;

/// `[notify]`: where else `gatehouse web` calls the person when a prompt waits.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct NotifyConfig {
    /// An ntfy topic (`https://ntfy.example/topic`) that gets a content-free post per new prompt.
    pub ntfy_url: Option<String>,
    /// A token for an ntfy server with access control (sent as `Authorization: Bearer`).
    pub ntfy_token: Option<String>,
}

/// `[web]`: `gatehouse web`'s defaults; its flags override them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct WebConfig {
    /// The address to listen on, such as `127.0.0.1:7780`.
    pub listen: Option<String>,
    /// Names the page is reached by besides the listen address (a tailnet or proxy name).
    pub hosts: Vec<String>,
    /// URL prefixes of push services besides the browsers' own (a self-hosted one).
    pub push_endpoints: Vec<String>,
    /// The contact named in every push's VAPID token (`mailto:...` or `https://...`).
    pub push_contact: Option<String>,
}

/// Everything `gatehouse web` reads from outside its flags, asked for only when it serves (so
/// `web pair` and the others work with a broken config file, as before).
#[derive(Debug, Clone)]
pub struct WebSettings {
    pub web: WebConfig,
    pub notify: NotifyConfig,
    /// The open-file limit the process runs with (the binary raises it first), which sizes the
    /// connection limits.
    pub open_file_limit: u64,
    /// The binary's words for the gateway's errors, which the page shows.
    pub client_error_words: ClientErrorWords,
    /// Each agent's id and name for people, from the binary's registry (the page names agents
    /// by them: the web front end knows no agent).
    pub agent_names: Vec<(String, String)>,
}
