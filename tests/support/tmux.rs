//! A detached tmux session on a private server socket, for driving interactive terminal programs.
//!
//! Every `Tmux` starts its own tmux server with `-L <unique name>` and `-f /dev/null`, so it never
//! touches the user's tmux sessions or configuration. The program runs in a 200x50 window under
//! `env -i`, so it sees exactly the environment the test passes and nothing inherited. The pane
//! stays around after the program exits (`remain-on-exit`), so a test can still read the last
//! screen; tmux 3.3 then adds a "Pane is dead" line and scrolls the screen up by one line. The
//! whole server is killed when the `Tmux` is dropped.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The path of the tmux binary; `GATEHOUSE_TMUX` overrides it.
fn tmux_bin() -> String {
    std::env::var("GATEHOUSE_TMUX").unwrap_or_else(|_| "tmux".to_string())
}

/// Reports whether a usable tmux binary is installed.
pub fn tmux_available() -> bool {
    Command::new(tmux_bin())
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The window width used for every session.
pub const WIDTH: u16 = 200;
/// The window height used for every session.
pub const HEIGHT: u16 = 50;

/// A counter that keeps socket names unique within one test process.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// One tmux server with one session running one program.
pub struct Tmux {
    socket: String,
    target: String,
    pane_pid: Option<u32>,
    socket_path: Option<String>,
}

impl Tmux {
    /// Starts `command` in a new detached session called `name`, with working directory `cwd`
    /// and exactly the environment `env`.
    pub fn start(name: &str, cwd: &Path, env: &[(&str, &str)], command: &[&str]) -> Tmux {
        assert!(!command.is_empty(), "Tmux::start needs a command to run");
        let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
        let clean: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let socket = format!("gatehouse-test-{}-{}-{}", std::process::id(), id, clean);
        let mut tmux = Tmux {
            socket,
            target: clean.clone(),
            pane_pid: None,
            socket_path: None,
        };

        let mut args: Vec<String> = vec![
            "start-server".into(),
            ";".into(),
            "set-option".into(),
            "-g".into(),
            "remain-on-exit".into(),
            "on".into(),
            ";".into(),
            "set-option".into(),
            "-g".into(),
            "history-limit".into(),
            "5000".into(),
            ";".into(),
            "new-session".into(),
            "-d".into(),
            "-s".into(),
            clean,
            "-x".into(),
            WIDTH.to_string(),
            "-y".into(),
            HEIGHT.to_string(),
            "-c".into(),
            cwd.display().to_string(),
            "--".into(),
            "env".into(),
            "-i".into(),
        ];
        args.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        args.extend(command.iter().map(|c| c.to_string()));
        let out = tmux.run(&args);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux.pane_pid = tmux.pane_pid();
        let out = tmux.run(&["display-message", "-p", "#{socket_path}"]);
        let socket_path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        tmux.socket_path = (!socket_path.is_empty()).then_some(socket_path);
        tmux
    }

    /// Returns the private socket name, for running tmux by hand while debugging.
    pub fn socket_name(&self) -> &str {
        &self.socket
    }

    /// Returns the visible screen as plain text, one line per row.
    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", &self.target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen contains `text` and returns that screen; it panics with the last
    /// screen when `deadline` passes first.
    pub fn wait_for_text(&self, text: &str, deadline: Duration) -> String {
        self.wait_for_screen(deadline, &format!("{text:?} on the screen"), |s| {
            s.contains(text)
        })
    }

    /// Waits until the screen no longer contains `text` and returns that screen; it panics with
    /// the last screen when `deadline` passes first.
    pub fn wait_for_text_gone(&self, text: &str, deadline: Duration) -> String {
        self.wait_for_screen(deadline, &format!("{text:?} to leave the screen"), |s| {
            !s.contains(text)
        })
    }

    /// Waits until `check` accepts the screen and returns that screen; it panics with `what`
    /// and the last screen when `deadline` passes first.
    pub fn wait_for_screen(
        &self,
        deadline: Duration,
        what: &str,
        mut check: impl FnMut(&str) -> bool,
    ) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if check(&screen) {
                return screen;
            }
            if start.elapsed() >= deadline {
                panic!(
                    "timed out after {:?} waiting for {what}; last screen:\n{}\n{}\n{}",
                    deadline,
                    "-".repeat(40),
                    screen.trim_end(),
                    "-".repeat(40)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends tmux key names such as `Enter`, `Escape`, `Up` or `1`, in order.
    pub fn send_keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.target];
        args.extend_from_slice(keys);
        let out = self.run(&args);
        assert!(
            out.status.success(),
            "tmux send-keys failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Types `text` literally, without interpreting words such as `Enter` as key names.
    pub fn send_text(&self, text: &str) {
        let out = self.run(&["send-keys", "-t", &self.target, "-l", text]);
        assert!(
            out.status.success(),
            "tmux send-keys -l failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Waits until `text` has stayed on the screen for at least `stable_for` without a break and
    /// returns the latest screen; it panics with the last screen when `deadline` passes first.
    pub fn wait_for_text_stable(
        &self,
        text: &str,
        stable_for: Duration,
        deadline: Duration,
    ) -> String {
        let mut seen_since: Option<Instant> = None;
        self.wait_for_screen(
            deadline,
            &format!("{text:?} to stay on the screen for {stable_for:?}"),
            |s| {
                if !s.contains(text) {
                    seen_since = None;
                    return false;
                }
                seen_since.get_or_insert_with(Instant::now).elapsed() >= stable_for
            },
        )
    }

    /// Presses `keys` until `text` leaves the screen, pressing again whenever one round shows no
    /// effect within `retry_after`, and returns the first screen without `text`; it panics with
    /// the last screen when `deadline` passes first. This suits programs that drop keys for a
    /// moment after showing a dialog.
    pub fn press_until_gone(
        &self,
        keys: &[&str],
        text: &str,
        retry_after: Duration,
        deadline: Duration,
    ) -> String {
        let start = Instant::now();
        loop {
            self.send_keys(keys);
            let round = Instant::now();
            loop {
                let screen = self.screen();
                if !screen.contains(text) {
                    return screen;
                }
                if start.elapsed() >= deadline {
                    panic!(
                        "timed out after {:?} pressing {keys:?} to clear {text:?}; last screen:\n{}",
                        deadline,
                        screen.trim_end()
                    );
                }
                if round.elapsed() >= retry_after {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    /// Reports whether the program in the pane has exited.
    pub fn is_dead(&self) -> bool {
        let out = self.run(&["display-message", "-p", "-t", &self.target, "#{pane_dead}"]);
        !out.status.success() || String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    /// Returns the process id of the program in the pane.
    pub fn pane_pid(&self) -> Option<u32> {
        let out = self.run(&["display-message", "-p", "-t", &self.target, "#{pane_pid}"]);
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    }

    /// Kills the tmux server and with it the program, removes the server's socket file, and
    /// waits up to five seconds for the program to exit so that its files can be removed;
    /// dropping the `Tmux` does the same.
    pub fn kill(&self) {
        let _ = self.run(&["kill-server"]);
        // tmux leaves its socket file behind after kill-server, so it is removed here.
        if let Some(path) = &self.socket_path {
            let _ = std::fs::remove_file(path);
        }
        if let Some(pid) = self.pane_pid {
            let start = Instant::now();
            while process_running(pid) && start.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// Runs one tmux command against this server.
    fn run<S: AsRef<str>>(&self, args: &[S]) -> Output {
        Command::new(tmux_bin())
            .args(["-u", "-L", &self.socket, "-f", "/dev/null"])
            .args(args.iter().map(|a| a.as_ref()))
            .stdin(Stdio::null())
            .output()
            .expect("run tmux")
    }
}

/// Reports whether process `pid` is still running; a zombie counts as gone. The check uses
/// /proc, so on systems without it every process counts as gone.
fn process_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the command name, which is wrapped in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.kill();
    }
}
