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
    /// to five seconds a signal for the program and every process it started to exit, so that
    /// none writes into a folder the caller removes next. Dropping the terminal does the same.
    pub fn kill(&self) {
        let _ = self.run(&["kill-server"]);
        if let Some(socket_file) = &self.socket_file {
            let _ = std::fs::remove_file(socket_file);
        }
        if let Some(pid) = self.pane_pid {
            // The pane's program leads its own session (tmux makes each pane one): it and every
            // process it started that outlives the hang-up (a helper, a worker writing caches)
            // are in that session, and are ended by signal, one by one.
            for signal in [None, Some("-TERM"), Some("-KILL")] {
                if let Some(signal) = signal {
                    for member in session_members(pid) {
                        let _ = Command::new("kill")
                            .args([signal, &member.to_string()])
                            .stderr(Stdio::null())
                            .status();
                    }
                }
                let started = Instant::now();
                while !session_members(pid).is_empty() && started.elapsed() < Duration::from_secs(5)
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                if session_members(pid).is_empty() {
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

/// The processes still running (zombies count as gone) in the session `session` leads, the
/// leader included. Without /proc, none.
fn session_members(session: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // After the command name, in parentheses: state, parent, group, session.
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first().is_some_and(|state| *state != "Z")
                && fields.get(3).and_then(|field| field.parse::<u32>().ok()) == Some(session)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process the program started, which ignores the hang-up, is ended with the terminal, so
    /// that it writes nothing into a folder removed next (seen: Copilot CLI's and Gemini CLI's
    /// helpers recreating a test's removed home).
    #[test]
    fn what_the_program_started_is_gone_once_the_terminal_is_killed() {
        if !tmux_available() {
            assert!(std::env::var_os("CI").is_none(), "tmux is needed in CI");
            eprintln!("skipped: no tmux");
            return;
        }
        let folder = std::env::temp_dir();
        let terminal = Terminal::start(
            "survivor",
            &folder,
            &[("PATH", std::env::var("PATH").unwrap_or_default())],
            &["sh", "-c", "nohup sleep 60 >/dev/null 2>&1 & exec sleep 60"],
        )
        .expect("tmux starts");
        let leader = terminal.pane_pid.expect("the pane's program");
        let started = Instant::now();
        while session_members(leader).len() < 2 && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            session_members(leader).len(),
            2,
            "the program and its helper run"
        );
        terminal.kill();
        assert_eq!(
            session_members(leader),
            Vec::<u32>::new(),
            "nothing of it is left"
        );
    }
}
