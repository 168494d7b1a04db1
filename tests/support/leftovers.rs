//! Ending what a test started inside a folder before the folder is removed.
//!
//! An agent that a test ran in tmux, and the hooks it started, may outlive the tmux server by a
//! moment and write into their home after the test removed it (Claude Code writes its session
//! file, a hook its spool). Such a process is found by its working folder or by a `HOME`
//! inside the folder, given a moment to finish, then killed, so the folder can go for good.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The pids of the processes whose working folder is inside `folder` or whose `HOME` is.
pub fn processes_using(folder: &Path) -> Vec<libc::pid_t> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let own = std::process::id() as libc::pid_t;
    let home_prefix = format!("HOME={}", folder.display());
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| *pid != own)
        .filter(|pid| {
            let proc = PathBuf::from(format!("/proc/{pid}"));
            let in_folder = std::fs::read_link(proc.join("cwd"))
                .map(|cwd| cwd.starts_with(folder))
                .unwrap_or(false);
            in_folder
                || std::fs::read(proc.join("environ"))
                    .map(|environ| {
                        environ
                            .split(|byte| *byte == 0)
                            .any(|variable| variable.starts_with(home_prefix.as_bytes()))
                    })
                    .unwrap_or(false)
        })
        .collect()
}

/// Waits up to `grace` for the processes using `folder` to end, kills those left, waits for
/// them to go, then removes the folder.
pub fn end_processes_and_remove(folder: &Path, grace: Duration) {
    let start = Instant::now();
    loop {
        let left = processes_using(folder);
        if left.is_empty() {
            break;
        }
        if start.elapsed() >= grace {
            for pid in &left {
                // SAFETY: kill only sends a signal, to a process found running in the test's
                // own folder.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
        }
        if start.elapsed() >= grace + Duration::from_secs(10) {
            eprintln!("processes {left:?} still use {}", folder.display());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(folder);
}
