//! Issue 19: the hook reports the agent that runs it, and the gateway alone applies the unlock
//! rule, per prompt, for that version, from the probe record as it is on disk then. Here the hook
//! runs as Copilot CLI 1.0.102 runs it, with `COPILOT_CLI_BINARY_VERSION` in its environment, and
//! the gateway finds no `copilot` installed at all (so its own flags stay read-only): the
//! reported version alone decides. A prompt the hook wanted answerable that the gateway finds
//! read-only is listed read-only with the true reason, and stays listed after its hook returned.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{finish, Gateway, Reaped};
use crate::support::spawn_fed;
use crate::support::world::write_passing_record;

const PROBED: &str = "1.0.102";
const DEADLINE: Duration = Duration::from_secs(30);

/// A passing probe record for Copilot CLI [`PROBED`], as `gatehouse probe copilot` writes it.
fn write_record(gateway: &Gateway) {
    write_passing_record(gateway, "copilot", PROBED, "/nonexistent/copilot");
}

fn permission_request(session: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/adapter-copilot/tests/data/copilot-cli-1.0.102/permissionRequest.shell.json");
    let mut event: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    event["sessionId"] = json!(session);
    event.to_string().into_bytes()
}

/// `gatehouse hook copilot permissionRequest` as Copilot CLI `version` runs it.
fn hook_as_copilot(gateway: &Gateway, version: &str, session: &str) -> Reaped {
    let mut command = gateway.command(&["hook", "copilot", "permissionRequest"]);
    command.env("COPILOT_CLI_BINARY_VERSION", version);
    Reaped::from(spawn_fed(&mut command, &permission_request(session)))
}

fn copilot_flags_are_read_only(gateway: &Gateway) -> bool {
    let status: Value = serde_json::from_slice(&gateway.run(&["status", "--json"]).stdout).unwrap();
    status["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|adapter| adapter["adapter"] == "copilot")
        .all(|adapter| adapter["rules"][0]["actions"][0]["verified"] == false)
}

#[test]
fn the_version_the_hook_reports_unlocks_its_prompt_at_once_though_the_gateway_finds_none_installed()
{
    let gateway = Gateway::start();
    write_record(&gateway);
    let hook = hook_as_copilot(&gateway, PROBED, "probed");
    let prompt = gateway.wait_for_pending_within(1, DEADLINE).remove(0);
    assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
    if gatehouse_harness::executable::find_on_path("copilot").is_none() {
        assert!(
            copilot_flags_are_read_only(&gateway),
            "the gateway's own flags (no copilot installed) stay read-only"
        );
    } else {
        eprintln!("not checked: a copilot is on PATH, so the gateway's own flags may be unlocked");
    }
    let answered = gateway.run(&["answer", prompt["id"].as_str().unwrap(), "once"]);
    assert!(answered.status.success(), "{answered:?}");
    let output = finish(hook, DEADLINE);
    let verdict: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "a verdict on stdout: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(verdict, json!({ "behavior": "allow" }));
}

#[test]
fn another_version_is_listed_read_only_with_the_true_reason_and_stays_listed() {
    let gateway = Gateway::start();
    write_record(&gateway);
    let hook = hook_as_copilot(&gateway, "1.0.103", "another-version");
    // The hook returns at once, with nothing printed: Copilot's own dialog decides.
    let output = finish(hook, DEADLINE);
    assert!(output.stdout.is_empty(), "{output:?}");
    let prompt = gateway.wait_for_pending_within(1, DEADLINE).remove(0);
    assert_eq!(prompt["actions"], json!([]), "{prompt}");
    let why = prompt["read_only_reason"].as_str().unwrap_or_default();
    assert!(
        why.contains("the probe passed for Copilot CLI 1.0.102, but Copilot CLI 1.0.103 is in use"),
        "{why}"
    );
    // Its hook has gone; the prompt stays listed, and nothing claims it was answered.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(gateway.list().len(), 1);
    let log = String::from_utf8_lossy(&gateway.run(&["log", "--json"]).stdout).into_owned();
    assert!(!log.contains("withdrawn"), "{log}");
}
