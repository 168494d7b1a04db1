//! gatehouse's rules as the gateway applies them when a hook holds a prompt: a matching allow or
//! deny answers it at once on the person's path (no front end), everything a rule does not cover
//! stays pending for the person, a removed rule stops at the very next prompt, a rules file
//! others could change decides nothing, and a read-only prompt is never answered by a rule.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::rules::{
    CommandPattern, Expiry, Folder, FurtherWords, Provenance, Rule, RuleId, RuleSpec, RuleVerdict,
};
use gatehouse_core::testing::{toy_bash, toy_capabilities};
use gatehouse_core::{
    Action, ActionFlag, AdapterCapabilities, Answer, NewPrompt, Outcome, PromptState, Timestamp,
};
use gatehouse_gateway::rules_file::{self, RulesFile};
use gatehouse_gateway::{Gateway, GatewayOptions, RuleFacts};
use gatehouse_host_ipc::protocol::HoldResult;
use gatehouse_host_ipc::Role;

use crate::support::{client, listed};

/// A private state folder, the project folder (resolved) and another folder beside it.
struct Folders {
    _root: tempfile::TempDir,
    state: PathBuf,
    project: String,
    other: String,
}

fn folders() -> Folders {
    let root = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(root.path()).unwrap();
    let state = base.join("state");
    fs::create_dir(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
    for name in ["project", "other"] {
        fs::create_dir(base.join(name)).unwrap();
    }
    let text = |name: &str| base.join(name).to_str().unwrap().to_owned();
    Folders {
        project: text("project"),
        other: text("other"),
        state,
        _root: root,
    }
}

fn rule(
    id: &str,
    verdict: RuleVerdict,
    folder: &str,
    command: &str,
    further: FurtherWords,
) -> Rule {
    Rule::new(RuleSpec {
        id: RuleId(id.into()),
        verdict,
        agent: None,
        host: None,
        folder: Folder::new(folder).unwrap(),
        tool: Some("Bash".into()),
        command: Some(CommandPattern::from_command(command, further).unwrap()),
        expiry: Expiry::UntilRemoved,
        provenance: Provenance::ByHand {
            at: Timestamp::from_unix_millis(1_764_000_000_000),
        },
    })
    .unwrap()
}

fn cargo_test_all(folder: &str) -> Rule {
    rule(
        "r-cargo",
        RuleVerdict::Allow,
        folder,
        "cargo test",
        FurtherWords::These(vec!["--all".into()]),
    )
}

/// The toy adapter's facts: the `command` of its Bash input, as an adapter would find them.
fn toy_facts(prompt: &NewPrompt) -> Option<RuleFacts> {
    Some(RuleFacts {
        command: Some(
            prompt.input["command"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        ),
        paths: None,
    })
}

/// A gateway with `flags`, applying the rules file in `state`.
fn gateway_with(state: &Path, flags: AdapterCapabilities) -> Arc<Gateway> {
    let gateway = Gateway::new(vec![flags], GatewayOptions::default());
    gateway.apply_rules_with(
        RulesFile::at(rules_file::rules_path(state)),
        Arc::new(toy_facts),
    );
    gateway
}

fn in_folder(command: &str, cwd: &str) -> NewPrompt {
    NewPrompt {
        cwd: cwd.into(),
        correlation: format!("{command} in {cwd}"),
        ..toy_bash(command)
    }
}

/// Holds `prompt` on a hook of its own, watched if read-only, and returns its hold's result.
async fn hold(gateway: &Arc<Gateway>, prompt: NewPrompt) -> HoldResult {
    let mut hook = client(gateway, Role::Hook).await;
    hook.hold_for(prompt, Duration::from_secs(60), None, true, None)
        .await
        .unwrap()
}

/// Holds `prompt` and checks that no rule answered it: it is listed pending for the person.
async fn reaches_the_person(gateway: &Arc<Gateway>, prompt: NewPrompt) {
    let command = prompt.summary.clone();
    let gateway_for_hook = gateway.clone();
    let hook = tokio::spawn(async move { hold(&gateway_for_hook, prompt).await });
    let prompts = listed(gateway, 1).await;
    assert_eq!(prompts.len(), 1, "{command}: {prompts:?}");
    assert_eq!(prompts[0].state, PromptState::Pending, "{command}");
    let mut frontend = client(gateway, Role::Frontend).await;
    frontend
        .answer(&prompts[0].id.to_string(), Answer::Deny { message: None })
        .await
        .unwrap();
    let outcome = hook.await.unwrap().outcome;
    assert!(
        matches!(outcome, Outcome::Verdict { .. }),
        "{command}: {outcome:?}"
    );
    assert!(listed(gateway, 0).await.is_empty());
}

fn allowed_once(result: &HoldResult) -> bool {
    matches!(&result.outcome, Outcome::Verdict { verdict } if verdict.0 == Answer::Once)
}

#[tokio::test]
async fn an_allow_rule_answers_its_command_in_its_folder_with_no_front_end() {
    let folders = folders();
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[cargo_test_all(&folders.project)],
    )
    .unwrap();
    let gateway = gateway_with(&folders.state, toy_capabilities());
    let result = hold(&gateway, in_folder("cargo test --all", &folders.project)).await;
    assert!(allowed_once(&result), "{result:?}");
    let subfolder = Path::new(&folders.project).join("src");
    fs::create_dir(&subfolder).unwrap();
    let result = hold(
        &gateway,
        in_folder("cargo test", subfolder.to_str().unwrap()),
    )
    .await;
    assert!(allowed_once(&result), "{result:?}");
}

#[tokio::test]
async fn what_the_rule_does_not_cover_still_reaches_the_person() {
    let folders = folders();
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[cargo_test_all(&folders.project)],
    )
    .unwrap();
    let gateway = gateway_with(&folders.state, toy_capabilities());
    for command in [
        "cargo test; rm -rf x",
        "cargo test && curl x | sh",
        "cargo test $(touch p)",
        "cargo test > ~/.bashrc",
        "CARGO_HOME=/tmp cargo test",
        "cargo test\nrm -rf x",
        "cargo test --all --release",
        "bash -c 'cargo test'",
    ] {
        reaches_the_person(&gateway, in_folder(command, &folders.project)).await;
    }
    reaches_the_person(&gateway, in_folder("cargo test --all", &folders.other)).await;
    let link = Path::new(&folders.other).join("link-to-project");
    std::os::unix::fs::symlink(&folders.project, &link).unwrap();
    // A link into the project resolves there, so the rule covers it; `..` out of it does not.
    let through_link = hold(&gateway, in_folder("cargo test", link.to_str().unwrap())).await;
    assert!(allowed_once(&through_link), "{through_link:?}");
    let out = format!("{}/../other", folders.project);
    reaches_the_person(&gateway, in_folder("cargo test", &out)).await;
}

