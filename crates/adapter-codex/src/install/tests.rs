//! Tests of what is Codex's own in the installer: its events, timeouts, command and texts. The
//! shared algorithm is tested in `gatehouse-hook-settings`.

use std::fs;
use std::path::Path;

use gatehouse_harness::executable::testing::{assert_hook_command, assert_recognised};
use serde_json::{json, Value};

use super::*;

fn plan_install(settings: &Value, command: &str) -> Result<(Value, Vec<Change>), InstallError> {
    CODEX_INSTALLER.hooks.plan_install(
        settings,
        &CODEX_INSTALLER.plan_for(command, CODEX_WAIT_SECONDS),
    )
}

fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    CODEX_INSTALLER.hooks.plan_uninstall(settings)
}

fn install_file(path: &Path, command: &str) -> Result<InstallReport, InstallError> {
    CODEX_INSTALLER
        .hooks
        .install_file(path, &CODEX_INSTALLER.plan_for(command, CODEX_WAIT_SECONDS))
}

fn uninstall_file(path: &Path) -> Result<InstallReport, InstallError> {
    CODEX_INSTALLER.hooks.uninstall_file(path)
}

const COMMAND: &str = "GATEHOUSE_HOOK__WAIT_SECONDS=60 '/opt/bin/gatehouse' hook codex";

fn foreign_hook() -> Value {
    json!({ "matcher": "Bash", "hooks": [{ "type": "command", "command": "python3 ~/.codex/audit.py", "timeout": 5 }] })
}

#[test]
fn the_hook_command_sets_the_short_wait_and_is_recognised() {
    let command = assert_hook_command(
        |program| CODEX_INSTALLER.hook_command(program, CODEX_WAIT_SECONDS),
        "/home/me/.cargo/bin/gatehouse",
        "GATEHOUSE_HOOK__WAIT_SECONDS=60 '/home/me/.cargo/bin/gatehouse' hook codex",
    );
    assert_recognised(
        |command| CODEX_INSTALLER.hooks.is_gatehouse_command(command),
        &[
            (&command, true),
            ("'/usr/local/bin/gatehouse' hook codex", true),
            ("\"/it's here/gatehouse\" hook codex", true),
            ("'/usr/local/bin/gatehouse' hook claude", false),
            ("echo gatehouse hook codex", false),
            ("'/usr/bin/gatehouse hook codex", false),
        ],
    );
}

