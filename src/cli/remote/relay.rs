//! The relay of a link: a socket of `gatehouse remote`'s own, beside the hooks socket, that
//! ssh's forward reaches. Each connection to it reaches the hooks socket after a `link.host`
//! frame naming the link, so the far side can neither rename its link nor look local.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::say;

/// The relay between ssh's forward and the hooks socket: a socket of this command's own, in the
/// hooks socket's private folder, whose every connection reaches the hooks socket after a
/// `link.host` frame naming the link. Dropped, it stops and removes its socket.
pub struct Relay {
    pub path: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    pub fn start(hooks: &Path, name: &str) -> anyhow::Result<Relay> {
        use interprocess::local_socket::traits::tokio::Listener as _;
        use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
        let folder = hooks.parent().unwrap_or(Path::new("."));
        if !folder.exists() {
            gatehouse_host_ipc::socket::create_private_folder(folder)?;
        }
        let path = folder.join(format!("link-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = ListenerOptions::new()
            .name(path.as_path().to_fs_name::<GenericFilePath>()?)
            .reclaim_name(false)
            .create_tokio()?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        }
        let first_frame = gatehouse_host_ipc::framing::encode_frame(&serde_json::json!({
            "jsonrpc": "2.0",
            "method": gatehouse_host_ipc::protocol::method::LINK_HOST,
            "params": gatehouse_host_ipc::protocol::LinkHostParams { host: name.to_owned() },
        }));
        let hooks = hooks.to_owned();
        let task = tokio::spawn(async move {
            loop {
                let far = match listener.accept().await {
                    Ok(far) => far,
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                if let Err(refusal) = gatehouse_gateway::check_peer(&far) {
                    say(&format!("refused a connection to the relay: {refusal}"));
                    continue;
                }
                let (hooks, first_frame) = (hooks.clone(), first_frame.clone());
                tokio::spawn(async move {
                    use tokio::io::AsyncWriteExt;
                    // No gateway: the far hook sees its connection close, and its agent's
                    // terminal decides.
                    let Ok(mut gateway) = gatehouse_host_ipc::socket::connect(&hooks).await else {
                        return;
                    };
                    if gateway.write_all(&first_frame).await.is_err() {
                        return;
                    }
                    // When either side ends, both are closed at once (a shutdown alone may not
                    // reach the other side), so the gateway learns a dropped link at once and
                    // withdraws what the far hook held.
                    let (mut far_reader, mut far_writer) = tokio::io::split(far);
                    let (mut gateway_reader, mut gateway_writer) = tokio::io::split(gateway);
                    tokio::select! {
                        _ = tokio::io::copy(&mut far_reader, &mut gateway_writer) => {}
                        _ = tokio::io::copy(&mut gateway_reader, &mut far_writer) => {}
                    }
                });
            }
        });
        Ok(Relay { path, task })
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}
