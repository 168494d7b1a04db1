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

/// A count from the environment variable `variable` (such as `GATEHOUSE_BENCH_ROUNDS`), or
/// `default` when it is unset or not a number.
pub fn count_from_env(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(default)
}

/// Sorts `samples` and returns the value at each of `quantiles` (0.5 is the median, 1.0 the
/// maximum).
pub fn quantiles<T: Copy + PartialOrd, const N: usize>(
    samples: &mut [T],
    quantiles: [f64; N],
) -> [T; N] {
    samples.sort_by(|a, b| a.partial_cmp(b).expect("samples compare"));
    quantiles.map(|quantile| samples[((samples.len() as f64 - 1.0) * quantile).round() as usize])
}

/// A Bash prompt of Claude Code's for `make target-INDEX` in `session`.
pub fn bash_prompt(index: usize, session: &str) -> gatehouse_core::NewPrompt {
    let command = format!("make target-{index}");
    gatehouse_core::NewPrompt {
        adapter: "claude".into(),
        session: session.into(),
        cwd: "/home/dev/project".into(),
        kind: gatehouse_core::PromptKind::Permission,
        tool: "Bash".into(),
        input: serde_json::json!({ "command": command, "description": "build one target" }),
        summary: command.clone(),
        questions: vec![],
        correlation: format!("Bash:{command}"),
        read_only_reason: None,
        host: String::new(),
        extra: Default::default(),
    }
}

/// A hook holding `prompt` on `socket` for up to 10 minutes, in a task of its own: whether it
/// got an answer.
pub fn hold(
    socket: &std::path::Path,
    prompt: gatehouse_core::NewPrompt,
) -> tokio::task::JoinHandle<bool> {
    let socket = socket.to_owned();
    tokio::spawn(async move {
        let mut hook = SocketClient::connect(&socket, Role::Hook, "bench-hook")
            .await
            .unwrap();
        hook.hold(prompt, Duration::from_secs(600)).await.is_ok()
    })
}

/// A command hook run as an agent runs it: `program` with a cleared environment but for PATH,
/// a HOME in `folder` and `socket`, its stdin piped and its output dropped.
pub fn hook_command(
    program: &std::path::Path,
    folder: &std::path::Path,
    socket: &std::path::Path,
) -> Command {
    let mut command = Command::new(program);
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", folder.join("home"))
        .env("GATEHOUSE_SOCKET", socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// Milliseconds from spawn to exit, with `stdin` written to the child.
pub fn time_to_exit(command: &mut Command, stdin: &[u8]) -> f64 {
    use std::io::Write;
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    drop(input);
    child.wait().unwrap();
    started.elapsed().as_secs_f64() * 1_000.0
}

/// Starts `binary serve` on `socket` (HOME in `folder`), as [`hook_command`] runs it, and
/// waits until it answers `status`.
pub fn start_serve(
    binary: &std::path::Path,
    folder: &std::path::Path,
    socket: &std::path::Path,
) -> Child {
    let gateway = hook_command(binary, folder, socket)
        .arg("serve")
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !hook_command(binary, folder, socket)
        .arg("status")
        .status()
        .unwrap()
        .success()
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the gateway did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    gateway
}
