//! Who may talk to the gateway: only the user who runs it.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use crate::common::{binary_for_another_user, Gateway};

/// The user id of `nobody` on Debian.
const NOBODY: u32 = 65_534;

#[test]
fn another_user_is_refused_even_when_the_socket_file_lets_them_in() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: only root can run a process as another user to knock on the socket");
        return;
    }
    let gateway = Gateway::start();
    let socket = gateway.socket();
    // Open every permission that normally keeps other users out, so the peer check is all that is left.
    for path in [gateway.sandbox.folder.path(), socket.parent().unwrap()] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666)).unwrap();

    // The stranger runs a copy of the binary that it can reach, wherever this checkout lives.
    let (_binary_folder, binary) = binary_for_another_user();
    let stranger = Command::new(&binary)
        .args(["status", "--json", "--socket"])
        .arg(&socket)
        .env_clear()
        .uid(NOBODY)
        .gid(NOBODY)
        .current_dir("/")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs as nobody");
    assert_eq!(
        stranger.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&stranger.stderr)
    );
    let reply: serde_json::Value = serde_json::from_slice(&stranger.stdout).unwrap();
    assert_eq!(reply["running"], false, "{reply}");

    let owner = gateway.run(&["status"]);
    assert!(owner.status.success(), "the owner still gets in");
}

#[test]
fn a_flood_of_idle_and_half_sent_connections_disturbs_nobody() {
    use std::io::Write;
    use std::os::unix::net::UnixStream;

    let gateway = Gateway::start();
    let hook = gateway.spawn_hook(
        "claude",
        crate::common::claude_fixture("PermissionRequest-Bash")
            .to_string()
            .as_bytes(),
        &[],
    );
    let prompt = gateway.wait_for_pending(1).remove(0);
    let mut flood = Vec::new();
    for index in 0..500 {
        let mut stream = UnixStream::connect(gateway.socket()).expect("the gateway accepts");
        match index % 3 {
            0 => {}
            1 => stream
                .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hel")
                .unwrap(),
            _ => stream.write_all(&[0xff; 4096]).unwrap(),
        }
        if index % 2 == 0 {
            drop(stream);
        } else {
            flood.push(stream);
        }
    }
    assert!(
        gateway.run(&["status"]).status.success(),
        "the gateway still answers"
    );
    assert_eq!(
        gateway.list(),
        vec![prompt.clone()],
        "the pending prompt is untouched"
    );
    assert!(gateway
        .run(&["answer", prompt["id"].as_str().unwrap(), "once"])
        .status
        .success());
    let output = crate::common::finish(hook, std::time::Duration::from_secs(10));
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"allow\""));
    drop(flood);
}
