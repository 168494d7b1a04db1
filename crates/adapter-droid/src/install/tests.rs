//! Tests of what is Droid's own in the installer: its events, matcher, timeouts, command, paths
//! and notes, against the settings file Droid 0.225.2 really had. The shared algorithm is tested
//! in `gatehouse-hook-settings`.

use std::path::Path;

use gatehouse_core::kit::{HookInstaller, InstallRequest, SettingsScope};
use gatehouse_harness::executable::testing::{assert_hook_command, assert_recognised};
use serde_json::{json, Value};

use super::*;

const COMMAND: &str = "GATEHOUSE_HOOK__WAIT_SECONDS=40 '/opt/bin/gatehouse' hook droid";

fn captured_settings() -> Value {
    serde_json::from_slice(gatehouse_harness::captured_payload!(
        "factory-droid-0.225.2",
        "settings"
    ))
    .unwrap()
}

#[test]
fn the_hook_command_sets_a_wait_under_the_hooks_timeout_and_is_recognised() {
    assert_hook_command(
        |path| DROID_INSTALLER.hook_command(path, DROID_WAIT_SECONDS),
        "/opt/bin/gatehouse",
        COMMAND,
    );
    assert_recognised(
        |command| DROID_INSTALLER.hooks.is_gatehouse_command(command),
        &[
            ("'/usr/bin/gatehouse' hook droid", true),
            (COMMAND, true),
            ("'/usr/bin/gatehouse' hook qwen", false),
            ("bash ~/.factory/probe-hook.sh", false),
            ("echo gatehouse hook droid", false),
        ],
    );
    const { assert!(DROID_WAIT_SECONDS + 15 <= HOLD_TIMEOUT_SECONDS) };
    assert!(HELD.contains(&format!("{DROID_WAIT_SECONDS} s")));
}

#[test]
fn install_adds_gatehouses_entries_beside_the_persons_changing_nothing_else_and_uninstall_undoes_it(
) {
    let settings = captured_settings();
    let (installed, changes) = DROID_INSTALLER
        .hooks
        .plan_install(
            &settings,
            &DROID_INSTALLER.plan_for(COMMAND, DROID_WAIT_SECONDS),
        )
        .unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    let groups = installed["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "the person's hook stays: {groups:?}");
    assert_eq!(groups[0], settings["hooks"]["PreToolUse"][0]);
    assert_eq!(
        groups[1],
        json!({ "matcher": "Execute", "hooks": [{ "type": "command", "command": COMMAND, "timeout": 60 }] })
    );
    assert_eq!(
        installed["hooks"]["PostToolUse"][1],
        json!({ "matcher": "Execute", "hooks": [{ "type": "command", "command": COMMAND, "timeout": 10 }] })
    );
    assert_eq!(
        installed["hooks"]["Stop"][0],
        json!({ "hooks": [{ "type": "command", "command": COMMAND, "timeout": 10 }] })
    );
    assert!(installed["hooks"]["SessionEnd"].is_array());
    for key in ["customModels", "trustedFolders", "logoAnimation"] {
        assert_eq!(installed[key], settings[key], "{key}");
    }
    assert_eq!(
        installed["hooks"]["Notification"], settings["hooks"]["Notification"],
        "events gatehouse has no hook for are left alone"
    );
    let (again, changes) = DROID_INSTALLER
        .hooks
        .plan_install(
            &installed,
            &DROID_INSTALLER.plan_for(COMMAND, DROID_WAIT_SECONDS),
        )
        .unwrap();
    assert_eq!(again, installed);
    assert!(
        changes
            .iter()
            .all(|change| !change.to_string().contains("added")),
        "{changes:?}"
    );
    let (removed, _) = DROID_INSTALLER.hooks.plan_uninstall(&installed).unwrap();
    assert_eq!(removed, settings);
}

#[test]
fn the_settings_file_is_in_the_home_droid_reads_and_in_a_projects_factory_folder() {
    let folder = tempfile::tempdir().unwrap();
    let home = folder.path().join("home");
    let settings = DROID_INSTALLER
        .settings_path(&SettingsScope::Project(folder.path().into()))
        .unwrap();
    assert_eq!(settings, folder.path().join(".factory/settings.json"));
    // The override names a home, as HOME does; its settings are in its .factory folder.
    let under = |home: &Path| {
        Path::new(home)
            .join(DROID_INSTALLER.home_folder)
            .join(DROID_INSTALLER.file_name)
    };
    assert_eq!(under(&home), home.join(".factory/settings.json"));
}

#[test]
fn the_installer_writes_the_file_with_a_backup_and_says_what_droid_runs_by_itself() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(".factory/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{\n  \"logoAnimation\": \"off\"\n}\n").unwrap();
    let program = folder.path().join("bin/gatehouse");
    let outcome = DROID_INSTALLER
        .install(&InstallRequest {
            settings: path.clone(),
            program: program.clone(),
            hold_seconds: 600,
            timeout_margin_seconds: 30,
        })
        .unwrap();
    assert!(outcome.backup.is_some());
    let written: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(written["logoAnimation"], "off");
    let hook = &written["hooks"]["PreToolUse"][0]["hooks"][0];
    assert!(
        hook["command"]
            .as_str()
            .unwrap()
            .starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=40 "),
        "{hook}"
    );
    assert_eq!(hook["timeout"], 60, "Droid's wait, whatever the request");
    let notes = outcome.notes.join("\n");
    for said in [
        "held for up to 40 s",
        "gatehouse probe droid",
        "allowlist",
        "Auto (Low/Medium/High)",
    ] {
        assert!(notes.contains(said), "{said}: {notes}");
    }
    let removed = DROID_INSTALLER.uninstall(&path).unwrap();
    assert!(!removed.changes.is_empty());
    let left: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(
        left.get("hooks")
            .is_none_or(|hooks| hooks.as_object().unwrap().is_empty()),
        "{left}"
    );
}
