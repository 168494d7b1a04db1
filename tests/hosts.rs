//! Where a prompt comes from is the gateway's to say: a local hook's prompt carries this machine's
//! name whatever the hook claims, one from the hooks socket carries its link's host and never
//! looks local, and `status` counts hook connections by the host the gateway stamped.

use std::time::Duration;

use serde_json::Value;

use crate::common::{claude_fixture, wait_for, Gateway};

/// This machine's host name, as the gateway reads it.
fn own_host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is ours and its length is passed.
    assert_eq!(
        unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) },
        0
    );
    let end = buffer.iter().position(|&byte| byte == 0).unwrap();
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

#[test]
fn a_local_prompt_is_stamped_with_this_machine_whatever_its_hook_claims() {
    let gateway = Gateway::start();
    let own = own_host_name();
    let mut hook = gateway.spawn_hook(
        "claude",
        claude_fixture("PermissionRequest-Bash")
            .to_string()
            .as_bytes(),
        &[("GATEHOUSE_HOST_NAME", "devbox\u{1b}[2J")],
    );
    let prompts = gateway.wait_for_pending(1);
    assert_eq!(
        prompts[0]["host"],
        own.as_str(),
        "the gateway's word, not the hook's"
    );

    let table = String::from_utf8(gateway.run(&["list"]).stdout).unwrap();
    assert!(table.contains(&format!("{own} (local)")), "{table}");
    assert!(!table.contains("devbox"), "{table}");

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
        serde_json::json!([{ "host": own, "connections": 1 }])
    );
    assert_eq!(status["started_by"], "gatehouse serve");
    hook.kill().unwrap();
    hook.wait().unwrap();
}

#[test]
fn a_prompt_from_the_hooks_socket_never_looks_local_whatever_it_claims() {
    let gateway = Gateway::start();
    let own = own_host_name();
    let hooks = gatehouse_host_ipc::socket::hooks_socket_path(&gateway.socket());
    // A hook that reaches the hooks socket itself (as through a hand-made forward) and claims,
    // in its hello and its prompt, to be this very machine.
    let mut hook = gateway.spawn_hook(
        "claude",
        claude_fixture("PermissionRequest-Bash")
            .to_string()
            .as_bytes(),
        &[
            ("GATEHOUSE_SOCKET", &hooks.display().to_string()),
            ("GATEHOUSE_HOST_NAME", &own),
        ],
    );
    let prompts = gateway.wait_for_pending(1);
    assert_eq!(prompts[0]["host"], "unnamed link");
    let table = String::from_utf8(gateway.run(&["list"]).stdout).unwrap();
    assert!(table.contains("unnamed link"), "{table}");
    assert!(!table.contains("(local)"), "{table}");
    hook.kill().unwrap();
    hook.wait().unwrap();
}

/// The tmux pane is the hook's to find for every agent, not only for those whose adapter reads
/// it: Codex's and Copilot CLI's prompts name the pane their agent runs in.
#[test]
fn every_agents_prompt_names_the_tmux_pane_its_hook_runs_in() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    for (agent, fixture) in [
        (
            "codex",
            "adapter-codex/tests/data/codex-0.171.0/PermissionRequest-Bash.json",
        ),
        (
            "copilot",
            "adapter-copilot/tests/data/copilot-cli-1.0.102/permissionRequest.shell.json",
        ),
    ] {
        let gateway = Gateway::start();
        let stdin = std::fs::read(data.join(fixture)).unwrap();
        let mut hook = gateway.spawn_hook(
            agent,
            &stdin,
            &[
                ("TMUX", "/tmp/gatehouse-no-such-tmux/default,1,0"),
                ("TMUX_PANE", "%7"),
            ],
        );
        let prompts = gateway.wait_for_pending(1);
        let terminal = &prompts[0]["terminal"];
        assert_eq!(terminal["tmux_pane"], "%7", "{agent}: {}", prompts[0]);
        assert_eq!(
            terminal["tmux_socket"], "/tmp/gatehouse-no-such-tmux/default",
            "{agent}"
        );
        let _ = hook.kill();
        let _ = hook.wait();
    }
}
