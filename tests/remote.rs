//! `gatehouse remote`: a hook on "another machine" reaches this gateway through an OpenSSH
//! forward of the hooks socket, against a real `sshd` of the test's own on a loopback port (as
//! root only; the "remote host" is this machine, with its own socket folder).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{claude_fixture, finish, wait_for, Gateway, Reaped, Sandbox};

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

    /// Makes every later session of this sshd run `script` instead of what ssh asked for (as
    /// `command=` in authorized_keys does): a far side of the test's choosing. ssh's request is
    /// in `$SSH_ORIGINAL_COMMAND`; a forward (`ssh -N -R`) runs no command and is unaffected.
    fn force_command(&self, script: &Path) {
        let dir = self.folder.path();
        let key = std::fs::read_to_string(dir.join("client_key.pub")).unwrap();
        std::fs::write(
            dir.join("authorized_keys"),
            format!("command=\"{}\" {key}", script.display()),
        )
        .unwrap();
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

/// Writes the shell script `body` as the executable `name` in `folder`. A shell writes it, so
/// that this process never holds the file open for writing (a child forked meanwhile by another
/// test thread would inherit that descriptor, and running the script would fail with "Text file
/// busy").
fn script(folder: &Path, name: &str, body: &str) -> PathBuf {
    let path = folder.join(name);
    let mut writer = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(&path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut stdin = writer.stdin.take().unwrap();
    stdin
        .write_all(format!("#!/bin/sh\n{body}").as_bytes())
        .unwrap();
    drop(stdin);
    assert!(writer.wait().unwrap().success(), "the script is written");
    path
}

/// An `ssh` for `--ssh` that runs the real one and notes in `log` each time it is started to
/// forward (`-N`), with the `-R` it was given.
struct SshRecorder {
    program: PathBuf,
    log: PathBuf,
}

impl SshRecorder {
    fn new(folder: &Path) -> Self {
        let log = folder.join("ssh-forwards.log");
        let program = script(
            folder,
            "ssh-recorder",
            &format!(
                "case \" $* \" in *\" -N \"*) printf 'forward %s\\n' \"$*\" >> '{}' ;; esac\nexec ssh \"$@\"\n",
                log.display()
            ),
        );
        SshRecorder { program, log }
    }

    /// What ssh was started to forward, one `forward ...` line each time.
    fn forwards(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// How much of each stream of `gatehouse remote` the test keeps (a far side that prints without
/// end must not fill the test's memory either).
const KEPT_OUTPUT: usize = 1 << 20;

/// Collects what `stream` says into `into`, keeping the first [`KEPT_OUTPUT`] bytes and reading
/// (and dropping) the rest until it ends.
fn collect(
    mut stream: impl Read + Send + 'static,
    into: Arc<Mutex<Vec<u8>>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        while let Ok(read) = stream.read(&mut buffer) {
            if read == 0 {
                break;
            }
            let mut kept = into.lock().unwrap();
            let room = KEPT_OUTPUT.saturating_sub(kept.len()).min(read);
            kept.extend_from_slice(&buffer[..room]);
        }
    })
}

/// `gatehouse remote`, its stdout and stderr collected.
struct Remote {
    stderr: Arc<Mutex<Vec<u8>>>,
    stdout: Arc<Mutex<Vec<u8>>>,
    process: Child,
    /// The threads that collect stderr and stdout; each ends at its stream's end.
    collectors: Vec<std::thread::JoinHandle<()>>,
    /// Reaped by [`Remote::exit_within`]: its pid is no longer ours to signal.
    reaped: bool,
}

/// How `gatehouse remote` ended: its exit code and its peak resident memory.
struct Exit {
    code: i32,
    peak_kib: i64,
}

impl Remote {
    fn start(gateway: &Gateway, sshd: &Sshd, remote_socket: &Path) -> Self {
        Self::start_with(gateway, sshd, remote_socket, &[])
    }

    fn start_with(gateway: &Gateway, sshd: &Sshd, remote_socket: &Path, extra: &[&str]) -> Self {
        let socket = remote_socket.display().to_string();
        let mut arguments = vec!["--remote-socket", socket.as_str()];
        arguments.extend_from_slice(extra);
        Self::spawn(gateway, sshd, &arguments, &[])
    }

    /// `gatehouse remote root@127.0.0.1 ARGUMENTS` through `sshd`, with extra environment.
    fn spawn(gateway: &Gateway, sshd: &Sshd, extra: &[&str], env: &[(&str, &str)]) -> Self {
        let mut arguments = vec!["remote".to_owned(), "root@127.0.0.1".to_owned()];
        arguments.extend(extra.iter().map(|word| (*word).to_owned()));
        for option in sshd.options() {
            arguments.push("-o".into());
            arguments.push(option);
        }
        let words: Vec<&str> = arguments.iter().map(String::as_str).collect();
        let mut process = gateway
            .command(&words)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("gatehouse remote starts");
        let (stderr, stdout) = (Arc::default(), Arc::default());
        let collectors = vec![
            collect(process.stderr.take().unwrap(), Arc::clone(&stderr)),
            collect(process.stdout.take().unwrap(), Arc::clone(&stdout)),
        ];
        Remote {
            stderr,
            stdout,
            process,
            collectors,
            reaped: false,
        }
    }

    fn pid(&self) -> u32 {
        self.process.id()
    }

    fn count(&self, text: &str) -> usize {
        self.text()
            .lines()
            .filter(|line| line.contains(text))
            .count()
    }

    /// The pid of ssh in the `up`-th "link is UP" line.
    fn ssh_pid(&self, up: usize) -> i32 {
        let text = self.text();
        let line = text
            .lines()
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

    /// What it said on stderr.
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// What it said on stdout and stderr, raw.
    fn everything(&self) -> Vec<u8> {
        let mut everything = self.stdout.lock().unwrap().clone();
        everything.extend_from_slice(&self.stderr.lock().unwrap());
        everything
    }

    /// Waits until it exits by itself, or until `harmed` says the far side got what it wanted
    /// (then `None`). Panics after `deadline`, and as soon as its resident memory passes
    /// `max_resident_kib` (it is then killed: a test must not exhaust the machine).
    ///
    /// The peak is the highest `VmHWM` read from `/proc` while it runs, not wait4's
    /// `ru_maxrss`: the kernel folds into that the high-water mark of the memory the child left at
    /// `exec`, which for a child of this test binary is the whole runner's (a full run's 200 to
    /// 370 MiB were the runner's, not gatehouse's).
    fn exit_within(
        &mut self,
        deadline: Duration,
        max_resident_kib: i64,
        mut harmed: impl FnMut() -> bool,
    ) -> Option<Exit> {
        let pid = self.pid() as libc::pid_t;
        let start = Instant::now();
        let mut peak_kib = 0;
        loop {
            let status_text =
                std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            let field = |name: &str| {
                status_text
                    .lines()
                    .find_map(|line| line.strip_prefix(name))
                    .and_then(|kib| kib.trim().trim_end_matches(" kB").parse::<i64>().ok())
                    .unwrap_or(0)
            };
            peak_kib = peak_kib.max(field("VmHWM:"));
            let resident = field("VmRSS:");
            let mut status = 0;
            // SAFETY: wait4 writes only to the out-parameter given, for our own child.
            let waited =
                unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, std::ptr::null_mut()) };
            if waited == pid {
                self.reaped = true;
                // Its last words may still be in the pipes: wait for the collectors to reach
                // their ends (bounded: an ssh it started may still hold the pipes open).
                let drained = Instant::now();
                while self
                    .collectors
                    .iter()
                    .any(|collector| !collector.is_finished())
                    && drained.elapsed() < Duration::from_secs(10)
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                return Some(Exit {
                    code: if libc::WIFEXITED(status) {
                        libc::WEXITSTATUS(status)
                    } else {
                        -1
                    },
                    peak_kib,
                });
            }
            if harmed() {
                return None;
            }
            if resident > max_resident_kib {
                let _ = self.process.kill();
                panic!(
                    "gatehouse remote grew to {resident} KiB resident (more than {max_resident_kib}) reading the far side"
                );
            }
            assert!(
                start.elapsed() < deadline,
                "gatehouse remote did not stop within {deadline:?}: {}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        if self.reaped {
            return;
        }
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
            crate::common::cannot_run(&reason);
            return None;
        }
        let gateway = Gateway::start();
        let sshd = Sshd::start();
        let far = tempfile::Builder::new().prefix("gh-far").tempdir().unwrap();
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
        .tempdir()
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
    let wrapper = script(
        far.path(),
        "gatehouse-far",
        &format!(
            "HOME='{}' exec '{}' \"$@\"\n",
            far_home.display(),
            crate::common::binary().display()
        ),
    );
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
    assert!(settings.contains("gatehouse-hook' claude"), "{settings}");
    assert!(
        remote
            .text()
            .contains(&format!("GATEHOUSE_SOCKET={}", remote_socket.display())),
        "{}",
        remote.text()
    );
}

/// A far side that answers the prepare step with `answer` on stdout (and reads what it was sent).
fn far_side_answering(folder: &Path, answer: &[u8]) -> PathBuf {
    let answer_file = folder.join("answer");
    std::fs::write(&answer_file, answer).unwrap();
    script(
        folder,
        "far-side-answering",
        &format!("cat > /dev/null\ncat '{}'\n", answer_file.display()),
    )
}

/// Asserts that nothing `remote` printed is a control character a terminal acts on (ESC, BEL,
/// CR, ...) or a hidden one: the far side's text reached it only as visible escapes.
fn assert_only_visible_text(remote: &Remote) {
    let everything = String::from_utf8_lossy(&remote.everything()).into_owned();
    let raw: Vec<char> = everything
        .chars()
        .filter(|&character| character != '\n' && gatehouse_core::text::needs_escape(character))
        .collect();
    assert!(
        raw.is_empty(),
        "gatehouse remote printed {raw:?} raw: {everything:?}"
    );
}

/// Asserts that no line `remote` printed starts with `forged` (a status line of its own that
/// the far side tried to print), while the far side's text is shown, under its host's name.
fn assert_not_forged(remote: &Remote, forged: &str) {
    let everything = String::from_utf8_lossy(&remote.everything()).into_owned();
    assert!(
        !everything.lines().any(|line| line.starts_with(forged)),
        "the far side printed a line of gatehouse remote's own: {everything}"
    );
    assert!(
        everything
            .lines()
            .any(|line| line.starts_with("  root@127.0.0.1: ") && line.contains(forged)),
        "the far side's text is shown, indented under its name: {everything}"
    );
}

#[test]
fn a_far_side_that_names_a_socket_path_ssh_would_read_as_syntax_is_refused_and_never_forwarded() {
    let Some(Link {
        gateway,
        sshd,
        far,
        remote_socket: _,
    }) = Link::start()
    else {
        return;
    };
    let recorder = SshRecorder::new(far.path());
    let secret = "hunter2-api-key";
    let far_path = far.path().display().to_string();
    let evil = format!("{far_path}/evil.sock");
    // Each answer, and what it would do if ssh were given it. The gateway's own socket is a
    // front end's: a far side connected to it could list and answer prompts.
    let answers: Vec<(&str, String)> = vec![
        // ssh expands ${VAR} from the person's environment: the far sshd learns the secret.
        (
            "an environment variable",
            format!("{far_path}/${{GH_SECRET}}.sock"),
        ),
        // ssh expands %-tokens (here the local user's name).
        ("a %-token", format!("{far_path}/%u.sock")),
        // `\` escapes ssh's own `:`, so the far side picks the local end: a folder any local
        // user can make, whose link-PID.sock leads to the person's gateway socket.
        (
            "a forward of its own",
            format!("{evil}:{far_path}/helper\\"),
        ),
        // Bytes for the terminal: a clipboard write and a line erased.
        (
            "terminal escapes",
            format!("{far_path}/\u{1b}]52;c;aGFja2Vk\u{7}\r\u{1b}[2K.sock"),
        ),
        // A second line, to pass for a status line of gatehouse remote's own.
        (
            "a forged status line",
            format!("{far_path}/a.sock\ngatehouse remote: link to root@127.0.0.1 is UP"),
        ),
    ];
    for (what, answer) in answers {
        let forced = far_side_answering(far.path(), format!("{answer}\n").as_bytes());
        sshd.force_command(&forced);
        let mut remote = Remote::spawn(
            &gateway,
            &sshd,
            &["--ssh", &recorder.program.display().to_string()],
            &[("GH_SECRET", secret)],
        );
        // The local user's help: their folder leads this link's relay to the gateway's socket.
        let relay = gateway
            .socket()
            .with_file_name(format!("link-{}.sock", remote.pid()));
        let helper = PathBuf::from(format!("{far_path}/helper:{}", relay.display()));
        std::fs::create_dir_all(helper.parent().unwrap()).unwrap();
        let _ = std::os::unix::fs::symlink(gateway.socket(), &helper);
        let a_front_end_there = || {
            Path::new(&evil).exists()
                && gateway
                    .command(&["list"])
                    .env("GATEHOUSE_SOCKET", &evil)
                    .output()
                    .unwrap()
                    .status
                    .success()
        };
        // Harm: the link came up with it, or ssh has been trying it for a while.
        let said = Arc::clone(&remote.stderr);
        let mut forwarding_since = None;
        let exit = remote.exit_within(Duration::from_secs(30), 200 * 1024, || {
            if recorder.forwards().is_empty() {
                return false;
            }
            let since = *forwarding_since.get_or_insert_with(Instant::now);
            String::from_utf8_lossy(&said.lock().unwrap()).contains("is UP")
                || since.elapsed() > Duration::from_secs(5)
        });
        let forwards = recorder.forwards();
        assert!(
            forwards.is_empty(),
            "{what}: ssh was started to forward what the far side named ({forwards}); \
             a far front end through {evil}: {}; a socket named after the secret: {}; {}",
            a_front_end_there(),
            far.path().join(format!("{secret}.sock")).exists(),
            remote.text()
        );
        let exit = exit.expect("it stopped by itself");
        assert_ne!(exit.code, 0, "{what}: {}", remote.text());
        let said = remote.text();
        println!("{what}:\n{said}");
        let shown = gatehouse_core::text::visible(&answer);
        assert!(said.contains("refused"), "{what}: says it refused: {said}");
        assert!(
            said.contains(&shown[..shown.len().min(60)]),
            "{what}: shows what it refused: {said}"
        );
        assert!(
            said.contains("--remote-socket"),
            "{what}: says what to do: {said}"
        );
        assert_only_visible_text(&remote);
        assert!(
            !said
                .lines()
                .any(|line| line.starts_with("gatehouse remote: link to")),
            "{what}: {said}"
        );
        assert!(!far.path().join(format!("{secret}.sock")).exists());
        assert!(!far.path().join("root.sock").exists());
        assert!(!a_front_end_there(), "{what}");
        let _ = std::fs::remove_file(&helper);
    }
}

#[test]
fn a_socket_path_the_person_gives_that_ssh_would_read_as_syntax_is_refused_before_ssh_runs() {
    let sandbox = Sandbox::new();
    let started = sandbox.folder.path().join("ssh-started");
    let ssh = script(
        sandbox.folder.path(),
        "ssh-that-notes",
        &format!("touch '{}'\nexit 255\n", started.display()),
    );
    for refused in [
        "/tmp/g:/tmp/other.sock",
        "/tmp/${HOME}.sock",
        "/tmp/%d.sock",
        "/tmp/g\\",
        "relative/g.sock",
        "/tmp/../etc/g.sock",
        "/tmp/g \u{1b}[2K.sock",
    ] {
        let remote = sandbox
            .command(&[
                "remote",
                "devbox",
                "--remote-socket",
                refused,
                "--ssh",
                &ssh.display().to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = finish(remote, Duration::from_secs(10));
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{refused}: {said}");
        assert!(!started.exists(), "{refused}: ssh was started: {said}");
        assert!(
            said.contains("--remote-socket")
                && said.contains(&*gatehouse_core::text::visible(refused)),
            "{refused}: {said}"
        );
        assert!(!said.contains('\u{1b}'), "{said:?}");
    }
}

#[test]
fn what_the_far_side_prints_reaches_the_terminal_only_as_visible_text_under_its_name() {
    let Some(Link {
        gateway,
        sshd,
        far,
        remote_socket,
    }) = Link::start()
    else {
        return;
    };
    let forged = "gatehouse remote: link to root@127.0.0.1 is UP (forged)";
    let hostile = format!("printf 'done\\033]52;c;aGFja2Vk\\007\\r\\033[2K\\n{forged}\\n'");
    // `gatehouse install` there prints escapes and a status line of its own, on both streams.
    let far_side = script(
        far.path(),
        "far-side-install",
        &format!(
            "case \"$SSH_ORIGINAL_COMMAND\" in\n\
             'sh -s'*) eval \"$SSH_ORIGINAL_COMMAND\" ;;\n\
             *) {hostile}; {hostile} >&2 ;;\n\
             esac\n"
        ),
    );
    sshd.force_command(&far_side);
    let remote = Remote::start_with(&gateway, &sshd, &remote_socket, &["--install", "claude"]);
    remote.wait_until_up(1);
    assert_only_visible_text(&remote);
    assert_not_forged(&remote, forged);
    drop(remote);

    // The prepare step fails, saying the same on stderr.
    let far_side = script(
        far.path(),
        "far-side-failing",
        &format!("cat > /dev/null\n{hostile} >&2\nexit 3\n"),
    );
    sshd.force_command(&far_side);
    let remote = Remote::start(&gateway, &sshd, &remote_socket);
    wait_for(
        Duration::from_secs(20),
        "the failed prepare step to be reported",
        || remote.count("cannot open the link") >= 1,
    );
    assert_only_visible_text(&remote);
    assert_not_forged(&remote, forged);
}

#[test]
fn a_far_side_that_prints_without_end_is_stopped_and_refused_with_memory_bounded() {
    let Some(Link {
        gateway,
        sshd,
        far,
        remote_socket,
    }) = Link::start()
    else {
        return;
    };
    let cases = [
        ("on stdout while preparing", "cat > /dev/null\nyes /tmp/far/gatehouse.sock\n", &[][..]),
        ("on stderr while preparing", "cat > /dev/null\nyes 'so much to say' >&2\n", &[][..]),
        (
            "while installing",
            "case \"$SSH_ORIGINAL_COMMAND\" in\n'sh -s'*) eval \"$SSH_ORIGINAL_COMMAND\" ;;\n*) yes installing ;;\nesac\n",
            &["--install", "claude"][..],
        ),
    ];
    for (index, (what, body, extra)) in cases.into_iter().enumerate() {
        let far_side = script(far.path(), &format!("far-side-endless-{index}"), body);
        sshd.force_command(&far_side);
        let socket = remote_socket.display().to_string();
        let mut arguments = vec!["--remote-socket", socket.as_str()];
        arguments.extend_from_slice(extra);
        let mut remote = Remote::spawn(&gateway, &sshd, &arguments, &[]);
        let exit = remote
            .exit_within(Duration::from_secs(30), 200 * 1024, || false)
            .expect("it stops by itself");
        let said = remote.text();
        println!(
            "{what}: exit {}, peak {} KiB resident; {} bytes said, ending:\n{}",
            exit.code,
            exit.peak_kib,
            said.len(),
            said.lines().rev().take(3).collect::<Vec<_>>().join("\n")
        );
        assert_ne!(exit.code, 0, "{what}: {said}");
        assert!(
            exit.peak_kib < 64 * 1024,
            "{what}: peak {} KiB resident",
            exit.peak_kib
        );
        assert!(
            said.contains("more than") && said.contains("bytes"),
            "{what}: says what it refused: {said}"
        );
        assert!(
            said.len() < 64 * 1024,
            "{what}: shows a bounded part of it ({} bytes)",
            said.len()
        );
    }
}

/// A far side that says its forward is up and drops it at once (or only forges the line in its
/// banner) gets the growing pause of a failing link, not a reconnection loop: before, a fake
/// ssh doing so was run 1,717 times in 5 s. The forwarding ssh also runs in batch mode, so that
/// HOST's password prompt never reaches the terminal.
#[test]
fn a_link_that_drops_as_soon_as_it_is_up_is_retried_with_a_growing_pause() {
    let gateway = Gateway::start();
    let folder = gateway.sandbox.folder.path();
    let runs = folder.join("forward-runs");
    let ssh = script(
        folder,
        "ssh-up-and-down",
        &format!(
            "case \" $* \" in\n  *\" -N \"*)\n    case \" $* \" in *BatchMode=yes*) ;; *) echo 'not in batch mode' >> '{runs}' ;; esac\n    echo run >> '{runs}'\n    echo 'debug1: remote forward success for: listen /tmp/x/g.sock, connect x' >&2\n    exit 0 ;;\n  *) echo /tmp/gh-far-x/g.sock ;;\nesac\n",
            runs = runs.display()
        ),
    );
    let remote = gateway
        .command(&["remote", "devbox", "--ssh", &ssh.display().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut remote = Reaped::from(remote);
    let ran = || {
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .filter(|line| *line == "run")
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while ran() < 2 {
        assert!(Instant::now() < deadline, "the link was never retried");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Its pauses are 1 s, 2 s, 4 s ...: within 3 s of the second run, at most one more.
    let second = ran();
    std::thread::sleep(Duration::from_secs(3));
    let third = ran();
    remote.stop();
    assert!(third <= second + 1, "{second} runs, then {third} 3 s later");
    let said = std::fs::read_to_string(&runs).unwrap_or_default();
    assert!(!said.contains("not in batch mode"), "{said}");
}
