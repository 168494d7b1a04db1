//! The audit log: every prompt and every transition, one JSON object a line, appended to a file
//! (`$XDG_STATE_HOME/gatehouse/audit.jsonl` when the binary runs the gateway).
//!
//! Guarantees:
//! - Each record is written with one `write` call on a file opened for appending, so records
//!   never interleave. On opening, a torn last line (a crash in the middle of a write) is cut
//!   off, so the log only ever holds whole records.
//! - A record of an accepted answer is flushed to disk (`fdatasync`) before the answer is
//!   acknowledged or its verdict handed to the hook: an accepted answer is never lost.
//! - The log and its folder are private whatever the umask: the file is created with mode 0600
//!   (rotated ones too), an existing one loses any access for others, and the folder is 0700.
//! - The file is rotated by size: past the limit it becomes `audit.jsonl.1` (and `.1` becomes
//!   `.2`, up to [`ROTATED_FILES_KEPT`]).
//! - No volume from anyone can push a decision out: a large prompt is recorded as its cut copy
//!   with the SHA-256 digest of the whole (see [`crate::view`]), and every decision a person
//!   made (an answer or a release) is also written, with what was decided, to a file of its own,
//!   `audit-decisions.jsonl` ([`decisions_path`]), which only decisions fill and rotate.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use std::collections::HashMap;

use gatehouse_core::{Answer, CutNote, DecisionId, Event, NewPrompt, PromptState, Timestamp};
use serde::{Deserialize, Serialize};

use gatehouse_host_ipc::socket::{make_private_file, make_private_folder};

/// How many rotated files are kept beside the live one.
pub const ROTATED_FILES_KEPT: usize = 3;

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When the gateway wrote it.
    pub at: Timestamp,
    pub event: Event,
    /// The answer, for a prompt that was resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

/// One line of the decisions file: a decision a person made, with what was decided (a large
/// prompt's cut copy, and `cut` with the digest of the whole).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    pub at: Timestamp,
    pub event: Event,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
    /// What was decided: the prompt's content, cut when it is large.
    pub prompt: NewPrompt,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutNote>,
}

/// The decisions file beside the log at `path`: `audit-decisions.jsonl` for `audit.jsonl`.
pub fn decisions_path(path: &Path) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!("{stem}-decisions.jsonl"))
}

/// An open audit log: the log of every record, and the file of decisions.
#[derive(Debug)]
pub struct AuditLog {
    records: RotatingFile,
    decisions: RotatingFile,
}

/// One file of records, rotated by size.
#[derive(Debug)]
struct RotatingFile {
    path: PathBuf,
    file: File,
    size: u64,
    max_bytes: u64,
}

impl AuditLog {
    /// Opens (or creates) the log at `path` and its decisions file, cutting off a torn last
    /// line of each. Each file rotates past `max_bytes`.
    pub fn open(path: &Path, max_bytes: u64) -> io::Result<AuditLog> {
        if let Some(folder) = path.parent() {
            make_private_folder(folder)?;
        }
        Ok(AuditLog {
            records: RotatingFile::open(path, max_bytes)?,
            decisions: RotatingFile::open(&decisions_path(path), max_bytes)?,
        })
    }

    pub fn path(&self) -> &Path {
        &self.records.path
    }

    /// Appends one record; a resolved prompt's record is flushed to disk before this returns.
    pub fn append(&mut self, record: &AuditRecord) -> io::Result<()> {
        let durable = matches!(
            record.event,
            Event::Changed {
                state: PromptState::Resolved,
                ..
            }
        );
        self.records.append(record, durable)
    }

    /// Appends a decision to the decisions file, flushed to disk before this returns.
    pub fn append_decision(&mut self, record: &DecisionRecord) -> io::Result<()> {
        self.decisions.append(record, true)
    }
}

impl RotatingFile {
    fn open(path: &Path, max_bytes: u64) -> io::Result<RotatingFile> {
        let file = open_for_append(path)?;
        make_private_file(&file)?;
        let size = cut_torn_tail(path, &file)?;
        Ok(RotatingFile {
            path: path.to_owned(),
            file,
            size,
            max_bytes,
        })
    }

