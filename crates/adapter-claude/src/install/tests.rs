//! Tests of the Claude Code settings installer.

use super::*;
use serde_json::json;

const COMMAND: &str = "'/opt/gatehouse/bin/gatehouse' hook claude";
const MOVED_COMMAND: &str = "'/home/me/.local/bin/gatehouse' hook claude";

fn plan_with(command: &str, hold_timeout_seconds: u64) -> HookPlan {
    HookPlan {
        command: command.to_owned(),
        hold_timeout_seconds,
    }
}

fn default_plan() -> HookPlan {
    plan_with(COMMAND, 600)
}

fn gatehouse_entry(command: &str, timeout: u64) -> Value {
    json!({"type": "command", "command": command, "timeout": timeout})
}

fn foreign_entry(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

/// The settings a fresh install of `default_plan` produces.
fn freshly_installed() -> Value {
    json!({
        "hooks": {
            "PermissionRequest": [{"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 600)]}],
            "PostToolUse": [{"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 10)]}],
            "Stop": [{"hooks": [gatehouse_entry(COMMAND, 10)]}],
            "SessionEnd": [{"hooks": [gatehouse_entry(COMMAND, 10)]}]
        }
    })
}

fn added(event: &str) -> Change {
    Change::Added {
        event: event.to_owned(),
    }
}

fn updated(event: &str) -> Change {
    Change::Updated {
        event: event.to_owned(),
    }
}

fn removed(event: &str) -> Change {
    Change::Removed {
        event: event.to_owned(),
    }
}

fn all_added() -> Vec<Change> {
    EVENTS.iter().map(|event| added(event.name)).collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Lists the files in a folder, to show that no temporary or backup file was left behind.
fn file_names_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn install_into_a_missing_file_creates_it_and_its_folders() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("project/.claude/settings.json");

    let report = install_file(&path, &default_plan()).unwrap();

    assert_eq!(report.path, path);
    assert_eq!(report.backup, None);
    assert_eq!(report.changes, all_added());
    assert_eq!(read_json(&path), freshly_installed());
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.ends_with("}\n"), "missing trailing newline: {text:?}");
    assert!(
        text.starts_with("{\n  \"hooks\": {\n    \""),
        "not two-space indented: {text:?}"
    );
    assert_eq!(
        file_names_in(&folder.path().join("project/.claude")),
        ["settings.json"]
    );
}

#[test]
fn install_keeps_foreign_hooks_and_other_settings() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    let original = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
        "env": {"SECRET": "x"},
        "hooks": {
            "PermissionRequest": [
                {"matcher": "Bash", "hooks": [foreign_entry("/usr/local/bin/audit --strict")]}
            ],
            "PreToolUse": [{"matcher": "Edit", "hooks": [foreign_entry("lint-check")]}],
            "Stop": [{"hooks": [foreign_entry("notify-send done")]}]
        }
    });
    let original_text = serde_json::to_string(&original).unwrap();
    fs::write(&path, &original_text).unwrap();

    let report = install_file(&path, &default_plan()).unwrap();

    assert_eq!(report.changes, all_added());
    let installed = read_json(&path);
    assert_eq!(installed["model"], original["model"]);
    assert_eq!(installed["permissions"], original["permissions"]);
    assert_eq!(installed["env"], original["env"]);
    assert_eq!(
        installed["hooks"]["PreToolUse"],
        original["hooks"]["PreToolUse"]
    );
    assert_eq!(
        installed["hooks"]["PermissionRequest"],
        json!([
            {"matcher": "Bash", "hooks": [foreign_entry("/usr/local/bin/audit --strict")]},
            {"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 600)]}
        ])
    );
    assert_eq!(
        installed["hooks"]["Stop"],
        json!([
            {"hooks": [foreign_entry("notify-send done")]},
            {"hooks": [gatehouse_entry(COMMAND, 10)]}
        ])
    );
    let backup = report
        .backup
        .expect("an existing file that changed is backed up");
    assert_eq!(backup, folder.path().join("settings.json.gatehouse-backup"));
    assert_eq!(fs::read_to_string(&backup).unwrap(), original_text);
}

#[test]
fn installing_twice_changes_nothing_the_second_time() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    install_file(&path, &default_plan()).unwrap();
    // Compact formatting with the same value shows whether the second run rewrites the file.
    let compact = serde_json::to_string(&read_json(&path)).unwrap();
    fs::write(&path, &compact).unwrap();

    let report = install_file(&path, &default_plan()).unwrap();

    assert_eq!(report.changes, []);
    assert_eq!(report.backup, None);
    assert_eq!(fs::read_to_string(&path).unwrap(), compact);
    assert_eq!(file_names_in(folder.path()), ["settings.json"]);
}

#[test]
fn plan_install_is_idempotent_on_values() {
    let (once, _) = plan_install(&json!({"a": 1}), &default_plan()).unwrap();
    let (twice, changes) = plan_install(&once, &default_plan()).unwrap();
    assert_eq!(twice, once);
    assert_eq!(changes, []);
}

#[test]
fn a_new_hold_timeout_updates_only_the_permission_request_entry() {
    let (settings, changes) =
        plan_install(&freshly_installed(), &plan_with(COMMAND, 900)).unwrap();

    assert_eq!(changes, [updated("PermissionRequest")]);
    assert_eq!(
        settings["hooks"]["PermissionRequest"],
        json!([{"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 900)]}])
    );
    assert_eq!(
        settings["hooks"]["Stop"],
        freshly_installed()["hooks"]["Stop"]
    );
}

#[test]
fn a_moved_binary_updates_every_entry_in_place() {
    // The user narrowed the matcher and put a foreign hook next to ours; both must stay.
    let mut settings = freshly_installed();
    settings["hooks"]["PermissionRequest"] = json!([
        {"matcher": "Bash|Edit", "hooks": [
            foreign_entry("audit"),
            {"type": "command", "command": COMMAND, "timeout": 600, "statusMessage": "asking"}
        ]}
    ]);

    let (updated_settings, changes) =
        plan_install(&settings, &plan_with(MOVED_COMMAND, 600)).unwrap();

    let expected_changes: Vec<Change> =
        EVENTS.iter().map(|event| updated(event.name)).collect();
    assert_eq!(changes, expected_changes);
    assert_eq!(
        updated_settings["hooks"]["PermissionRequest"],
        json!([
            {"matcher": "Bash|Edit", "hooks": [
                foreign_entry("audit"),
                {"type": "command", "command": MOVED_COMMAND, "timeout": 600, "statusMessage": "asking"}
            ]}
        ])
    );
    assert_eq!(
        updated_settings["hooks"]["SessionEnd"],
        json!([{"hooks": [gatehouse_entry(MOVED_COMMAND, 10)]}])
    );
    assert!(!serde_json::to_string(&updated_settings)
        .unwrap()
        .contains("/opt/gatehouse"));
}

#[test]
fn install_removes_duplicate_gatehouse_entries() {
    let mut settings = freshly_installed();
    settings["hooks"]["PermissionRequest"] = json!([
        {"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 600)]},
        {"matcher": "Bash", "hooks": [foreign_entry("audit"), gatehouse_entry("/old/gatehouse hook claude", 60)]},
        {"matcher": "Edit", "hooks": [gatehouse_entry("/old/gatehouse hook claude", 60)]}
    ]);

    let (updated_settings, changes) = plan_install(&settings, &default_plan()).unwrap();

    assert_eq!(changes, [updated("PermissionRequest")]);
    assert_eq!(
        updated_settings["hooks"]["PermissionRequest"],
        json!([
            {"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 600)]},
            {"matcher": "Bash", "hooks": [foreign_entry("audit")]}
        ])
    );
}

#[test]
fn updating_an_existing_file_backs_it_up_and_keeps_its_permissions() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    install_file(&path, &default_plan()).unwrap();
    let before = fs::read_to_string(&path).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    }

    let report = install_file(&path, &plan_with(MOVED_COMMAND, 600)).unwrap();

    assert_eq!(report.changes.len(), EVENTS.len());
    assert_eq!(fs::read_to_string(report.backup.unwrap()).unwrap(), before);
    assert!(fs::read_to_string(&path)
        .unwrap()
        .contains(".local/bin/gatehouse"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&backup_path(&path)), 0o600);
    }
    assert_eq!(
        file_names_in(folder.path()),
        ["settings.json", "settings.json.gatehouse-backup"]
    );
}

#[test]
fn uninstall_removes_only_gatehouse_entries_and_the_containers_it_emptied() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    let original = json!({
        "model": "opus",
        "hooks": {
            "PermissionRequest": [
                {"matcher": "Bash", "hooks": [foreign_entry("audit"), gatehouse_entry(COMMAND, 600)]}
            ],
            "PostToolUse": [
                {"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 10)]},
                {"matcher": "Edit", "hooks": [foreign_entry("format")]}
            ],
            "PreToolUse": [{"matcher": "*", "hooks": [gatehouse_entry("/elsewhere/gatehouse hook claude", 5)]}],
            "Stop": [{"hooks": [gatehouse_entry(COMMAND, 10)]}],
            "SessionEnd": [{"hooks": [gatehouse_entry(COMMAND, 10)]}],
            "Notification": [{"matcher": "*", "hooks": []}],
            "UserPromptSubmit": []
        }
    });
    fs::write(&path, serde_json::to_string_pretty(&original).unwrap()).unwrap();

    let report = uninstall_file(&path).unwrap();

    let mut removed_events: Vec<String> = report
        .changes
        .iter()
        .map(|change| match change {
            Change::Removed { event } => event.clone(),
            other => panic!("unexpected change {other:?}"),
        })
        .collect();
    removed_events.sort();
    assert_eq!(
        removed_events,
        [
            "PermissionRequest",
            "PostToolUse",
            "PreToolUse",
            "SessionEnd",
            "Stop"
        ]
    );
    assert_eq!(
        read_json(&path),
        json!({
            "model": "opus",
            "hooks": {
                "PermissionRequest": [{"matcher": "Bash", "hooks": [foreign_entry("audit")]}],
                "PostToolUse": [{"matcher": "Edit", "hooks": [foreign_entry("format")]}],
                "Notification": [{"matcher": "*", "hooks": []}],
                "UserPromptSubmit": []
            }
        })
    );
    assert!(report.backup.is_some());
}

#[test]
fn uninstall_removes_the_hooks_key_when_it_ends_up_empty() {
    let mut settings = freshly_installed();
    settings["theme"] = json!("dark");

    let (uninstalled, changes) = plan_uninstall(&settings).unwrap();

    assert_eq!(uninstalled, json!({"theme": "dark"}));
    assert_eq!(changes.len(), EVENTS.len());
    assert!(changes.contains(&removed("Stop")));
}

#[test]
fn install_then_uninstall_restores_the_original_value() {
    let original = json!({
        "model": "opus",
        "hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [foreign_entry("audit")]}]}
    });
    let (installed, _) = plan_install(&original, &default_plan()).unwrap();
    let (uninstalled, _) = plan_uninstall(&installed).unwrap();
    assert_eq!(uninstalled, original);
}

#[test]
fn uninstall_without_gatehouse_entries_does_not_touch_the_file() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    let text = "{\"hooks\": {}, \"model\": \"opus\"}";
    fs::write(&path, text).unwrap();

    let report = uninstall_file(&path).unwrap();

    assert_eq!(report.changes, []);
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
    assert_eq!(file_names_in(folder.path()), ["settings.json"]);
}

#[test]
fn uninstall_of_a_missing_file_does_not_create_it() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");

    let report = uninstall_file(&path).unwrap();

    assert_eq!(report.changes, []);
    assert!(!path.exists());
}

#[test]
fn invalid_json_is_refused_and_the_file_is_left_untouched() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    let text = "{\"hooks\": {,}  // a comment\n";
    fs::write(&path, text).unwrap();

    let install_error = install_file(&path, &default_plan()).unwrap_err();
    let uninstall_error = uninstall_file(&path).unwrap_err();

    assert!(
        matches!(install_error, InstallError::SettingsNotJson { path: ref error_path, .. } if error_path == &path)
    );
    assert!(matches!(
        uninstall_error,
        InstallError::SettingsNotJson { .. }
    ));
    assert!(install_error.to_string().contains("settings.json"));
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
    assert_eq!(file_names_in(folder.path()), ["settings.json"]);
}

