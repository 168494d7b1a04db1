//! `gatehouse install` writes the hook program's path into the agent's settings, and the agent
//! runs whatever file is there as the person. With the real `gatehouse` and `gatehouse-hook`
//! copied into a folder of mode 0777, another user replaced `gatehouse-hook` with a script that
//! then ran as the person (attacker review, MEDIUM). Here, copies in real folders: one every
//! user may write (refused, nothing written, the fix named; `doctor` fails it with the same fix),
//! a 0755 folder under it (still refused: the folder above lets others rename it), one of mode
//! 0755 and a sticky 1777 one holding the person's own files (installed). Judged by owners and
//! mode bits, so it holds as root too (CI runs as root, for whom `access(2)` says yes to all).
//! `setup` refuses such a program too, before it shows or changes anything.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crate::common::{binary, hook_binary, Sandbox};

/// A folder of `mode` at `path`, holding copies of `gatehouse` and `gatehouse-hook`; the copy of
/// `gatehouse`.
fn binaries_in(path: &Path, mode: u32) -> PathBuf {
    std::fs::create_dir_all(path).unwrap();
    for (from, name) in [(binary(), "gatehouse"), (hook_binary(), "gatehouse-hook")] {
        std::fs::copy(from, path.join(name)).unwrap();
        std::fs::set_permissions(path.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.join("gatehouse")
}

fn run(sandbox: &Sandbox, program: &Path, arguments: &[&str]) -> Output {
    sandbox
        .program(program)
        .args(arguments)
        .env("COLUMNS", "400")
        .stdin(Stdio::null())
        .output()
        .expect("the copy runs")
}

fn claude_settings(sandbox: &Sandbox) -> PathBuf {
    sandbox.home().join(".claude/settings.json")
}

/// Panics unless `install claude` run from `program` is refused naming `folder` as writable by
/// every user with the fix, and leaves no settings behind; and `doctor` fails the same.
fn assert_refused(sandbox: &Sandbox, program: &Path, folder: &Path) {
    let output = run(sandbox, program, &["install", "claude"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "refused: {output:?}");
    assert!(
        stderr.contains(&format!(
            "{} is writable by every user (mode 0777)",
            folder.display()
        )) && stderr.contains("only you can write, e.g. ~/.cargo/bin"),
        "{stderr}"
    );
    assert!(
        !claude_settings(sandbox).exists(),
        "nothing was written: {stderr}"
    );
    let setup = run(sandbox, program, &["setup", "--yes", "--no-service"]);
    let setup_said = String::from_utf8_lossy(&setup.stderr);
    assert_eq!(setup.status.code(), Some(1), "setup refused: {setup:?}");
    assert!(
        setup_said.contains("writable by every user") && setup_said.contains("nothing was changed"),
        "{setup_said}"
    );
    assert!(
        !claude_settings(sandbox).exists(),
        "setup wrote nothing: {setup_said}"
    );
    let doctor = run(sandbox, program, &["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1), "{said}");
    let line = said
        .lines()
        .position(|line| line.starts_with("FAIL hook program"))
        .unwrap_or_else(|| panic!("a failed hook program check: {said}"));
    let lines: Vec<&str> = said.lines().collect();
    assert!(
        lines[line].contains("writable by every user")
            && lines[line + 1]
                .trim_start()
                .starts_with("fix: move gatehouse"),
        "{said}"
    );
}

/// Panics unless `install claude` run from `program` succeeds and writes its `gatehouse-hook`.
fn assert_installed(sandbox: &Sandbox, program: &Path) {
    let output = run(sandbox, program, &["install", "claude"]);
    assert!(output.status.success(), "{output:?}");
    let written = std::fs::read_to_string(claude_settings(sandbox)).unwrap();
    let hook = program.with_file_name("gatehouse-hook");
    assert!(
        written.contains(&format!("'{}' claude", hook.display())),
        "{written}"
    );
    let doctor = run(sandbox, program, &["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert!(!said.contains("hook program"), "{said}");
    std::fs::remove_file(claude_settings(sandbox)).unwrap();
    let _ = std::fs::remove_file(claude_settings(sandbox).with_extension("json.gatehouse-backup"));
}

#[test]
fn a_hook_program_in_a_folder_every_user_may_write_is_refused_and_a_private_or_sticky_one_is_installed(
) {
    let sandbox = Sandbox::new();
    let base = sandbox.folder.path().canonicalize().unwrap();

    let open = base.join("open");
    assert_refused(&sandbox, &binaries_in(&open, 0o777), &open);

    let above = base.join("open-above");
    let program = binaries_in(&above.join("bin"), 0o755);
    std::fs::set_permissions(&above, std::fs::Permissions::from_mode(0o777)).unwrap();
    assert_refused(&sandbox, &program, &above);

    assert_installed(&sandbox, &binaries_in(&base.join("private"), 0o755));
    assert_installed(&sandbox, &binaries_in(&base.join("sticky"), 0o1777));
}
