//! `gatehouse rule add|remove` and `gatehouse rules`, the real binary against a sandbox's state
//! folder: the rules file is owner-only in an owner-only folder, a rule is listed with its id and
//! description and removed by its id, a file others may write or another user owns is refused
//! with what to do, and `--help` teaches with examples.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::PathBuf;

use crate::common::{running_as_root, Sandbox, NOBODY};

fn rules_file(sandbox: &Sandbox) -> PathBuf {
    sandbox.home().join(".local/state/gatehouse/rules.json")
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A sandbox with one allow rule for `cargo test [--all]` in its home; the rule's id.
fn with_one_rule() -> (Sandbox, String) {
    let sandbox = Sandbox::new();
    let home = sandbox.home();
    let added = sandbox.run_successfully(&[
        "rule",
        "add",
        "allow",
        "--tool",
        "Bash",
        "--command",
        "cargo test",
        "--further",
        "--all",
        "--folder",
        home.to_str().unwrap(),
        "--json",
    ]);
    let rule: serde_json::Value = serde_json::from_slice(&added.stdout).unwrap();
    let id = rule["id"].as_str().unwrap().to_owned();
    assert!(
        rule["description"]
            .as_str()
            .unwrap()
            .contains("`cargo test` followed by nothing else or only by the words `--all`"),
        "{rule}"
    );
    (sandbox, id)
}

#[test]
fn a_rule_is_kept_owner_only_listed_by_id_and_removed_by_it() {
    let (sandbox, id) = with_one_rule();
    let path = rules_file(&sandbox);
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
    let listed = stdout(&sandbox.run_successfully(&["rules"]));
    assert!(
        listed.starts_with(&format!("{id}  Allows the `Bash` command `cargo test`")),
        "{listed}"
    );
    let listed: serde_json::Value =
        serde_json::from_slice(&sandbox.run_successfully(&["rules", "--json"]).stdout).unwrap();
    assert_eq!(listed[0]["id"], id.as_str());
    let removed = stdout(&sandbox.run_successfully(&["rule", "remove", &id]));
    assert!(removed.starts_with(&format!("removed {id}")), "{removed}");
    let listed: serde_json::Value =
        serde_json::from_slice(&sandbox.run_successfully(&["rules", "--json"]).stdout).unwrap();
    assert_eq!(listed, serde_json::json!([]));
    let again = sandbox.run(&["rule", "remove", &id]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("`gatehouse rules` lists their ids"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn a_rule_the_core_refuses_is_not_saved_and_the_error_says_what_to_do() {
    let sandbox = Sandbox::new();
    let refused = sandbox.run(&["rule", "add", "allow", "--command", "sh -c 'cargo test'"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("answer such commands each time"),
        "{}",
        stderr(&refused)
    );
    assert!(!rules_file(&sandbox).exists());
}

#[test]
fn a_rules_file_others_may_write_is_refused_with_what_to_do() {
    let (sandbox, _id) = with_one_rule();
    let path = rules_file(&sandbox);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    let refused = sandbox.run(&["rules"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("may be changed by other users (mode 0666)"),
        "{}",
        stderr(&refused)
    );
    assert!(
        stderr(&refused).contains("chmod 600"),
        "{}",
        stderr(&refused)
    );
    // Nor is a rule added on top of it.
    let added = sandbox.run(&["rule", "add", "allow", "--tool", "Read"]);
    assert!(!added.status.success());
}

#[test]
fn a_rules_file_another_user_owns_is_refused() {
    if !running_as_root("give a file to another user") {
        return;
    }
    let (sandbox, _id) = with_one_rule();
    let path = rules_file(&sandbox);
    std::os::unix::fs::chown(&path, Some(NOBODY), Some(NOBODY)).unwrap();
    assert_eq!(fs::metadata(&path).unwrap().uid(), NOBODY);
    let refused = sandbox.run(&["rules"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("belongs to user 65534"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn rule_add_help_teaches_with_examples() {
    let sandbox = Sandbox::new();
    let help = stdout(&sandbox.run_successfully(&["rule", "add", "--help"]));
    for expected in [
        "gatehouse rule add allow --tool Bash --command 'cargo test' --further --all",
        "gatehouse rule add deny --command 'git push' --message",
        "gatehouse rule remove",
        "--any-further",
        "never to a read-only prompt",
    ] {
        assert!(help.contains(expected), "{expected}: {help}");
    }
}
