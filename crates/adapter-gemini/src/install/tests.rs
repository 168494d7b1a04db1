//! Tests of what is Gemini CLI's own in the installer: its events, entry shape, timeouts,
//! command, paths and notes. The shared algorithm is tested in `gatehouse-hook-settings`.

use std::fs;

use gatehouse_harness::executable::testing::{assert_hook_command, assert_recognised};
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
    let command = assert_hook_command(
        hook_command,
        "/home/me/.cargo/bin/gatehouse",
        "'/home/me/.cargo/bin/gatehouse' hook gemini 2>/dev/null",
    );
    assert_recognised(
        is_gatehouse_command,
        &[
            (&command, true),
            ("'/opt/bin/gatehouse' hook gemini", false),
            ("'/opt/bin/gatehouse' hook claude", false),
            ("/home/dev/bin/hook.sh Notification", false),
            ("X=1 '/opt/bin/gatehouse' hook gemini", false),
        ],
    );
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

/// A Gemini home with the captured settings, for the answerable install.
fn answerable_home() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join(".gemini").join("settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    fs::write(&settings, pretty(&captured_settings())).unwrap();
    let policy = crate::policy::path_beside(&settings);
    (folder, settings, policy)
}

const PROGRAM: &str = "/opt/bin/gatehouse";

fn written(settings: &Path) -> Value {
    serde_json::from_slice(&fs::read(settings).unwrap()).unwrap()
}

#[test]
fn answerable_writes_the_hook_then_the_policy_and_uninstall_removes_both() {
    let (_folder, settings, policy) = answerable_home();
    let outcome = install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    assert!(answer_hook_installed(&settings));
    assert!(crate::policy::is_installed(&policy));
    let changes = outcome.changes.join("\n");
    assert!(
        changes.ends_with(&format!("wrote gatehouse's policy {}", policy.display())),
        "{changes}"
    );
    let entry = &written(&settings)["hooks"]["BeforeTool"];
    let ours = entry
        .as_array()
        .unwrap()
        .iter()
        .find(|group| group["matcher"] == SHELL_MATCHER)
        .unwrap();
    assert_eq!(ours["hooks"][0]["name"], ANSWER_ENTRY_NAME);
    assert_eq!(
        ours["hooks"][0]["command"],
        "'/opt/bin/gatehouse' hook gemini BeforeTool"
    );
    assert_eq!(
        ours["hooks"][0]["timeout"],
        BEFORE_TOOL_TIMEOUT_SECONDS * 1000
    );
    // No stderr redirect: a missing binary's message on stderr is what makes Gemini block.
    assert!(!ours["hooks"][0]["command"].as_str().unwrap().contains("2>"));
    assert_eq!(policy_without_hook(&settings, &[]), None);
    // Idempotent.
    assert!(install_answerable_file(&settings, Path::new(PROGRAM), &[])
        .unwrap()
        .changes
        .is_empty());

    let outcome = GeminiInstaller.uninstall(&settings).unwrap();
    assert_eq!(
        outcome.changes[0],
        format!("removed gatehouse's policy {}", policy.display()),
        "the policy goes first"
    );
    assert!(!policy.exists());
    assert!(!answer_hook_installed(&settings));
    assert_eq!(pretty(&written(&settings)), pretty(&captured_settings()));
}

#[test]
fn a_plain_install_after_an_answerable_one_goes_back_to_watching() {
    let (_folder, settings, policy) = answerable_home();
    install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    let outcome = GeminiInstaller
        .install(&InstallRequest {
            settings: settings.clone(),
            program: PROGRAM.into(),
            hold_seconds: 600,
            timeout_margin_seconds: 30,
        })
        .unwrap();
    assert!(!policy.exists());
    assert!(!answer_hook_installed(&settings));
    assert!(
        outcome.changes[0].starts_with("removed gatehouse's policy"),
        "{:?}",
        outcome.changes
    );
    assert!(
        outcome.notes.join("\n").contains("watched read-only"),
        "{:?}",
        outcome.notes
    );
    assert!(written(&settings)["hooks"]["Notification"]
        .to_string()
        .contains("hook gemini 2>/dev/null"));
}

