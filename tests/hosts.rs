//! Every prompt names the host its hook ran on, and `status` counts hook connections by host.

use std::time::Duration;

use serde_json::Value;

use crate::common::{claude_fixture, wait_for, Gateway};

#[test]
fn a_prompt_names_its_host_in_list_and_status_counts_the_hooks_of_each_host() {
    let gateway = Gateway::start();
    let mut hook = gateway.spawn_hook(
        "claude",
        claude_fixture("PermissionRequest-Bash")
            .to_string()
            .as_bytes(),
        &[("GATEHOUSE_HOST_NAME", "devbox\u{1b}[2J")],
    );
    let prompts = gateway.wait_for_pending(1);
    assert_eq!(
        prompts[0]["host"], "devbox\u{1b}[2J",
        "JSON keeps the exact text"
    );

    let table = gateway.run(&["list"]);
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains(r"claude@devbox\e[2J"), "{table}");

    let mut status = Value::Null;
    wait_for(
        Duration::from_secs(10),
        "status to list the hook's host",
        || {
            let output = gateway.run(&["status", "--json"]);
            status = serde_json::from_slice(&output.stdout).unwrap();
            status["hosts"]
                .as_array()
                .is_some_and(|hosts| !hosts.is_empty())
        },
    );
    assert_eq!(
        status["hosts"],
        serde_json::json!([{ "host": "devbox\u{1b}[2J", "connections": 1 }])
    );
    assert_eq!(status["started_by"], "gatehouse serve");
    let text = String::from_utf8(gateway.run(&["status"]).stdout).unwrap();
    assert!(
        text.contains(r"hooks connected from: devbox\e[2J (1)"),
        "{text}"
    );
    assert!(text.contains("started by gatehouse serve"), "{text}");
    hook.kill().unwrap();
    hook.wait().unwrap();
}
