//! The verdict JSON for each new case, on payloads captured from Claude Code 2.1.332.

use gatehouse_core::{AlwaysScope, Answer, HookEvent, NewPrompt, PromptKind, Verdict};
use insta::assert_snapshot;

use super::render;

fn prompt(name: &str) -> NewPrompt {
    let path = format!(
        "{}/tests/data/claude-code-2.1.332/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    match crate::events::parse(&std::fs::read(path).unwrap()).unwrap() {
        HookEvent::Prompt { prompt, .. } => prompt,
        other => panic!("{other:?}"),
    }
}

fn always(scope: AlwaysScope) -> Verdict {
    Verdict(Answer::Always {
        suggestion: Some("s1".into()),
        scope,
    })
}

#[test]
fn edits_allow_and_deny_like_bash() {
    assert_snapshot!(render(&prompt("PermissionRequest-Write"), &Verdict(Answer::Once)), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#);
    let deny = Verdict(Answer::Deny {
        message: Some("keep alpha".into()),
    });
    assert_snapshot!(render(&prompt("PermissionRequest-Edit"), &deny), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"keep alpha"}}}"#);
}

#[test]
fn always_echoes_the_suggestion_with_the_chosen_destination() {
    let bash = prompt("PermissionRequest-Bash-addRules");
    assert_eq!(bash.extra.suggestions.len(), 1);
    assert_snapshot!(render(&bash, &always(AlwaysScope::Session)), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"node -e \"require('fs').appendFileSync('ran.log','x')\""}],"behavior":"allow","destination":"session"}]}}}"#);
    assert!(
        render(&bash, &always(AlwaysScope::Project)).contains(r#""destination":"localSettings""#)
    );
    assert!(render(&bash, &always(AlwaysScope::User)).contains(r#""destination":"userSettings""#));
    let edit = prompt("PermissionRequest-Edit");
    assert_snapshot!(render(&edit, &always(AlwaysScope::Session)), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}"#);
}

#[test]
fn an_unknown_suggestion_allows_only_this_call() {
    let bash = prompt("PermissionRequest-Bash-addRules");
    let verdict = Verdict(Answer::Always {
        suggestion: Some("s9".into()),
        scope: AlwaysScope::User,
    });
    assert_snapshot!(render(&bash, &verdict), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#);
}

#[test]
fn a_redirect_suggests_nothing_that_stops_repeats() {
    let redirect = prompt("PermissionRequest-Bash-redirect");
    assert!(redirect.extra.suggestions.is_empty());
    let flags = crate::capabilities_for(&crate::record::Unlocks::all());
    assert_eq!(
        flags.offered_for(&redirect),
        vec![gatehouse_core::Action::Once, gatehouse_core::Action::Deny]
    );
}

#[test]
fn a_plan_is_approved_with_its_input_echoed_and_denied_with_a_message() {
    let plan = prompt("PermissionRequest-ExitPlanMode");
    assert_eq!(plan.kind, PromptKind::Plan);
    assert_snapshot!(render(&plan, &Verdict(Answer::Once)), @r##"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"plan":"# Plan\n1. do X\n","planFilePath":"/home/dev/.claude/plans/go-streamed-quokka.md"}}}}"##);
    let empty = prompt("PermissionRequest-ExitPlanMode-noplanfile");
    assert_snapshot!(render(&empty, &Verdict(Answer::Once)), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{}}}}"#);
    let deny = Verdict(Answer::Deny {
        message: Some("plan the tests first".into()),
    });
    assert_snapshot!(render(&plan, &deny), @r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"plan the tests first"}}}"#);
}

#[test]
fn the_terminal_comes_from_the_environment_the_hook_inherits() {
    let path = format!(
        "{}/tests/data/claude-code-2.1.332/PermissionRequest-hook-environment.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let environment: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let variable = |name: &str| environment[name].as_str();
    let surroundings = crate::events::Surroundings {
        terminal: gatehouse_core::TerminalLocation::from_values(
            variable("TMUX"),
            variable("TMUX_PANE"),
            variable("CLAUDE_PID"),
        ),
        read_file: &|_| crate::on_disk::FileOnDisk::Text("one\nalpha\n".into()),
    };
    let stdin = std::fs::read(format!(
        "{}/tests/data/claude-code-2.1.332/PermissionRequest-Edit.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let HookEvent::Prompt { prompt, .. } = crate::events::parse_in(&stdin, &surroundings).unwrap()
    else {
        panic!()
    };
    let terminal = prompt.extra.terminal.unwrap();
    assert_eq!(
        (
            terminal.tmux_socket.as_str(),
            terminal.tmux_pane.as_str(),
            terminal.pid
        ),
        ("/tmp/tmux-1000/default", "%0", Some(17761))
    );
    assert!(prompt
        .extra
        .preview
        .unwrap()
        .text
        .contains(" one\n-alpha\n+beta\n"));
}
