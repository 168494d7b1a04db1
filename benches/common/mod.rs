//! What the asynchronous benchmarks share: a release `gatehouse serve` on a private socket in
//! a temporary folder, and a front end connected to it.

// Each benchmark compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gatehouse_host_ipc::{Role, SocketClient};

/// A gateway started for one benchmark run; `stop` kills it and removes its folder.
pub struct BenchGateway {
    pub binary: PathBuf,
    pub folder: PathBuf,
    pub socket: PathBuf,
    pub process: Child,
}

impl BenchGateway {
    /// Starts `gatehouse serve` in a fresh folder named after `name`, and returns it with a front
    /// end connected once it answers.
    pub async fn start(name: &str) -> (BenchGateway, SocketClient) {
        let binary = PathBuf::from(env!("CARGO_BIN_EXE_gatehouse"));
        let folder = std::env::temp_dir().join(format!("gatehouse-{name}-{}", std::process::id()));
        let socket = folder.join("run/gatehouse.sock");
        let process = Command::new(&binary)
            .arg("serve")
            .env("GATEHOUSE_SOCKET", &socket)
            .env("HOME", folder.join("home"))
            .env("RUST_LOG", "warn")
            .stderr(Stdio::null())
            .spawn()
            .expect("gatehouse serve starts");
        let started = Instant::now();
        let frontend = loop {
            if let Ok(client) = SocketClient::connect(&socket, Role::Frontend, "bench").await {
                break client;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the gateway did not start"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        (
            BenchGateway {
                binary,
                folder,
                socket,
                process,
            },
            frontend,
        )
    }

    pub fn stop(mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}
