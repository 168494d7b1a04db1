//! Tests of [`HeldHooksInstaller`]'s wait: the one asked for (`--hold`), within its limit and
//! with its reason above it, the agent's timeout that follows it, the notes that say it, and an
//! install without `--hold` that keeps a wait already chosen.

use std::path::Path;

use gatehouse_core::kit::{HookInstaller, InstallRequest};
use serde_json::Value;

use super::*;
use crate::test_agent::EXAMPLE_WITH_ASSIGNMENTS;

fn notes(command: &str, wait: u64, _changed: &InstallReport) -> Vec<String> {
    vec![format!("runs `{command}`; held for up to {wait} s")]
}

const HELD: HeldHooksInstaller = HeldHooksInstaller {
    hooks: EXAMPLE_WITH_ASSIGNMENTS,
    home_variable: "EXAMPLE_HOME_NEVER_SET",
    home_folder: ".example",
    file_name: "settings.json",
    project_file: ".example/settings.json",
    described: "~/.example/settings.json",
    wait_seconds: 40,
    max_wait_seconds: 44,
    why_max: "the example agent gives up on its hook at 60 s",
    timeout_margin_seconds: 15,
    notes,
    uninstall_notes: no_notes,
};

fn request(settings: &Path) -> InstallRequest {
    InstallRequest {
        settings: settings.to_owned(),
        program: "/opt/gatehouse/bin/gatehouse".into(),
        hold_seconds: 600,
        timeout_margin_seconds: 30,
    }
}

/// The command and timeout of the holding event's entry in the file.
fn holding_entry(settings: &Path) -> (String, u64) {
    let written: Value = serde_json::from_slice(&std::fs::read(settings).unwrap()).unwrap();
    let entry = &written["hooks"]["PermissionRequest"][0]["hooks"][0];
    (
        entry["command"].as_str().unwrap().to_owned(),
        entry["timeout"].as_u64().unwrap(),
    )
}

#[test]
fn a_wait_asked_for_is_written_with_the_agents_timeout_beyond_it_and_said_in_the_notes() {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join("settings.json");
    let outcome = HELD.install_holding(&request(&settings), 44).unwrap();
    let (command, timeout) = holding_entry(&settings);
    assert!(
        command.starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=44 "),
        "{command}"
    );
    assert_eq!(timeout, 59, "the wait plus the margin, under 60");
    assert!(
        outcome.notes[0].contains("held for up to 44 s"),
        "{outcome:?}"
    );
    assert_eq!(HELD.installed_wait_in(&settings), Some(44));
}

#[test]
fn a_wait_above_the_limit_or_of_zero_is_refused_with_the_reason_and_nothing_is_written() {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join("settings.json");
    let too_long = HELD.install_holding(&request(&settings), 45).unwrap_err();
    assert_eq!(
        too_long.to_string(),
        "--hold 45 is longer than 44 seconds, the longest for this agent: the example agent gives up on its hook at 60 s; give a wait of 1 to 44 seconds"
    );
    let zero = HELD.install_holding(&request(&settings), 0).unwrap_err();
    assert!(zero.to_string().contains("1 to 44 seconds"), "{zero}");
    assert!(!settings.exists());
}

#[test]
fn an_install_without_a_wait_keeps_the_one_chosen_and_writes_the_default_otherwise() {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join("settings.json");
    let first = HELD.install(&request(&settings)).unwrap();
    assert_eq!(holding_entry(&settings).1, 55);
    assert!(first.notes[0].contains("held for up to 40 s"));
    HELD.install_holding(&request(&settings), 30).unwrap();
    let again = HELD.install(&request(&settings)).unwrap();
    assert!(
        again.changes.is_empty(),
        "the chosen wait is current: {again:?}"
    );
    assert!(again.notes[0].contains("held for up to 30 s"));
    assert_eq!(holding_entry(&settings).1, 45);
    // A wait beyond the limit (written by hand) is not kept: the default replaces it.
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(
        &settings,
        text.replace("WAIT_SECONDS=30", "WAIT_SECONDS=58"),
    )
    .unwrap();
    assert_eq!(HELD.installed_wait_in(&settings), None);
    let replaced = HELD.install(&request(&settings)).unwrap();
    assert!(!replaced.changes.is_empty());
    assert!(holding_entry(&settings)
        .0
        .starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=40 "));
}
