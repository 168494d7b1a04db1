//! The tmux session and window of the pane a prompt's agent runs in (`main:2`), asked of tmux
//! itself, since the environment names only the server and the pane. It is the hook's, like the
//! host name: the adapter reads `TMUX`/`TMUX_PANE`, the hook asks tmux once, within a short
//! deadline, and goes on without it when tmux does not answer.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gatehouse_core::TerminalLocation;

/// How long tmux may take to answer before the window is left out.
const DEADLINE: Duration = Duration::from_millis(300);

/// Fills `terminal.tmux_window` from the tmux server the pane belongs to, if it answers.
pub fn name_tmux_window(terminal: &mut TerminalLocation) {
    if terminal.tmux_socket.is_empty() || terminal.tmux_pane.is_empty() {
        return;
    }
    let Ok(mut child) = Command::new("tmux")
        .args(["-S", &terminal.tmux_socket, "display-message", "-p", "-t"])
        .arg(&terminal.tmux_pane)
        .arg("#S:#I")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return;
    };
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < DEADLINE => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return;
            }
        }
    };
    let mut output = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut output);
    }
    let window = output.trim();
    if status.success() && !window.is_empty() && window.len() <= 200 {
        terminal.tmux_window = window.to_owned();
    }
}
