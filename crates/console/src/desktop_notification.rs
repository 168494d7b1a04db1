//! The optional desktop notification (`gatehouse console --notify`) for a new actionable prompt,
//! for a person who is in another window. It runs `notify-send` when it is installed and does
//! nothing at all when it is not: a notification is a courtesy, never a requirement.
//!
//! The title and body are agent text. `notify-send` reads options anywhere on its command line
//! (a summary of `--icon=...` or `-u critical` would be one) and notification servers read the
//! body as markup (`<a href>`, `<img>`, `&...;`). So the options end with `--`, every line is made
//! visible ([`visible`]) and `&`, `<` and `>` are escaped: what the person sees is the text,
//! character for character, and nothing of it is ever an instruction to `notify-send`.

use std::process::{Command, Stdio};

use gatehouse_core::text::visible;

use super::state::Alert;

/// Raises the alert in the background; never blocks the screen and never reports a failure.
pub fn raise(alert: &Alert) {
    let mut command = notify_send(alert);
    std::thread::spawn(move || {
        let _ = command.status();
    });
}

/// The `notify-send` command for `alert`, options first, then `--`, then the title and body.
fn notify_send(alert: &Alert) -> Command {
    let mut command = Command::new("notify-send");
    command
        .args(["--app-name=gatehouse", "--"])
        .arg(inert(&alert.title))
        .arg(inert(&alert.body))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// `text` made visible line by line (the line breaks stay, as the body has two lines) and with
/// the characters of markup escaped.
fn inert(text: &str) -> String {
    text.split('\n')
        .map(|line| escape_markup(&visible(line)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `&`, `<` and `>` as the entities that servers show as those characters.
fn escape_markup(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            other => escaped.push(other),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// Runs the command with a fake `notify-send` first on `PATH`, which writes each argument it
    /// gets on a line of its own (NUL-separated, so that nothing is lost), and returns them.
    fn argv_seen_by_a_fake_notify_send(alert: &Alert) -> Vec<String> {
        let folder = tempfile::tempdir().unwrap();
        let record = folder.path().join("argv");
        let fake = folder.path().join("notify-send");
        std::fs::write(
            &fake,
            format!(
                "#!/bin/sh\nfor argument in \"$@\"; do printf '%s\\0' \"$argument\"; done > '{}'\n",
                record.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut command = notify_send(alert);
        let path = format!(
            "{}:{}",
            folder.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        command.env("PATH", path);
        // Another test thread forking while the script was still open for writing keeps it
        // "busy" in that child for a moment (ETXTBSY): try again.
        let mut attempts = 0;
        let status = loop {
            match command.status() {
                Err(error) if error.raw_os_error() == Some(libc::ETXTBSY) && attempts < 100 => {
                    attempts += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => break other.unwrap(),
            }
        };
        assert!(status.success());
        let seen = std::fs::read(&record).unwrap();
        String::from_utf8(seen)
            .unwrap()
            .split_terminator('\0')
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn agent_text_is_never_an_option_nor_markup_and_stays_visible() {
        let alert = Alert {
            title: "-u critical".into(),
            body: "--icon=/tmp/x.png <b>rm</b> <a href=\"http://x\">go</a> &amp; \u{1b}[2J\u{202e}\n/home/dev/project"
                .into(),
        };
        let argv = argv_seen_by_a_fake_notify_send(&alert);
        assert_eq!(
            argv,
            [
                "--app-name=gatehouse",
                "--",
                "-u critical",
                "--icon=/tmp/x.png &lt;b&gt;rm&lt;/b&gt; &lt;a href=\"http://x\"&gt;go&lt;/a&gt; &amp;amp; \\e[2J\\u{202e}\n/home/dev/project",
            ]
        );
    }

    #[test]
    fn ordinary_text_arrives_as_it_is() {
        let alert = Alert {
            title: "claude asks: Bash".into(),
            body: "make test\n/home/dev/project".into(),
        };
        assert_eq!(
            argv_seen_by_a_fake_notify_send(&alert),
            [
                "--app-name=gatehouse",
                "--",
                "claude asks: Bash",
                "make test\n/home/dev/project"
            ]
        );
    }
}
