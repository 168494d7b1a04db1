//! Tests of what is Claude Code's own in the installer: its events, timeouts, command and texts.
//! The shared algorithm is tested in `gatehouse-hook-settings`.

use std::fs;

use serde_json::{json, Value};

use super::*;

const COMMAND: &str = "'/opt/gatehouse/bin/gatehouse' hook claude";

fn default_plan() -> HookPlan {
    HookPlan {
        command: COMMAND.to_owned(),
        hold_timeout_seconds: 600,
    }
}

fn gatehouse_entry(timeout: u64) -> Value {
    json!({"type": "command", "command": COMMAND, "timeout": timeout})
}

#[test]
fn install_adds_claude_codes_four_events_with_the_hold_timeout_on_permission_requests() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("project/.claude/settings.json");

    let report = install_file(&path, &default_plan()).unwrap();

    let added: Vec<Change> = ["PermissionRequest", "PostToolUse", "Stop", "SessionEnd"]
        .into_iter()
        .map(|event| Change::Added {
            event: event.to_owned(),
        })
        .collect();
    assert_eq!(report.changes, added);
    assert_eq!(report.backup, None);
    let installed: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        installed,
        json!({
            "hooks": {
                "PermissionRequest": [{"matcher": "*", "hooks": [gatehouse_entry(600)]}],
                "PostToolUse": [{"matcher": "*", "hooks": [gatehouse_entry(10)]}],
                "Stop": [{"hooks": [gatehouse_entry(10)]}],
                "SessionEnd": [{"hooks": [gatehouse_entry(10)]}]
            }
        })
    );

    let again = install_file(&path, &default_plan()).unwrap();
    assert_eq!(again.changes, []);
    let removed = uninstall_file(&path).unwrap();
    assert_eq!(removed.changes.len(), EVENTS.len());
    assert_eq!(removed.backup, Some(backup_path(&path)));
    assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
}

#[test]
fn claude_commands_are_recognised_and_codex_commands_are_not() {
    assert!(is_gatehouse_command(COMMAND));
    assert!(is_gatehouse_command("gatehouse hook claude"));
    assert!(is_gatehouse_command(
        "'C:\\Program Files\\gatehouse\\gatehouse.exe' hook claude"
    ));
    assert!(!is_gatehouse_command(
        "/opt/gatehouse/bin/gatehouse hook codex"
    ));
    assert!(!is_gatehouse_command(
        "/opt/gatehouse/bin/gatehouse hookclaude"
    ));
    assert!(!is_gatehouse_command("echo gatehouse hook claude"));
    // Claude Code's commands never start with NAME=value words, so such a command is not ours.
    assert!(!is_gatehouse_command(
        "FOO=1 /opt/gatehouse/bin/gatehouse hook claude"
    ));
}

#[test]
fn hook_command_quotes_the_path_so_it_is_recognised() {
    let command = hook_command(Path::new("/tmp/it's here/gatehouse")).unwrap();
    assert_eq!(command, "'/tmp/it'\\''s here/gatehouse' hook claude");
    assert!(is_gatehouse_command(&command));
    assert_eq!(hook_command(Path::new("/usr/bin/other")), None);
}

#[test]
fn a_plan_command_for_another_agent_is_refused() {
    let plan = HookPlan {
        command: "/opt/gatehouse/bin/gatehouse hook codex".to_owned(),
        hold_timeout_seconds: 600,
    };
    let error = plan_install(&json!({}), &plan).unwrap_err();
    assert!(matches!(error, InstallError::CommandNotRecognised { .. }));
    assert!(error.to_string().contains("\" hook claude\""), "{error}");
}

#[test]
fn errors_name_the_claude_code_settings_file() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    fs::write(&path, "{\"hooks\": []}").unwrap();

    let error = install_file(&path, &default_plan()).unwrap_err();

    assert!(
        matches!(error, InstallError::HooksNotObject { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains(&format!("the Claude Code settings file {}", path.display())),
        "{message}"
    );
    assert!(plan_uninstall(&json!([1]))
        .unwrap_err()
        .to_string()
        .contains("the Claude Code settings file"));
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"hooks\": []}");
}
