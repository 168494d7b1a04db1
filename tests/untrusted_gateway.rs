//! The hook trusts even its own user's gateway only so far: it prints a verdict only for the id
//! it was registered with, and only an action its adapter offers for that prompt. A fake
//! gateway (run by this user, so the peer check lets it in) tries each lie in turn, against
//! both commands that run the hook (`gatehouse hook` and `gatehouse-hook`).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{claude_fixture, finish, HookProgram, Sandbox};

/// Serves one hook connection: answers `hello`, then answers `hook.hold` with `registered` as the
/// registration notification (none if `None`) and an allowing `once` for `outcome_id`.
fn fake_gateway(
    listener: UnixListener,
    registered: Option<&'static str>,
    outcome_id: &'static str,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("the hook connects");
        let mut writer = stream.try_clone().unwrap();
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            let request: Value = serde_json::from_str(&line).unwrap();
            let id = request["id"].clone();
            let mut reply =
                |value: Value| writeln!(writer, "{value}").and_then(|()| writer.flush());
            let sent = match request["method"].as_str() {
                Some("hello") => reply(
                    json!({ "jsonrpc": "2.0", "id": id, "result": { "protocol": 1, "server": "fake", "adapters": [] } }),
                ),
                Some("hook.hold") => {
                    if let Some(registered) = registered {
                        let _ = reply(
                            json!({ "jsonrpc": "2.0", "method": "hook.registered", "params": { "id": registered, "actions": ["once", "deny"] } }),
                        );
                    }
                    reply(
                        json!({ "jsonrpc": "2.0", "id": id, "result": { "id": outcome_id, "outcome": "verdict", "verdict": { "action": "once" } } }),
                    )
                }
                _ => reply(
                    json!({ "jsonrpc": "2.0", "id": id, "result": { "id": outcome_id, "state": "delivered" } }),
                ),
            };
            if sent.is_err() {
                return;
            }
        }
    })
}

const REGISTERED: &str = "019a0000-0000-7000-8000-000000000001";
const OTHER: &str = "019a0000-0000-7000-8000-000000000002";

/// What each hook program did against its own `fake` gateway, given Claude Code's `fixture`.
fn hook_against(
    fake: impl Fn(UnixListener) -> std::thread::JoinHandle<()>,
    fixture: &str,
) -> Vec<(HookProgram, std::process::Output)> {
    hook_against_stdin(fake, claude_fixture(fixture).to_string().as_bytes())
}

fn hook_against_stdin(
    fake: impl Fn(UnixListener) -> std::thread::JoinHandle<()>,
    stdin: &[u8],
) -> Vec<(HookProgram, std::process::Output)> {
    HookProgram::BOTH
        .into_iter()
        .map(|program| {
            let sandbox = Sandbox::new();
            let socket = sandbox.socket();
            std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
            let server = fake(UnixListener::bind(&socket).unwrap());
            let hook = sandbox.spawn_hook_program(program, &["hook", "claude"], &[], stdin);
            let output = finish(hook, Duration::from_secs(10));
            let _ = server.join();
            (program, output)
        })
        .collect()
}

fn assert_nothing_delivered(outputs: &[(HookProgram, std::process::Output)], expected: &str) {
    for (program, output) in outputs {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{program}");
        assert!(
            output.stdout.is_empty(),
            "{program}: nothing may be printed, got {:?}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert!(
            stderr.contains(expected),
            "{program}: stderr should say {expected:?}: {stderr}"
        );
    }
}

#[test]
fn a_verdict_for_another_id_is_not_delivered() {
    let output = hook_against(
        |listener| fake_gateway(listener, Some(REGISTERED), OTHER),
        "PermissionRequest-Bash",
    );
    assert_nothing_delivered(&output, "registered this hook's prompt as");
}

#[test]
fn a_verdict_with_no_registration_is_not_delivered() {
    let output = hook_against(
        |listener| fake_gateway(listener, None, REGISTERED),
        "PermissionRequest-Bash",
    );
    assert_nothing_delivered(&output, "before the gateway said it registered");
}

#[test]
fn once_for_a_prompt_the_adapter_keeps_read_only_is_not_delivered() {
    // Write can be unlocked by a probe, so the prompt that no probe unlocks is a WebFetch.
    let mut fetch = claude_fixture("PermissionRequest-Write");
    fetch["tool_name"] = "WebFetch".into();
    fetch["tool_input"] = serde_json::json!({ "url": "https://example.org", "prompt": "read" });
    let output = hook_against_stdin(
        |listener| fake_gateway(listener, Some(REGISTERED), REGISTERED),
        fetch.to_string().as_bytes(),
    );
    assert_nothing_delivered(&output, "does not offer");
}

#[test]
fn the_same_lie_told_truthfully_is_delivered() {
    // The control: a Bash prompt, the registered id, `once`: printed. So the tests above fail
    // for the reason they name.
    let outputs = hook_against(
        |listener| fake_gateway(listener, Some(REGISTERED), REGISTERED),
        "PermissionRequest-Bash",
    );
    for (program, output) in &outputs {
        assert_eq!(crate::common::claude_behavior(output), "allow", "{program}");
    }
}
