//! `gatehouse serve` on a socket handed over by a service manager, as systemd's socket
//! activation does, driven with `systemd-socket-activate` (from the systemd package): the first
//! client starts the gateway, which keeps every guarantee of a socket it binds itself, and stops
//! when idle, never while a prompt is pending.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{binary, claude_fixture, finish, wait_for, Sandbox};

const ACTIVATE: &str = "/usr/bin/systemd-socket-activate";

fn skip_without_activate() -> bool {
    if Path::new(ACTIVATE).exists() {
        return false;
    }
    crate::common::cannot_run(&format!(
        "{ACTIVATE} is missing (install the systemd package)"
    ));
    true
}

/// `systemd-socket-activate` listening on the sandbox's socket and hooks socket, which runs
/// `gatehouse serve` on them at the first connection (in its own process: it execs).
struct Activated {
    child: Option<Child>,
}

impl Activated {
    fn start(sandbox: &Sandbox, folder_mode: u32, env: &[(&str, &str)]) -> Self {
        let socket = sandbox.socket();
        let folder = socket.parent().unwrap();
        std::fs::create_dir_all(folder).unwrap();
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(folder_mode)).unwrap();
        let hooks = folder.join("hooks.sock");
        let mut command = sandbox.program(ACTIVATE);
        command.arg("-l").arg(&socket).arg("-l").arg(&hooks);
        // systemd-socket-activate passes only the variables it is told to.
        for name in [
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_RUNTIME_DIR",
            "GATEHOUSE_SOCKET",
        ] {
            command.arg("-E").arg(name);
        }
        for (name, value) in env {
            command.arg("-E").arg(format!("{name}={value}"));
        }
        command
            .arg(binary())
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let child = command.spawn().expect("systemd-socket-activate starts");
        wait_for(Duration::from_secs(10), "the activator to listen", || {
            socket.exists() && hooks.exists()
        });
        Activated { child: Some(child) }
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    fn exited(&mut self) -> bool {
        self.child.as_mut().unwrap().try_wait().unwrap().is_some()
    }

    fn finish(mut self, deadline: Duration) -> std::process::Output {
        finish(self.child.take().unwrap(), deadline)
    }
}

impl Drop for Activated {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

fn status(sandbox: &Sandbox) -> Option<Value> {
    let output = sandbox.run(&["status", "--json"]);
    output
        .status
        .success()
        .then(|| serde_json::from_slice(&output.stdout).unwrap())
}

fn hooks_socket(sandbox: &Sandbox) -> PathBuf {
    sandbox.socket().with_file_name("hooks.sock")
}

#[test]
fn the_first_client_starts_the_gateway_on_the_inherited_socket_which_it_makes_private() {
    if skip_without_activate() {
        return;
    }
    let sandbox = Sandbox::new();
    let mut activated = Activated::start(&sandbox, 0o700, &[]);
    let made_by_activator = mode(&sandbox.socket());
    println!("systemd-socket-activate made the socket mode {made_by_activator:o}");

    let hook = sandbox.spawn_claude(&claude_fixture("PermissionRequest-Bash"));
    let prompts = sandbox.wait_for_pending(1);
    let status = status(&sandbox).expect("the gateway answers");
    assert_eq!(status["started_by"], "systemd socket activation");
    assert_eq!(
        status["pid"],
        activated.pid(),
        "the activator execs the gateway"
    );
    assert_eq!(
        mode(&sandbox.socket()),
        0o600,
        "the gateway makes its socket private"
    );
    assert_eq!(mode(&hooks_socket(&sandbox)), 0o600);
    let second = sandbox.run(&["serve"]);
    assert!(!second.status.success());
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("already running"),
        "the same lock keeps a second gateway off an inherited socket: {}",
        String::from_utf8_lossy(&second.stderr)
    );

    let answered = sandbox.run(&["answer", prompts[0]["id"].as_str().unwrap(), "once"]);
    assert!(answered.status.success());
    let output = finish(hook, Duration::from_secs(10));
    let verdict: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        verdict["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow"})
    );

    // SAFETY: kill only sends a signal, to the process this test started.
    unsafe { libc::kill(activated.pid() as libc::pid_t, libc::SIGTERM) };
    wait_for(Duration::from_secs(10), "the gateway to stop", || {
        activated.exited()
    });
    assert!(
        sandbox.socket().exists(),
        "the socket belongs to the service manager and is left in place"
    );
}

#[test]
fn an_inherited_socket_in_a_folder_open_to_others_is_refused() {
    if skip_without_activate() {
        return;
    }
    let sandbox = Sandbox::new();
    let activated = Activated::start(&sandbox, 0o755, &[]);
    assert!(status(&sandbox).is_none(), "nothing is served there");
    let output = activated.finish(Duration::from_secs(10));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not private"), "{stderr}");
}

/// The gateway's uptime in whole seconds, from `status`'s `up 3s` (`None` once past a minute).
fn uptime_seconds(sandbox: &Sandbox) -> Option<u64> {
    let output = sandbox.run(&["status"]);
    let text = String::from_utf8_lossy(&output.stdout);
    let after = text.split(", up ").nth(1)?;
    after.split_once("s,")?.0.parse().ok()
}

#[test]
fn a_held_prompt_keeps_an_idle_gateway_running_and_it_stops_once_nothing_is_pending() {
    if skip_without_activate() {
        return;
    }
    let sandbox = Sandbox::new();
    let mut activated = Activated::start(
        &sandbox,
        0o700,
        &[("GATEHOUSE_SERVE__IDLE_EXIT_SECONDS", "1")],
    );
    // The hook is the first client: it starts the gateway.
    let hook = sandbox.spawn_claude(&claude_fixture("PermissionRequest-Bash"));
    let prompts = sandbox.wait_for_pending(1);
    let started_at = status(&sandbox).unwrap()["started_at"].clone();
    // Wait, on the gateway's own clock, for three idle periods to pass.
    wait_for(Duration::from_secs(20), "3 s of gateway uptime", || {
        uptime_seconds(&sandbox).is_some_and(|seconds| seconds >= 3)
    });
    assert!(!activated.exited(), "a held prompt keeps the gateway up");
    let now = status(&sandbox).unwrap();
    assert_eq!(now["started_at"], started_at, "the same gateway");
    assert_eq!(now["pending"], 1);

    let answered = sandbox.run(&["answer", prompts[0]["id"].as_str().unwrap(), "once"]);
    assert!(answered.status.success());
    let output = finish(hook, Duration::from_secs(10));
    assert!(!output.stdout.is_empty(), "the verdict reached the hook");
    let output = activated.finish(Duration::from_secs(15));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("nothing pending"),
        "it says why it stopped"
    );
    assert!(
        sandbox.socket().exists(),
        "the service manager's socket stays"
    );
}
