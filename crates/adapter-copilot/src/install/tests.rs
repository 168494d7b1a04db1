//! Tests of what is Copilot's own in the installer: its events, keys, commands and texts. The
//! shared algorithm is tested in `gatehouse-hook-settings`.

use std::fs;
use std::path::Path;

use gatehouse_core::kit::{HookInstaller, InstallRequest, SettingsScope};
use gatehouse_harness::executable::testing::{assert_hook_command, assert_recognised};
use serde_json::{json, Value};

use super::*;

fn plan_install(settings: &Value, command: &str) -> Result<(Value, Vec<Change>), InstallError> {
    COPILOT_INSTALLER.hooks.plan_install(
        settings,
        &COPILOT_INSTALLER.plan_for(command, COPILOT_WAIT_SECONDS),
    )
}

fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    COPILOT_INSTALLER.hooks.plan_uninstall(settings)
}

const COMMAND: &str = "GATEHOUSE_HOOK__WAIT_SECONDS=60 '/opt/bin/gatehouse' hook copilot";

fn entry(event: &str, timeout: u64) -> Value {
    json!({ "type": "command", "bash": format!("{COMMAND} {event}"), "timeoutSec": timeout })
}

fn foreign() -> Value {
    json!({ "type": "command", "bash": "/home/dev/bin/hook.sh postToolUse", "timeoutSec": 5 })
}

#[test]
fn the_hook_command_sets_the_short_wait_and_is_recognised_with_any_event() {
    let command = assert_hook_command(
        |program| COPILOT_INSTALLER.hook_command(program, COPILOT_WAIT_SECONDS),
        "/home/me/.cargo/bin/gatehouse",
        "GATEHOUSE_HOOK__WAIT_SECONDS=60 '/home/me/.cargo/bin/gatehouse' hook copilot",
    );
    assert_recognised(
        |command| COPILOT_INSTALLER.hooks.is_gatehouse_command(command),
        &[
            (&format!("{command} permissionRequest"), true),
            ("'/usr/bin/gatehouse' hook copilot agentStop", true),
            ("'/usr/bin/gatehouse' hook codex", false),
            ("/home/dev/bin/hook.sh permissionRequest", false),
            ("echo gatehouse hook copilot agentStop", false),
        ],
    );
}

#[test]
fn install_into_empty_settings_adds_every_event_flat() {
    let (installed, changes) = plan_install(&json!({}), COMMAND).unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    assert_eq!(
        installed,
        json!({ "hooks": {
            "permissionRequest": [entry("permissionRequest", 90)],
            "postToolUse": [entry("postToolUse", 10)],
            "userPromptSubmitted": [entry("userPromptSubmitted", 10)],
            "agentStop": [entry("agentStop", 10)],
            "sessionEnd": [entry("sessionEnd", 10)],
        } })
    );
}

#[test]
fn install_into_existing_settings_keeps_everything_else_and_is_idempotent() {
    let settings = json!({ "banner": "never", "hooks": { "postToolUse": [foreign()] } });
    let (installed, _) = plan_install(&settings, COMMAND).unwrap();
    assert_eq!(installed["banner"], "never");
    assert_eq!(
        installed["hooks"]["postToolUse"],
        json!([foreign(), entry("postToolUse", 10)])
    );
    let (again, changes) = plan_install(&installed, COMMAND).unwrap();
    assert_eq!(changes, []);
    assert_eq!(again, installed);
}

#[test]
fn uninstall_removes_only_gatehouses_entries() {
    let settings = json!({ "banner": "never", "hooks": { "postToolUse": [foreign()] } });
    let (installed, _) = plan_install(&settings, COMMAND).unwrap();
    let (uninstalled, changes) = plan_uninstall(&installed).unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    assert_eq!(uninstalled, settings);
}

#[test]
fn the_installer_writes_the_user_file_and_says_what_comes_next() {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join(".copilot/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let captured = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/copilot-cli-1.0.102/settings.json"
    );
    fs::copy(captured, &settings).unwrap();
    let request = InstallRequest {
        settings: settings.clone(),
        program: "/opt/bin/gatehouse".into(),
        hold_seconds: 600,
        timeout_margin_seconds: 30,
    };
    let outcome = COPILOT_INSTALLER.install(&request).unwrap();
    assert_eq!(outcome.changes.len(), EVENTS.len());
    assert!(outcome
        .notes
        .iter()
        .any(|note| note.contains("gatehouse probe copilot")));
    let written: Value = serde_json::from_slice(&fs::read(&settings).unwrap()).unwrap();
    assert_eq!(
        written["hooks"]["permissionRequest"][1],
        entry("permissionRequest", 90)
    );
    assert_eq!(
        written["hooks"]["permissionRequest"][0]["bash"],
        "/home/dev/bin/hook.sh permissionRequest"
    );
    COPILOT_INSTALLER.uninstall(&settings).unwrap();
    let restored: Value = serde_json::from_slice(&fs::read(&settings).unwrap()).unwrap();
    let original: Value = serde_json::from_slice(&fs::read(captured).unwrap()).unwrap();
    assert_eq!(restored, original);
}

#[test]
fn the_project_file_is_under_github_copilot() {
    let path = COPILOT_INSTALLER
        .settings_path(&SettingsScope::Project("/work/repo".into()))
        .unwrap();
    assert_eq!(path, Path::new("/work/repo/.github/copilot/settings.json"));
}
