//! The rules gatehouse can tell, against the approvals file Copilot CLI 1.0.102 wrote after
//! "Yes, and don't ask again for `printf` in this directory".

use serde_json::json;

use super::*;

fn approvals() -> Value {
    json!({ "locations": { "/home/dev/project": { "tool_approvals": [
        { "kind": "commands", "commandIdentifiers": ["printf"] },
        { "kind": "commands", "commandIdentifiers": ["git push"] },
    ] } } })
}

fn check(command: &str, cwd: &str) -> Option<String> {
    may_run_without_asking(command, cwd, &approvals(), &[], false)
}

#[test]
fn a_command_approved_for_this_folder_or_one_above_is_only_watched() {
    let reason = check("printf approved > proof.txt", "/home/dev/project").unwrap();
    assert!(reason.contains("`printf` in /home/dev/project"), "{reason}");
    assert!(check("printf x", "/home/dev/project/sub").is_some());
    assert!(check("cd sub && printf x", "/home/dev/project").is_some());
    assert!(check("git push --force", "/home/dev/project").is_some());
}

#[test]
fn other_commands_and_other_folders_are_held() {
    assert_eq!(check("printf x", "/home/dev/other"), None);
    assert_eq!(check("printfx a", "/home/dev/project"), None);
    assert_eq!(check("git pull", "/home/dev/project"), None);
    assert_eq!(check("rm -rf target", "/home/dev/project"), None);
    assert_eq!(check("printf x", "/home/dev/projectile"), None);
    assert_eq!(
        may_run_without_asking("printf x", "/p", &Value::Null, &[], false),
        None
    );
}

#[test]
fn allow_flags_and_the_allow_all_variable_are_only_watched() {
    for flag in [
        "--allow-all-tools",
        "--yolo",
        "--allow-tool=shell(git:*)",
        "--allow-all",
    ] {
        let arguments = vec!["copilot".to_owned(), flag.to_owned()];
        let reason = may_run_without_asking("rm x", "/p", &Value::Null, &arguments, false);
        assert!(reason.is_some(), "{flag}");
    }
    let plain = vec!["copilot".to_owned(), "--banner".to_owned()];
    assert_eq!(
        may_run_without_asking("rm x", "/p", &Value::Null, &plain, false),
        None
    );
    assert!(may_run_without_asking("rm x", "/p", &Value::Null, &[], true).is_some());
}
