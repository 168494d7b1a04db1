//! The private control socket through which `gatehouse web pair`, `devices`, `revoke` and
//! `push-test` talk to the running `gatehouse web`: one JSON request line, one JSON reply line.
//!
//! It lives beside the gateway's socket (`gatehouse.sock` → `gatehouse.web.sock`) and is bound
//! and checked with the gateway's own functions: `socket::bind` (a 0700 folder, mode 0600, a lock
//! so a second `gatehouse web` fails at once), `server::check_peer` on every connection (only
//! this user), and `socket::connect` on the client side (only a server of this user).

use anyhow::Context;
use gatehouse_gateway::listen::{self, BoundSocket};
use gatehouse_host_ipc::socket::{self, SocketError};
use interprocess::local_socket::traits::tokio::Listener as _;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::devices::DeviceView;
use super::push::notifier::PushOutcome;
use super::routes::Shared;

/// The longest request line read.
const MAX_REQUEST_BYTES: u64 = 4_096;

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ControlRequest {
    Pair,
    Devices,
    Revoke {
        id: Option<String>,
    },
    /// Send a test push to every subscription (and the ntfy topic).
    PushTest,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlReply {
    Pairing { url: String, expires_at: String },
    Devices { devices: Vec<DeviceView> },
    Revoked { ids: Vec<String> },
    PushTested { outcomes: Vec<PushOutcome> },
    Error { message: String },
}

/// The control socket's path, beside the gateway's socket.
pub fn control_path(gateway_socket: &Path) -> PathBuf {
    let stem = gateway_socket.file_stem().map_or_else(
        || "gatehouse".into(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    gateway_socket.with_file_name(format!("{stem}.web.sock"))
}

/// Binds the control socket, or says that another `gatehouse web` already runs.
pub async fn bind(path: &Path) -> anyhow::Result<BoundSocket> {
    listen::bind(path).await.map_err(|error| match error {
        SocketError::AlreadyRunning { path } => anyhow::anyhow!(
            "`gatehouse web` is already running (its control socket is {}); use `gatehouse web pair` to pair another browser",
            path.display()
        ),
        other => anyhow::Error::new(other).context("cannot open the control socket of `gatehouse web`"),
    })
}

/// Serves control requests until the process ends. `answer` runs each request.
pub async fn serve(
    bound: BoundSocket,
    state: Shared,
    answer: fn(&Shared, ControlRequest) -> ControlReply,
) {
    let BoundSocket { listener, guard } = bound;
    let _guard = guard;
    loop {
        let Ok(stream) = listener.accept().await else {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        if let Err(refusal) = gatehouse_gateway::check_peer(&stream) {
            tracing::warn!("refused a control connection: {refusal}");
            continue;
        }
        let state = state.clone();
        tokio::spawn(async move {
            let (reader, mut writer) = tokio::io::split(stream);
            let mut line = String::new();
            let mut reader =
                BufReader::new(tokio::io::AsyncReadExt::take(reader, MAX_REQUEST_BYTES));
            if reader.read_line(&mut line).await.is_err() {
                return;
            }
            let reply = match serde_json::from_str::<ControlRequest>(&line) {
                // The one request that waits on the network: answered here, not in `answer`.
                Ok(ControlRequest::PushTest) => match &state.push {
                    Some(push) => ControlReply::PushTested {
                        outcomes: push.test(&state).await,
                    },
                    None => ControlReply::Error {
                        message: "push is off in the running `gatehouse web` (its stderr says why)"
                            .into(),
                    },
                },
                Ok(request) => answer(&state, request),
                Err(error) => ControlReply::Error {
                    message: format!("not a control request: {error}"),
                },
            };
            let mut text = serde_json::to_string(&reply).unwrap_or_default();
            text.push('\n');
            let _ = writer.write_all(text.as_bytes()).await;
            let _ = writer.flush().await;
        });
    }
}

/// Sends one request to the running `gatehouse web`; `None` when none runs.
pub async fn request(
    path: &Path,
    request: &ControlRequest,
) -> anyhow::Result<Option<ControlReply>> {
    let stream = match socket::connect(path).await {
        Ok(stream) => stream,
        Err(SocketError::Connect { .. }) => return Ok(None),
        Err(other) => return Err(other.into()),
    };
    let (reader, mut writer) = tokio::io::split(stream);
    let mut text = serde_json::to_string(request)?;
    text.push('\n');
    writer.write_all(text.as_bytes()).await?;
    writer.flush().await?;
    let mut line = String::new();
    BufReader::new(reader)
        .read_line(&mut line)
        .await
        .context("`gatehouse web` did not answer")?;
    let reply: ControlReply = serde_json::from_str(&line).with_context(|| {
        "`gatehouse web` sent a reply this command cannot read; are both the same version?"
    })?;
    if let ControlReply::Error { message } = reply {
        anyhow::bail!(message);
    }
    Ok(Some(reply))
}
