//! `gatehouse serve`'s log on stderr: colour escapes for a terminal (a real pseudo-terminal
//! here), none for a file or pipe, and none at a terminal when `NO_COLOR` is set.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{wait_for, Gateway, Sandbox};

/// The line every gateway logs once it listens.
const LISTENING: &[u8] = b"listening on";

fn has_escapes(bytes: &[u8]) -> bool {
    bytes.contains(&0x1b)
}

/// A new pseudo-terminal: (the side a program writes to, the side that reads what it wrote).
fn pseudo_terminal() -> (OwnedFd, std::fs::File) {
    let mut controller = -1;
    let mut terminal = -1;
    // SAFETY: openpty writes two new descriptors into the two ints; the rest may be null.
    let made = unsafe {
        libc::openpty(
            &mut controller,
            &mut terminal,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(made, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are new and owned by nothing else.
    unsafe {
        (
            OwnedFd::from_raw_fd(terminal),
            std::fs::File::from_raw_fd(controller),
        )
    }
}

/// What `gatehouse serve` writes on stderr when stderr is a terminal, until it logs that it
/// listens and is stopped; `no_color` is `NO_COLOR`'s value, if set.
fn log_at_a_terminal(no_color: Option<&str>) -> Vec<u8> {
    let (terminal, mut controller) = pseudo_terminal();
    let read = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let read = read.clone();
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            // Ends with an error (EIO) once no process holds the terminal side open.
            while let Ok(count @ 1..) = controller.read(&mut buffer) {
                read.lock().unwrap().extend_from_slice(&buffer[..count]);
            }
        })
    };
    let mut gateway = Gateway::start_with(Sandbox::new(), |command| {
        command.stderr(Stdio::from(terminal));
        if let Some(value) = no_color {
            command.env("NO_COLOR", value);
        }
    });
    // `terminal` moved into the command, which the fixture dropped once the gateway started.
    wait_for(Duration::from_secs(20), "the gateway's log line", || {
        read.lock()
            .unwrap()
            .windows(LISTENING.len())
            .any(|window| window == LISTENING)
    });
    gateway.terminate();
    reader.join().unwrap();
    let bytes = read.lock().unwrap().clone();
    bytes
}

#[test]
fn the_serve_log_is_coloured_only_at_a_terminal_without_no_color() {
    assert!(
        has_escapes(&log_at_a_terminal(None)),
        "at a terminal the log is coloured"
    );
    let plain = log_at_a_terminal(Some("1"));
    assert!(
        !has_escapes(&plain),
        "NO_COLOR=1: {}",
        String::from_utf8_lossy(&plain)
    );

    let sandbox = Sandbox::new();
    let log = sandbox.folder.path().join("serve.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut gateway = Gateway::start_with(sandbox, |command| {
        command.stderr(file);
    });
    gateway.terminate();
    let written = std::fs::read(&log).unwrap();
    assert!(
        written
            .windows(LISTENING.len())
            .any(|window| window == LISTENING),
        "the log went to the file: {}",
        String::from_utf8_lossy(&written)
    );
    assert!(
        !has_escapes(&written),
        "a file gets no escapes: {}",
        String::from_utf8_lossy(&written)
    );
}
