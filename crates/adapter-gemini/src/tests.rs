//! Tests of the adapter as the binary sees it: its flags, its rendering, what it delivers.

use gatehouse_core::{Adapter, Answer, PromptKind, Verdict};

use super::*;

fn prompt() -> NewPrompt {
    let stdin = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gemini-cli-0.61.0/Notification.shell.json"
    ));
    match GeminiAdapter.parse_hook_event(stdin, None).unwrap() {
        HookEvent::Prompt { prompt, .. } => prompt,
        other => panic!("a prompt, not {other:?}"),
    }
}

#[test]
fn nothing_is_offered_and_every_action_says_why() {
    let flags = GeminiAdapter.capabilities();
    assert_eq!(flags.adapter, "gemini");
    for tool in ["run_shell_command", "write_file", "anything"] {
        assert!(flags.offered(PromptKind::Permission, tool).is_empty());
    }
    let rule = flags
        .rule_for(PromptKind::Permission, "run_shell_command")
        .unwrap();
    assert_eq!(rule.actions.len(), 3);
    for flag in &rule.actions {
        assert!(!flag.verified);
        assert!(
            flag.evidence.contains("allow does not skip it"),
            "{}",
            flag.evidence
        );
    }
}

#[test]
fn no_verdict_is_ever_rendered_or_delivered() {
    let prompt = prompt();
    assert!(GeminiAdapter.deliverable_actions(&prompt).is_empty());
    for answer in [
        Answer::Once,
        Answer::Deny { message: None },
        Answer::Deny {
            message: Some("no".into()),
        },
    ] {
        assert_eq!(GeminiAdapter.render_verdict(&prompt, &Verdict(answer)), "");
    }
}

#[test]
fn it_installs_but_has_no_probe() {
    assert!(GeminiAdapter.installer().is_some());
    assert!(GeminiAdapter.probe().is_none());
}
