//! `gatehouse install service` / `uninstall service`: the systemd user units, written only over
//! gatehouse's own files, idempotent, and valid for `systemd-analyze verify`.

use std::path::{Path, PathBuf};

use crate::common::{binary, Sandbox};

fn units(sandbox: &Sandbox) -> PathBuf {
    sandbox.folder.path().join("config/systemd/user")
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn install_service_writes_the_units_once_and_says_what_to_run_next() {
    let sandbox = Sandbox::new();
    let installed = sandbox.run(&["install", "service"]);
    assert!(installed.status.success(), "{}", stderr(&installed));
    let folder = units(&sandbox);
    let socket = std::fs::read_to_string(folder.join("gatehouse.socket")).unwrap();
    let service = std::fs::read_to_string(folder.join("gatehouse.service")).unwrap();
    assert!(socket.contains("ListenStream=%t/gatehouse/gatehouse.sock\n"));
    assert!(socket.contains("SocketMode=0600\n") && socket.contains("DirectoryMode=0700\n"));
    let own = binary().canonicalize().unwrap();
    assert!(
        service.contains(&format!("ExecStart={} serve\n", own.display())),
        "{service}"
    );
    assert!(stdout(&installed).contains(
        "systemctl --user daemon-reload && systemctl --user enable --now gatehouse.socket"
    ));
    assert!(stdout(&installed).contains("gatehouse.socket: written"));

    let again = sandbox.run(&["install", "service"]);
    assert!(again.status.success());
    assert!(
        stdout(&again).contains("gatehouse.socket: unchanged"),
        "{}",
        stdout(&again)
    );
    assert!(stdout(&again).contains("Nothing changed"));

    // What `systemctl --user enable` makes: removed with the unit, so nothing dangles.
    let wants = folder.join("sockets.target.wants");
    std::fs::create_dir_all(&wants).unwrap();
    std::os::unix::fs::symlink(
        folder.join("gatehouse.socket"),
        wants.join("gatehouse.socket"),
    )
    .unwrap();
    let removed = sandbox.run(&["uninstall", "service"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(stdout(&removed).contains("systemctl --user stop gatehouse.socket"));
    assert!(!folder.join("gatehouse.socket").exists());
    assert!(!folder.join("gatehouse.service").exists());
    assert!(std::fs::symlink_metadata(wants.join("gatehouse.socket")).is_err());
    let nothing = sandbox.run(&["uninstall", "service"]);
    assert!(nothing.status.success());
    assert!(stdout(&nothing).contains("nothing to remove"));
}

#[test]
fn a_unit_that_is_not_gatehouse_s_is_never_overwritten_or_removed() {
    let sandbox = Sandbox::new();
    let folder = units(&sandbox);
    std::fs::create_dir_all(&folder).unwrap();
    let mine = "[Unit]\nDescription=my own gatehouse\n";
    std::fs::write(folder.join("gatehouse.service"), mine).unwrap();
    for command in ["install", "uninstall"] {
        let refused = sandbox.run(&[command, "service"]);
        assert!(!refused.status.success(), "{command} refuses");
        assert!(
            stderr(&refused).contains("was not written by gatehouse"),
            "{}",
            stderr(&refused)
        );
        assert_eq!(
            std::fs::read_to_string(folder.join("gatehouse.service")).unwrap(),
            mine
        );
        assert!(
            !folder.join("gatehouse.socket").exists(),
            "{command} writes nothing when it refuses"
        );
    }
}

#[test]
fn the_units_pass_systemd_analyze_verify() {
    let analyze = Path::new("/usr/bin/systemd-analyze");
    if !analyze.exists() {
        crate::common::cannot_run(&format!(
            "{} is missing (install the systemd package)",
            analyze.display()
        ));
        return;
    }
    let sandbox = Sandbox::new();
    assert!(sandbox.run(&["install", "service"]).status.success());
    let folder = units(&sandbox);
    let runtime = sandbox.folder.path().join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    let output = sandbox
        .program(analyze)
        .env("XDG_RUNTIME_DIR", &runtime)
        .args(["--user", "verify", "--man=no"])
        .arg(folder.join("gatehouse.socket"))
        .arg(folder.join("gatehouse.service"))
        .output()
        .expect("systemd-analyze runs");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "",
        "no warnings either (an unknown key is only a warning)"
    );
}