#[tokio::test]
async fn a_deny_rule_blocks_with_its_message() {
    let folders = folders();
    let deny = rule(
        "r-push",
        RuleVerdict::Deny {
            message: "push from your own terminal".into(),
        },
        &folders.project,
        "git push",
        FurtherWords::Nothing,
    );
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[cargo_test_all(&folders.project), deny],
    )
    .unwrap();
    let gateway = gateway_with(&folders.state, toy_capabilities());
    let result = hold(
        &gateway,
        in_folder("cargo test && git push", &folders.project),
    )
    .await;
    match result.outcome {
        Outcome::Verdict { verdict } => assert_eq!(
            verdict.0,
            Answer::Deny {
                message: Some("push from your own terminal".into())
            }
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_removed_rule_stops_deciding_at_the_next_prompt() {
    let folders = folders();
    let path = rules_file::rules_path(&folders.state);
    rules_file::save(&path, &[cargo_test_all(&folders.project)]).unwrap();
    let gateway = gateway_with(&folders.state, toy_capabilities());
    assert!(allowed_once(
        &hold(&gateway, in_folder("cargo test", &folders.project)).await
    ));
    rules_file::save(&path, &[]).unwrap();
    reaches_the_person(&gateway, in_folder("cargo test", &folders.project)).await;
}

#[tokio::test]
async fn a_rules_file_others_may_write_decides_nothing_and_says_why() {
    let folders = folders();
    let path = rules_file::rules_path(&folders.state);
    rules_file::save(&path, &[cargo_test_all(&folders.project)]).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    let gateway = gateway_with(&folders.state, toy_capabilities());
    reaches_the_person(&gateway, in_folder("cargo test", &folders.project)).await;
    let problem = gateway.rules_problem().unwrap_or_default();
    assert!(
        problem.contains("may be changed by other users"),
        "{problem}"
    );
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    assert!(allowed_once(
        &hold(&gateway, in_folder("cargo test", &folders.project)).await
    ));
    assert_eq!(gateway.rules_problem(), None);
}

#[tokio::test]
async fn a_rule_never_answers_a_read_only_prompt() {
    let folders = folders();
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[cargo_test_all(&folders.project)],
    )
    .unwrap();
    let mut unprobed = toy_capabilities();
    unprobed.rules[0].actions = vec![
        ActionFlag {
            action: Action::Once,
            verified: false,
            evidence: "no probe record".into(),
        },
        ActionFlag {
            action: Action::Deny,
            verified: false,
            evidence: "no probe record".into(),
        },
    ];
    let gateway = gateway_with(&folders.state, unprobed);
    let result = hold(&gateway, in_folder("cargo test", &folders.project)).await;
    assert!(matches!(result.outcome, Outcome::Watched), "{result:?}");
    let prompts = listed(&gateway, 1).await;
    assert_eq!(prompts[0].state, PromptState::Pending);
}

#[tokio::test]
async fn the_audit_log_names_every_rule_that_decided() {
    let folders = folders();
    let status = rule(
        "r-status",
        RuleVerdict::Allow,
        &folders.project,
        "git status",
        FurtherWords::Nothing,
    );
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[cargo_test_all(&folders.project), status],
    )
    .unwrap();
    let log_path = folders.state.join("audit.jsonl");
    let log = gatehouse_gateway::audit::AuditLog::open(&log_path, 1 << 20).unwrap();
    let gateway = Gateway::with_audit_log(
        vec![toy_capabilities()],
        GatewayOptions::default(),
        Some(log),
    );
    gateway.apply_rules_with(
        RulesFile::at(rules_file::rules_path(&folders.state)),
        Arc::new(toy_facts),
    );
    let result = hold(
        &gateway,
        in_folder("cargo test && git status", &folders.project),
    )
    .await;
    assert!(allowed_once(&result), "{result:?}");
    let records = gatehouse_gateway::audit::read_all(&log_path).unwrap();
    let by: Vec<String> = records
        .iter()
        .filter_map(|record| match &record.event {
            gatehouse_core::Event::Changed {
                state: PromptState::Resolved,
                by,
                ..
            } => by.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(by, vec!["rule r-cargo, r-status".to_owned()], "{records:?}");
}

#[tokio::test]
async fn a_front_end_cannot_pass_its_answer_off_as_a_rules() {
    let gateway = crate::support::toy_gateway();
    let hook_gateway = gateway.clone();
    let hook = tokio::spawn(async move { hold(&hook_gateway, toy_bash("make")).await });
    let prompt = listed(&gateway, 1).await.remove(0);
    let (_prompts, mut events) = gateway.subscribe();
    let mut frontend = gatehouse_host_ipc::Client::over(
        crate::support::connection(&gateway, gatehouse_gateway::Roles::Any),
        Role::Frontend,
        "rule r-cargo",
    )
    .await
    .unwrap();
    frontend
        .answer(&prompt.id.to_string(), Answer::Once)
        .await
        .unwrap();
    hook.await.unwrap();
    let frame = events.recv().await.unwrap();
    let text = String::from_utf8_lossy(&frame);
    assert!(text.contains("\"by\":\"front end rule r-cargo\""), "{text}");
}

/// Each event's `type`, `state` and `by`, as a subscriber reads it from a frame.
fn event_of(frame: &[u8]) -> (String, Option<String>, Option<String>) {
    let notification: serde_json::Value = serde_json::from_slice(frame).unwrap();
    let event = &notification["params"];
    let text = |field: &str| event[field].as_str().map(str::to_owned);
    (text("type").unwrap(), text("state"), text("by"))
}

#[tokio::test]
async fn a_rule_decided_prompt_reaches_subscribers_only_as_resolved_by_its_rule() {
    let folders = folders();
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[cargo_test_all(&folders.project)],
    )
    .unwrap();
    let log_path = folders.state.join("audit.jsonl");
    let log = gatehouse_gateway::audit::AuditLog::open(&log_path, 1 << 20).unwrap();
    let gateway = Gateway::with_audit_log(
        vec![toy_capabilities()],
        GatewayOptions::default(),
        Some(log),
    );
    gateway.apply_rules_with(
        RulesFile::at(rules_file::rules_path(&folders.state)),
        Arc::new(toy_facts),
    );
    let (pending, mut events) = gateway.subscribe();
    assert!(pending.is_empty());
    let result = hold(&gateway, in_folder("cargo test --all", &folders.project)).await;
    assert!(allowed_once(&result), "{result:?}");
    // Published under the lock that registered it: an `added` would come before this.
    let frame = tokio::time::timeout(Duration::from_secs(30), events.recv())
        .await
        .expect("an event within 30 s")
        .unwrap();
    assert_eq!(
        event_of(&frame),
        (
            "changed".to_owned(),
            Some("resolved".to_owned()),
            Some("rule r-cargo".to_owned())
        ),
        "a subscriber's first word of it is its rule's answer, never `added`"
    );
    // The audit log keeps the whole story: added (with what it asked), then resolved by the rule.
    let records = gatehouse_gateway::audit::read_all(&log_path).unwrap();
    assert!(
        matches!(&records[0].event, gatehouse_core::Event::Added { prompt } if prompt.prompt.summary.contains("cargo test --all")),
        "{records:?}"
    );
    assert!(
        matches!(&records[1].event, gatehouse_core::Event::Changed { state: PromptState::Resolved, by: Some(by), .. } if by == "rule r-cargo"),
        "{records:?}"
    );
}

#[tokio::test]
async fn a_prompt_too_large_to_list_whole_is_never_allowed_by_a_rule() {
    let folders = folders();
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[cargo_test_all(&folders.project)],
    )
    .unwrap();
    let gateway = gateway_with(&folders.state, toy_capabilities());
    let mut prompt = in_folder("cargo test --all", &folders.project);
    // The command is the rule's; what else the call carries is more than a list shows.
    prompt.input["description"] = "x".repeat(64 * 1024).into();
    reaches_the_person(&gateway, prompt).await;
}

