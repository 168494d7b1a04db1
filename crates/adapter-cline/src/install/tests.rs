//! The hook files: one private script per event, which runs the hook in the background and
//! prints nothing; written again only when changed, removed exactly, and never over or removing
//! a file that is not gatehouse's.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::*;

fn request(settings: &Path, program: &Path) -> InstallRequest {
    InstallRequest {
        settings: settings.to_path_buf(),
        program: program.to_path_buf(),
        hold_seconds: 600,
        timeout_margin_seconds: 30,
    }
}

/// The files in `folder`, by name.
fn names_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_scopes_name_clines_hooks_folders() {
    let project = ClineInstaller
        .settings_path(&SettingsScope::Project("/work/p".into()))
        .unwrap();
    assert_eq!(
        project,
        Path::new("/work/p/.clinerules/hooks/PreToolUse.bash")
    );
    let file = ClineInstaller
        .settings_path(&SettingsScope::File("/x/PreToolUse.bash".into()))
        .unwrap();
    assert_eq!(file, Path::new("/x/PreToolUse.bash"));
}

#[test]
fn install_writes_one_private_file_per_event_and_uninstall_removes_exactly_them() {
    let folder = tempfile::tempdir().unwrap();
    let program = folder.path().join("bin/gate 'house'/gatehouse");
    let hooks = folder.path().join("home/.cline/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(hooks.join("PreToolUse.sh"), "echo '{}'\n").unwrap();
    let settings = hooks.join("PreToolUse.bash");

    let installed = ClineInstaller
        .install(&request(&settings, &program))
        .unwrap();
    assert_eq!(installed.changes.len(), 1, "{installed:?}");
    assert!(
        installed.changes[0].starts_with("wrote gatehouse's PreToolUse hook file, which runs '/"),
        "{installed:?}"
    );
    let notes = installed.notes.join("\n");
    let beside = EVENTS[1..].join(", ");
    assert!(
        notes.contains(&format!("beside it for {beside}, which")),
        "{notes}"
    );
    for said in [
        "read-only",
        "Auto-approve all",
        "Shift+Tab",
        "--auto-approve false",
    ] {
        assert!(notes.contains(said), "{said}: {notes}");
    }
    let mut expected: Vec<String> = EVENTS.iter().map(|event| file_name(event)).collect();
    expected.push("PreToolUse.sh".into());
    expected.sort();
    assert_eq!(names_in(&hooks), expected);
    let script = std::fs::read_to_string(&settings).unwrap();
    assert!(is_gatehouse_hook(&script));
    // No hook executable beside it: gatehouse itself, quoted for the shell.
    assert!(
        script.contains(r#"'/"#)
            && script.contains(r"gate '\''house'\''/gatehouse' hook cline 0<&0 >/dev/null 2>&1 &"),
        "{script}"
    );
    use std::os::unix::fs::PermissionsExt;
    for event in EVENTS {
        let path = hooks.join(file_name(event));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), script, "{event}");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{event}: {mode:o}");
    }

    let again = ClineInstaller
        .install(&request(&settings, &program))
        .unwrap();
    assert!(again.changes.is_empty(), "nothing changes: {again:?}");

    let removed = ClineInstaller.uninstall(&settings).unwrap();
    assert_eq!(
        removed.changes,
        ["removed gatehouse's PreToolUse hook file"]
    );
    let said = format!("removed gatehouse's hook files beside it for {beside}");
    assert!(removed.notes[0].contains(&said), "{removed:?}");
    assert_eq!(
        names_in(&hooks),
        ["PreToolUse.sh"],
        "the person's own hook is left"
    );
    assert!(ClineInstaller
        .uninstall(&settings)
        .unwrap()
        .changes
        .is_empty());
}

