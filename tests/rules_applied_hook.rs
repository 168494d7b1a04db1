//! gatehouse's rules applied by the real `gatehouse serve` to the real `gatehouse-hook claude`
//! fed Claude Code's captured PermissionRequest: a rule made with `gatehouse rule add` answers
//! the command it covers in its folder with no front end (the hook prints Claude Code's allow,
//! and the audit log names the rule), everything it does not cover is listed for the person, a
//! deny rule's message reaches the hook's output, and `gatehouse rule remove` stops it at the
//! very next prompt; and the real Claude Code runs a command a rule allows with no one asked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{
    claude_behavior, claude_fixture, finish, id_of, Gateway, HookProgram, Reaped, Sandbox,
};

/// How long a hook may take to print a rule's verdict on a busy 2-core machine.
const VERDICT_WITHIN: Duration = Duration::from_secs(30);

/// A gateway whose sandbox has a project folder (resolved) and another folder beside it.
struct Setup {
    gateway: Gateway,
    project: PathBuf,
    other: PathBuf,
}

fn setup() -> Setup {
    let sandbox = Sandbox::new();
    let base = std::fs::canonicalize(sandbox.home()).unwrap();
    let (project, other) = (base.join("project"), base.join("other"));
    for folder in [&project, &other] {
        std::fs::create_dir(folder).unwrap();
    }
    Setup {
        gateway: Gateway::start_in(sandbox),
        project,
        other,
    }
}

/// `gatehouse rule add VERDICT --agent claude --tool Bash --command WORDS ... --json`; the
/// new rule's id.
fn add_rule(sandbox: &Sandbox, words: &[&str]) -> String {
    let arguments = [
        &["rule", "add"][..],
        words,
        &["--agent", "claude", "--tool", "Bash", "--json"],
    ]
    .concat();
    let added = sandbox.run_successfully(&arguments);
    let rule: serde_json::Value = serde_json::from_slice(&added.stdout).unwrap();
    rule["id"].as_str().unwrap().to_owned()
}

fn allow_cargo_test_all(sandbox: &Sandbox, folder: &Path) -> String {
    add_rule(
        sandbox,
        &[
            "allow",
            "--command",
            "cargo test",
            "--further",
            "--all",
            "--folder",
            folder.to_str().unwrap(),
        ],
    )
}

/// Claude Code's captured Bash PermissionRequest, asking to run `command` in `cwd`, in a
/// session of its own (so prompts never settle one another).
fn bash_in(command: &str, cwd: &Path) -> serde_json::Value {
    let mut event = claude_fixture("PermissionRequest-Bash");
    event["tool_input"]["command"] = command.into();
    event["cwd"] = cwd.to_str().unwrap().into();
    event["session_id"] = format!("rules-{}-{command}", cwd.display()).into();
    event
}

/// The real `gatehouse-hook claude`, fed `event`.
fn hook(sandbox: &Sandbox, event: &serde_json::Value) -> Reaped {
    sandbox.spawn_hook_program(
        HookProgram::Executable,
        &["hook", "claude"],
        &[],
        event.to_string().as_bytes(),
    )
}

/// What Claude Code's hook printed for `event` when a rule decided it with no front end: its
/// `decision` object.
fn decided_by_rule(sandbox: &Sandbox, event: &serde_json::Value) -> serde_json::Value {
    let output = finish(hook(sandbox, event), VERDICT_WITHIN);
    assert!(output.status.success(), "{output:?}");
    claude_behavior(&output);
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    printed["hookSpecificOutput"]["decision"].clone()
}

/// Holds `event` and checks that no rule decided it: it is listed pending, with its command,
/// and its hook still waits. The person then denies it, and the hook prints that.
fn reaches_the_person(sandbox: &Sandbox, event: &serde_json::Value) {
    let command = event["tool_input"]["command"].as_str().unwrap().to_owned();
    let (mut hook, prompt) = sandbox.hold_claude(event);
    assert_eq!(prompt["state"], "pending", "{command}: {prompt}");
    assert_eq!(prompt["input"]["command"], command.as_str(), "{prompt}");
    assert!(
        hook.try_wait().unwrap().is_none(),
        "{command}: the hook waits for the person"
    );
    let answered = sandbox.answer(&prompt, &["deny"]);
    assert!(answered.status.success(), "{command}: {answered:?}");
    let output = finish(hook, VERDICT_WITHIN);
    assert_eq!(claude_behavior(&output), "deny", "{command}: {output:?}");
}

