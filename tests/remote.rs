//! `gatehouse remote`: a hook on "another machine" reaches this gateway through an OpenSSH
//! forward of the hooks socket, against a real `sshd` of the test's own on a loopback port (as
//! root only; the "remote host" is this machine, with its own socket folder).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{claude_fixture, finish, wait_for, Gateway, Reaped};

const SSHD: &str = "/usr/sbin/sshd";

fn skip_reason() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("the sshd test runs only as root (CI)".into());
    }
    if !Path::new(SSHD).exists() {
        return Some(format!(
            "{SSHD} is missing (apt-get install openssh-server)"
        ));
    }
    None
}

/// An sshd of the test's own: its own host key, authorized key and config, on a free loopback
/// port, in the foreground; no system service is touched.
struct Sshd {
    folder: tempfile::TempDir,
    port: u16,
    _process: Reaped,
}

impl Sshd {
    fn start() -> Self {
        let folder = tempfile::tempdir().unwrap();
        let dir = folder.path();
        for key in ["host_key", "client_key"] {
            let made = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.join(key))
                .status()
                .expect("ssh-keygen runs");
            assert!(made.success());
        }
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
        // sshd insists on its privilege separation folder.
        std::fs::create_dir_all("/run/sshd").unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nAuthorizedKeysFile {keys}\n\
             PidFile none\nUsePAM no\nStrictModes no\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n\
             AllowStreamLocalForwarding yes\n",
            host_key = dir.join("host_key").display(),
            keys = dir.join("authorized_keys").display(),
        );
        std::fs::write(dir.join("sshd_config"), config).unwrap();
        let process = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sshd starts");
        let process = Reaped::from(process);
        wait_for(Duration::from_secs(10), "sshd to listen", || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        Sshd {
            folder,
            port,
            _process: process,
        }
    }

    /// The `-o` options that make ssh use this sshd, and only it, non-interactively.
    fn options(&self) -> Vec<String> {
        vec![
            format!("Port={}", self.port),
            format!(
                "IdentityFile={}",
                self.folder.path().join("client_key").display()
            ),
            "IdentitiesOnly=yes".into(),
            "UserKnownHostsFile=/dev/null".into(),
            "GlobalKnownHostsFile=/dev/null".into(),
            "StrictHostKeyChecking=no".into(),
            "BatchMode=yes".into(),
        ]
    }
}

/// `gatehouse remote`, its stderr collected line by line.
struct Remote {
    lines: Arc<Mutex<Vec<String>>>,
    process: Child,
}

impl Remote {
    fn start(gateway: &Gateway, sshd: &Sshd, remote_socket: &Path) -> Self {
        Self::start_with(gateway, sshd, remote_socket, &[])
    }

