//! Tests of reading, backing up and writing the hooks file.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::test_agent::*;
use crate::{backup_path, Change, InstallError};

/// A new folder, and the path of a `settings.json` in it that does not exist yet.
fn settings_in_a_new_folder() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("settings.json");
    (folder, path)
}

/// A new folder with `text` written at `relative` in it (its folders made), and that path.
fn settings_holding(relative: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    (folder, path)
}

/// The settings file at `path` still holds `text`, and nothing was written beside it.
fn assert_untouched(folder: &tempfile::TempDir, path: &Path, text: &str) {
    assert_eq!(fs::read_to_string(path).unwrap(), text);
    assert_eq!(file_names_in(folder.path()), ["settings.json"]);
}

#[test]
fn install_into_a_missing_file_creates_it_and_its_folders() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("project/.agent/settings.json");

    let report = EXAMPLE.install_file(&path, &default_plan()).unwrap();

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
        file_names_in(&folder.path().join("project/.agent")),
        ["settings.json"]
    );
}

#[test]
fn install_keeps_foreign_hooks_and_other_settings() {
    let (folder, path) = settings_in_a_new_folder();
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

    let report = EXAMPLE.install_file(&path, &default_plan()).unwrap();

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
    let (folder, path) = settings_in_a_new_folder();
    EXAMPLE.install_file(&path, &default_plan()).unwrap();
    // Compact formatting with the same value shows whether the second run rewrites the file.
    let compact = serde_json::to_string(&read_json(&path)).unwrap();
    fs::write(&path, &compact).unwrap();

    let report = EXAMPLE.install_file(&path, &default_plan()).unwrap();

    assert_eq!(report.changes, []);
    assert_eq!(report.backup, None);
    assert_untouched(&folder, &path, &compact);
}

#[test]
fn updating_an_existing_file_backs_it_up_and_keeps_its_permissions() {
    let (folder, path) = settings_in_a_new_folder();
    EXAMPLE.install_file(&path, &default_plan()).unwrap();
    let before = fs::read_to_string(&path).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    }

    let report = EXAMPLE
        .install_file(&path, &plan_with(MOVED_COMMAND, 600))
        .unwrap();

    assert_eq!(report.changes.len(), EXAMPLE.events.len());
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
    let (_folder, path) = settings_in_a_new_folder();
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
            "PreToolUse": [{"matcher": "*", "hooks": [gatehouse_entry("/elsewhere/gatehouse hook example", 5)]}],
            "Stop": [{"hooks": [gatehouse_entry(COMMAND, 10)]}],
            "SessionEnd": [{"hooks": [gatehouse_entry(COMMAND, 10)]}],
            "Notification": [{"matcher": "*", "hooks": []}],
            "UserPromptSubmit": []
        }
    });
    let original_text = serde_json::to_string_pretty(&original).unwrap();
    fs::write(&path, &original_text).unwrap();

    let report = EXAMPLE.uninstall_file(&path).unwrap();

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
    assert_eq!(report.backup, Some(backup_path(&path)));
    assert_eq!(
        fs::read_to_string(backup_path(&path)).unwrap(),
        original_text
    );
}

#[test]
fn uninstall_without_gatehouse_entries_does_not_touch_the_file() {
    let (folder, path) = settings_in_a_new_folder();
    let text = "{\"hooks\": {}, \"model\": \"opus\"}";
    fs::write(&path, text).unwrap();

    let report = EXAMPLE.uninstall_file(&path).unwrap();

    assert_eq!(report.changes, []);
    assert_untouched(&folder, &path, text);
}

#[test]
fn uninstall_of_a_missing_file_does_not_create_it() {
    let (folder, path) = settings_in_a_new_folder();

    let report = EXAMPLE.uninstall_file(&path).unwrap();

    assert_eq!(report.changes, []);
    assert!(!path.exists());
    assert_eq!(file_names_in(folder.path()), Vec::<String>::new());
}

#[test]
fn uninstall_of_everything_leaves_an_empty_object() {
    let (_folder, path) = settings_in_a_new_folder();
    EXAMPLE.install_file(&path, &default_plan()).unwrap();

    EXAMPLE.uninstall_file(&path).unwrap();

    assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
}

#[test]
fn invalid_json_is_refused_and_the_file_is_left_untouched() {
    let (folder, path) = settings_in_a_new_folder();
    let text = "{\"hooks\": {,}  // a comment\n";
    fs::write(&path, text).unwrap();

    let install_error = EXAMPLE.install_file(&path, &default_plan()).unwrap_err();
    let uninstall_error = EXAMPLE.uninstall_file(&path).unwrap_err();

    assert!(
        matches!(install_error, InstallError::SettingsNotJson { path: ref error_path, .. } if error_path == &path)
    );
    assert!(matches!(
        uninstall_error,
        InstallError::SettingsNotJson { .. }
    ));
    assert!(install_error.to_string().contains("settings.json"));
    assert!(install_error
        .to_string()
        .contains("the example settings file"));
    assert_untouched(&folder, &path, text);
}

