//! Tests of the pure edits.

use serde_json::{json, Value};

use crate::test_agent::*;
use crate::{Change, InstallError};

#[test]
fn plan_install_is_idempotent_on_values() {
    let (once, _) = EXAMPLE
        .plan_install(&json!({"a": 1}), &default_plan())
        .unwrap();
    let (twice, changes) = EXAMPLE.plan_install(&once, &default_plan()).unwrap();
    assert_eq!(twice, once);
    assert_eq!(changes, []);
}

#[test]
fn a_new_hold_timeout_updates_only_the_entries_that_hold() {
    let (settings, changes) = EXAMPLE
        .plan_install(&freshly_installed(), &plan_with(COMMAND, 900))
        .unwrap();

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
    // The person narrowed the matcher and put a foreign hook next to ours; both must stay.
    let mut settings = freshly_installed();
    settings["hooks"]["PermissionRequest"] = json!([
        {"matcher": "Bash|Edit", "hooks": [
            foreign_entry("audit"),
            {"type": "command", "command": COMMAND, "timeout": 600, "statusMessage": "asking"}
        ]}
    ]);

    let (updated_settings, changes) = EXAMPLE
        .plan_install(&settings, &plan_with(MOVED_COMMAND, 600))
        .unwrap();

    let expected_changes: Vec<Change> = EXAMPLE
        .events
        .iter()
        .map(|event| updated(event.name))
        .collect();
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
        {"matcher": "Bash", "hooks": [foreign_entry("audit"), gatehouse_entry("/old/gatehouse hook example", 60)]},
        {"matcher": "Edit", "hooks": [gatehouse_entry("/old/gatehouse hook example", 60)]}
    ]);

    let (updated_settings, changes) = EXAMPLE.plan_install(&settings, &default_plan()).unwrap();

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
fn uninstall_removes_the_hooks_key_when_it_ends_up_empty() {
    let mut settings = freshly_installed();
    settings["theme"] = json!("dark");

    let (uninstalled, changes) = EXAMPLE.plan_uninstall(&settings).unwrap();

    assert_eq!(uninstalled, json!({"theme": "dark"}));
    assert_eq!(changes.len(), EXAMPLE.events.len());
    assert!(changes.contains(&removed("Stop")));
}

#[test]
fn install_then_uninstall_restores_the_original_value() {
    let original = json!({
        "model": "opus",
        "hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [foreign_entry("audit")]}]}
    });
    let (installed, _) = EXAMPLE.plan_install(&original, &default_plan()).unwrap();
    let (uninstalled, _) = EXAMPLE.plan_uninstall(&installed).unwrap();
    assert_eq!(uninstalled, original);
}

#[test]
fn uninstall_keeps_a_foreign_entry_that_shares_gatehouses_group() {
    let settings = json!({"hooks": {"Stop": [{"hooks": [
        foreign_entry("notify-send done"),
        gatehouse_entry(COMMAND, 10),
    ]}]}});
    let (uninstalled, changes) = EXAMPLE.plan_uninstall(&settings).unwrap();
    assert_eq!(changes, [removed("Stop")]);
    assert_eq!(
        uninstalled,
        json!({"hooks": {"Stop": [{"hooks": [foreign_entry("notify-send done")]}]}})
    );
    let (again, changes) = EXAMPLE.plan_uninstall(&uninstalled).unwrap();
    assert_eq!(changes, []);
    assert_eq!(again, uninstalled);
}

#[test]
fn lookalike_commands_are_left_alone() {
    let lookalikes = [
        "/usr/bin/other hook example",
        "echo gatehouse hook example",
        "/opt/gatehouse/bin/gatehouse hook other",
        "FOO=1 /opt/gatehouse/bin/gatehouse hook example",
    ];
    let foreign_groups: Vec<Value> = lookalikes
        .iter()
        .map(|command| json!({"matcher": "*", "hooks": [gatehouse_entry(command, 600)]}))
        .collect();
    let settings = json!({"hooks": {"PermissionRequest": foreign_groups.clone()}});

    let (uninstalled, changes) = EXAMPLE.plan_uninstall(&settings).unwrap();
    assert_eq!(changes, []);
    assert_eq!(uninstalled, settings);

    let (installed, changes) = EXAMPLE.plan_install(&settings, &default_plan()).unwrap();
    assert_eq!(changes, all_added());
    let mut expected_groups = foreign_groups;
    expected_groups.push(json!({"matcher": "*", "hooks": [gatehouse_entry(COMMAND, 600)]}));
    assert_eq!(
        installed["hooks"]["PermissionRequest"],
        Value::Array(expected_groups)
    );
}

#[test]
fn an_agent_that_allows_assignments_updates_and_removes_such_entries() {
    let with_wait = "WAIT=60 '/opt/gatehouse/bin/gatehouse' hook example";
    let settings = json!({"hooks": {"Stop": [{"hooks": [gatehouse_entry(with_wait, 10)]}]}});

    let (installed, changes) = EXAMPLE_WITH_ASSIGNMENTS
        .plan_install(&settings, &default_plan())
        .unwrap();
    assert!(changes.contains(&updated("Stop")), "{changes:?}");
    assert_eq!(installed, freshly_installed());

    let (uninstalled, changes) = EXAMPLE_WITH_ASSIGNMENTS.plan_uninstall(&settings).unwrap();
    assert_eq!(changes, [removed("Stop")]);
    assert_eq!(uninstalled, json!({}));
}