#[test]
fn install_adds_every_event_and_keeps_foreign_hooks() {
    let settings = json!({ "hooks": { "PostToolUse": [foreign_hook()] }, "other": 1 });
    let (updated, changes) = plan_install(&settings, COMMAND).unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    assert_eq!(updated["other"], 1);
    assert_eq!(updated["hooks"]["PostToolUse"][0], foreign_hook());
    assert_eq!(
        updated["hooks"]["PermissionRequest"],
        json!([{ "matcher": "*", "hooks": [{ "type": "command", "command": COMMAND, "timeout": 90 }] }])
    );
    assert_eq!(
        updated["hooks"]["Stop"],
        json!([{ "hooks": [{ "type": "command", "command": COMMAND, "timeout": 10 }] }])
    );
    assert_eq!(updated["hooks"]["Interrupt"][0]["hooks"][0]["timeout"], 3);
    assert_eq!(updated["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3);
}

#[test]
fn install_is_idempotent() {
    let (once, _) = plan_install(&json!({}), COMMAND).unwrap();
    let (twice, changes) = plan_install(&once, COMMAND).unwrap();
    assert!(changes.is_empty());
    assert_eq!(once, twice);
}

#[test]
fn install_updates_in_place_keeps_a_narrowed_matcher_and_drops_duplicates() {
    let old = "'/old/place/gatehouse' hook codex";
    let settings = json!({ "hooks": { "PermissionRequest": [
        { "matcher": "Bash", "hooks": [{ "type": "command", "command": old, "timeout": 600 }] },
        { "matcher": "*", "hooks": [{ "type": "command", "command": old }] },
    ] } });
    let (updated, changes) = plan_install(&settings, COMMAND).unwrap();
    assert!(changes.contains(&Change::Updated {
        event: "PermissionRequest".into()
    }));
    assert_eq!(
        updated["hooks"]["PermissionRequest"],
        json!([{ "matcher": "Bash", "hooks": [{ "type": "command", "command": COMMAND, "timeout": 90 }] }])
    );
}

#[test]
fn uninstall_removes_only_gatehouse_entries_and_what_they_left_empty() {
    let (installed, _) = plan_install(
        &json!({ "hooks": { "PostToolUse": [foreign_hook()] }, "other": 1 }),
        COMMAND,
    )
    .unwrap();
    let (removed, changes) = plan_uninstall(&installed).unwrap();
    assert_eq!(changes.len(), EVENTS.len());
    assert_eq!(
        removed,
        json!({ "hooks": { "PostToolUse": [foreign_hook()] }, "other": 1 })
    );
    let (bare, _) = plan_uninstall(&plan_install(&json!({}), COMMAND).unwrap().0).unwrap();
    assert_eq!(bare, json!({}));
    assert!(plan_uninstall(&removed).unwrap().1.is_empty());
}

#[test]
fn a_shared_group_keeps_its_foreign_entry() {
    let settings = json!({ "hooks": { "Stop": [{ "hooks": [
        { "type": "command", "command": "notify-send done" },
        { "type": "command", "command": COMMAND, "timeout": 10 },
    ] }] } });
    let (removed, _) = plan_uninstall(&settings).unwrap();
    assert_eq!(
        removed,
        json!({ "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }] } })
    );
}

#[test]
fn files_get_a_backup_and_a_missing_file_is_created() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("codex").join("hooks.json");
    let report = install_file(&path, COMMAND).unwrap();
    assert_eq!(report.backup, None);
    assert_eq!(report.changes.len(), EVENTS.len());
    let installed = fs::read_to_string(&path).unwrap();
    assert!(installed.ends_with("}\n"));

    let again = install_file(&path, COMMAND).unwrap();
    assert!(again.changes.is_empty(), "idempotent");
    assert!(!backup_path(&path).exists(), "nothing written, no backup");

    let report = uninstall_file(&path).unwrap();
    assert_eq!(report.backup, Some(backup_path(&path)));
    assert_eq!(fs::read_to_string(backup_path(&path)).unwrap(), installed);
    assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
}

#[test]
fn a_file_that_is_not_a_hooks_object_is_left_alone() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("hooks.json");
    fs::write(&path, "{ broken").unwrap();
    assert!(matches!(
        install_file(&path, COMMAND),
        Err(InstallError::SettingsNotJson { .. })
    ));
    fs::write(&path, r#"{"hooks": []}"#).unwrap();
    let error = install_file(&path, COMMAND).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the \"hooks\" value in the Codex hooks file"),
        "{error}"
    );
    assert!(
        error.to_string().contains("is not a JSON object"),
        "{error}"
    );
    fs::write(&path, r#"{"hooks": {"Stop": {}}}"#).unwrap();
    assert!(matches!(
        install_file(&path, COMMAND),
        Err(InstallError::EventNotArray { .. })
    ));
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        r#"{"hooks": {"Stop": {}}}"#
    );
    assert!(!backup_path(&path).exists());
}

#[test]
fn a_command_that_is_not_gatehouses_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("hooks.json");
    let error = install_file(&path, "'/opt/bin/gatehouse' hook claude").unwrap_err();
    assert!(
        matches!(error, InstallError::CommandNotRecognised { .. }),
        "{error:?}"
    );
    assert!(!path.exists());
}

#[test]
fn uninstall_names_the_rules_file_it_leaves_and_how_many_rules_it_holds() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("rules/gatehouse.rules");
    assert_eq!(rules_file_note(&path), None, "no file, nothing to say");
    crate::rules::add_rule(&path, &["touch".to_owned()]).unwrap();
    let note = rules_file_note(&path).unwrap();
    assert!(note.contains(&path.display().to_string()), "{note}");
    assert!(
        note.contains("stays: it holds 1 rule from \"always\" answers"),
        "{note}"
    );
    assert!(note.contains("Delete the file"), "{note}");
}

#[test]
fn the_installer_asks_for_codexs_review_only_when_a_hook_changed() {
    use gatehouse_core::kit::{HookInstaller, InstallRequest};
    let folder = tempfile::tempdir().unwrap();
    let request = InstallRequest {
        settings: folder.path().join("hooks.json"),
        program: "/opt/bin/gatehouse".into(),
        hold_seconds: 600,
        timeout_margin_seconds: 30,
    };
    let first = CODEX_INSTALLER.install(&request).unwrap();
    assert_eq!(first.notes.len(), 3, "{:?}", first.notes);
    assert_eq!(first.notes[0], format!("Codex runs `{COMMAND}`."));
    assert!(first.notes[1].contains("Hooks need review"));
    assert!(first.notes[2].contains("held for up to 60 s"));
    let again = CODEX_INSTALLER.install(&request).unwrap();
    assert!(again.changes.is_empty());
    assert_eq!(again.notes.len(), 2, "{:?}", again.notes);
    assert!(!again.notes.iter().any(|note| note.contains("review")));
}