    fn append(&mut self, record: &impl Serialize, durable: bool) -> io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        if self.size > 0 && self.size + line.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        if let Err(error) = self.file.write_all(&line) {
            // Cut a partly written record off, so that the next one starts on a line of its own.
            let _ = self.file.set_len(self.size);
            return Err(error);
        }
        self.size += line.len() as u64;
        if durable {
            self.file.sync_data()?;
        }
        Ok(())
    }

    fn rotate(&mut self) -> io::Result<()> {
        for index in (1..ROTATED_FILES_KEPT).rev() {
            let from = rotated_path(&self.path, index);
            if from.exists() {
                fs::rename(&from, rotated_path(&self.path, index + 1))?;
            }
        }
        fs::rename(&self.path, rotated_path(&self.path, 1))?;
        self.file = open_for_append(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

/// `audit.jsonl.N`.
pub fn rotated_path(path: &Path, index: usize) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{index}"));
    path.with_file_name(name)
}

/// Every decision in the decisions file of the log at `path`, oldest first, rotated files
/// included.
pub fn read_decisions(path: &Path) -> io::Result<Vec<DecisionRecord>> {
    read_lines(&decisions_path(path))
}

/// Every record of the log at `path`, oldest first, rotated files included. Lines that are not
/// records are skipped.
pub fn read_all(path: &Path) -> io::Result<Vec<AuditRecord>> {
    read_lines(path)
}

/// Every record of the log at `path`, with every decision of its decisions file that the log
/// itself no longer holds (rotated out), oldest first: who decided what is always there.
pub fn read_all_with_decisions(path: &Path) -> io::Result<Vec<AuditRecord>> {
    let mut records = read_all(path)?;
    let held: std::collections::HashSet<(DecisionId, Timestamp)> = records
        .iter()
        .filter_map(|record| match &record.event {
            Event::Changed { id, at, .. } => Some((*id, *at)),
            Event::Added { .. } => None,
        })
        .collect();
    for decision in read_decisions(path)? {
        let Event::Changed { id, at, .. } = &decision.event else {
            continue;
        };
        if !held.contains(&(*id, *at)) {
            records.push(AuditRecord {
                at: decision.at,
                event: decision.event,
                answer: decision.answer,
            });
        }
    }
    records.sort_by_key(|record| record.at);
    Ok(records)
}

fn read_lines<T: serde::de::DeserializeOwned>(path: &Path) -> io::Result<Vec<T>> {
    let mut records = Vec::new();
    let files = (1..=ROTATED_FILES_KEPT)
        .rev()
        .map(|index| rotated_path(path, index))
        .chain([path.to_owned()]);
    for file in files {
        match fs::read_to_string(&file) {
            Ok(text) => records.extend(
                text.lines()
                    .filter_map(|line| serde_json::from_str(line).ok()),
            ),
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    Ok(records)
}

/// The prompts an earlier gateway wrote to the log at `path` (and its rotated files), each with
/// its last state and when it got there, the most recent `limit` of them. A prompt that was
/// still pending or resolved when that gateway stopped is `withdrawn`: it is over either way.
/// A new gateway remembers them, so that an id typed from an old list names the old prompt.
pub fn ended_prompts(
    path: &Path,
    limit: usize,
) -> io::Result<Vec<(DecisionId, PromptState, Timestamp)>> {
    let mut last: HashMap<DecisionId, (PromptState, Timestamp, usize)> = HashMap::new();
    for (order, record) in read_all(path)?.into_iter().enumerate() {
        let (id, state) = match &record.event {
            Event::Added { prompt } => (prompt.id, PromptState::Pending),
            Event::Changed { id, state, .. } => (*id, *state),
        };
        let state = if state.is_final() {
            state
        } else {
            PromptState::Withdrawn
        };
        last.insert(id, (state, record.at, order));
    }
    let mut ended: Vec<(DecisionId, PromptState, Timestamp, usize)> = last
        .into_iter()
        .map(|(id, (state, at, order))| (id, state, at, order))
        .collect();
    ended.sort_by_key(|(.., order)| *order);
    let keep_from = ended.len().saturating_sub(limit);
    Ok(ended
        .drain(keep_from..)
        .map(|(id, state, at, _)| (id, state, at))
        .collect())
}

fn open_for_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true).read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// How much of the file is read at a time, from its end, looking for the last newline.
const TAIL_CHUNK_BYTES: u64 = 64 * 1024;

/// Cuts the file back to just after its last newline, however far back that is, and returns its
/// new size. A file without any newline is one torn record and is emptied.
fn cut_torn_tail(path: &Path, file: &File) -> io::Result<u64> {
    let size = file.metadata()?.len();
    let mut reader = File::open(path)?;
    let mut chunk = Vec::new();
    let mut chunk_end = size;
    while chunk_end > 0 {
        let chunk_start = chunk_end.saturating_sub(TAIL_CHUNK_BYTES);
        reader.seek(SeekFrom::Start(chunk_start))?;
        chunk.clear();
        (&mut reader)
            .take(chunk_end - chunk_start)
            .read_to_end(&mut chunk)?;
        if let Some(newline) = chunk.iter().rposition(|byte| *byte == b'\n') {
            let keep = chunk_start + newline as u64 + 1;
            if keep < size {
                file.set_len(keep)?;
            }
            return Ok(keep);
        }
        chunk_end = chunk_start;
    }
    if size > 0 {
        file.set_len(0)?;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatehouse_core::{Action, DecisionId};

    fn record(state: PromptState, at: u64) -> AuditRecord {
        let event = Event::Changed {
            id: DecisionId::new_v7(),
            state,
            at: Timestamp(at),
            by: None,
            action: Some(Action::Once),
            reason: None,
        };
        AuditRecord {
            at: Timestamp(at),
            event,
            answer: Some(Answer::Once),
        }
    }

    fn temporary_log() -> (tempfile::TempDir, PathBuf) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("state/audit.jsonl");
        (folder, path)
    }

    /// Appends a prompt's resolution at 1 and its delivery at 2 to `log`; returns both records.
    fn resolved_then_delivered(log: &mut AuditLog) -> [AuditRecord; 2] {
        let records = [
            record(PromptState::Resolved, 1),
            record(PromptState::Delivered, 2),
        ];
        for record in &records {
            log.append(record).unwrap();
        }
        records
    }

    #[test]
    fn records_are_read_back_in_order() {
        let (_folder, path) = temporary_log();
        let mut log = AuditLog::open(&path, 1 << 20).unwrap();
        let records = resolved_then_delivered(&mut log);
        assert_eq!(read_all(&path).unwrap(), records);
    }

    #[test]
    fn a_torn_last_line_is_cut_off_when_the_log_is_opened() {
        let (_folder, path) = temporary_log();
        let mut log = AuditLog::open(&path, 1 << 20).unwrap();
        log.append(&record(PromptState::Resolved, 1)).unwrap();
        drop(log);
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"at\":\"2026-11-30T0")
            .unwrap();
        let mut log = AuditLog::open(&path, 1 << 20).unwrap();
        log.append(&record(PromptState::Delivered, 2)).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(
            text.lines()
                .all(|line| serde_json::from_str::<AuditRecord>(line).is_ok()),
            "{text}"
        );
    }

    #[test]
    fn a_torn_last_record_of_any_length_is_cut_off_whole() {
        let (_folder, path) = temporary_log();
        let mut log = AuditLog::open(&path, 1 << 30).unwrap();
        let whole = resolved_then_delivered(&mut log);
        drop(log);
        let whole_length = fs::metadata(&path).unwrap().len();
        // A record of 200 KiB, torn before its newline: far longer than one chunk read back.
        let torn = format!("{{\"at\":3,\"input\":\"{}", "x".repeat(200 * 1024));
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(torn.as_bytes())
            .unwrap();
        drop(AuditLog::open(&path, 1 << 30).unwrap());
        assert_eq!(
            fs::metadata(&path).unwrap().len(),
            whole_length,
            "exactly the torn record is cut"
        );
        assert_eq!(read_all(&path).unwrap(), whole);
    }

    #[test]
    fn a_log_that_is_one_torn_record_is_emptied() {
        let (_folder, path) = temporary_log();
        gatehouse_host_ipc::socket::create_private_folder(path.parent().unwrap()).unwrap();
        fs::write(&path, "y".repeat(150 * 1024)).unwrap();
        drop(AuditLog::open(&path, 1 << 30).unwrap());
        assert_eq!(fs::metadata(&path).unwrap().len(), 0);
    }

    #[test]
    fn the_log_rotates_by_size_and_keeps_a_bounded_number_of_files() {
        let (_folder, path) = temporary_log();
        let line_length = serde_json::to_vec(&record(PromptState::Delivered, 1))
            .unwrap()
            .len() as u64
            + 1;
        let mut log = AuditLog::open(&path, line_length * 2).unwrap();
        for at in 0..20 {
            log.append(&record(PromptState::Delivered, at)).unwrap();
        }
        assert!(rotated_path(&path, ROTATED_FILES_KEPT).exists());
        assert!(!rotated_path(&path, ROTATED_FILES_KEPT + 1).exists());
        let kept: Vec<u64> = read_all(&path)
            .unwrap()
            .iter()
            .map(|record| record.at.unix_millis())
            .collect();
        assert_eq!(
            kept,
            (12..20).collect::<Vec<_>>(),
            "the newest records, oldest first"
        );
    }

    #[test]
    fn a_decision_outlives_any_volume_of_other_records() {
        let (_folder, path) = temporary_log();
        let mut log = AuditLog::open(&path, 4096).unwrap();
        let decided = record(PromptState::Resolved, 1);
        log.append(&decided).unwrap();
        log.append_decision(&DecisionRecord {
            at: decided.at,
            event: decided.event.clone(),
            answer: decided.answer.clone(),
            prompt: serde_json::from_value(serde_json::json!({
                "adapter": "toy", "session": "s", "cwd": "/p", "kind": "permission",
                "tool": "Bash", "input": {"command": "git push"}, "summary": "git push"
            }))
            .unwrap(),
            cut: None,
        })
        .unwrap();
        for at in 2..200 {
            log.append(&record(PromptState::Delivered, at)).unwrap();
        }
        assert!(
            !read_all(&path).unwrap().contains(&decided),
            "the log itself rotated it out"
        );
        let decisions = read_decisions(&path).unwrap();
        assert_eq!(decisions.len(), 1);
        assert_eq!(decisions[0].prompt.summary, "git push");
        let merged = read_all_with_decisions(&path).unwrap();
        assert_eq!(merged.first(), Some(&decided), "oldest first");
    }
}
