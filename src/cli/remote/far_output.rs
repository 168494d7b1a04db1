//! What HOST prints is hostile input: read within limits of size and time, and shown on the
//! terminal only as HOST's, line by line, as visible text.
//!
//! [`run_within`] runs a command of `gatehouse remote` (its ssh to HOST) and keeps at most
//! [`Limits`] bytes of its stdout and stderr; a command that prints more, or takes longer, is
//! killed. [`show_from`] shows HOST's text indented under HOST's name, every line made visible
//! (`gatehouse_core::text`), so that HOST can neither send the terminal escapes (a clipboard
//! write, an erased line) nor print a line that passes for one of `gatehouse remote:`'s own.
//! [`next_line_within`] reads ssh's own messages, which carry HOST's words too (its banner),
//! one bounded line at a time.

use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

/// How much a command to HOST may print, and for how long it may run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub stdout: usize,
    pub stderr: usize,
    pub time: Duration,
}

/// How long, after the command exited, its output may still take to end (a process it left
/// behind, such as ssh's ControlPersist master, may keep the pipes open).
const AFTER_EXIT: Duration = Duration::from_secs(1);

/// The most lines of HOST's text that [`show_from`] shows at once.
pub const SHOWN_LINES: usize = 40;

/// The most characters of one line of HOST's text that is shown.
pub const SHOWN_LINE_CHARS: usize = 300;

/// Why a command to HOST did not run to its end.
#[derive(Debug)]
pub enum FarCommandError {
    CannotRun(std::io::Error),
    Reading(std::io::Error),
    PrintedTooMuch { stream: &'static str, limit: usize },
    TookTooLong { limit: Duration },
}

impl std::fmt::Display for FarCommandError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FarCommandError::CannotRun(error) => write!(formatter, "cannot run it: {error}"),
            FarCommandError::Reading(error) => {
                write!(formatter, "its output could not be read ({error})")
            }
            FarCommandError::PrintedTooMuch { stream, limit } => write!(
                formatter,
                "it printed more than {limit} bytes on {stream}, so it was stopped"
            ),
            FarCommandError::TookTooLong { limit } => write!(
                formatter,
                "it was still running after {} s, so it was stopped",
                limit.as_secs()
            ),
        }
    }
}

impl std::error::Error for FarCommandError {}

/// What a command to HOST printed (at most its limits' worth) and how it ended.
#[derive(Debug)]
pub struct FarOutput {
    pub ended: Result<ExitStatus, FarCommandError>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Runs `command` with `stdin` written to it (or none), keeping at most `limits` of what it
/// prints; a command that prints more or runs longer is killed and waited for.
pub async fn run_within(mut command: Command, stdin: Option<&[u8]>, limits: Limits) -> FarOutput {
    let mut output = FarOutput {
        ended: Err(FarCommandError::TookTooLong { limit: limits.time }),
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            output.ended = Err(FarCommandError::CannotRun(error));
            return output;
        }
    };
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        unreachable!("both were piped");
    };
    let pipe = child.stdin.take();
    let feed = async {
        if let (Some(mut pipe), Some(bytes)) = (pipe, stdin) {
            // A command that exits without reading all of it closes the pipe: its status says how it went.
            let _ = pipe.write_all(bytes).await;
        }
        Ok(())
    };
    let reading = async {
        tokio::try_join!(
            feed,
            keep_within(stdout, &mut output.stdout, limits.stdout, "stdout"),
            keep_within(stderr, &mut output.stderr, limits.stderr, "stderr"),
        )
        .map(|_| ())
    };
    let ran = tokio::time::timeout(limits.time, async {
        tokio::pin!(reading);
        tokio::select! {
            read = &mut reading => {
                read?;
                child.wait().await.map_err(FarCommandError::Reading)
            }
            status = child.wait() => {
                if let Ok(read) = tokio::time::timeout(AFTER_EXIT, reading).await {
                    read?;
                }
                status.map_err(FarCommandError::Reading)
            }
        }
    })
    .await;
    output.ended = match ran {
        Ok(ended) => ended,
        Err(_) => Err(FarCommandError::TookTooLong { limit: limits.time }),
    };
    if output.ended.is_err() {
        let _ = child.kill().await;
    }
    output
}

