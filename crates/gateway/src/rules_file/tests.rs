//! Unit tests of the rules file: read back, refused when others could change it or it is not a
//! regular file, a malformed one decides nothing, a change is seen at the next refresh.

use super::*;
use gatehouse_core::rules::{
    CommandPattern, Expiry, Folder, FurtherWords, Provenance, RuleId, RuleSpec, RuleVerdict,
};
use gatehouse_core::Timestamp;

fn cargo_test(id: &str) -> Rule {
    Rule::new(RuleSpec {
        id: RuleId(id.into()),
        verdict: RuleVerdict::Allow,
        agent: None,
        host: None,
        folder: Folder::new("/project").unwrap(),
        tool: Some("Bash".into()),
        command: Some(CommandPattern::from_command("cargo test", FurtherWords::Nothing).unwrap()),
        expiry: Expiry::UntilRemoved,
        provenance: Provenance::ByHand {
            at: Timestamp::from_unix_millis(1_764_000_000_000),
        },
    })
    .unwrap()
}

/// A private folder and the rules path in it.
fn private_folder() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    fs::set_permissions(folder.path(), fs::Permissions::from_mode(0o700)).unwrap();
    let path = rules_path(folder.path());
    (folder, path)
}

#[test]
fn saved_rules_are_read_back_owner_only_and_no_temporary_file_is_left() {
    let (folder, path) = private_folder();
    save(&path, &[cargo_test("r1")]).unwrap();
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(load(&path).unwrap(), vec![cargo_test("r1")]);
    let names: Vec<_> = fs::read_dir(folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from(RULES_FILE_NAME)]);
}

#[test]
fn a_missing_file_is_no_rules_and_no_problem() {
    let (_folder, path) = private_folder();
    let mut file = RulesFile::at(path);
    file.refresh();
    assert!(file.rules().is_empty());
    assert_eq!(file.problem(), None);
}

#[test]
fn a_file_others_may_write_is_refused_and_decides_nothing() {
    let (_folder, path) = private_folder();
    save(&path, &[cargo_test("r1")]).unwrap();
    let mut file = RulesFile::at(path.clone());
    file.refresh();
    assert_eq!(file.rules().len(), 1);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    assert!(file.refresh(), "a change of mode alone is seen");
    assert!(file.rules().is_empty());
    assert!(
        matches!(
            file.problem(),
            Some(RulesFileError::OthersMayWrite { mode: 0o666, .. })
        ),
        "{:?}",
        file.problem()
    );
    assert!(file.problem().unwrap().to_string().contains("chmod 600"));
}

#[test]
fn a_file_in_a_folder_others_may_write_is_refused() {
    let (folder, path) = private_folder();
    save(&path, &[cargo_test("r1")]).unwrap();
    fs::set_permissions(folder.path(), fs::Permissions::from_mode(0o777)).unwrap();
    assert!(matches!(
        load(&path),
        Err(RulesFileError::FolderOthersMayWrite { .. })
    ));
}

#[test]
fn a_link_or_a_folder_is_not_a_rules_file() {
    let (folder, path) = private_folder();
    let elsewhere = folder.path().join("elsewhere.json");
    save(&elsewhere, &[cargo_test("r1")]).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    assert!(matches!(
        load(&path),
        Err(RulesFileError::NotRegular { .. })
    ));
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    assert!(matches!(
        load(&path),
        Err(RulesFileError::NotRegular { .. })
    ));
}

#[test]
fn a_malformed_file_or_a_rule_that_fails_its_checks_decides_nothing() {
    let (_folder, path) = private_folder();
    let mut file = RulesFile::at(path.clone());
    for text in [
        "not json".to_owned(),
        "{\"allow\": \"everything\"}".to_owned(),
        // An allow rule for every tool, which Rule::new refuses.
        serde_json::to_string(&[cargo_test("r1")])
            .unwrap()
            .replace("\"tool\":\"Bash\"", "\"tool\":null")
            .replace("\"command\":{", "\"x\":{"),
    ] {
        fs::write(&path, &text).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        file.refresh();
        assert!(file.rules().is_empty(), "{text}");
        assert!(
            matches!(file.problem(), Some(RulesFileError::Malformed { .. })),
            "{text}: {:?}",
            file.problem()
        );
    }
}

#[test]
fn a_changed_file_is_read_again_and_an_unchanged_one_is_not() {
    let (_folder, path) = private_folder();
    save(&path, &[cargo_test("r1")]).unwrap();
    let mut file = RulesFile::at(path.clone());
    assert!(file.refresh());
    assert!(!file.refresh(), "nothing changed");
    save(&path, &[cargo_test("r1"), cargo_test("r2")]).unwrap();
    assert!(file.refresh());
    assert_eq!(file.rules().len(), 2);
    save(&path, &[]).unwrap();
    assert!(file.refresh());
    assert!(file.rules().is_empty());
    assert_eq!(file.problem(), None);
}