/// The audit log's `resolved` records, as `(prompt id, by)`.
fn resolved_by(sandbox: &Sandbox) -> Vec<(String, String)> {
    sandbox
        .audit_log()
        .into_iter()
        .filter(|record| record["event"]["state"] == "resolved")
        .map(|record| {
            (
                record["event"]["id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                record["event"]["by"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

#[test]
fn an_allow_rule_answers_cargo_test_all_in_its_folder_with_no_front_end() {
    let Setup {
        gateway, project, ..
    } = setup();
    let id = allow_cargo_test_all(&gateway, &project);
    let decision = decided_by_rule(&gateway, &bash_in("cargo test --all", &project));
    assert_eq!(decision["behavior"], "allow", "{decision}");
    assert!(gateway.list().is_empty(), "nothing left for the person");
    let resolved = resolved_by(&gateway);
    assert_eq!(resolved.len(), 1, "{resolved:?}");
    assert_eq!(resolved[0].1, format!("rule {id}"));
    let log = gateway.log_text();
    assert!(log.contains(&format!("by rule {id}")), "{log}");
    assert!(log.contains("cargo test --all"), "{log}");
}

#[test]
fn what_the_rule_does_not_cover_is_listed_for_the_person() {
    let Setup {
        gateway,
        project,
        other,
    } = setup();
    allow_cargo_test_all(&gateway, &project);
    for command in [
        "cargo test; rm -rf x",
        "cargo test $(touch p)",
        "CARGO_HOME=/tmp cargo test",
        "cargo test\nrm -rf x",
        "cargo test > ~/.bashrc",
        "cargo test --all --release",
    ] {
        reaches_the_person(&gateway, &bash_in(command, &project));
    }
    reaches_the_person(&gateway, &bash_in("cargo test --all", &other));
    assert!(
        !project.join("p").exists(),
        "nothing ran the command substitution"
    );
    assert!(
        resolved_by(&gateway)
            .iter()
            .all(|(_, by)| !by.starts_with("rule ")),
        "no rule decided any of them"
    );
}

#[test]
fn a_deny_rules_message_reaches_the_hooks_output() {
    let Setup {
        gateway, project, ..
    } = setup();
    let id = add_rule(
        &gateway,
        &[
            "deny",
            "--command",
            "git push",
            "--any-further",
            "--folder",
            project.to_str().unwrap(),
            "--message",
            "pushing is mine to do: open a pull request instead",
        ],
    );
    let decision = decided_by_rule(&gateway, &bash_in("git push origin main", &project));
    assert_eq!(decision["behavior"], "deny", "{decision}");
    assert_eq!(
        decision["message"], "pushing is mine to do: open a pull request instead",
        "{decision}"
    );
    assert_eq!(resolved_by(&gateway)[0].1, format!("rule {id}"));
}

#[test]
fn a_removed_rule_stops_deciding_at_the_next_prompt() {
    let Setup {
        gateway, project, ..
    } = setup();
    let id = allow_cargo_test_all(&gateway, &project);
    let decision = decided_by_rule(&gateway, &bash_in("cargo test", &project));
    assert_eq!(decision["behavior"], "allow", "{decision}");
    gateway.run_successfully(&["rule", "remove", &id]);
    let (hook, prompt) = gateway.hold_claude(&bash_in("cargo test --all", &project));
    assert_eq!(prompt["state"], "pending", "{prompt}");
    let answered = gateway.answer(&prompt, &["deny"]);
    assert!(answered.status.success(), "{answered:?}");
    assert_eq!(
        claude_behavior(&finish(hook, VERDICT_WITHIN)),
        "deny",
        "the person's answer, not the removed rule's"
    );
    let resolved = resolved_by(&gateway);
    assert_eq!(resolved.len(), 2, "{resolved:?}");
    assert_eq!(resolved[1].0, id_of(&prompt));
    assert!(!resolved[1].1.starts_with("rule "), "{resolved:?}");
}

/// End to end: the real Claude Code in tmux (see tests/e2e_claude.rs) against a scripted model
/// that asks for `cargo test --all` in its workspace, where a rule allows it: the command runs,
/// the gateway lists nothing for the person, and the audit log names the rule. Skipped without
/// Claude Code locally; fails under CI.
#[test]
fn the_real_claude_code_runs_what_a_rule_allows_with_no_one_asked() {
    use crate::support::claude_env::find_claude_bin;
    use crate::support::claude_world::{bash_turn, ClaudeWorld};
    use crate::support::fake_anthropic::tool_result_text;
    use crate::support::world::required_bin;

    let Some(bin) = required_bin("Claude Code", find_claude_bin()) else {
        return;
    };
    let mut world = ClaudeWorld::with_claude(
        &bin,
        Gateway::start(),
        vec![bash_turn("cargo test --all")],
        |_| {},
    );
    let workspace = world.workspace_file(".");
    let id = allow_cargo_test_all(&world.gateway, &std::fs::canonicalize(workspace).unwrap());
    world.start("run the tests");
    let result = world.tool_result(1);
    let text = tool_result_text(&result);
    assert!(
        text.contains("Cargo.toml") || text.contains("cargo"),
        "cargo ran (rustup's or cargo's own error in a bare workspace): {result}"
    );
    assert!(
        !text.contains("denied") && !text.contains("permission"),
        "{result}"
    );
    world
        .tmux()
        .wait_for_text("Allowed by PermissionRequest hook", VERDICT_WITHIN);
    assert!(world.gateway.list().is_empty(), "nothing for the person");
    let resolved = resolved_by(&world.gateway);
    assert_eq!(resolved.len(), 1, "{resolved:?}");
    assert_eq!(resolved[0].1, format!("rule {id}"));
}