    fn start_with(gateway: &Gateway, sshd: &Sshd, remote_socket: &Path, extra: &[&str]) -> Self {
        let mut arguments = vec![
            "remote".to_owned(),
            "root@127.0.0.1".to_owned(),
            "--remote-socket".to_owned(),
            remote_socket.display().to_string(),
        ];
        arguments.extend(extra.iter().map(|word| (*word).to_owned()));
        for option in sshd.options() {
            arguments.push("-o".into());
            arguments.push(option);
        }
        let words: Vec<&str> = arguments.iter().map(String::as_str).collect();
        let mut process = gateway.spawn_quiet(&words, Stdio::piped());
        let lines = Arc::new(Mutex::new(Vec::new()));
        let collected = lines.clone();
        let stderr = process.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                collected.lock().unwrap().push(line);
            }
        });
        Remote { lines, process }
    }

    fn count(&self, text: &str) -> usize {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter(|line| line.contains(text))
            .count()
    }

    /// The pid of ssh in the `up`-th "link is UP" line.
    fn ssh_pid(&self, up: usize) -> i32 {
        let lines = self.lines.lock().unwrap();
        let line = lines
            .iter()
            .filter(|line| line.contains("is UP"))
            .nth(up - 1)
            .expect("the link came up");
        line.split("ssh pid ")
            .nth(1)
            .and_then(|rest| rest.split([',', ')']).next())
            .and_then(|pid| pid.parse().ok())
            .expect("the line names ssh's pid")
    }

    fn wait_until_up(&self, times: usize) {
        wait_for(
            Duration::from_secs(20),
            &format!("link up #{times}"),
            || self.count("is UP") >= times,
        );
    }

    fn text(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        // SIGTERM, so that it stops its ssh too.
        // SAFETY: kill only sends a signal, to the process this test started.
        unsafe { libc::kill(self.process.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.process.try_wait().ok().flatten().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = self.process.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.process.wait();
    }
}

/// A hook "on the far side": the forwarded socket and a host name of its own, which the
/// gateway ignores (the link names the host).
fn far_hook(gateway: &Gateway, remote_socket: &Path) -> Reaped {
    gateway.spawn_hook(
        "claude",
        claude_fixture("PermissionRequest-Bash")
            .to_string()
            .as_bytes(),
        &[
            ("GATEHOUSE_SOCKET", &remote_socket.display().to_string()),
            ("GATEHOUSE_HOST_NAME", "farhost"),
        ],
    )
}

fn answer_once(gateway: &Gateway, prompt: &Value) {
    let answered = gateway.answer(prompt, &["once"]);
    assert!(
        answered.status.success(),
        "{}",
        String::from_utf8_lossy(&answered.stderr)
    );
}

/// What a test of `gatehouse remote` starts with: a gateway here, an sshd of the test's own,
/// and the far side's folder with the socket path its hooks use.
struct Link {
    gateway: Gateway,
    sshd: Sshd,
    far: tempfile::TempDir,
    remote_socket: PathBuf,
}

impl Link {
    /// `None` (and why, on stdout) where the test cannot run.
    fn start() -> Option<Link> {
        if let Some(reason) = skip_reason() {
            println!("skipped: {reason}");
            return None;
        }
        let gateway = Gateway::start();
        let sshd = Sshd::start();
        let far = tempfile::Builder::new()
            .prefix("gh-far")
            .tempdir_in("/tmp")
            .unwrap();
        let remote_socket = far.path().join("far").join("gatehouse.sock");
        Some(Link {
            gateway,
            sshd,
            far,
            remote_socket,
        })
    }
}

#[test]
fn a_hook_on_the_far_side_of_the_link_is_answered_here_and_comes_back_after_the_link_drops() {
    let Some(Link {
        gateway,
        sshd,
        far: _far,
        remote_socket,
    }) = Link::start()
    else {
        return;
    };

    // Without the link, nothing reaches the far side: no socket, and the hook leaves the agent alone.
    let alone = finish(far_hook(&gateway, &remote_socket), Duration::from_secs(10));
    assert!(alone.status.success() && alone.stdout.is_empty());
    assert!(!remote_socket.exists());
    assert!(gateway.list().is_empty());

    let remote = Remote::start(&gateway, &sshd, &remote_socket);
    remote.wait_until_up(1);
    assert!(remote_socket.exists(), "{}", remote.text());
    let mode = |path: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    println!(
        "the forwarded socket: mode {:o}, in a folder of mode {:o}",
        mode(&remote_socket),
        mode(remote_socket.parent().unwrap())
    );
    assert_eq!(mode(remote_socket.parent().unwrap()), 0o700);
    assert_eq!(mode(&remote_socket) & 0o077, 0, "sshd makes it private");

    let hook = far_hook(&gateway, &remote_socket);
    let prompts = gateway.wait_for_pending(1);
    assert_eq!(
        prompts[0]["host"], "127.0.0.1",
        "the link names the host, not the far hook"
    );
    let listed = String::from_utf8(gateway.run(&["list"]).stdout).unwrap();
    assert!(listed.contains("127.0.0.1"), "{listed}");
    assert!(
        !listed.contains("farhost") && !listed.contains("(local)"),
        "{listed}"
    );
    answer_once(&gateway, &prompts[0]);
    let output = finish(hook, Duration::from_secs(10));
    let verdict: Value = serde_json::from_slice(&output.stdout).expect("a verdict");
    assert_eq!(
        verdict["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow"})
    );

    // The far side cannot act as a front end: only the hooks socket is forwarded.
    let far_list = gateway
        .command(&["list"])
        .env("GATEHOUSE_SOCKET", &remote_socket)
        .output()
        .unwrap();
    assert!(!far_list.status.success());
    assert!(
        String::from_utf8_lossy(&far_list.stderr).contains("wrong_role")
            || String::from_utf8_lossy(&far_list.stderr).contains("hooks socket"),
        "{}",
        String::from_utf8_lossy(&far_list.stderr)
    );

    // A prompt held across a dropped link: the hook holds again once the link is back.
    let hook = far_hook(&gateway, &remote_socket);
    let first = gateway.wait_for_pending(1);
    // SAFETY: kill only sends a signal, to the ssh that `gatehouse remote` runs for this test.
    unsafe { libc::kill(remote.ssh_pid(1), libc::SIGKILL) };
    wait_for(
        Duration::from_secs(10),
        "the link to be reported down",
        || remote.count("is DOWN") >= 1,
    );
    remote.wait_until_up(2);
    let mut again = Vec::new();
    wait_for(
        Duration::from_secs(20),
        "the prompt to be held again",
        || {
            again = gateway.list();
            again.len() == 1 && again[0]["id"] != first[0]["id"]
        },
    );
    assert_eq!(again[0]["host"], "127.0.0.1");
    answer_once(&gateway, &again[0]);
    let output = finish(hook, Duration::from_secs(10));
    let verdict: Value =
        serde_json::from_slice(&output.stdout).expect("a verdict after the link came back");
    assert_eq!(
        verdict["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow"})
    );
    println!("{}", remote.text());
    let relays = || {
        std::fs::read_dir(gateway.socket().parent().unwrap())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().starts_with("link-"))
            .count()
    };
    assert_eq!(
        relays(),
        1,
        "the link's relay socket, beside the hooks socket"
    );
    drop(remote);
    assert_eq!(relays(), 0, "a stopped link leaves no relay socket behind");
}

