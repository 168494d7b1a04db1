//! The hook's spool: observations (a tool finished, a turn or session ended) that a hook could
//! not hand to a gateway because none was running. The next hook that reaches a gateway replays
//! them, with the time each was made, so that a prompt answered in the terminal while the
//! gateway was down does not come back as answerable when a hook registers it again.
//!
//! The spool is small and bounded: at most [`MAX_ENTRIES`] entries, none older than
//! [`MAX_AGE`]; older ones cannot matter, since no hook waits that long. Each entry is one line
//! written with one `write` to a file opened for appending, so concurrent hooks never interleave.
//!
//! Observations carry correlation keys taken from tool inputs, so the spool is private whatever
//! the umask: the file (and the temporary file it is compacted through) is created with mode
//! 0600, an existing one loses any access for others, and its folder is kept at 0700.
//!
//! Whoever can write the state folder could plant something else at the spool's path: the spool
//! is opened without following a symbolic link and without blocking, and is used only if it is a
//! regular file, of which at most [`MAX_READ_BYTES`] (its newest lines) are read.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::{Observation, Timestamp};

use crate::socket::{folder_is_private, make_private_folder};
use serde::{Deserialize, Serialize};

/// The most entries kept; the oldest go first.
pub const MAX_ENTRIES: usize = 256;

/// Entries older than this are dropped: every hook's wait is shorter.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Past this size the spool is compacted to its newest [`MAX_ENTRIES`] entries.
const COMPACT_AT_BYTES: u64 = 256 * 1024;

/// The most of a spool that is read: its last bytes, where the newest entries are. A spool
/// gatehouse wrote is never this large.
pub const MAX_READ_BYTES: u64 = 4 * COMPACT_AT_BYTES;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub observed_at: Timestamp,
    pub observation: Observation,
}

pub struct Spool {
    path: PathBuf,
    /// A folder that must already exist, below which the spool's folders are made.
    home: Option<PathBuf>,
}

impl Spool {
    pub fn new(path: PathBuf) -> Self {
        Spool { path, home: None }
    }

    /// A spool at `path` whose missing folders are made only below `home`, one at a time, never
    /// `home` itself: a hook that outlives its home (a test's removed folder, a deleted account)
    /// does not make it again, however the removal and the hook's write interleave.
    pub fn below(home: PathBuf, path: PathBuf) -> Self {
        Spool {
            path,
            home: Some(home),
        }
    }

    /// Adds one observation. A hook that finds no gateway runs this on every tool call, so the
    /// common case, a private folder and a private spool that exist, costs six system calls: the
    /// folder's mode, the file opened, its mode and size in one `fstat`, the write.
    pub fn append(&self, entry: &Entry) -> io::Result<()> {
        if let Some(folder) = self.path.parent() {
            // Only a folder that is missing or not private is made or made private again.
            if !folder_is_private(folder) {
                if let Some(home) = &self.home {
                    create_private_folders_below(home, folder)?;
                }
                make_private_folder(folder)?;
            }
        }
        let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
        line.push(b'\n');
        let (mut file, length) =
            open_private_regular(private_options().create(true).append(true), &self.path)?;
        file.write_all(&line)?;
        if length + line.len() as u64 > COMPACT_AT_BYTES {
            let newest = self.read_from(&self.path, Timestamp(0));
            let keep = &newest[newest.len().saturating_sub(MAX_ENTRIES)..];
            self.write_atomically(keep)?;
        }
        Ok(())
    }

    /// Puts entries back, after a replay that failed part-way.
    pub fn put_back(&self, entries: impl IntoIterator<Item = Entry>) -> io::Result<()> {
        entries
            .into_iter()
            .try_for_each(|entry| self.append(&entry))
    }

    /// Takes every entry that is still fresh at `now`, leaving the spool empty. Renaming the file
    /// first makes the take atomic: two hooks never replay the same entries.
    pub fn take(&self, now: Timestamp) -> Vec<Entry> {
        let taken = self
            .path
            .with_extension(format!("replaying.{}", std::process::id()));
        if fs::rename(&self.path, &taken).is_err() {
            return Vec::new();
        }
        let oldest_kept = Timestamp(now.unix_millis().saturating_sub(MAX_AGE.as_millis() as u64));
        let entries = self.read_from(&taken, oldest_kept);
        let _ = fs::remove_file(&taken);
        let start = entries.len().saturating_sub(MAX_ENTRIES);
        entries[start..].to_vec()
    }

    /// The entries of `path` made at or after `oldest_kept`; lines that cannot be read are
    /// skipped, and so is all but the last [`MAX_READ_BYTES`] of a larger file.
    fn read_from(&self, path: &Path, oldest_kept: Timestamp) -> Vec<Entry> {
        let Ok(text) = read_newest(path) else {
            return Vec::new();
        };
        String::from_utf8_lossy(&text)
            .lines()
            .filter_map(|line| serde_json::from_str::<Entry>(line).ok())
            .filter(|entry| entry.observed_at >= oldest_kept)
            .collect()
    }

