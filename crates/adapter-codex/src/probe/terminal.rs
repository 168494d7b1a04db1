//! A private terminal for Codex's interactive UI, run by tmux: Codex's approval prompt exists
//! only there (`codex exec` forces the approval policy `never`, observed with 0.171.0).
//!
//! Each terminal is its own tmux server (`-L` with a unique name, `-f /dev/null`), so the
//! person's tmux sessions and settings are never touched. The program runs under `env -i` with
//! exactly the environment given. The server is killed when the terminal is dropped.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Why the terminal could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    #[error("tmux could not run ({0}); the probe drives Codex's interactive terminal through tmux, so install tmux, then run the probe again")]
    NoTmux(String),
    #[error("tmux could not start Codex: {0}")]
    Start(String),
}

/// One tmux server running one program in a 200x50 window.
pub struct Terminal {
    server: String,
    /// The server's socket file, which tmux leaves behind when the server is killed.
    socket_file: Option<String>,
}

impl Terminal {
    /// Starts `program` with `arguments` in `folder`, with exactly `environment`.
    pub fn start(
        folder: &Path,
        environment: &[(String, String)],
        program: &Path,
        arguments: &[&str],
    ) -> Result<Terminal, TerminalError> {
        let version = Command::new("tmux")
            .arg("-V")
            .output()
            .map_err(|error| TerminalError::NoTmux(error.to_string()))?;
        if !version.status.success() {
            return Err(TerminalError::NoTmux(
                String::from_utf8_lossy(&version.stderr).trim().to_owned(),
            ));
        }
        let mut terminal = Terminal {
            server: format!("gatehouse-probe-{}-{}", std::process::id(), unique_suffix()),
            socket_file: None,
        };
        let mut command: Vec<String> = [
            "new-session",
            "-d",
            "-s",
            "probe",
            "-x",
            "200",
            "-y",
            "50",
            "-c",
        ]
        .map(String::from)
        .into();
        command.push(folder.display().to_string());
        command.extend(["--".into(), "env".into(), "-i".into()]);
        command.extend(
            environment
                .iter()
                .map(|(name, value)| format!("{name}={value}")),
        );
        command.push(program.display().to_string());
        command.extend(arguments.iter().map(|argument| argument.to_string()));
        let output = terminal
            .run(&command)
            .map_err(|error| TerminalError::Start(error.to_string()))?;
        if !output.status.success() {
            return Err(TerminalError::Start(
                String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            ));
        }
        terminal.socket_file = terminal
            .run(&["display-message", "-p", "#{socket_path}"])
            .ok()
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
            .filter(|path| !path.is_empty());
        Ok(terminal)
    }

    /// The visible screen, as plain text.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "probe"])
            .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
            .unwrap_or_default()
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        let _ = self.run(&["send-keys", "-t", "probe", "-l", text]);
    }

    /// Presses keys by tmux name, such as `Enter` or `Escape`.
    pub fn press(&self, key: &str) {
        let _ = self.run(&["send-keys", "-t", "probe", key]);
    }

    /// Waits until `check` accepts the screen; the last screen is returned either way.
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
            if started.elapsed() > deadline {
                return Err(screen);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn run<S: AsRef<str>>(&self, arguments: &[S]) -> std::io::Result<Output> {
        Command::new("tmux")
            .args(["-u", "-L", &self.server, "-f", "/dev/null"])
            .args(arguments.iter().map(AsRef::as_ref))
            .stdin(Stdio::null())
            .output()
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        if let Some(socket_file) = &self.socket_file {
            let _ = std::fs::remove_file(socket_file);
        }
    }
}

/// A number that differs between terminals of one process.
fn unique_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
