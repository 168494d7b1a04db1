//! The tests' view of [`gatehouse_harness::terminal`], the one tmux driver that probes and tests
//! share: the same terminal, with waits that panic with the last screen when their deadline
//! passes, as a test wants.

use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_harness::terminal::Terminal;

/// One tmux server with one session running one program.
pub struct Tmux {
    terminal: Terminal,
}

impl Tmux {
    /// Starts `command` in a new detached session called `name`, with working directory `cwd`
    /// and exactly the environment `env`.
    pub fn start(name: &str, cwd: &Path, env: &[(&str, &str)], command: &[&str]) -> Tmux {
        let terminal =
            Terminal::start(name, cwd, env, command).unwrap_or_else(|error| panic!("{error}"));
        Tmux { terminal }
    }

    /// The harness terminal itself, for helpers that take one.
    pub fn terminal(&self) -> &Terminal {
        &self.terminal
    }

    /// Like [`Tmux::start`], with the `TMUX` and `TMUX_PANE` tmux gives the pane kept.
    pub fn start_keeping_tmux_variables(
        name: &str,
        cwd: &Path,
        env: &[(&str, &str)],
        command: &[&str],
    ) -> Tmux {
        let terminal = Terminal::start_keeping_tmux_variables(name, cwd, env, command)
            .unwrap_or_else(|error| panic!("{error}"));
        Tmux { terminal }
    }

    /// Returns the private server's name, for running tmux by hand while debugging.
    pub fn socket_name(&self) -> &str {
        self.terminal.server_name()
    }

    /// Returns the tmux id of the program's pane, such as `%0`.
    pub fn pane_id(&self) -> String {
        self.terminal.pane_id()
    }

    /// Returns the visible screen as plain text, one line per row.
    pub fn screen(&self) -> String {
        self.terminal.screen()
    }

    /// Waits until the screen contains `text` and returns that screen.
    pub fn wait_for_text(&self, text: &str, deadline: Duration) -> String {
        self.wait_for_screen(deadline, &format!("{text:?} on the screen"), |s| {
            s.contains(text)
        })
    }

    /// Waits until the screen no longer contains `text` and returns that screen.
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
        check: impl FnMut(&str) -> bool,
    ) -> String {
        self.terminal.wait_for_screen(deadline, check).unwrap_or_else(|screen| {
            let rule = "-".repeat(40);
            panic!("timed out after {deadline:?} waiting for {what}; last screen:\n{rule}\n{}\n{rule}", screen.trim_end())
        })
    }

    /// Sends tmux key names such as `Enter`, `Escape`, `Up` or `1`, in order.
    pub fn send_keys(&self, keys: &[&str]) {
        assert!(
            self.terminal.send_keys(keys),
            "tmux send-keys {keys:?} failed"
        );
    }

    /// Types `text` literally, without interpreting words such as `Enter` as key names.
    pub fn send_text(&self, text: &str) {
        assert!(self.terminal.send_text(text), "tmux send-keys -l failed");
    }

    /// Waits until `text` has stayed on the screen for at least `stable_for` without a break and
    /// returns the latest screen.
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
    /// effect within `retry_after`, and returns the first screen without `text`. This suits
    /// programs that drop keys for a moment after showing a dialog.
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
            let round = self.terminal.wait_for_screen(
                retry_after.min(deadline.saturating_sub(start.elapsed())),
                |s| !s.contains(text),
            );
            match round {
                Ok(screen) => {
                    // An agent that redraws its whole screen (Ink, under load) can be caught
                    // mid-redraw with the text missing: gone means still gone a second later.
                    let back = self
                        .terminal
                        .wait_for_screen(Duration::from_secs(1), |s| s.contains(text));
                    if back.is_err() {
                        return screen;
                    }
                }
                Err(screen) if start.elapsed() >= deadline => {
                    panic!("timed out after {deadline:?} pressing {keys:?} to clear {text:?}; last screen:\n{}", screen.trim_end())
                }
                Err(_) => {}
            }
        }
    }

    /// Reports whether the program in the pane has exited.
    pub fn is_dead(&self) -> bool {
        self.terminal.is_dead()
    }

    /// Returns the process id of the program in the pane.
    pub fn pane_pid(&self) -> Option<u32> {
        self.terminal.pane_pid()
    }

    /// Kills the tmux server and with it the program, and waits for the program to exit;
    /// dropping the `Tmux` does the same.
    pub fn kill(&self) {
        self.terminal.kill();
    }
}