#[test]
fn settings_of_the_wrong_shape_are_refused_with_the_path() {
    let (folder, path) = settings_in_a_new_folder();
    let cases = [
        ("[1, 2]", "SettingsNotObject"),
        ("{\"hooks\": []}", "HooksNotObject"),
        ("{\"hooks\": {\"Stop\": {}}}", "EventNotArray"),
    ];
    for (text, expected_variant) in cases {
        fs::write(&path, text).unwrap();
        let error = EXAMPLE.install_file(&path, &default_plan()).unwrap_err();
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
    let (_folder, path) = settings_in_a_new_folder();
    fs::write(&path, "\n").unwrap();

    let report = EXAMPLE.install_file(&path, &default_plan()).unwrap();

    assert_eq!(report.changes, all_added());
    assert_eq!(read_json(&path), freshly_installed());
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let (_folder, path) = settings_in_a_new_folder();
    fs::write(&path, "\u{FEFF}{\"model\": \"opus\"}").unwrap();

    EXAMPLE.install_file(&path, &default_plan()).unwrap();

    let installed = read_json(&path);
    assert_eq!(installed["model"], "opus");
    assert_eq!(installed["hooks"], freshly_installed()["hooks"]);
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_followed_and_kept() {
    let (folder, real_path) = settings_holding("dotfiles/settings.json", "{\"model\": \"opus\"}");
    let link_path = folder.path().join("settings.json");
    std::os::unix::fs::symlink("dotfiles/settings.json", &link_path).unwrap();

    let report = EXAMPLE.install_file(&link_path, &default_plan()).unwrap();

    assert!(fs::symlink_metadata(&link_path)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(read_json(&real_path)["model"], "opus");
    assert_eq!(read_json(&real_path)["hooks"], freshly_installed()["hooks"]);
    assert_eq!(report.backup, Some(backup_path(&real_path)));
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_to_a_missing_file_creates_the_file_it_names() {
    let folder = tempfile::tempdir().unwrap();
    let real_path = folder.path().join("dotfiles/settings.json");
    let link_path = folder.path().join("settings.json");
    std::os::unix::fs::symlink("dotfiles/settings.json", &link_path).unwrap();

    EXAMPLE.install_file(&link_path, &default_plan()).unwrap();

    assert!(fs::symlink_metadata(&link_path)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(read_json(&real_path), freshly_installed());
}

#[test]
fn a_file_changed_during_the_update_is_not_overwritten() {
    let (folder, path) = settings_in_a_new_folder();
    fs::write(&path, "{}").unwrap();

    let result = EXAMPLE.apply_to_file(&path, |settings| {
        // Another program saves the file after gatehouse read it.
        fs::write(&path, "{\"model\": \"opus\"}").unwrap();
        EXAMPLE.plan_install(settings, &default_plan())
    });

    let error = result.unwrap_err();
    assert!(
        matches!(error, InstallError::SettingsChangedMeanwhile { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("run the command again"),
        "{error}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\"model\": \"opus\"}");
    assert_eq!(
        file_names_in(folder.path()),
        ["settings.json", "settings.json.gatehouse-backup"]
    );
}

#[cfg(unix)]
#[test]
fn the_temporary_file_is_never_open_to_others_while_it_holds_content() {
    use std::os::unix::fs::PermissionsExt;
    let (folder, path) = settings_in_a_new_folder();
    // The check runs after the content is written and flushed, before the rename: whatever
    // umask the installer runs under, only its user may read the temporary file by then.
    let mut modes = Vec::new();
    super::write_atomically(&path, b"{\"secret\": true}\n", None, || {
        for entry in fs::read_dir(folder.path())? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().ends_with(".tmp") {
                modes.push(entry.metadata()?.permissions().mode() & 0o777);
            }
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(modes, [0o600], "one temporary file, private");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600,
        "a new file is private"
    );
}

#[cfg(unix)]
#[test]
fn the_temporary_file_is_created_private_with_no_content() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let (temporary, _file) = super::create_temporary_file(folder.path(), "settings.json").unwrap();
    let metadata = fs::metadata(&temporary).unwrap();
    assert_eq!(
        (metadata.permissions().mode() & 0o777, metadata.len()),
        (0o600, 0)
    );
}

#[test]
fn a_flat_install_is_written_and_removed_again() {
    let (_folder, path) =
        settings_holding(".copilot/settings.json", "{\n  \"banner\": \"never\"\n}\n");

    let report = FLAT
        .install_file(&path, &plan_with(FLAT_COMMAND, 90))
        .unwrap();
    assert_eq!(report.changes.len(), 4);
    assert!(report.backup.is_some());
    let mut expected = flat_installed();
    expected["banner"] = json!("never");
    assert_eq!(
        read_json(&path),
        json!({"banner": "never", "hooks": expected["hooks"]})
    );
    let again = FLAT
        .install_file(&path, &plan_with(FLAT_COMMAND, 90))
        .unwrap();
    assert_eq!(again.changes, []);

    let removed = FLAT.uninstall_file(&path).unwrap();
    assert_eq!(removed.changes.len(), 4);
    assert_eq!(read_json(&path), json!({"banner": "never"}));
}
