//! The self-hosted way to be called, with no browser vendor at all: `[notify] ntfy_url` names a
//! topic on an ntfy server, and each new answerable prompt posts the same content-free message
//! the push carries ("2 prompts wait for an answer", the short id), with a `Click` link to the
//! page. `[notify] ntfy_token` adds `Authorization: Bearer` for a server with access control.
//!
//! The URL is the owner's own setting (no paired device can change it), and must be `https`, or
//! plain `http` on loopback.

use super::push::endpoints::{self, Allowed, Scheme, Url};
use super::push::send::{Client, Reply, SendError};

#[derive(Debug, Clone)]
pub struct Ntfy {
    url: Url,
    token: Option<String>,
}

impl Ntfy {
    /// The topic in `url`, checked.
    pub fn new(url: &str, token: Option<String>) -> anyhow::Result<Ntfy> {
        let parsed = endpoints::parse(url)
            .map_err(|error| anyhow::anyhow!("[notify] ntfy_url `{url}` is not usable: {error}"))?;
        let loopback = parsed.host == "localhost" || parsed.ip().is_some_and(|ip| ip.is_loopback());
        if parsed.scheme == Scheme::Http && !loopback {
            anyhow::bail!("[notify] ntfy_url `{url}` is plain http off loopback; use https");
        }
        if parsed.path.len() < 2 {
            anyhow::bail!(
                "[notify] ntfy_url `{url}` names no topic, such as https://ntfy.example/gatehouse"
            );
        }
        Ok(Ntfy { url: parsed, token })
    }

    /// The server's origin, as `push-test` shows it.
    pub fn service(&self) -> String {
        format!("ntfy {}", self.url.origin())
    }

    /// Posts `text` with a link to `click`.
    pub async fn post(&self, client: &Client, text: &str, click: &str) -> Result<Reply, SendError> {
        let mut headers = vec![
            ("title", "gatehouse".to_owned()),
            ("priority", "high".to_owned()),
            ("tags", "bell".to_owned()),
            ("click", click.to_owned()),
            ("content-type", "text/plain; charset=utf-8".to_owned()),
        ];
        if let Some(token) = &self.token {
            headers.push(("authorization", format!("Bearer {token}")));
        }
        client
            .post(
                &self.url,
                Allowed::Listed,
                &headers,
                text.as_bytes().to_vec(),
            )
            .await
    }
}
