//! Tests of what is Qwen's own in the installer: its events, timeouts, command and notes, against
//! the settings file Qwen Code 0.24.4 really had. The shared algorithm is tested in
//! `gatehouse-hook-settings`.

use gatehouse_core::kit::{HookInstaller, InstallRequest, SettingsScope};
use gatehouse_harness::executable::testing::{assert_hook_command, assert_recognised};
use serde_json::{json, Value};

use super::*;

const COMMAND: &str = "GATEHOUSE_HOOK__WAIT_SECONDS=40 '/opt/bin/gatehouse' hook qwen";

fn captured_settings() -> Value {
    serde_json::from_str(include_str!(
        "../../tests/data/qwen-code-0.24.4/settings.json"
    ))
    .unwrap()
}

#[test]
fn the_hook_command_sets_a_wait_well_under_qwens_60_seconds_and_is_recognised() {
    let program = "/opt/bin/gatehouse";
    assert_hook_command(
        |path| QWEN_INSTALLER.hook_command(path, QWEN_WAIT_SECONDS),
        program,
        COMMAND,
    );
    assert_recognised(
        |command| QWEN_INSTALLER.hooks.is_gatehouse_command(command),
        &[
            ("'/usr/bin/gatehouse' hook qwen", true),
            ("'/usr/bin/gatehouse' hook codex", false),
            ("/home/dev/bin/hook.sh PermissionRequest", false),
        ],
    );
    // Qwen reads 1000 or more as milliseconds, and gives up on a hook at 60 s whatever it says.
    const { assert!(QWEN_WAIT_SECONDS + 10 <= HOLD_TIMEOUT_SECONDS) };
    const { assert!(HOLD_TIMEOUT_SECONDS < 60) };
    assert!(HELD.contains(&format!("{QWEN_WAIT_SECONDS} s")));
}

#[test]
fn install_adds_gatehouses_entries_beside_the_persons_changing_nothing_else_and_uninstall_undoes_it(
) {
    let settings = captured_settings();
    let (installed, changes) = QWEN_INSTALLER
        .hooks
        .plan_install(
            &settings,
            &QWEN_INSTALLER.plan_for(COMMAND, QWEN_WAIT_SECONDS),
        )
        .unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    let groups = installed["hooks"]["PermissionRequest"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "the person's hook stays: {groups:?}");
    assert_eq!(groups[0], settings["hooks"]["PermissionRequest"][0]);
    assert_eq!(
        groups[1],
        json!({ "matcher": "*", "hooks": [{ "type": "command", "command": COMMAND, "timeout": 55 }] })
    );
    assert_eq!(
        installed["hooks"]["Stop"][1],
        json!({ "hooks": [{ "type": "command", "command": COMMAND, "timeout": 10 }] })
    );
    for key in ["security", "tools", "ui", "model", "$version"] {
        assert_eq!(installed[key], settings[key], "{key}");
    }
    assert_eq!(
        installed["tools"]["approvalMode"], "default",
        "the person's approval mode is left alone"
    );
    let (again, changes) = QWEN_INSTALLER
        .hooks
        .plan_install(
            &installed,
            &QWEN_INSTALLER.plan_for(COMMAND, QWEN_WAIT_SECONDS),
        )
        .unwrap();
    assert_eq!(again, installed);
    assert!(
        changes
            .iter()
            .all(|change| change.to_string().contains("unchanged")
                || !change.to_string().contains("added")),
        "{changes:?}"
    );
    let (removed, _) = QWEN_INSTALLER.hooks.plan_uninstall(&installed).unwrap();
    assert_eq!(removed, settings);
}

#[test]
fn the_installer_writes_the_file_with_a_backup_and_says_what_auto_mode_means() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(".qwen/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{\n  \"model\": { \"name\": \"qwen3-coder\" }\n}\n").unwrap();
    let program = folder.path().join("bin/gatehouse");
    let outcome = QWEN_INSTALLER
        .install(&InstallRequest {
            settings: path.clone(),
            program: program.clone(),
            hold_seconds: 600,
            timeout_margin_seconds: 30,
        })
        .unwrap();
    assert!(outcome.backup.is_some());
    let written: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(written["model"]["name"], "qwen3-coder");
    let command = written["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        command.starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=40 "),
        "{command}"
    );
    assert_eq!(
        written["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"], 55,
        "Qwen's wait, whatever the request"
    );
    let notes = outcome.notes.join("\n");
    assert!(
        notes.contains("held for up to 40 s") && notes.contains("60 s"),
        "{notes}"
    );
    assert!(
        notes.contains("approval mode `auto`") && notes.contains("leaves your mode"),
        "{notes}"
    );
    let removed = QWEN_INSTALLER.uninstall(&path).unwrap();
    assert!(!removed.changes.is_empty());
    let left: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(
        left.get("hooks")
            .is_none_or(|hooks| hooks.as_object().unwrap().is_empty()),
        "{left}"
    );
    assert_eq!(
        QWEN_INSTALLER
            .settings_path(&SettingsScope::Project(folder.path().into()))
            .unwrap(),
        folder.path().join(".qwen/settings.json")
    );
}

#[test]
fn a_chosen_wait_keeps_qwens_timeout_under_its_60_seconds_and_a_longer_one_is_refused_naming_them()
{
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(".qwen/settings.json");
    let request = InstallRequest {
        settings: path.clone(),
        program: folder.path().join("bin/gatehouse"),
        hold_seconds: 600,
        timeout_margin_seconds: 30,
    };
    let limits = QWEN_INSTALLER.hold_limits().expect("Qwen's hook holds");
    assert_eq!((limits.default_seconds, limits.max_seconds), (40, 44));
    let outcome = QWEN_INSTALLER.install_holding(&request, 44).unwrap();
    let written: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let entry = &written["hooks"]["PermissionRequest"][0]["hooks"][0];
    assert!(entry["command"]
        .as_str()
        .unwrap()
        .starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=44 "));
    assert!(entry["timeout"].as_u64().unwrap() < 60, "{entry}");
    assert!(outcome.notes.join("\n").contains("held for up to 44 s"));
    let refused = QWEN_INSTALLER.install_holding(&request, 45).unwrap_err();
    assert!(
        refused.to_string().contains("gives up on its hook at 60 s"),
        "{refused}"
    );
}