/// Facts of a file tool: the `file_path` of the input is the one file the call names.
fn file_facts(prompt: &NewPrompt) -> Option<RuleFacts> {
    Some(RuleFacts {
        command: None,
        paths: Some(vec![prompt.input["file_path"]
            .as_str()
            .unwrap_or_default()
            .to_owned()]),
    })
}

fn write_in(file_path: &str, cwd: &str) -> NewPrompt {
    let mut prompt = in_folder(&format!("write {file_path}"), cwd);
    prompt.tool = "Write".into();
    prompt.summary = format!("Write {file_path}");
    prompt.input = serde_json::json!({ "file_path": file_path, "content": "x" });
    prompt
}

#[tokio::test]
async fn a_file_rule_follows_the_links_of_the_files_it_names() {
    let folders = folders();
    let mut writes = RuleSpec::from(cargo_test_all(&folders.project));
    writes.id = RuleId("r-write".into());
    writes.tool = Some("Write".into());
    writes.command = None;
    rules_file::save(
        &rules_file::rules_path(&folders.state),
        &[Rule::new(writes).unwrap()],
    )
    .unwrap();
    let mut flags = toy_capabilities();
    let mut write_flags = flags.rules[0].clone();
    write_flags.tool = Some("Write".into());
    flags.rules.push(write_flags);
    let gateway = Gateway::new(vec![flags], GatewayOptions::default());
    gateway.apply_rules_with(
        RulesFile::at(rules_file::rules_path(&folders.state)),
        Arc::new(file_facts),
    );
    let project = Path::new(&folders.project);
    let outside = Path::new(&folders.other).join(".bashrc");
    fs::write(&outside, "x").unwrap();
    fs::write(project.join("inside.txt"), "x").unwrap();
    std::os::unix::fs::symlink(&outside, project.join("notes.txt")).unwrap();
    std::os::unix::fs::symlink(project.join("inside.txt"), project.join("alias.txt")).unwrap();
    std::os::unix::fs::symlink(
        Path::new(&folders.other).join("missing"),
        project.join("dangling.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&folders.other, project.join("away")).unwrap();
    let text = |path: PathBuf| path.to_str().unwrap().to_owned();
    for allowed in [
        text(project.join("alias.txt")),
        text(project.join("new/file.txt")),
        "alias.txt".to_owned(),
        "fresh.txt".to_owned(),
    ] {
        let result = hold(&gateway, write_in(&allowed, &folders.project)).await;
        assert!(allowed_once(&result), "{allowed}: {result:?}");
    }
    for pending in [
        text(project.join("notes.txt")),
        "notes.txt".to_owned(),
        text(project.join("dangling.txt")),
        text(project.join("away/.bashrc")),
        text(project.join("away/new.txt")),
        text(project.join("new/../../other/.bashrc")),
        "~/.bashrc".to_owned(),
        "~root/.ssh/id_rsa".to_owned(),
    ] {
        reaches_the_person(&gateway, write_in(&pending, &folders.project)).await;
    }
}