    fn write_atomically(&self, entries: &[Entry]) -> io::Result<()> {
        let temporary = self
            .path
            .with_extension(format!("compacting.{}", std::process::id()));
        let mut text = Vec::new();
        for entry in entries {
            serde_json::to_writer(&mut text, entry).map_err(io::Error::other)?;
            text.push(b'\n');
        }
        // A file of that name could only be left by a crashed hook with this pid; it is not news.
        let _ = fs::remove_file(&temporary);
        open_regular(private_options().write(true).create_new(true), &temporary)?
            .write_all(&text)?;
        fs::rename(&temporary, &self.path)
    }
}

/// Options that create a file with mode 0600, whatever the umask, and that neither follow a
/// symbolic link nor wait for a FIFO's other end.
fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options
}

/// Makes the folders of `folder` that are missing below `home` (mode 0700), one at a time and
/// never `home` itself: when `home` is gone, this fails rather than make it again.
fn create_private_folders_below(home: &Path, folder: &Path) -> io::Result<()> {
    let below = folder.strip_prefix(home).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not below {}", folder.display(), home.display()),
        )
    })?;
    let mut made = home.to_path_buf();
    for part in below.components() {
        made.push(part);
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        match builder.create(&made) {
            Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
            _ => {}
        }
    }
    Ok(())
}

/// Opens `path` with `options`, if it is a regular file.
fn open_regular(options: &OpenOptions, path: &Path) -> io::Result<fs::File> {
    let file = options.open(path)?;
    regular(&file, path)?;
    Ok(file)
}

/// The metadata of the open `file` (opened from `path`), if it is a regular file.
fn regular(file: &fs::File, path: &Path) -> io::Result<fs::Metadata> {
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(metadata)
}

/// Opens `path` with `options`, if it is a regular file, and takes any access for others away
/// from it (as `socket::make_private_file` does, from the same `fstat`); the file and its length
/// when opened.
fn open_private_regular(options: &OpenOptions, path: &Path) -> io::Result<(fs::File, u64)> {
    let file = options.open(path)?;
    let metadata = regular(&file, path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = metadata.permissions().mode();
        if mode & 0o077 != 0 {
            file.set_permissions(fs::Permissions::from_mode(mode & 0o600))?;
        }
    }
    Ok((file, metadata.len()))
}

