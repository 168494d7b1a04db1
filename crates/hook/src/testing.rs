//! What the hook's tests share: a real gateway serving a Unix socket, as the hook reaches one.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::arbiter::Event;
use gatehouse_core::testing::toy_capabilities;
use gatehouse_core::{Answer, Prompt, PromptState};
use gatehouse_gateway::{serve_connection, Gateway, GatewayOptions};
use gatehouse_host_ipc::protocol::ServerNotification;
use gatehouse_host_ipc::{Client, Role};

/// Long enough for anything here on a busy machine, far below what an unbounded call takes.
pub const GENEROUS: Duration = Duration::from_secs(20);

/// A toy gateway serving the socket `socket`, on a runtime of its own.
pub struct GatewayOnSocket {
    pub gateway: Arc<Gateway>,
    pub runtime: tokio::runtime::Runtime,
    pub socket: PathBuf,
    _folder: tempfile::TempDir,
}

impl GatewayOnSocket {
    pub fn start() -> Self {
        let folder = tempfile::tempdir().unwrap();
        let socket = folder.path().join("run/gatehouse.sock");
        let gateway = Gateway::new(vec![toy_capabilities()], GatewayOptions::default());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let bound = runtime
            .block_on(gatehouse_gateway::listen::bind(&socket))
            .unwrap();
        let serving = gateway.clone();
        runtime.spawn(async move {
            let _guard = bound.guard;
            let _ = gatehouse_gateway::serve(serving, bound.listener).await;
        });
        GatewayOnSocket {
            gateway,
            runtime,
            socket,
            _folder: folder,
        }
    }

    /// A connection to the gateway in `role`, over an in-memory stream.
    pub fn client(&self, role: Role) -> Client<tokio::io::DuplexStream> {
        let gateway = self.gateway.clone();
        self.runtime.block_on(async move {
            let (near, far) = tokio::io::duplex(1 << 16);
            tokio::spawn(serve_connection(gateway, far));
            Client::over(near, role, "test").await.unwrap()
        })
    }

    /// The pending prompts, as a front end lists them.
    pub fn list(&self) -> Vec<Prompt> {
        let mut front_end = self.client(Role::Frontend);
        self.runtime.block_on(front_end.list()).unwrap()
    }

    /// This gateway, as the hook reaches it (no spool).
    pub fn at(&self) -> crate::blocking::Gateway<'_> {
        crate::blocking::Gateway {
            socket: &self.socket,
            host: "here",
            spool: None,
        }
    }

    /// A front end that answers each prompt held here with `answer`, until one of them is in a
    /// final state: that state.
    pub fn answer_each_prompt(&self, answer: Answer) -> tokio::task::JoinHandle<PromptState> {
        let mut front_end = self.client(Role::Frontend);
        self.runtime.block_on(front_end.subscribe()).unwrap();
        let gateway = self.gateway.clone();
        self.runtime.spawn(async move {
            loop {
                let Ok(ServerNotification::Event(event)) =
                    front_end.next_notification().await.unwrap().typed()
                else {
                    continue;
                };
                match event {
                    Event::Added { prompt } => {
                        gateway
                            .answer(&prompt.short_id, answer.clone(), None, "test")
                            .unwrap();
                    }
                    Event::Changed { state, .. } if state.is_final() => return state,
                    _ => {}
                }
            }
        })
    }
}