#[test]
fn settings_of_the_wrong_shape_are_refused_with_the_path() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    let cases = [
        ("[1, 2]", "SettingsNotObject"),
        ("{\"hooks\": []}", "HooksNotObject"),
        ("{\"hooks\": {\"Stop\": {}}}", "EventNotArray"),
    ];
    for (text, expected_variant) in cases {
        fs::write(&path, text).unwrap();
        let error = install_file(&path, &default_plan()).unwrap_err();
        let variant_name = format!("{error:?}");
        assert!(
            variant_name.starts_with(expected_variant),
            "{text}: {variant_name}"
        );
        assert!(
            error.to_string().contains(&path.display().to_string()),
            "{error}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }
    assert_eq!(file_names_in(folder.path()), ["settings.json"]);
}

#[test]
fn whitespace_only_file_counts_as_empty_settings() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    fs::write(&path, "\n").unwrap();

    let report = install_file(&path, &default_plan()).unwrap();

    assert_eq!(report.changes, all_added());
    assert_eq!(read_json(&path), freshly_installed());
}

#[test]
fn lookalike_commands_are_left_alone() {
    let lookalikes = [
        "/usr/bin/other hook claude",
        "gatehouse-lookalike hook claude",
        "/opt/gatehouse-lookalike hook claude",
        "'/opt/not-gatehouse' hook claude",
        "echo gatehouse hook claude",
        "/opt/gatehouse/bin/gatehouse hook claude --extra",
        "/opt/gatehouse/bin/gatehouse hook codex",
        "/opt/gatehouse/bin/gatehouse hookclaude",
        "'/opt/gatehouse hook claude",
    ];
    let foreign_groups: Vec<Value> = lookalikes
        .iter()
        .map(|command| json!({"matcher": "*", "hooks": [gatehouse_entry(command, 600)]}))
        .collect();
    let settings = json!({"hooks": {"PermissionRequest": foreign_groups.clone()}});

    let (uninstalled, changes) = plan_uninstall(&settings).unwrap();
    assert_eq!(changes, []);
    assert_eq!(uninstalled, settings);

    let (installed, changes) = plan_install(&settings, &default_plan()).unwrap();
    assert_eq!(changes, all_added());
    let mut expected_groups = foreign_groups;
    expected_groups.push(json!({"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 600)]}));
    assert_eq!(
        installed["hooks"]["PermissionRequest"],
        Value::Array(expected_groups)
    );
}

#[test]
fn gatehouse_commands_are_recognised_however_they_are_quoted() {
    let commands = [
        "gatehouse hook claude",
        "/usr/local/bin/gatehouse hook claude",
        "'/Users/me/My Apps/gatehouse' hook claude",
        "\"/Users/me/My Apps/gatehouse\" hook claude",
        "/Users/me/My\\ Apps/gatehouse hook claude",
        "'/tmp/it'\\''s/gatehouse' hook claude",
        "  /usr/bin/gatehouse --verbose hook claude",
        "'C:\\Program Files\\gatehouse\\gatehouse.exe' hook claude",
    ];
    for command in commands {
        assert!(is_gatehouse_command(command), "not recognised: {command}");
    }
    assert!(!is_gatehouse_command(""));
    assert!(!is_gatehouse_command(" hook claude"));
    assert!(!is_gatehouse_command("'' hook claude"));
}

#[test]
fn hook_command_quotes_the_path_so_it_is_recognised() {
    let command = hook_command(Path::new("/tmp/it's here/gatehouse")).unwrap();
    assert_eq!(command, "'/tmp/it'\\''s here/gatehouse' hook claude");
    assert_eq!(
        first_shell_word(&command).unwrap(),
        "/tmp/it's here/gatehouse"
    );
    assert_eq!(hook_command(Path::new("/usr/bin/other")), None);
}

#[test]
fn a_plan_command_that_would_not_be_recognised_is_refused() {
    let error =
        plan_install(&json!({}), &plan_with("/usr/bin/other hook claude", 600)).unwrap_err();
    assert!(matches!(error, InstallError::CommandNotRecognised { .. }));
}

#[test]
fn change_lines_are_short_sentences() {
    assert_eq!(
        added("PermissionRequest").to_string(),
        "added the PermissionRequest hook"
    );
    assert_eq!(updated("Stop").to_string(), "updated the Stop hook");
    assert_eq!(
        removed("SessionEnd").to_string(),
        "removed the SessionEnd hook"
    );
}

#[test]
fn key_order_is_kept_when_serde_json_preserves_order() {
    let order_is_preserved = serde_json::from_str::<Value>("{\"b\": 1, \"a\": 2}")
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .next()
        .is_some_and(|first_key| first_key == "b");
    if !order_is_preserved {
        eprintln!("serde_json sorts keys in this build; enable its preserve_order feature");
        return;
    }
    let settings: Value = serde_json::from_str(
        r#"{"zeta": 1, "hooks": {"Stop": [{"hooks": [{"command": "x", "type": "command"}]}], "Alpha": []}, "alpha": 2}"#,
    )
    .unwrap();
    let (installed, _) = plan_install(&settings, &default_plan()).unwrap();
    let (uninstalled, _) = plan_uninstall(&installed).unwrap();
    assert_eq!(
        serde_json::to_string(&uninstalled).unwrap(),
        serde_json::to_string(&settings).unwrap()
    );
    let keys: Vec<&String> = installed["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "Stop",
            "Alpha",
            "PermissionRequest",
            "PostToolUse",
            "SessionEnd"
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_followed_and_kept() {
    let folder = tempfile::tempdir().unwrap();
    let real_path = folder.path().join("dotfiles/settings.json");
    fs::create_dir_all(real_path.parent().unwrap()).unwrap();
    fs::write(&real_path, "{\"model\": \"opus\"}").unwrap();
    let link_path = folder.path().join("settings.json");
    std::os::unix::fs::symlink("dotfiles/settings.json", &link_path).unwrap();

    let report = install_file(&link_path, &default_plan()).unwrap();

    assert!(fs::symlink_metadata(&link_path)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(read_json(&real_path)["model"], "opus");
    assert_eq!(read_json(&real_path)["hooks"], freshly_installed()["hooks"]);
    assert_eq!(report.backup, Some(backup_path(&real_path)));
}

#[test]
fn a_file_changed_during_the_update_is_not_overwritten() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    fs::write(&path, "{}").unwrap();

    let result = apply_to_file(&path, |settings| {
        // Another program saves the file after gatehouse read it.
        fs::write(&path, "{\"model\": \"opus\"}").unwrap();
        plan_install(settings, &default_plan())
    });

    assert!(matches!(
        result,
        Err(InstallError::SettingsChangedMeanwhile { .. })
    ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"model\": \"opus\"}");
    assert_eq!(
        file_names_in(folder.path()),
        ["settings.json", "settings.json.gatehouse-backup"]
    );
}
