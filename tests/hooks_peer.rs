//! A hostile peer on the hooks socket against the real binary: large prompts never blind
//! `gatehouse list`, `gatehouse show` prints one whole with the digest that approves it, one
//! connection holding thirty 10 MB prompts cannot swell the gateway, unfinished frames and idle
//! connections cannot swell it or take its descriptors, and a link named like this machine never
//! looks local.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{claude_fixture, finish, wait_for, Gateway, Sandbox};

const MIB: usize = 1024 * 1024;

/// A connection to the hooks socket that said hello as a hook.
fn peer(gateway: &Gateway) -> (UnixStream, BufReader<UnixStream>) {
    peer_through_link(gateway, None)
}

/// A connection to the hooks socket, opened as `gatehouse remote`'s relay opens it when `link`
/// names the link (a `link.host` frame first), that said hello as a hook.
fn peer_through_link(gateway: &Gateway, link: Option<&str>) -> (UnixStream, BufReader<UnixStream>) {
    let hooks = gatehouse_host_ipc::socket::hooks_socket_path(&gateway.socket());
    let mut stream = UnixStream::connect(hooks).expect("the hooks socket");
    let mut lines = BufReader::new(stream.try_clone().unwrap());
    if let Some(link) = link {
        let named = json!({"jsonrpc": "2.0", "method": "link.host", "params": {"host": link}});
        writeln!(stream, "{named}").unwrap();
    }
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

/// The gateway's own prompts show `NAME (local)` in `list`; a link named just so, or named as
/// this machine, is still a link: `list`, `list --json` and `show` say it is remote.
#[test]
fn a_link_named_like_this_machine_never_looks_local_in_list_show_or_json() {
    let gateway = Gateway::start();
    let own = gatehouse_host_ipc::host::host_name();
    let (_hook, local) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let mut peers = Vec::new();
    for (number, link) in [format!("{own} (local)"), own.clone()].iter().enumerate() {
        let (mut stream, mut lines) = peer_through_link(&gateway, Some(link));
        writeln!(stream, "{}", hold(number + 1, 10)).unwrap();
        assert_eq!(outcomes(&mut lines, 1), (1, 0));
        peers.push((stream, lines));
    }
    let prompts = gateway.wait_for_pending(3);
    let table = gateway.list_text();
    let row_of = |prompt: &Value| {
        let short = prompt["short_id"].as_str().unwrap();
        table
            .lines()
            .find(|line| line.starts_with(short))
            .unwrap_or_else(|| panic!("a row for {short}: {table}"))
            .to_owned()
    };
    assert!(
        row_of(&local).contains(&format!("{own} (local)")),
        "{table}"
    );
    for prompt in prompts.iter().filter(|prompt| prompt["id"] != local["id"]) {
        let row = row_of(prompt);
        assert!(!row.contains("(local)"), "{row}");
        assert!(row.contains("remote:"), "{row}");
        assert_eq!(prompt["origin"], "remote", "{prompt}");
        let shown = gateway.run_successfully(&["show", prompt["short_id"].as_str().unwrap()]);
        let shown = String::from_utf8(shown.stdout).unwrap();
        let host = shown
            .lines()
            .find(|line| line.starts_with("host:"))
            .unwrap_or_else(|| panic!("show says the host: {shown}"));
        assert!(
            host.contains("remote:") && !host.contains("(local)"),
            "{host}"
        );
    }
    assert_eq!(local["origin"], "local", "{local}");
}

/// Starts a gateway that may open at most `files` descriptors (its soft and hard limits, so
/// that it cannot raise them), with its log kept; the gateway and the log's path.
fn gateway_with_open_files(files: u64) -> (Gateway, PathBuf) {
    use std::os::unix::process::CommandExt;
    let sandbox = Sandbox::new();
    let log = sandbox.folder.path().join("serve.log");
    let file = std::fs::File::create(&log).expect("the gateway's log");
    let gateway = Gateway::start_with(sandbox, |command| {
        command.stderr(file);
        // SAFETY: setrlimit is async-signal-safe and changes only the child being made.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: files,
                    rlim_max: files,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    (gateway, log)
}

/// The most memory the gateway was ever resident in, from /proc (`VmHWM`): what was freed again
/// by the time of reading counts too.
fn peak_resident_bytes(gateway: &Gateway) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", gateway.pid()))
        .expect("the gateway's /proc status");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .expect("VmHWM in kB");
    kib * 1024
}

/// How many lines of the gateway's log say that accepting a connection failed.
fn accept_failures(log: &PathBuf) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|line| line.contains("accepting a connection failed"))
        .count()
}

