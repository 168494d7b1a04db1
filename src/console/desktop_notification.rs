//! The optional desktop notification (`gatehouse console --notify`) for a new actionable prompt,
//! for a person who is in another window. It runs `notify-send` when it is installed and does
//! nothing at all when it is not: a notification is a courtesy, never a requirement.

use std::process::{Command, Stdio};

use super::state::Alert;

/// Raises the alert in the background; never blocks the screen and never reports a failure.
pub fn raise(alert: &Alert) {
    let alert = alert.clone();
    std::thread::spawn(move || {
        let _ = Command::new("notify-send")
            .args(["--app-name=gatehouse", &alert.title, &alert.body])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    });
}
