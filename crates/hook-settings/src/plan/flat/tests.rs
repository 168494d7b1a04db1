//! Tests of the pure edits for the flat shape.

use serde_json::json;

use crate::test_agent::*;
use crate::EntryShape;

fn flat_plan() -> crate::HookPlan {
    plan_with(FLAT_COMMAND, 90)
}

#[test]
fn a_fresh_install_writes_flat_entries_whose_commands_name_their_event() {
    let (installed, changes) = FLAT
        .plan_install(&json!({"banner": "never"}), &flat_plan())
        .unwrap();
    let mut expected = flat_installed();
    expected["banner"] = json!("never");
    assert_eq!(installed["hooks"], expected["hooks"]);
    assert_eq!(installed["banner"], "never");
    let changes: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert_eq!(changes.len(), 4);
    assert_eq!(changes[0], "added the PermissionRequest hook");
}

#[test]
fn installing_again_changes_nothing() {
    let (again, changes) = FLAT.plan_install(&flat_installed(), &flat_plan()).unwrap();
    assert_eq!(changes, []);
    assert_eq!(again, flat_installed());
}

#[test]
fn foreign_entries_stay_and_gatehouse_entries_are_updated_in_place() {
    let foreign = json!({"type": "command", "bash": "/home/dev/bin/audit.sh", "timeoutSec": 5});
    let old = json!({"type": "command", "bash": "'/old/gatehouse' hook flat PermissionRequest", "timeoutSec": 30, "comment": "mine"});
    let duplicate = json!({"type": "command", "bash": "/old/gatehouse hook flat"});
    let settings = json!({"hooks": {"PermissionRequest": [foreign.clone(), old, duplicate]}});
    let (installed, changes) = FLAT.plan_install(&settings, &flat_plan()).unwrap();
    assert_eq!(changes[0], updated("PermissionRequest"));
    let mut expected = flat_entry("PermissionRequest", 90);
    expected["comment"] = json!("mine");
    assert_eq!(
        installed["hooks"]["PermissionRequest"],
        json!([foreign, expected])
    );
}

#[test]
fn uninstall_removes_only_gatehouse_entries() {
    let foreign = json!({"type": "command", "bash": "/home/dev/bin/hook.sh agentStop"});
    let lookalike = json!({"type": "command", "bash": "/usr/bin/other hook flat Stop"});
    let mut settings = flat_installed();
    settings["hooks"]["Stop"] = json!([foreign.clone(), flat_entry("Stop", 10), lookalike.clone()]);
    settings["model"] = json!("gpt-4.1");
    let (uninstalled, changes) = FLAT.plan_uninstall(&settings).unwrap();
    assert_eq!(changes.len(), 4);
    assert_eq!(
        uninstalled,
        json!({"hooks": {"Stop": [foreign, lookalike]}, "model": "gpt-4.1"})
    );
    let (again, changes) = FLAT.plan_uninstall(&uninstalled).unwrap();
    assert_eq!(changes, []);
    assert_eq!(again, uninstalled);
}

#[test]
fn install_then_uninstall_restores_the_original_value() {
    let original =
        json!({"hooks": {"agentStop": [{"type": "command", "bash": "notify"}]}, "banner": "never"});
    let (installed, _) = FLAT.plan_install(&original, &flat_plan()).unwrap();
    let (uninstalled, _) = FLAT.plan_uninstall(&installed).unwrap();
    assert_eq!(uninstalled, original);
}

#[test]
fn commands_may_end_with_one_event_name_only_for_agents_that_name_it() {
    assert!(FLAT.is_gatehouse_command("'/x/gatehouse' hook flat permissionRequest"));
    assert!(FLAT.is_gatehouse_command("'/x/gatehouse' hook flat"));
    assert!(!FLAT.is_gatehouse_command("'/x/gatehouse' hook flat a b"));
    assert!(!FLAT.is_gatehouse_command("'/x/gatehouse' hook flat ;rm"));
    assert!(!FLAT.is_gatehouse_command("'/x/other' hook flat Stop"));
    assert!(!EXAMPLE.is_gatehouse_command("'/x/gatehouse' hook example Stop"));
    assert_eq!(FLAT.entry_shape.command_key(), "bash");
    assert_eq!(EntryShape::MatcherGroups.timeout_key(), "timeout");
}