#[test]
fn a_policy_that_cannot_be_removed_keeps_the_hook_that_makes_it_safe() {
    let (_folder, settings, policy) = answerable_home();
    install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    // Something in the policy's place that cannot be read or removed as a file.
    fs::remove_file(&policy).unwrap();
    fs::create_dir(&policy).unwrap();
    fs::write(policy.join("x"), "").unwrap();
    let error = GeminiInstaller
        .uninstall(&settings)
        .unwrap_err()
        .to_string();
    assert!(error.contains("left in place"), "{error}");
    assert!(
        answer_hook_installed(&settings),
        "the hook stays while the policy may"
    );
}

#[test]
fn answerable_is_refused_with_hooks_off_or_a_foreign_policy_and_nothing_is_written() {
    let (_folder, settings, policy) = answerable_home();
    let mut off = captured_settings();
    off["hooksConfig"]["enabled"] = false.into();
    fs::write(&settings, pretty(&off)).unwrap();
    let error = install_answerable_file(&settings, Path::new(PROGRAM), &[])
        .unwrap_err()
        .to_string();
    assert!(error.contains("hooksConfig.enabled is false"), "{error}");
    assert!(!policy.exists());
    assert_eq!(pretty(&written(&settings)), pretty(&off));

    fs::write(&settings, pretty(&captured_settings())).unwrap();
    fs::create_dir_all(policy.parent().unwrap()).unwrap();
    fs::write(
        &policy,
        "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"deny\"\n",
    )
    .unwrap();
    let error = install_answerable_file(&settings, Path::new(PROGRAM), &[])
        .unwrap_err()
        .to_string();
    assert!(error.contains("not gatehouse's"), "{error}");
    assert!(!answer_hook_installed(&settings));
    // And uninstall leaves that file alone, saying so.
    let outcome = GeminiInstaller.uninstall(&settings).unwrap();
    assert!(policy.exists());
    assert!(
        outcome.notes.join("\n").contains("not gatehouse's"),
        "{:?}",
        outcome.notes
    );
}

#[test]
fn the_policy_without_its_hook_is_named_a_danger() {
    let (_folder, settings, _policy) = answerable_home();
    assert_eq!(policy_without_hook(&settings, &[]), None, "neither");
    install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    assert_eq!(policy_without_hook(&settings, &[]), None, "both");
    // The hook removed by hand, the policy left.
    GEMINI_ANSWER_HOOKS.uninstall_file(&settings).unwrap();
    let danger = policy_without_hook(&settings, &[]).unwrap();
    assert!(
        danger.contains("unasked") && danger.contains("not in settings.json"),
        "{danger}"
    );
    // Hooks turned off.
    install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    let mut off = written(&settings);
    off["hooksConfig"]["enabled"] = false.into();
    fs::write(&settings, pretty(&off)).unwrap();
    assert!(policy_without_hook(&settings, &[])
        .unwrap()
        .contains("hooksConfig.enabled is false"));
}

#[test]
fn answerable_goes_only_into_the_users_own_settings() {
    let folder = tempfile::tempdir().unwrap();
    let error = GeminiInstaller
        .install_answerable(&InstallRequest {
            settings: folder.path().join("elsewhere.json"),
            program: PROGRAM.into(),
            hold_seconds: 600,
            timeout_margin_seconds: 30,
        })
        .unwrap_err()
        .to_string();
    assert!(error.contains("your own Gemini settings"), "{error}");
    assert!(!folder.path().join("elsewhere.json").exists());
}

