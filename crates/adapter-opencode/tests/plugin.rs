//! gatehouse's OpenCode plugin, run by Node as OpenCode runs it (its `event` hook, its `client`),
//! with a fake `gatehouse`, once as OpenCode's and once as Kilo's: only a verdict for the request
//! asked about is ever replied; nothing from an event's text runs; hostile request ids, floods,
//! late 404s, a missing gatehouse and odd events change nothing; an answer in the agent's
//! terminal ends the waiting hook and is passed on; at most 32 hooks run at once; the hook is the
//! agent's own adapter. See plugin_driver.mjs for each check.
//!
//! Without Node (OpenCode's runtime is Bun; Node runs the same plugin) it is skipped locally and
//! fails in CI (`CI` set).

use std::path::Path;
use std::process::Command;

use gatehouse_adapter_opencode::install::plugin_for;
use gatehouse_adapter_opencode::{kilo, PluginAgent, OPENCODE};

#[test]
fn the_plugin_replies_only_with_verdicts_runs_nothing_from_events_and_stays_bounded() {
    drive_the_plugin(&OPENCODE);
}

#[test]
fn kilos_plugin_replies_only_with_verdicts_runs_nothing_from_events_and_stays_bounded() {
    drive_the_plugin(&kilo::KILO);
}

/// Runs plugin_driver.mjs against `agent`'s plugin.
fn drive_the_plugin(agent: &PluginAgent) {
    if Command::new("node").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "node is not installed; the plugin test needs it"
        );
        eprintln!("skipped: node is not installed");
        return;
    }
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
    let fake = dir.join("gatehouse");
    std::fs::copy(tests.join("fake_gatehouse.cjs"), &fake).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    std::fs::write(dir.join("mode"), "out ").unwrap();
    let plugin = dir.join("gatehouse-plugin.mjs");
    std::fs::write(&plugin, plugin_for(agent, &fake).unwrap()).unwrap();
    let without = dir.join("gatehouse-plugin-without.mjs");
    std::fs::write(
        &without,
        plugin_for(agent, &dir.join("no-such-gatehouse")).unwrap(),
    )
    .unwrap();
    let output = Command::new("node")
        .arg(tests.join("plugin_driver.mjs"))
        .arg(dir)
        .arg(&plugin)
        .arg(&without)
        .arg(agent.id)
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.trim() == "ok",
        "{stdout}{stderr}"
    );
}
