//! The reader for previews reads regular files only, and never more than its bound, whatever the
//! model names: special files under /proc, FIFOs with no writer, devices.

use std::sync::mpsc;
use std::time::Duration;

use super::*;

/// Reads `path` on a thread, failing the test (rather than hanging it) if that takes long.
fn read_within_seconds(path: &str) -> FileOnDisk {
    let (sender, receiver) = mpsc::channel();
    let owned = path.to_owned();
    std::thread::spawn(move || {
        let _ = sender.send(read(&owned));
    });
    receiver
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("reading {path} for a preview did not end"))
}

fn not_shown(outcome: FileOnDisk, expected: &str) {
    match outcome {
        FileOnDisk::NotShown(reason) => assert!(reason.contains(expected), "{reason}"),
        other => panic!("expected NotShown({expected}), got {other:?}"),
    }
}

#[test]
fn a_proc_file_whose_size_says_zero_is_read_only_up_to_the_bound() {
    // /proc/self/pagemap says its size is 0 and holds 8 bytes per page of the address space:
    // hundreds of GiB for a reader that trusts the size.
    let metadata = std::fs::metadata("/proc/self/pagemap").expect("Linux /proc is mounted");
    assert_eq!(metadata.len(), 0, "the case this test is about");
    not_shown(
        read_within_seconds("/proc/self/pagemap"),
        "larger than 256 KiB",
    );
}

#[test]
fn a_fifo_without_a_writer_is_not_opened() {
    let folder = tempfile::tempdir().unwrap();
    let fifo = folder.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    not_shown(
        read_within_seconds(fifo.to_str().unwrap()),
        "not a regular file",
    );
}

#[test]
fn devices_and_folders_are_not_regular_files() {
    for path in ["/dev/zero", "/dev/urandom", "/dev/null", "/"] {
        not_shown(read_within_seconds(path), "not a regular file");
    }
}

#[test]
fn a_regular_file_is_read_when_small_and_text() {
    let folder = tempfile::tempdir().unwrap();
    let path = |name: &str| folder.path().join(name).to_str().unwrap().to_owned();
    std::fs::write(path("small"), "one\ntwo\n").unwrap();
    assert_eq!(read(&path("small")), FileOnDisk::Text("one\ntwo\n".into()));
    std::fs::write(path("large"), vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
    not_shown(read(&path("large")), "larger than");
    std::fs::write(path("binary"), [0xff, 0xfe, 0]).unwrap();
    not_shown(read(&path("binary")), "not UTF-8");
    assert_eq!(read(&path("absent")), FileOnDisk::Absent);
}
