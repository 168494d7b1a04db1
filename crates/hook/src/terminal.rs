//! The tmux session and window of the pane a prompt's agent runs in (`main:2`), asked of tmux
//! itself, since the environment names only the server and the pane. It is the hook's, like the
//! host name: the adapter reads `TMUX`/`TMUX_PANE`, the hook asks tmux once, within a short
//! deadline, and goes on without it when tmux does not answer. The deadline holds whatever tmux
//! does: its first line is read on a thread of its own, so a child that leaves its output open
//! (a process it started in the background) costs no more than the deadline.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gatehouse_core::TerminalLocation;

/// How long tmux may take to answer before the window is left out.
const DEADLINE: Duration = Duration::from_millis(300);

/// The longest answer read; a window's name is shorter.
const MAX_ANSWER_BYTES: u64 = 256;

/// Fills `terminal.tmux_window` from the tmux server the pane belongs to, if it answers.
pub fn name_tmux_window(terminal: &mut TerminalLocation) {
    name_tmux_window_with(Path::new("tmux"), terminal, DEADLINE);
}

/// [`name_tmux_window`], asking `tmux` within `deadline`.
fn name_tmux_window_with(tmux: &Path, terminal: &mut TerminalLocation, deadline: Duration) {
    if terminal.tmux_socket.is_empty() || terminal.tmux_pane.is_empty() {
        return;
    }
    let started = Instant::now();
    let Ok(mut child) = Command::new(tmux)
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
    let Some(stdout) = child.stdout.take() else {
        return;
    };
    let (answer, answered) = mpsc::channel();
    let _ = std::thread::Builder::new()
        .name("hook-tmux".into())
        .spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout.take(MAX_ANSWER_BYTES)).read_line(&mut line);
            let _ = answer.send(line);
        });
    let line = answered
        .recv_timeout(deadline.saturating_sub(started.elapsed()))
        .unwrap_or_default();
    let succeeded = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if started.elapsed() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return;
            }
        }
    };
    let window = line.trim();
    if succeeded && !window.is_empty() && window.len() <= 200 {
        terminal.tmux_window = window.to_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Long enough for a shell script to start on a busy machine.
    const GENEROUS: Duration = Duration::from_secs(5);

    /// A pane on a tmux server.
    fn pane() -> TerminalLocation {
        TerminalLocation {
            tmux_socket: "/tmp/tmux-test/default".into(),
            tmux_pane: "%5".into(),
            ..TerminalLocation::default()
        }
    }

    /// A `tmux` that runs `script` (a shell script) in `folder`. A shell writes it, so that no
    /// child forked by another test thread inherits it open for writing ("Text file busy").
    fn fake_tmux(folder: &Path, script: &str) -> std::path::PathBuf {
        use std::io::Write;
        let path = folder.join("tmux");
        let mut writer = Command::new("sh")
            .args(["-c", "cat > \"$1\" && chmod 700 \"$1\"", "sh"])
            .arg(&path)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = writer.stdin.take().unwrap();
        stdin
            .write_all(format!("#!/bin/sh\n{script}\n").as_bytes())
            .unwrap();
        drop(stdin);
        assert!(writer.wait().unwrap().success());
        path
    }

    #[test]
    fn the_window_is_what_tmux_answers() {
        let folder = tempfile::tempdir().unwrap();
        let mut terminal = pane();
        name_tmux_window_with(
            &fake_tmux(folder.path(), "echo main:2"),
            &mut terminal,
            GENEROUS,
        );
        assert_eq!(terminal.tmux_window, "main:2");
    }

    #[test]
    fn a_tmux_that_leaves_its_output_open_costs_no_more_than_the_deadline() {
        let folder = tempfile::tempdir().unwrap();
        let pid_file = folder.path().join("lingering.pid");
        // Answers, then leaves a process holding its stdout for 30 s and exits.
        let script = format!("echo main:2\nsleep 30 &\necho $! > {}", pid_file.display());
        let tmux = fake_tmux(folder.path(), &script);
        let started = Instant::now();
        let mut terminal = pane();
        name_tmux_window_with(&tmux, &mut terminal, GENEROUS);
        let took = started.elapsed();
        if let Ok(pid) = std::fs::read_to_string(&pid_file) {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
        assert!(took < GENEROUS + Duration::from_secs(5), "took {took:?}");
        assert_eq!(terminal.tmux_window, "main:2", "its first line is read");
    }

    #[test]
    fn a_tmux_that_never_answers_is_left_out() {
        let folder = tempfile::tempdir().unwrap();
        let mut terminal = pane();
        let tmux = fake_tmux(folder.path(), "exec sleep 30");
        name_tmux_window_with(&tmux, &mut terminal, Duration::from_millis(300));
        assert_eq!(terminal.tmux_window, "", "left out");
    }
}