/// Reads `pipe` to its end into `kept`, which never grows past `limit` bytes; more than that
/// is [`FarCommandError::PrintedTooMuch`], and reading stops.
async fn keep_within(
    mut pipe: impl AsyncRead + Unpin,
    kept: &mut Vec<u8>,
    limit: usize,
    stream: &'static str,
) -> Result<(), FarCommandError> {
    let mut chunk = [0u8; 4096];
    loop {
        let read = pipe
            .read(&mut chunk)
            .await
            .map_err(FarCommandError::Reading)?;
        if read == 0 {
            return Ok(());
        }
        let room = limit.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..read.min(room)]);
        if read > room {
            return Err(FarCommandError::PrintedTooMuch { stream, limit });
        }
    }
}

/// The lines of HOST's `text` as shown: each made visible, cut to [`SHOWN_LINE_CHARS`], and
/// indented under `host` (`  HOST: ...`); at most [`SHOWN_LINES`] of them, then one that says
/// how many more there were. A CR that ends a line (CRLF) is dropped, as a terminal shows it.
pub fn shown_from(host: &str, text: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    let body = text.strip_suffix('\n').unwrap_or(&text);
    if body.is_empty() {
        return Vec::new();
    }
    let host = gatehouse_core::text::visible(host);
    let lines: Vec<&str> = body.split('\n').collect();
    let mut shown: Vec<String> = lines
        .iter()
        .take(SHOWN_LINES)
        .map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            format!(
                "  {host}: {}",
                gatehouse_core::text::truncate(line, SHOWN_LINE_CHARS)
            )
        })
        .collect();
    if lines.len() > SHOWN_LINES {
        shown.push(format!(
            "  {host}: ({} more lines not shown)",
            lines.len() - SHOWN_LINES
        ));
    }
    shown
}

/// Shows HOST's `text` on stderr (see [`shown_from`]); says whether there was any.
pub fn show_from(host: &str, text: &[u8]) -> bool {
    let shown = shown_from(host, text);
    for line in &shown {
        eprintln!("{line}");
    }
    !shown.is_empty()
}