/// The last [`MAX_READ_BYTES`] of the regular file `path`, from its first whole line on.
fn read_newest(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = open_regular(private_options().read(true), path)?;
    let skipped = file.metadata()?.len().saturating_sub(MAX_READ_BYTES);
    file.seek(SeekFrom::Start(skipped))?;
    let mut text = Vec::new();
    file.take(MAX_READ_BYTES).read_to_end(&mut text)?;
    if skipped > 0 {
        // The first line read is likely a part of one.
        let first_whole = text
            .iter()
            .position(|&byte| byte == b'\n')
            .map_or(text.len(), |end| end + 1);
        text.drain(..first_whole);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(command: &str) -> Observation {
        Observation::ToolFinished {
            adapter: "claude".into(),
            session: "s".into(),
            correlation: command.into(),
        }
    }

    /// Appends that the command `command` finished at `at` (Unix milliseconds).
    fn append_finished(spool: &Spool, at: u64, command: &str) {
        spool
            .append(&Entry {
                observed_at: Timestamp(at),
                observation: finished(command),
            })
            .unwrap();
    }

    #[test]
    fn entries_come_back_once_in_order() {
        let folder = tempfile::tempdir().unwrap();
        let spool = Spool::new(folder.path().join("state/spool.jsonl"));
        assert!(
            spool.take(Timestamp(1_000)).is_empty(),
            "an absent spool is empty"
        );
        for (at, command) in [(100, "a"), (200, "b")] {
            append_finished(&spool, at, command);
        }
        let taken = spool.take(Timestamp(1_000));
        assert_eq!(
            taken
                .iter()
                .map(|entry| entry.observed_at.unix_millis())
                .collect::<Vec<_>>(),
            [100, 200]
        );
        assert!(
            spool.take(Timestamp(1_000)).is_empty(),
            "taken entries are gone"
        );
    }

    #[test]
    fn old_entries_and_garbage_are_dropped_and_the_size_is_bounded() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("spool.jsonl");
        let spool = Spool::new(path.clone());
        let now = Timestamp(MAX_AGE.as_millis() as u64 + 10_000);
        append_finished(&spool, 1, "ancient");
        fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{torn\n")
            .unwrap();
        for index in 0..3 * MAX_ENTRIES {
            append_finished(
                &spool,
                now.unix_millis() - 5_000 + index as u64,
                &format!("{index}-{}", "x".repeat(400)),
            );
        }
        assert!(
            fs::metadata(&path).unwrap().len() <= COMPACT_AT_BYTES + 1_024,
            "compacted"
        );
        let taken = spool.take(now);
        assert_eq!(taken.len(), MAX_ENTRIES);
        assert!(
            taken
                .iter()
                .all(|entry| entry.observed_at.unix_millis() > 1),
            "the ancient entry is gone"
        );
        assert_eq!(
            taken.last().unwrap().observation,
            finished(&format!("{}-{}", 3 * MAX_ENTRIES - 1, "x".repeat(400)))
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_spool_and_its_folder_are_private_even_after_compaction_and_when_they_were_not() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let folder = tempfile::tempdir().unwrap();
        let state = folder.path().join("state");
        let path = state.join("spool.jsonl");
        let spool = Spool::new(path.clone());
        append_finished(&spool, 1, "first");
        assert_eq!(
            (mode(&path), mode(&state)),
            (0o600, 0o700),
            "created private"
        );
        for index in 0..3 * MAX_ENTRIES {
            append_finished(&spool, 2, &format!("{index}-{}", "x".repeat(400)));
        }
        assert!(
            fs::metadata(&path).unwrap().len() <= COMPACT_AT_BYTES + 1_024,
            "compacted"
        );
        assert_eq!(mode(&path), 0o600, "the compacted spool is private");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        fs::set_permissions(&state, fs::Permissions::from_mode(0o755)).unwrap();
        append_finished(&spool, 3, "again");
        assert_eq!(
            (mode(&path), mode(&state)),
            (0o600, 0o700),
            "made private again"
        );
    }

    fn entry(command: &str) -> Entry {
        Entry {
            observed_at: Timestamp(100),
            observation: finished(command),
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_the_spool_is_neither_followed_nor_changed() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let victim = folder.path().join("victim");
        fs::write(&victim, "the victim's own text\n").unwrap();
        fs::set_permissions(&victim, fs::Permissions::from_mode(0o644)).unwrap();
        let path = folder.path().join("spool.jsonl");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let spool = Spool::new(path);
        assert!(spool.append(&entry("ls")).is_err(), "refused");
        assert!(spool.take(Timestamp(1_000)).is_empty());
        assert_eq!(
            fs::read_to_string(&victim).unwrap(),
            "the victim's own text\n"
        );
        let mode = fs::metadata(&victim).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "its mode is kept");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_planted_at_the_spool_is_not_waited_on_and_not_left_behind() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("spool.jsonl");
        let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a plain libc call with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let spool = Spool::new(path);
        // Neither call may block on the FIFO's other end (the test would hang).
        assert!(spool.append(&entry("ls")).is_err());
        assert!(spool.take(Timestamp(1_000)).is_empty());
        let left: Vec<_> = fs::read_dir(folder.path()).unwrap().collect();
        assert!(left.is_empty(), "nothing left: {left:?}");
    }

    #[test]
    fn of_a_spool_larger_than_gatehouse_writes_only_the_newest_part_is_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("spool.jsonl");
        let mut text = Vec::new();
        let mut index = 0;
        while (text.len() as u64) < 3 * MAX_READ_BYTES {
            serde_json::to_writer(&mut text, &entry(&format!("{index}"))).unwrap();
            text.push(b'\n');
            index += 1;
        }
        fs::write(&path, &text).unwrap();
        let read = read_newest(&path).unwrap();
        assert!(
            read.len() as u64 <= MAX_READ_BYTES,
            "bounded: {}",
            read.len()
        );
        assert!(read.starts_with(b"{"), "from a whole line on");
        let taken = Spool::new(path).take(Timestamp(1_000));
        assert_eq!(taken.len(), MAX_ENTRIES);
        assert_eq!(
            taken.last().unwrap().observation,
            finished(&format!("{}", index - 1)),
            "the newest entries are the ones read"
        );
    }

    #[test]
    fn a_spool_below_a_home_that_is_gone_never_makes_the_home_again() {
        let folder = tempfile::tempdir().unwrap();
        let home = folder.path().join("home");
        fs::create_dir(&home).unwrap();
        let path = home.join(".local/state/gatehouse/spool.jsonl");
        let spool = Spool::below(home.clone(), path.clone());
        spool.append(&entry("ls")).unwrap();
        assert!(path.is_file(), "made below an existing home");
        fs::remove_dir_all(&home).unwrap();
        assert!(spool.append(&entry("ls")).is_err());
        assert!(!home.exists(), "the home is not made again");
    }
}