#[test]
fn a_hook_disabled_by_name_is_refused_and_named_a_danger() {
    let (folder, settings, policy) = answerable_home();
    // `/hooks disable gatehouse-answer` in Gemini writes this into the user's settings.
    let mut disabled = captured_settings();
    disabled["hooksConfig"]["disabled"] = json!(["some-other-hook", ANSWER_ENTRY_NAME]);
    fs::write(&settings, pretty(&disabled)).unwrap();
    let error = install_answerable_file(&settings, Path::new(PROGRAM), &[])
        .unwrap_err()
        .to_string();
    assert!(error.contains("hooksConfig.disabled"), "{error}");
    assert!(!policy.exists(), "nothing is written");
    assert_eq!(pretty(&written(&settings)), pretty(&disabled));

    // Disabled after the install: a danger.
    fs::write(&settings, pretty(&captured_settings())).unwrap();
    install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    let mut now = written(&settings);
    now["hooksConfig"]["disabled"] = json!([ANSWER_ENTRY_NAME]);
    fs::write(&settings, pretty(&now)).unwrap();
    let danger = policy_without_hook(&settings, &[]).unwrap();
    assert!(
        danger.starts_with("DANGER") && danger.contains("hooksConfig.disabled"),
        "{danger}"
    );

    // Disabled in another file Gemini merges (the system settings, say): the same.
    let mut enabled_again = written(&settings);
    enabled_again["hooksConfig"]
        .as_object_mut()
        .unwrap()
        .remove("disabled");
    fs::write(&settings, pretty(&enabled_again)).unwrap();
    assert_eq!(policy_without_hook(&settings, &[]), None);
    let system = folder.path().join("system-settings.json");
    fs::write(
        &system,
        r#"{"hooksConfig": {"disabled": ["gatehouse-answer"]}}"#,
    )
    .unwrap();
    let danger = policy_without_hook(&settings, std::slice::from_ref(&system)).unwrap();
    assert!(danger.contains(&system.display().to_string()), "{danger}");
    fs::remove_file(&policy).unwrap();
    let error = install_answerable_file(&settings, Path::new(PROGRAM), &[system])
        .unwrap_err()
        .to_string();
    assert!(error.contains("system-settings.json"), "{error}");
    assert!(!policy.exists(), "nothing is written");
}

#[test]
fn a_project_that_switches_the_hook_off_is_named() {
    let (folder, settings, _policy) = answerable_home();
    let project = folder.path().join("project");
    fs::create_dir_all(project.join(".gemini")).unwrap();
    fs::write(
        project.join(".gemini/settings.json"),
        r#"{"hooksConfig": {"disabled": ["gatehouse-answer"]}}"#,
    )
    .unwrap();
    assert_eq!(
        project_switches_the_hook_off(&settings, &project),
        None,
        "no policy, no danger"
    );
    install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    let danger = project_switches_the_hook_off(&settings, &project).unwrap();
    assert!(
        danger.starts_with("DANGER") && danger.contains("unasked"),
        "{danger}"
    );
    fs::write(
        project.join(".gemini/settings.json"),
        r#"{"hooksConfig": {"enabled": false}}"#,
    )
    .unwrap();
    assert!(project_switches_the_hook_off(&settings, &project)
        .unwrap()
        .contains("hooksConfig.enabled is false"));
    // Run from there, the answerable install is refused.
    GeminiInstaller.uninstall(&settings).unwrap();
    let also_read = other_settings_files(Some(&project));
    assert!(install_answerable_file(&settings, Path::new(PROGRAM), &also_read).is_err());
    assert!(!answer_hook_installed(&settings));
}

#[test]
fn an_edited_policy_keeps_the_hook_that_makes_it_safe() {
    for install in [false, true] {
        let (_folder, settings, policy) = answerable_home();
        install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
        // A comment line added at the top: the text is no longer gatehouse's.
        let edited = format!("# mine now\n{}", crate::policy::POLICY_TEXT);
        fs::write(&policy, &edited).unwrap();
        let outcome = if install {
            GeminiInstaller
                .install(&InstallRequest {
                    settings: settings.clone(),
                    program: PROGRAM.into(),
                    hold_seconds: 600,
                    timeout_margin_seconds: 30,
                })
                .unwrap()
        } else {
            GeminiInstaller.uninstall(&settings).unwrap()
        };
        assert_eq!(fs::read_to_string(&policy).unwrap(), edited, "left alone");
        assert!(
            answer_hook_installed(&settings),
            "the hook stays while a policy is there (install: {install})"
        );
        let notes = outcome.notes.join("\n");
        assert!(
            notes.contains("by hand") && notes.contains(&policy.display().to_string()),
            "{notes}"
        );
        assert_eq!(policy_without_hook(&settings, &[]), None);
        // The hook removed by hand: whatever the text, a danger.
        GEMINI_ANSWER_HOOKS.uninstall_file(&settings).unwrap();
        let danger = policy_without_hook(&settings, &[]).unwrap();
        assert!(danger.starts_with("DANGER"), "{danger}");
        // Removed by hand: uninstall removes the hook.
        GEMINI_ANSWER_HOOKS
            .install_file(
                &settings,
                &answer_plan_for("'/opt/bin/gatehouse' hook gemini BeforeTool"),
            )
            .unwrap();
        fs::remove_file(&policy).unwrap();
        GeminiInstaller.uninstall(&settings).unwrap();
        assert!(!answer_hook_installed(&settings));
    }
}

