//! Reads the file an edit changes, for its preview, within fixed bounds: the path is model
//! written, so it may name a FIFO that never answers, a device, or a file under `/proc` whose
//! size says 0 and whose content never ends (`/proc/self/pagemap`). Only regular files are
//! read, never more than [`MAX_FILE_BYTES`] counted as they are read, and nothing that is not a
//! regular file is ever opened.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;

/// The largest file on disk that is read for a preview, in bytes.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The file an edit changes, as far as its preview goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOnDisk {
    /// There is no such file: a Write makes a new one.
    Absent,
    /// Its text, at most [`MAX_FILE_BYTES`].
    Text(String),
    /// It exists but cannot be shown, for the reason given in gatehouse's words (larger than
    /// the bound, not a regular file, not UTF-8, not readable).
    NotShown(String),
}

/// Reads `path` for a preview: at most [`MAX_FILE_BYTES`] of a regular file.
pub fn read(path: &str) -> FileOnDisk {
    // Looked at before it is opened: opening a device or a FIFO can block or have effects.
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == ErrorKind::NotFound => return FileOnDisk::Absent,
        Err(error) => return cannot_read(error),
    };
    if !metadata.is_file() {
        return not_regular();
    }
    if metadata.len() > MAX_FILE_BYTES {
        return too_large();
    }
    // O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a
    // writer; the check below then refuses it.
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        Err(error) => return cannot_read(error),
    };
    match file.metadata() {
        Ok(opened) if opened.is_file() => read_regular(file),
        Ok(_) => not_regular(),
        Err(error) => cannot_read(error),
    }
}

/// Reads an opened regular file, counting what is actually read: a file's stated size is no
/// bound (files under `/proc` say 0 and may never end). Reads in chunks of 8 KiB, a multiple of
/// the record size of the files under `/proc` that refuse other sizes (`pagemap`), so at most
/// [`MAX_FILE_BYTES`] and one chunk are read.
fn read_regular(mut file: File) -> FileOnDisk {
    let mut bytes = Vec::new();
    let mut chunk = [0; 8192];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => {
                bytes.extend_from_slice(&chunk[..read]);
                if bytes.len() as u64 > MAX_FILE_BYTES {
                    return too_large();
                }
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return cannot_read(error),
        }
    }
    match String::from_utf8(bytes) {
        Ok(text) => FileOnDisk::Text(text),
        Err(_) => FileOnDisk::NotShown("the file on disk is not UTF-8 text".into()),
    }
}

fn too_large() -> FileOnDisk {
    FileOnDisk::NotShown(format!(
        "the file on disk is larger than {} KiB",
        MAX_FILE_BYTES / 1024
    ))
}

fn not_regular() -> FileOnDisk {
    FileOnDisk::NotShown("the path on disk is not a regular file".into())
}

fn cannot_read(error: std::io::Error) -> FileOnDisk {
    FileOnDisk::NotShown(format!("the file on disk cannot be read ({error})"))
}

#[cfg(test)]
mod tests;