#[test]
fn a_plan_command_that_would_not_be_recognised_is_refused() {
    let error = EXAMPLE
        .plan_install(&json!({}), &plan_with("/usr/bin/other hook example", 600))
        .unwrap_err();
    assert!(matches!(error, InstallError::CommandNotRecognised { .. }));
    assert!(error.to_string().contains("\" hook example\""), "{error}");
}

#[test]
fn settings_of_the_wrong_shape_are_refused_without_a_path() {
    let cases = [
        (json!([1, 2]), "SettingsNotObject"),
        (json!({"hooks": []}), "HooksNotObject"),
        (json!({"hooks": {"Stop": {}}}), "EventNotArray"),
    ];
    for (settings, expected_variant) in cases {
        let error = EXAMPLE
            .plan_install(&settings, &default_plan())
            .unwrap_err();
        assert!(
            format!("{error:?}").starts_with(expected_variant),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("the example settings file"),
            "{error}"
        );
    }
    assert!(EXAMPLE.plan_uninstall(&json!([1, 2])).is_err());
    assert!(EXAMPLE.plan_uninstall(&json!({"hooks": []})).is_err());
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
fn key_order_is_kept() {
    let settings: Value = serde_json::from_str(
        r#"{"zeta": 1, "hooks": {"Stop": [{"hooks": [{"command": "x", "type": "command"}]}], "Alpha": []}, "alpha": 2}"#,
    )
    .unwrap();
    let (installed, _) = EXAMPLE.plan_install(&settings, &default_plan()).unwrap();
    let (uninstalled, _) = EXAMPLE.plan_uninstall(&installed).unwrap();
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

#[test]
fn named_entries_get_their_name_first_and_timeouts_in_the_agents_unit() {
    let (settings, changes) = EXAMPLE_NAMED_MILLISECONDS
        .plan_install(&json!({}), &default_plan())
        .unwrap();
    assert_eq!(changes, all_added());
    let entry = &settings["hooks"]["PostToolUse"][0]["hooks"][0];
    assert_eq!(
        serde_json::to_string(entry).unwrap(),
        format!(r#"{{"name":"gatehouse","type":"command","command":"{COMMAND}","timeout":10000}}"#)
    );
    assert_eq!(
        settings["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"],
        600_000
    );
    let (again, changes) = EXAMPLE_NAMED_MILLISECONDS
        .plan_install(&settings, &default_plan())
        .unwrap();
    assert_eq!((again, changes), (settings.clone(), Vec::new()));

    // An entry written in seconds without a name is brought to the agent's style in place.
    let (updated_settings, changes) = EXAMPLE_NAMED_MILLISECONDS
        .plan_install(&freshly_installed(), &default_plan())
        .unwrap();
    assert_eq!(changes.len(), EXAMPLE.events.len());
    assert_eq!(
        updated_settings["hooks"]["Stop"],
        json!([{"hooks": [{"type": "command", "command": COMMAND, "timeout": 10000, "name": "gatehouse"}]}])
    );
    let (removed, _) = EXAMPLE_NAMED_MILLISECONDS
        .plan_uninstall(&settings)
        .unwrap();
    assert_eq!(removed, json!({}));
}

#[test]
fn plain_entries_are_written_exactly_as_before() {
    let (settings, _) = EXAMPLE.plan_install(&json!({}), &default_plan()).unwrap();
    assert_eq!(
        serde_json::to_string(&settings["hooks"]["Stop"]).unwrap(),
        format!(r#"[{{"hooks":[{{"type":"command","command":"{COMMAND}","timeout":10}}]}}]"#)
    );
}

/// `gatehouse install` run again after an upgrade: the entries that run `gatehouse hook` become
/// entries that run `gatehouse-hook`, in place, one per event; uninstall knows both forms.
#[test]
fn install_upgrades_entries_that_run_gatehouse_hook_to_the_hook_executable() {
    let new_command = "'/opt/gatehouse/bin/gatehouse-hook' example";
    let (upgraded, changes) = EXAMPLE
        .plan_install(&freshly_installed(), &plan_with(new_command, 600))
        .unwrap();
    let expected: Vec<Change> = EXAMPLE
        .events
        .iter()
        .map(|event| updated(event.name))
        .collect();
    assert_eq!(changes, expected);
    assert_eq!(
        upgraded["hooks"]["PermissionRequest"],
        json!([{"matcher": "*", "hooks": [gatehouse_entry(new_command, 600)]}])
    );
    assert!(!serde_json::to_string(&upgraded)
        .unwrap()
        .contains("' hook example"));

    let mut both = upgraded.clone();
    both["hooks"]["Stop"] =
        json!([{"hooks": [gatehouse_entry(COMMAND, 10), gatehouse_entry(new_command, 10)]}]);
    let (removed, _) = EXAMPLE.plan_uninstall(&both).unwrap();
    assert_eq!(removed, json!({}));
}