#[test]
fn the_hooks_socket_is_private_and_made_only_in_a_private_folder() {
    use std::os::unix::fs::PermissionsExt;
    let mut gateway = Gateway::start();
    let hooks = gateway.socket().with_file_name("hooks.sock");
    let mode = std::fs::symlink_metadata(&hooks)
        .expect("the hooks socket is beside the gateway's")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    gateway.terminate();
    assert!(!hooks.exists(), "it goes with the gateway");

    // A socket in a folder that others can enter gets no hooks socket beside it.
    let shared = tempfile::Builder::new()
        .prefix("gh-shared")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = shared.path().join("gatehouse.sock");
    let mut serve = gateway
        .command(&["serve"])
        .env("GATEHOUSE_SOCKET", &socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(
        Duration::from_secs(10),
        "the gateway on the shared folder",
        || {
            gateway
                .command(&["status"])
                .env("GATEHOUSE_SOCKET", &socket)
                .output()
                .unwrap()
                .status
                .success()
        },
    );
    assert!(!shared.path().join("hooks.sock").exists());
    serve.kill().unwrap();
    let output = serve.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("without the hooks socket"),
        "it says so"
    );
}

#[test]
fn install_runs_gatehouse_install_on_the_far_side_and_says_where_its_hooks_must_look() {
    use std::os::unix::fs::PermissionsExt;
    let Some(Link {
        gateway,
        sshd,
        far,
        remote_socket,
    }) = Link::start()
    else {
        return;
    };
    // sshd gives the far side root's own HOME; a wrapper keeps the install in the test's folder.
    let far_home = far.path().join("home");
    let wrapper = far.path().join("gatehouse-far");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nHOME='{}' exec '{}' \"$@\"\n",
            far_home.display(),
            crate::common::binary().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let remote = Remote::start_with(
        &gateway,
        &sshd,
        &remote_socket,
        &[
            "--install",
            "claude",
            "--remote-gatehouse",
            &wrapper.display().to_string(),
        ],
    );
    remote.wait_until_up(1);
    let settings = std::fs::read_to_string(far_home.join(".claude/settings.json"))
        .expect("the far side's settings were written");
    assert!(settings.contains("hook claude"), "{settings}");
    assert!(
        remote
            .text()
            .contains(&format!("GATEHOUSE_SOCKET={}", remote_socket.display())),
        "{}",
        remote.text()
    );
}