/// The next line of `reader` without its LF (or CRLF), at most `max` bytes of it: the rest of
/// a longer line is read and dropped, and the line ends with `…`. `None` at the end.
pub async fn next_line_within(
    reader: &mut (impl AsyncBufRead + Unpin),
    max: usize,
) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    let mut cut = false;
    let mut ended = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if line.is_empty() && !cut && !ended {
                return Ok(None);
            }
            break;
        }
        ended = true;
        let (part, used, at_end) = match available.iter().position(|&byte| byte == b'\n') {
            Some(newline) => (&available[..newline], newline + 1, true),
            None => (available, available.len(), false),
        };
        let room = max.saturating_sub(line.len());
        cut |= part.len() > room;
        line.extend_from_slice(&part[..part.len().min(room)]);
        reader.consume(used);
        if at_end {
            break;
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    let mut line = String::from_utf8_lossy(&line).into_owned();
    if cut {
        line.push(gatehouse_core::text::ELLIPSIS);
    }
    Ok(Some(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Limits = Limits {
        stdout: 16,
        stderr: 32,
        time: Duration::from_secs(20),
    };

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    fn run(script: &str, stdin: Option<&[u8]>, limits: Limits) -> FarOutput {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(run_within(sh(script), stdin, limits))
    }

    #[test]
    fn a_command_within_its_limits_is_read_whole_with_its_input() {
        let output = run("cat; echo oops >&2; exit 3", Some(b"/run/g.sock\n"), SMALL);
        assert_eq!(output.ended.unwrap().code(), Some(3));
        assert_eq!(output.stdout, b"/run/g.sock\n");
        assert_eq!(output.stderr, b"oops\n");
    }

    #[test]
    fn a_command_that_prints_without_end_is_stopped_with_its_limit_kept() {
        for (script, stream, limit) in [("yes", "stdout", 16), ("yes >&2", "stderr", 32)] {
            let started = std::time::Instant::now();
            let output = run(script, None, SMALL);
            assert!(
                matches!(
                    output.ended,
                    Err(FarCommandError::PrintedTooMuch { stream: s, limit: l }) if s == stream && l == limit
                ),
                "{:?}",
                output.ended
            );
            assert!(output.stdout.len() <= 16 && output.stderr.len() <= 32);
            assert_eq!(output.stdout.len() + output.stderr.len(), limit);
            assert!(started.elapsed() < Duration::from_secs(10));
        }
    }

    #[test]
    fn a_command_that_takes_too_long_is_stopped_and_what_it_said_is_kept() {
        let limits = Limits {
            time: Duration::from_millis(300),
            ..SMALL
        };
        let started = std::time::Instant::now();
        let output = run("echo waiting >&2; exec sleep 600", None, limits);
        assert!(
            matches!(output.ended, Err(FarCommandError::TookTooLong { .. })),
            "{:?}",
            output.ended
        );
        assert_eq!(output.stderr, b"waiting\n");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn output_held_open_by_what_the_command_left_behind_ends_soon_after_it_exits() {
        let started = std::time::Instant::now();
        let output = run("echo /run/g.sock; sleep 600 & exit 0", None, SMALL);
        assert!(output.ended.unwrap().success());
        assert_eq!(output.stdout, b"/run/g.sock\n");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_program_that_cannot_run_says_so() {
        let output = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(run_within(
                Command::new("/nonexistent/ssh"),
                Some(b"x"),
                SMALL,
            ));
        assert!(matches!(output.ended, Err(FarCommandError::CannotRun(_))));
    }

    #[test]
    fn hosts_text_is_shown_visible_indented_under_its_name_and_bounded() {
        let hostile = "done\u{1b}]52;c;aGFja2Vk\u{7}\r\u{1b}[2K\n\
                       gatehouse remote: link to devbox is UP\r\n";
        assert_eq!(
            shown_from("dev@devbox", hostile.as_bytes()),
            [
                "  dev@devbox: done\\e]52;c;aGFja2Vk\\u{7}\\r\\e[2K",
                "  dev@devbox: gatehouse remote: link to devbox is UP",
            ]
        );
        assert!(shown_from("devbox", b"").is_empty());
        let many = "line\n".repeat(SHOWN_LINES + 5);
        let shown = shown_from("devbox", many.as_bytes());
        assert_eq!(shown.len(), SHOWN_LINES + 1);
        assert_eq!(shown[SHOWN_LINES], "  devbox: (5 more lines not shown)");
        let long = shown_from("devbox", "x".repeat(10_000).as_bytes());
        assert!(long[0].chars().count() < SHOWN_LINE_CHARS + 20);
        for line in shown_from("devbox", "\u{0}\u{9b}\u{202e}\t\u{7f}".as_bytes()) {
            assert!(
                !line.chars().any(gatehouse_core::text::needs_escape),
                "{line:?}"
            );
        }
    }

    #[test]
    fn lines_are_read_within_their_limit_and_the_rest_of_a_long_line_dropped() {
        let input = format!("short\r\n{}\nlast", "y".repeat(100));
        let mut reader = tokio::io::BufReader::with_capacity(8, input.as_bytes());
        let lines = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async {
                let mut lines = Vec::new();
                while let Some(line) = next_line_within(&mut reader, 10).await.unwrap() {
                    lines.push(line);
                }
                lines
            });
        assert_eq!(lines, ["short", "yyyyyyyyyy…", "last"]);
    }
}
