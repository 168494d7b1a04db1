//! A hostile peer on the hooks socket against the real binary: large prompts never blind
//! `gatehouse list`, `gatehouse show` prints one whole with the digest that approves it, and one
//! connection holding thirty 10 MB prompts cannot swell the gateway.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};

const MIB: usize = 1024 * 1024;

/// A connection to the hooks socket that said hello as a hook.
fn peer(gateway: &Gateway) -> (UnixStream, BufReader<UnixStream>) {
    let hooks = gatehouse_host_ipc::socket::hooks_socket_path(&gateway.socket());
    let mut stream = UnixStream::connect(hooks).expect("the hooks socket");
    let mut lines = BufReader::new(stream.try_clone().unwrap());
    let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "hello",
        "params": {"protocol": gatehouse_host_ipc::PROTOCOL_VERSION, "role": "hook"}});
    writeln!(stream, "{hello}").unwrap();
    let mut line = String::new();
    lines.read_line(&mut line).unwrap();
    assert!(line.contains("\"result\""), "{line}");
    (stream, lines)
}

/// A `hook.hold` request for a Claude Code Bash prompt whose command is `bytes` long.
fn hold(id: usize, bytes: usize) -> String {
    let command = format!("echo {id} {}", "#".repeat(bytes));
    json!({"jsonrpc": "2.0", "id": id, "method": "hook.hold", "params": {"wait_ms": 600_000,
        "prompt": {"adapter": "claude", "session": "s", "cwd": "/far/project", "kind": "permission",
            "tool": "Bash", "input": {"command": command}, "summary": format!("echo {id}"),
            "correlation": format!("c{id}")}}})
    .to_string()
}

/// Reads frames until `count` holds were answered with `hook.registered` or an error; returns
/// how many were registered and how many refused over a limit.
fn outcomes(lines: &mut BufReader<UnixStream>, count: usize) -> (usize, usize) {
    let (mut registered, mut refused) = (0, 0);
    while registered + refused < count {
        let mut line = String::new();
        if lines.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let frame: Value = serde_json::from_str(&line).unwrap();
        if frame["method"] == "hook.registered" {
            registered += 1;
        } else if frame["error"]["data"]["name"] == "over_limit" {
            refused += 1;
        }
    }
    (registered, refused)
}

#[test]
fn two_nine_megabyte_prompts_leave_list_working_and_show_prints_one_whole() {
    let gateway = Gateway::start();
    let mut peers = Vec::new();
    for id in 1..=2 {
        let (mut stream, mut lines) = peer(&gateway);
        writeln!(stream, "{}", hold(id, 9 * MIB)).unwrap();
        assert_eq!(outcomes(&mut lines, 1), (1, 0));
        peers.push((stream, lines));
    }
    let listed = gateway.run(&["list"]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let table = String::from_utf8(listed.stdout).unwrap();
    assert!(table.contains("run `gatehouse show"), "{table}");
    assert!(table.contains("unnamed link"), "{table}");
    let prompts = gateway.wait_for_pending(2);
    assert!(prompts
        .iter()
        .all(|prompt| prompt["cut"]["full_bytes"].as_u64() > Some(9 * MIB as u64)));
    let id = prompts[0]["short_id"].as_str().unwrap();

    let unseen = gateway.run(&["answer", id, "once"]);
    assert!(!unseen.status.success());
    let refusal = String::from_utf8_lossy(&unseen.stderr);
    assert!(
        refusal.contains("not_seen_in_full") && refusal.contains("gatehouse show"),
        "{refusal}"
    );
    assert_eq!(gateway.list().len(), 2, "nothing was approved");

    let shown = gateway.run(&["show", id]);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let text = String::from_utf8(shown.stdout).unwrap();
    assert!(
        text.len() > 9 * MIB,
        "the whole input: {} bytes",
        text.len()
    );
    gateway.answer_once_as_shown(id, &text);
    assert_eq!(gateway.list().len(), 1);
}

#[test]
fn one_connection_holding_thirty_ten_megabyte_prompts_cannot_swell_the_gateway() {
    let gateway = Gateway::start();
    let before = gateway.resident_bytes();
    let (mut stream, mut lines) = peer(&gateway);
    let writer = std::thread::spawn(move || {
        for id in 1..=30 {
            if writeln!(stream, "{}", hold(id, 10 * MIB)).is_err() {
                break;
            }
        }
        stream
    });
    let (registered, refused) = outcomes(&mut lines, 30);
    let _stream = writer.join().unwrap();
    let mut after = 0;
    wait_for(
        Duration::from_secs(10),
        "the gateway's memory to be read",
        || {
            after = gateway.resident_bytes();
            after > 0
        },
    );
    println!(
        "thirty 10 MB prompts on one connection: {registered} held, {refused} refused; the gateway grew from {} MiB to {} MiB",
        before / MIB as u64,
        after / MIB as u64
    );
    assert!(
        registered <= 2 && registered + refused == 30,
        "{registered} held, {refused} refused"
    );
    assert!(
        after < before + 160 * MIB as u64,
        "grew from {} MiB to {} MiB",
        before / MIB as u64,
        after / MIB as u64
    );
}

#[test]
fn ten_megabyte_prompts_from_a_peer_never_push_a_local_approval_out_of_the_audit_log() {
    let gateway = Gateway::start();
    let mut hook = gateway.spawn_claude(&crate::common::claude_fixture("PermissionRequest-Bash"));
    let prompts = gateway.wait_for_pending(1);
    let approved = prompts[0]["id"].as_str().unwrap().to_owned();
    let answered = gateway.run(&["answer", &approved, "once"]);
    assert!(
        answered.status.success(),
        "{}",
        String::from_utf8_lossy(&answered.stderr)
    );
    let _ = hook.wait();

    // A peer holds five 10 MB prompts, one after another, each withdrawn when it hangs up.
    for id in 1..=5 {
        let (mut stream, mut lines) = peer(&gateway);
        writeln!(stream, "{}", hold(id, 10 * MIB)).unwrap();
        assert_eq!(outcomes(&mut lines, 1), (1, 0));
        drop((stream, lines));
        wait_for(
            Duration::from_secs(30),
            "the prompt to be withdrawn",
            || gateway.list().is_empty(),
        );
    }
    let log = gateway.run(&["log", "--json"]);
    assert!(log.status.success());
    let text = String::from_utf8(log.stdout).unwrap();
    let approval = text.lines().any(|line| {
        let record: Value = serde_json::from_str(line).unwrap();
        record["event"]["id"] == approved.as_str() && record["event"]["state"] == "resolved"
    });
    assert!(approval, "the approval is still in the audit log");
    assert!(
        text.lines().all(|line| line.len() < 64 * 1024),
        "large prompts are recorded cut"
    );
}