/// Node's `setTimeout` fires any delay above 2^31 - 1 ms after 1 ms: Gemini's timeout for the
/// answerable hook is below that, and days beyond the hook's own deadline.
#[test]
fn geminis_timeout_for_the_answerable_hook_is_within_what_node_can_wait_and_never_comes_first() {
    let written = TimeoutUnit::Milliseconds.written(BEFORE_TOOL_TIMEOUT_SECONDS);
    assert!(written <= GEMINI_LONGEST_TIMEOUT_MS, "{written}");
    assert_eq!(GEMINI_LONGEST_TIMEOUT_MS, i32::MAX as u64);
    // And days beyond the hook's deadline, as the module's constant assertion says.
    assert!(written / 1000 > 1_000 * ANSWER_WITHIN_SECONDS, "{written}");
}

/// Sets the `timeout` of gatehouse's answerable entry in the settings at `path` (`None` removes
/// it).
fn set_answer_timeout(path: &Path, timeout: Option<Value>) {
    let mut settings = written(path);
    for group in settings["hooks"][ANSWER_EVENT].as_array_mut().unwrap() {
        for entry in group["hooks"].as_array_mut().unwrap() {
            if entry["name"] == ANSWER_ENTRY_NAME {
                match &timeout {
                    Some(timeout) => entry["timeout"] = timeout.clone(),
                    None => {
                        entry.as_object_mut().unwrap().remove("timeout");
                    }
                }
            }
        }
    }
    fs::write(path, pretty(&settings)).unwrap();
}

/// Settings written by an older gatehouse (240 s), with no timeout (Gemini's 60 s), or with one
/// Node cannot wait (1 ms) are named, and installing again writes the timeout anew.
#[test]
fn a_short_missing_or_overflowing_timeout_is_named_until_installed_again() {
    let (_folder, settings, _policy) = answerable_home();
    assert_eq!(
        answer_hook_timeout_problem(&settings),
        None,
        "not installed"
    );
    install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
    assert_eq!(answer_hook_timeout_problem(&settings), None);
    for (timeout, said) in [
        (Some(json!(240_000)), "240000 ms (an older gatehouse"),
        (None, "no timeout"),
        (Some(json!(2_147_483_648_u64)), "after 1 ms"),
        (Some(json!("2073600000")), "not a number"),
        (Some(json!(0)), "0 ms"),
    ] {
        set_answer_timeout(&settings, timeout.clone());
        let problem = answer_hook_timeout_problem(&settings)
            .unwrap_or_else(|| panic!("{timeout:?} is named"));
        assert!(problem.contains(said), "{timeout:?}: {problem}");
        assert!(
            problem.contains("run `gatehouse install gemini --answerable`"),
            "{problem}"
        );
        let upgraded = install_answerable_file(&settings, Path::new(PROGRAM), &[]).unwrap();
        assert!(
            upgraded
                .changes
                .iter()
                .any(|change| change.contains("BeforeTool")),
            "{:?}",
            upgraded.changes
        );
        assert_eq!(answer_hook_timeout_problem(&settings), None, "{timeout:?}");
    }
}

#[test]
fn a_chosen_hold_is_refused_saying_that_the_answerable_hooks_deadline_decides() {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join("settings.json");
    let limits = GeminiInstaller
        .hold_limits()
        .expect("answerable Gemini holds");
    assert_eq!(limits.default_seconds, limits.max_seconds);
    assert!(limits.why_fixed.is_some_and(|why| why.contains("180 s")));
    let refused = GeminiInstaller
        .install_holding(
            &InstallRequest {
                settings: settings.clone(),
                program: folder.path().join("bin/gatehouse"),
                hold_seconds: 600,
                timeout_margin_seconds: 30,
            },
            60,
        )
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .starts_with("--hold does not apply to Gemini CLI: "),
        "{refused}"
    );
    assert!(!settings.exists(), "nothing written");
}
