//! How the hook tells that the person pressed Esc in Gemini CLI while the BeforeTool hook held
//! the call. Observed with 0.61.0: Esc shows "Request cancelled." and the call is over (a later
//! `{}` from the hook runs nothing), but the hook is neither signalled nor are its pipes closed;
//! Gemini goes on showing "Executing Hook" until the hook ends. What does change at once is the
//! session's transcript (`transcript_path` in the hook's input, a JSON-lines file): a line
//! `{"type": "info", "content": "Request cancelled.", ...}` is appended the moment Esc is
//! pressed. So the check remembers the transcript's length when the hold starts and reads only
//! what is appended after it.
//!
//! The path comes from the hook's input: only a regular file is read (never a FIFO or a device,
//! which could block or never end), at most [`MOST_BYTES_PER_CHECK`] bytes each time.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use gatehouse_core::CancellationCheck;
use serde_json::Value;

/// The most bytes read from the transcript in one check.
const MOST_BYTES_PER_CHECK: u64 = 1024 * 1024;

/// The text of Gemini's info line when the person cancels a request.
pub const CANCELLED_TEXT: &str = "Request cancelled.";

/// A check of the transcript named in a hook's input, from its length now on; `None` when the
/// input names no transcript that is a regular file.
pub fn transcript_check(stdin: &[u8]) -> Option<CancellationCheck> {
    let event: Value = serde_json::from_slice(stdin).ok()?;
    let path = PathBuf::from(event.get("transcript_path")?.as_str()?);
    let start = regular_file_length(&path)?;
    let mut watch = TranscriptWatch {
        path,
        offset: start,
        pending: Vec::new(),
    };
    Some(Box::new(move || watch.cancelled()))
}

fn regular_file_length(path: &std::path::Path) -> Option<u64> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    metadata.is_file().then_some(metadata.len())
}

struct TranscriptWatch {
    path: PathBuf,
    offset: u64,
    /// The last line read, while it is not whole.
    pending: Vec<u8>,
}

impl TranscriptWatch {
    /// Whether a whole line appended since the start is Gemini's "Request cancelled." info.
    fn cancelled(&mut self) -> bool {
        let Some(length) = regular_file_length(&self.path) else {
            return false;
        };
        if length <= self.offset {
            // Nothing new (or the file was replaced by a shorter one: start again from its end).
            self.offset = self.offset.min(length);
            return false;
        }
        let Ok(mut file) = File::open(&self.path) else {
            return false;
        };
        if file.seek(SeekFrom::Start(self.offset)).is_err() {
            return false;
        }
        let mut appended = Vec::new();
        let wanted = (length - self.offset).min(MOST_BYTES_PER_CHECK);
        if file.take(wanted).read_to_end(&mut appended).is_err() {
            return false;
        }
        self.offset += appended.len() as u64;
        self.pending.extend_from_slice(&appended);
        let mut found = false;
        while let Some(end) = self.pending.iter().position(|&byte| byte == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            found |= is_cancellation(&line);
        }
        if self.pending.len() as u64 > MOST_BYTES_PER_CHECK {
            // A line this long is no info line: forget it.
            self.pending.clear();
        }
        found
    }
}

fn is_cancellation(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line).is_ok_and(|entry| {
        entry.get("type").and_then(Value::as_str) == Some("info")
            && entry.get("content").and_then(Value::as_str) == Some(CANCELLED_TEXT)
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn event(transcript: &std::path::Path) -> Vec<u8> {
        serde_json::json!({ "hook_event_name": "BeforeTool", "session_id": "s", "transcript_path": transcript })
            .to_string()
            .into_bytes()
    }

    #[test]
    fn only_a_cancellation_appended_after_the_start_counts() {
        let folder = tempfile::tempdir().unwrap();
        let transcript = folder.path().join("session.jsonl");
        // An old cancellation, before the hold.
        std::fs::write(
            &transcript,
            "{\"type\":\"info\",\"content\":\"Request cancelled.\"}\n",
        )
        .unwrap();
        let mut check = transcript_check(&event(&transcript)).unwrap();
        assert!(!check());
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        file.write_all(b"{\"$set\":{\"lastUpdated\":\"x\"}}\n")
            .unwrap();
        file.write_all(b"{\"type\":\"info\",\"content\":\"Something else.\"}\n")
            .unwrap();
        assert!(!check());
        // Written in two pieces: only the whole line counts.
        file.write_all(b"{\"id\":\"f5\",\"type\":\"info\",\"content\":\"Request ")
            .unwrap();
        assert!(!check());
        file.write_all(b"cancelled.\"}\n").unwrap();
        assert!(check());
    }

    #[test]
    fn no_transcript_or_one_that_is_not_a_regular_file_is_not_watched() {
        assert!(transcript_check(b"not json").is_none());
        assert!(transcript_check(br#"{"session_id":"s"}"#).is_none());
        assert!(transcript_check(&event(std::path::Path::new("/nonexistent/t.jsonl"))).is_none());
        assert!(transcript_check(&event(std::path::Path::new("/dev/zero"))).is_none());
        let folder = tempfile::tempdir().unwrap();
        assert!(transcript_check(&event(folder.path())).is_none());
    }
}
