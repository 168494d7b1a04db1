//! Tests of what is Gemini CLI's own in the installer: its events, entry shape, timeouts,
//! command, paths and notes. The shared algorithm is tested in `gatehouse-hook-settings`.

use std::fs;

use serde_json::json;

use super::*;

const COMMAND: &str = "'/opt/bin/gatehouse' hook gemini 2>/dev/null";

/// The settings file Gemini CLI 0.61.0 ran with when the fixtures were captured: api-key auth,
/// folder trust off, and four foreign hooks.
fn captured_settings() -> Value {
    serde_json::from_slice(include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gemini-cli-0.61.0/settings.json"
    )))
    .unwrap()
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

#[test]
fn the_hook_command_is_recognised() {
    let command = hook_command(Path::new("/home/me/.cargo/bin/gatehouse")).unwrap();
    assert_eq!(
        command,
        "'/home/me/.cargo/bin/gatehouse' hook gemini 2>/dev/null"
    );
    assert!(is_gatehouse_command(&command));
    assert!(!is_gatehouse_command("'/opt/bin/gatehouse' hook gemini"));
    assert!(!is_gatehouse_command("'/opt/bin/gatehouse' hook claude"));
    assert!(!is_gatehouse_command("/home/dev/bin/hook.sh Notification"));
    assert!(!is_gatehouse_command(
        "X=1 '/opt/bin/gatehouse' hook gemini"
    ));
    assert!(hook_command(Path::new("/usr/bin/not-gatehouse")).is_none());
}

#[test]
fn an_empty_file_gets_named_entries_in_milliseconds() {
    let (installed, changes) = plan_install(&json!({}), COMMAND).unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    insta::assert_snapshot!("install_into_empty", pretty(&installed));
}

#[test]
fn an_existing_file_keeps_every_setting_and_foreign_hook() {
    let settings = captured_settings();
    let (installed, changes) = plan_install(&settings, COMMAND).unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    for key in [
        "security",
        "general",
        "privacy",
        "telemetry",
        "ui",
        "hooksConfig",
    ] {
        assert_eq!(installed[key], settings[key], "{key}");
    }
    for event in ["BeforeTool", "SessionStart"] {
        assert_eq!(
            installed["hooks"][event], settings["hooks"][event],
            "{event}"
        );
    }
    assert_eq!(
        installed["hooks"]["Notification"][0],
        settings["hooks"]["Notification"][0]
    );
    insta::assert_snapshot!("install_into_captured", pretty(&installed));
}

#[test]
fn install_is_idempotent() {
    for settings in [json!({}), captured_settings()] {
        let (once, _) = plan_install(&settings, COMMAND).unwrap();
        let (twice, changes) = plan_install(&once, COMMAND).unwrap();
        assert!(changes.is_empty());
        assert_eq!(pretty(&once), pretty(&twice));
    }
}

#[test]
fn uninstall_removes_only_gatehouse_entries() {
    let settings = captured_settings();
    let (installed, _) = plan_install(&settings, COMMAND).unwrap();
    let (removed, changes) = plan_uninstall(&installed).unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    assert_eq!(pretty(&removed), pretty(&settings));
    let (bare, _) = plan_uninstall(&plan_install(&json!({}), COMMAND).unwrap().0).unwrap();
    assert_eq!(bare, json!({}));
    assert!(plan_uninstall(&removed).unwrap().1.is_empty());
}

#[test]
fn files_get_a_backup_and_a_missing_file_is_created() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(".gemini").join("settings.json");
    let report = install_file(&path, COMMAND).unwrap();
    assert_eq!(report.backup, None);
    let installed = fs::read_to_string(&path).unwrap();
    assert!(installed.contains(r#""timeout": 5000"#), "{installed}");
    assert!(install_file(&path, COMMAND).unwrap().changes.is_empty());
    let report = uninstall_file(&path).unwrap();
    assert_eq!(report.backup, Some(backup_path(&path)));
    assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
}

#[test]
fn the_installer_names_gemini_files_and_says_what_gemini_users_get() {
    let project = GeminiInstaller
        .settings_path(&SettingsScope::Project("/work/p".into()))
        .unwrap();
    assert_eq!(project, Path::new("/work/p/.gemini/settings.json"));

    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join("settings.json");
    fs::write(&settings, r#"{"hooksConfig": {"enabled": false}}"#).unwrap();
    let outcome = GeminiInstaller
        .install(&InstallRequest {
            settings: settings.clone(),
            program: "/opt/bin/gatehouse".into(),
            hold_seconds: 600,
            timeout_margin_seconds: 30,
        })
        .unwrap();
    let notes = outcome.notes.join("\n");
    assert!(notes.contains("read-only"), "{notes}");
    assert!(notes.contains("YOLO"), "{notes}");
    assert!(notes.contains("hooksConfig.enabled is false"), "{notes}");
    let written: Value = serde_json::from_slice(&fs::read(&settings).unwrap()).unwrap();
    assert_eq!(
        written["hooks"]["Notification"][0]["hooks"][0]["timeout"], 5000,
        "no hook waits for a person, whatever the hold time asked"
    );
    assert!(!notes_for_enabled_hooks().contains("hooksConfig"));
}

fn notes_for_enabled_hooks() -> String {
    notes(COMMAND, &captured_settings()).join("\n")
}
