//! Tests of the adapter as the binary sees it: its flags, its rendering, what it delivers, and
//! what its hook prints without a verdict.

use gatehouse_core::{Adapter, Answer, PromptKind, RunningAgent, Verdict};
use gatehouse_harness::verdict::testing::assert_once_and_deny_only;

use super::*;

macro_rules! fixture {
    ($name:literal) => {
        gatehouse_harness::captured_payload!("gemini-cli-0.61.0", $name)
    };
}

fn prompt(stdin: &[u8]) -> NewPrompt {
    match events::parse(stdin).unwrap() {
        HookEvent::Prompt { prompt, .. } => prompt,
        other => panic!("a prompt, not {other:?}"),
    }
}

fn verified() -> Unlock {
    Unlock::Verified {
        version: "0.61.0".into(),
        evidence: "by probe on 2026-12-01 for Gemini CLI 0.61.0".into(),
    }
}

#[test]
fn without_a_probe_nothing_is_offered_and_every_action_says_why() {
    let flags = capabilities();
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
fn a_passing_probe_offers_once_and_deny_for_shell_commands_only() {
    let flags = capabilities_for(&verified());
    assert_once_and_deny_only(&flags, "run_shell_command", &["write_file"]);
}

#[test]
fn a_prompt_of_geminis_own_dialog_is_never_deliverable() {
    let watched = prompt(fixture!("Notification.shell"));
    let adapter = GeminiAdapter::default();
    assert!(adapter.deliverable_actions(&watched).is_empty());
    assert!(capabilities_for(&verified())
        .deliverable(&watched)
        .is_empty());
    let held = prompt(fixture!("BeforeTool.shell-policy-allow"));
    assert_eq!(
        adapter.deliverable_actions(&held),
        vec![Action::Once, Action::Deny]
    );
}

#[test]
fn verdicts_are_geminis_and_only_the_answerable_hook_answers_without_one() {
    let adapter = GeminiAdapter::default();
    let held = prompt(fixture!("BeforeTool.shell-policy-allow"));
    assert_eq!(adapter.render_verdict(&held, &Verdict(Answer::Once)), "{}");
    assert!(adapter
        .render_verdict(
            &held,
            &Verdict(Answer::Deny {
                message: Some("no".into())
            })
        )
        .contains(r#""decision":"deny""#));
    let without = adapter.without_verdict(Some("BeforeTool")).unwrap();
    assert_eq!(without.output, r#"{"decision":"ask"}"#);
    // The hook answers well before the timeout the installer writes.
    assert!(
        without.answer_within + Duration::from_secs(30)
            <= Duration::from_secs(install::BEFORE_TOOL_TIMEOUT_SECONDS)
    );
    assert!(without.hold_at_most() < without.answer_within);
    for event in [
        None,
        Some("Notification"),
        Some("AfterTool"),
        Some("beforetool"),
    ] {
        assert_eq!(adapter.without_verdict(event), None, "{event:?}");
    }
}

#[test]
fn a_before_tool_prompt_with_nothing_offered_is_left_to_geminis_dialog() {
    // No state folder: no record, so nothing is offered, and the hook only answers `ask`.
    let adapter = GeminiAdapter::new(None);
    assert_eq!(
        adapter
            .parse_hook_event(
                fixture!("BeforeTool.shell-policy-allow"),
                Some("BeforeTool")
            )
            .unwrap(),
        HookEvent::Ignore
    );
    assert!(matches!(
        adapter
            .parse_hook_event(fixture!("Notification.shell"), None)
            .unwrap(),
        HookEvent::Prompt { .. }
    ));
}

#[test]
fn a_reported_agent_without_the_policy_is_read_only_with_the_reason() {
    let folder = tempfile::tempdir().unwrap();
    let agent = RunningAgent::new(None, Err(NO_POLICY_REASON.into()));
    // Even a passing record unlocks nothing for it.
    let record = gatehouse_harness::record::ProbeRecord {
        agent: ADAPTER_ID,
        version: "0.61.0".into(),
        executable: "/usr/bin/gemini".into(),
        probed_at: gatehouse_core::Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
        passed: true,
        cases: Vec::new(),
        gatehouse_version: "0.1.0".into(),
    };
    record.write(folder.path()).unwrap();
    let adapter = GeminiAdapter::new(Some(folder.path().into()));
    let flags = adapter.capabilities_for_agent(&agent);
    assert!(flags
        .offered(PromptKind::Permission, "run_shell_command")
        .is_empty());
    let rule = flags
        .rule_for(PromptKind::Permission, "run_shell_command")
        .unwrap();
    assert!(
        rule.actions[0].evidence.contains("policy is not installed"),
        "{}",
        rule.actions[0].evidence
    );
    let running = RunningAgent::new(None, Ok("0.61.0".into()));
    assert_eq!(
        adapter
            .capabilities_for_agent(&running)
            .offered(PromptKind::Permission, "run_shell_command"),
        vec![Action::Once, Action::Deny]
    );
    let other = RunningAgent::new(None, Ok("0.62.0".into()));
    assert!(adapter
        .capabilities_for_agent(&other)
        .offered(PromptKind::Permission, "run_shell_command")
        .is_empty());
}

#[test]
fn it_installs_and_has_a_probe() {
    let adapter = GeminiAdapter::default();
    assert!(adapter.installer().is_some());
    assert!(adapter.installer().unwrap().answerable_price().is_some());
    assert!(adapter.probe().is_some());
}

#[test]
fn gemini_prints_its_version_alone_on_its_first_line_and_is_called_gemini() {
    assert_eq!(
        (AGENT.executable.parse)("0.61.0\n").as_deref(),
        Some("0.61.0")
    );
    assert_eq!((AGENT.executable.parse)("gemini 0.61.0"), None);
    assert_eq!(
        AGENT.executable.not_found(),
        gatehouse_harness::executable::VersionError::NotFound { program: "gemini" }
    );
}

mod record;