/// A connection to the hooks socket that sends the start of a `hook.hold` frame `bytes` long and
/// never its end, on a thread of its own (the gateway may be slow to read it); the thread gives
/// the connection back, still open. Writes that fail (a refused connection) or stall for a
/// minute end the writing.
fn unfinished_frame(gateway: &Gateway, bytes: usize) -> std::thread::JoinHandle<UnixStream> {
    let hooks = gatehouse_host_ipc::socket::hooks_socket_path(&gateway.socket());
    let mut stream = UnixStream::connect(hooks).expect("the hooks socket");
    stream
        .set_write_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    std::thread::spawn(move || {
        let start = br#"{"jsonrpc": "2.0", "id": 1, "method": "hook.hold", "params": {"prompt": {"summary": ""#;
        let chunk = vec![b'#'; 64 * 1024];
        let mut sent = 0;
        let mut writing = stream.write_all(start);
        while writing.is_ok() && sent < bytes {
            writing = stream.write_all(&chunk);
            sent += chunk.len();
        }
        stream
    })
}

/// Forty peers each send fifteen mebibytes of a frame and never its end, and two hundred more
/// connect and say nothing, to a gateway that may open 256 descriptors: its memory stays
/// bounded, `gatehouse list` answers at once, a hook on the hooks socket and one on the
/// gateway's own socket still get their prompts held, and a connection past the cap is told so.
#[test]
fn unfinished_frames_and_idle_connections_on_the_hooks_socket_leave_the_gateway_bounded_and_answering(
) {
    let (gateway, log) = gateway_with_open_files(256);
    let before = gateway.resident_bytes();
    let writers: Vec<_> = (0..40)
        .map(|_| unfinished_frame(&gateway, 15 * MIB))
        .collect();
    let hooks = gatehouse_host_ipc::socket::hooks_socket_path(&gateway.socket());
    let idle: Vec<UnixStream> = (0..200)
        .filter_map(|_| UnixStream::connect(&hooks).ok())
        .collect();
    let unfinished: Vec<UnixStream> = writers
        .into_iter()
        .map(|writer| writer.join().unwrap())
        .collect();
    let after = peak_resident_bytes(&gateway);
    println!(
        "forty unfinished 15 MiB frames and {} idle connections: the gateway grew from {} MiB to a peak of {} MiB",
        idle.len(),
        before / MIB as u64,
        after / MIB as u64
    );
    assert!(
        after < before + 160 * MIB as u64,
        "grew from {} MiB to {} MiB",
        before / MIB as u64,
        after / MIB as u64
    );

    let started = Instant::now();
    let listed = finish(
        gateway
            .command(&["list", "--json"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
        Duration::from_secs(20),
    );
    assert!(listed.status.success(), "{listed:?}");
    println!("`gatehouse list` answered in {:?}", started.elapsed());

    // A hook on the far side of a link, and one of this machine's own, are held all the same.
    let mut far = gateway.spawn_hook(
        "claude",
        claude_fixture("PermissionRequest-Bash")
            .to_string()
            .as_bytes(),
        &[("GATEHOUSE_SOCKET", &hooks.display().to_string())],
    );
    let mut near = gateway.spawn_claude(&claude_fixture("PermissionRequest-Bash"));
    let prompts = gateway.wait_for_pending(2);
    let mut origins: Vec<&str> = prompts
        .iter()
        .map(|prompt| prompt["origin"].as_str().unwrap_or("none"))
        .collect();
    origins.sort_unstable();
    assert_eq!(origins, ["local", "remote"]);

    // The flood's own process has no room left: a further connection is told so, and closed.
    let mut past_cap = UnixStream::connect(&hooks).expect("the hooks socket");
    past_cap
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut told = String::new();
    let _ = past_cap.read_to_string(&mut told);
    assert!(told.contains("over_limit"), "{told:?}");

    assert!(
        accept_failures(&log) <= 3,
        "{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let _ = far.kill();
    let _ = near.kill();
    drop((unfinished, idle));
}

/// The person's own processes open more connections to the gateway's socket than it has
/// descriptors for: what it cannot serve it closes at once (a front end fails, never hangs), it
/// says so in its log now and then rather than every 10 ms, and once they close it serves again.
#[test]
fn a_gateway_out_of_descriptors_closes_what_it_cannot_serve_and_logs_it_now_and_then() {
    let (gateway, log) = gateway_with_open_files(64);
    let flood: Vec<UnixStream> = (0..100)
        .filter_map(|_| UnixStream::connect(gateway.socket()).ok())
        .collect();
    let listed = finish(
        gateway
            .command(&["list", "--json"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
        Duration::from_secs(20),
    );
    println!("`gatehouse list` out of descriptors: {listed:?}");
    drop(flood);
    wait_for(
        Duration::from_secs(20),
        "`gatehouse list` to answer again",
        || gateway.run(&["list"]).status.success(),
    );
    let failures = accept_failures(&log);
    assert!(
        (1..=3).contains(&failures),
        "{failures} lines: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}
