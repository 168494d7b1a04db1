//! A private terminal for an interactive program, run by tmux: the agents' permission dialogs
//! exist only there.
//!
//! Each terminal is its own tmux server (`-L` with a unique name, `-f /dev/null`), so the
//! person's tmux sessions and settings are never touched. The program runs under `env -i` with
//! exactly the environment given, in a 200x50 window. The pane stays after the program exits
//! (`remain-on-exit`), so the last screen can still be read; tmux then adds a "Pane is dead"
//! line. The server is killed, and its socket file removed, when the terminal is dropped.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The window width of every terminal.
pub const WIDTH: u16 = 200;
/// The window height of every terminal.
pub const HEIGHT: u16 = 50;

/// Why the terminal could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    #[error("tmux could not run ({0}); gatehouse drives the agent's interactive terminal through tmux, so install tmux")]
    NoTmux(String),
    #[error("tmux could not start the program: {0}")]
    Start(String),
}

/// The tmux binary; `GATEHOUSE_TMUX` overrides it.
fn tmux_program() -> String {
    std::env::var("GATEHOUSE_TMUX").unwrap_or_else(|_| "tmux".to_owned())
}

/// Whether a usable tmux is installed.
pub fn tmux_available() -> bool {
    Command::new(tmux_program())
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// One tmux server running one program.
pub struct Terminal {
    server: String,
    target: String,
    pane_pid: Option<u32>,
    /// The server's socket file, which tmux leaves behind when the server is killed.
    socket_file: Option<String>,
}

impl Terminal {
    /// Starts `command` (a program and its arguments) in `folder` with exactly `environment`,
    /// in a session called `name`.
    pub fn start<K: AsRef<str>, V: AsRef<str>>(
        name: &str,
        folder: &Path,
        environment: &[(K, V)],
        command: &[&str],
    ) -> Result<Terminal, TerminalError> {
        Self::start_with(name, folder, environment, command, false)
    }

    /// Like [`Terminal::start`], but the program also gets the `TMUX` and `TMUX_PANE` that tmux
    /// gives the pane, as a program run by a person in tmux does.
    pub fn start_keeping_tmux_variables<K: AsRef<str>, V: AsRef<str>>(
        name: &str,
        folder: &Path,
        environment: &[(K, V)],
        command: &[&str],
    ) -> Result<Terminal, TerminalError> {
        Self::start_with(name, folder, environment, command, true)
    }

    fn start_with<K: AsRef<str>, V: AsRef<str>>(
        name: &str,
        folder: &Path,
        environment: &[(K, V)],
        command: &[&str],
        keep_tmux_variables: bool,
    ) -> Result<Terminal, TerminalError> {
        let version = Command::new(tmux_program())
            .arg("-V")
            .output()
            .map_err(|error| TerminalError::NoTmux(error.to_string()))?;
        if !version.status.success() {
            return Err(TerminalError::NoTmux(
                String::from_utf8_lossy(&version.stderr).trim().to_owned(),
            ));
        }
        if command.is_empty() {
            return Err(TerminalError::Start("no program to run".into()));
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let target: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let mut terminal = Terminal {
            server: format!(
                "gatehouse-{}-{}-{target}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ),
            target: target.clone(),
            pane_pid: None,
            socket_file: None,
        };
        let mut arguments: Vec<String> = [
            "start-server",
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
            ";",
        ]
        .into_iter()
        .chain([
            "set-option",
            "-g",
            "history-limit",
            "5000",
            ";",
            "new-session",
            "-d",
            "-s",
        ])
        .map(String::from)
        .collect();
        arguments.push(target);
        arguments.extend([
            "-x".into(),
            WIDTH.to_string(),
            "-y".into(),
            HEIGHT.to_string(),
            "-c".into(),
        ]);
        arguments.push(folder.display().to_string());
        arguments.push("--".into());
        if keep_tmux_variables {
            // `env -i` would drop them: a shell hands tmux's values on.
            arguments.extend(
                [
                    "sh",
                    "-c",
                    r#"exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" "$@""#,
                    "sh",
                ]
                .map(String::from),
            );
        } else {
            arguments.extend(["env".into(), "-i".into()]);
        }
        arguments.extend(
            environment
                .iter()
                .map(|(name, value)| format!("{}={}", name.as_ref(), value.as_ref())),
        );
        // An agent's temporary files (OpenCode's extracted libraries, Qwen Code's socket folder)
        // go into its private home, and leave with it, unless the caller chose a TMPDIR.
        let named = |wanted: &str| {
            environment
                .iter()
                .find(|(name, _)| name.as_ref() == wanted)
                .map(|(_, value)| value.as_ref().to_owned())
        };
        if let (Some(home), None) = (named("HOME"), named("TMPDIR")) {
            let temporary = Path::new(&home).join(".tmp");
            if std::fs::create_dir_all(&temporary).is_ok() {
                arguments.push(format!("TMPDIR={}", temporary.display()));
            }
        }
        arguments.extend(command.iter().map(|word| word.to_string()));
        let output = terminal
            .run(&arguments)
            .map_err(|error| TerminalError::Start(error.to_string()))?;
        if !output.status.success() {
            return Err(TerminalError::Start(
                String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            ));
        }
        terminal.pane_pid = terminal.pane_pid();
        terminal.socket_file = terminal
            .run(&["display-message", "-p", "#{socket_path}"])
            .ok()
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
            .filter(|path| !path.is_empty());
        Ok(terminal)
    }

    /// The private server's name, for running tmux by hand while debugging (`tmux -L NAME`).
    pub fn server_name(&self) -> &str {
        &self.server
    }

    /// The visible screen, as plain text, one line a row.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", &self.target])
            .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
            .unwrap_or_default()
    }

    /// Types `text` literally, without reading words such as `Enter` as key names.
    pub fn send_text(&self, text: &str) -> bool {
        self.succeeds(&["send-keys", "-t", &self.target, "-l", text])
    }

    /// Presses keys by tmux name, such as `Enter`, `Escape`, `Up` or `1`, in order.
    pub fn send_keys(&self, keys: &[&str]) -> bool {
        let mut arguments = vec!["send-keys", "-t", &self.target];
        arguments.extend_from_slice(keys);
        self.succeeds(&arguments)
    }

    /// Waits until `check` accepts the screen: `Ok` with that screen, or `Err` with the last
    /// screen when `deadline` passes first.
    pub fn wait_for_screen(
        &self,
        deadline: Duration,
        mut check: impl FnMut(&str) -> bool,
    ) -> Result<String, String> {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if check(&screen) {
                return Ok(screen);
            }
            if started.elapsed() >= deadline {
                return Err(screen);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the program in the pane has exited.
    pub fn is_dead(&self) -> bool {
        match self.run(&["display-message", "-p", "-t", &self.target, "#{pane_dead}"]) {
            Ok(output) => {
                !output.status.success() || String::from_utf8_lossy(&output.stdout).trim() == "1"
            }
            Err(_) => true,
        }
    }

    /// The process id of the program in the pane.
    pub fn pane_pid(&self) -> Option<u32> {
        let output = self
            .run(&["display-message", "-p", "-t", &self.target, "#{pane_pid}"])
            .ok()?;
        String::from_utf8_lossy(&output.stdout).trim().parse().ok()
    }

    /// The tmux id of the program's pane, such as `%0`.
    pub fn pane_id(&self) -> String {
        self.run(&["display-message", "-p", "-t", &self.target, "#{pane_id}"])
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
            .unwrap_or_default()
    }

    /// Kills the server and with it the program, removes the server's socket file, and waits up
    /// to five seconds for the program to exit, so that its files can be removed. Dropping the
    /// terminal does the same.
    pub fn kill(&self) {
        let _ = self.run(&["kill-server"]);
        if let Some(socket_file) = &self.socket_file {
            let _ = std::fs::remove_file(socket_file);
        }
        if let Some(pid) = self.pane_pid {
            // The pane's program leads its own process group (tmux makes each pane a session):
            // one that outlives the hang-up, with the children it started, is ended by signal.
            for signal in [None, Some("-TERM"), Some("-KILL")] {
                if let Some(signal) = signal {
                    let _ = Command::new("kill")
                        .args([signal, "--", &format!("-{pid}")])
                        .stderr(Stdio::null())
                        .status();
                }
                let started = Instant::now();
                while process_running(pid) && started.elapsed() < Duration::from_secs(5) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                if !process_running(pid) {
                    break;
                }
            }
        }
    }

    fn succeeds(&self, arguments: &[&str]) -> bool {
        self.run(arguments)
            .is_ok_and(|output| output.status.success())
    }

    fn run<S: AsRef<str>>(&self, arguments: &[S]) -> std::io::Result<Output> {
        Command::new(tmux_program())
            .args(["-u", "-L", &self.server, "-f", "/dev/null"])
            .args(arguments.iter().map(AsRef::as_ref))
            .stdin(Stdio::null())
            .output()
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether process `pid` still runs; a zombie counts as gone. Without /proc, every process does.
fn process_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the command name, which is wrapped in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}