/// `setup` and `doctor` try an install on a copy of the one file the binary names: a copy of a
/// current `PreToolUse` file is current there, though the files beside it are not copied.
#[test]
fn a_copy_of_the_current_pre_tool_use_file_alone_is_current_and_only_it_is_a_change() {
    let folder = tempfile::tempdir().unwrap();
    let program = folder.path().join("gatehouse");
    let settings = folder.path().join("real/PreToolUse.bash");
    ClineInstaller
        .install(&request(&settings, &program))
        .unwrap();
    let copy = folder.path().join("copy/PreToolUse.bash");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&settings, &copy).unwrap();
    let planned = ClineInstaller.install(&request(&copy, &program)).unwrap();
    assert!(planned.changes.is_empty(), "{planned:?}");
    assert!(planned.notes[0].starts_with("Also wrote"), "{planned:?}");
    let moved = folder.path().join("moved/gatehouse");
    let other = ClineInstaller.install(&request(&copy, &moved)).unwrap();
    assert_eq!(
        other.changes.len(),
        1,
        "another program is a change: {other:?}"
    );
    assert_eq!(ClineInstaller.uninstall(&copy).unwrap().changes.len(), 1);
}

#[test]
fn a_file_that_is_not_gatehouses_stops_install_and_uninstall_before_anything_changes() {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join("PreToolUse.bash");
    let theirs = folder.path().join("TaskError.bash");
    std::fs::write(&theirs, "echo mine\n").unwrap();
    let program = folder.path().join("gatehouse");
    let not_ours = |error: KitError| {
        matches!(
            error.downcast_ref::<InstallError>(),
            Some(InstallError::File(OwnFileError::NotOurs(path))) if *path == theirs
        )
    };
    assert!(not_ours(
        ClineInstaller
            .install(&request(&settings, &program))
            .unwrap_err()
    ));
    assert_eq!(
        names_in(folder.path()),
        ["TaskError.bash"],
        "nothing written"
    );
    std::fs::remove_file(&theirs).unwrap();
    ClineInstaller
        .install(&request(&settings, &program))
        .unwrap();
    std::fs::write(&theirs, "echo mine\n").unwrap();
    assert!(not_ours(ClineInstaller.uninstall(&settings).unwrap_err()));
    assert_eq!(
        names_in(folder.path()).len(),
        EVENTS.len(),
        "nothing removed"
    );
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "echo mine\n");
    let other = ClineInstaller.install(&request(&settings, Path::new("/bin/sh")));
    assert!(matches!(
        other.unwrap_err().downcast_ref::<InstallError>(),
        Some(InstallError::Program(_))
    ));
}

/// The script, run by bash as Cline runs it, hands its whole stdin to the hook and returns at
/// once with nothing on stdout, while the hook still runs.
#[test]
fn the_script_returns_at_once_printing_nothing_while_the_hook_reads_its_stdin() {
    let folder = tempfile::tempdir().unwrap();
    let received = folder.path().join("received");
    let slow_hook = folder.path().join("slow-hook");
    std::fs::write(
        &slow_hook,
        format!(
            "#!/bin/sh\nsleep 2\ncat > '{}.part' && echo \"$@\" >> '{0}.part' && mv '{0}.part' '{0}'\necho printed\n",
            received.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&slow_hook, std::fs::Permissions::from_mode(0o700)).unwrap();
    let script = folder.path().join("PreToolUse.bash");
    let command = format!("'{}' hook cline", slow_hook.display());
    std::fs::write(&script, hook_script(&command)).unwrap();

    let started = Instant::now();
    let mut bash = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let payload = format!(
        "{{\"hookName\": \"tool_call\", \"x\": \"{}\"}}",
        "y".repeat(200_000)
    );
    let mut stdin = bash.stdin.take().unwrap();
    // Written meanwhile, as Cline writes it: the hook reads it only after its sleep.
    let written = payload.clone();
    let writer = std::thread::spawn(move || stdin.write_all(written.as_bytes()).unwrap());
    let output = bash.wait_with_output().unwrap();
    assert!(output.status.success());
    assert!(
        output.stdout.is_empty(),
        "prints nothing: {:?}",
        output.stdout
    );
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "returned before the hook ended: {:?}",
        started.elapsed()
    );
    assert!(!received.exists(), "the hook still runs");
    writer.join().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !received.exists() {
        assert!(Instant::now() < deadline, "the hook never got its stdin");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        std::fs::read_to_string(&received).unwrap(),
        format!("{payload}hook cline\n")
    );
}
