//! The adapter's capability flags and unlock rule, against probe records in a state folder.

use super::*;

fn suggested(mut prompt: NewPrompt) -> NewPrompt {
    prompt.extra.suggestions = suggestions::from_event(Some(&serde_json::json!([
        { "type": "setMode", "mode": "acceptEdits", "destination": "session" }
    ])));
    prompt
}

/// The prompt the adapter reads from a captured event.
fn prompt_of(event: &[u8]) -> NewPrompt {
    match events::parse(event).unwrap() {
        HookEvent::Prompt { prompt, .. } => prompt,
        other => panic!("{other:?}"),
    }
}

fn write_prompt() -> NewPrompt {
    prompt_of(include_bytes!(
        "../tests/data/claude-code-2.1.332/PermissionRequest-Write.json"
    ))
}

#[test]
fn a_probe_unlocks_edits_always_and_plans() {
    let flags = capabilities_for(&Unlocks::all());
    for tool in EDIT_TOOLS {
        assert_eq!(
            flags.offered(PromptKind::Permission, tool),
            vec![Action::Once, Action::Deny]
        );
    }
    assert_eq!(
        flags.offered(PromptKind::Plan, "ExitPlanMode"),
        vec![Action::Once, Action::Deny]
    );
    let prompt = write_prompt();
    assert_eq!(
        flags.offered_for(&prompt),
        vec![Action::Once, Action::Deny, Action::Always]
    );
    for tool in ["WebFetch", "mcp__github__create_issue"] {
        assert!(flags.offered(PromptKind::Permission, tool).is_empty());
    }
    assert!(capabilities().offered_for(&suggested(prompt)).is_empty());
}

#[test]
fn only_bash_and_questions_are_actionable() {
    let capabilities = capabilities();
    assert_eq!(
        capabilities.offered(PromptKind::Permission, "Bash"),
        vec![Action::Once, Action::Deny]
    );
    assert_eq!(
        capabilities.offered(PromptKind::Question, "AskUserQuestion"),
        vec![Action::Answer]
    );
    for tool in ["Write", "Edit", "WebFetch", "mcp__github__create_issue"] {
        assert!(
            capabilities
                .offered(PromptKind::Permission, tool)
                .is_empty(),
            "{tool}"
        );
    }
    assert!(capabilities
        .offered(PromptKind::Plan, "ExitPlanMode")
        .is_empty());
}

fn bash_prompt_with_a_suggestion() -> NewPrompt {
    prompt_of(include_bytes!(
        "../tests/data/claude-code-2.1.332/PermissionRequest-Bash-addRules.json"
    ))
}

/// The adapter with a passing probe record for Claude Code 2.1.332 (every case of the probe
/// passed) in its state folder, which is removed when the first is dropped.
fn probed_adapter() -> (tempfile::TempDir, ClaudeAdapter) {
    let state = state_with_cases(|_| true);
    let adapter = adapter_in(&state);
    (state, adapter)
}

/// The adapter whose state folder is `state`.
fn adapter_in(state: &tempfile::TempDir) -> ClaudeAdapter {
    ClaudeAdapter::new(Some(state.path().to_path_buf()))
}

/// A state folder with a record for Claude Code 2.1.332 that holds the probe's cases `holds`
/// keeps, each passed.
fn state_with_cases(holds: impl Fn(&str) -> bool) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let cases = Capability::ALL
        .iter()
        .flat_map(|capability| capability.cases())
        .filter(|case| holds(case))
        .map(|case| gatehouse_harness::probe::CaseResult {
            case: (*case).into(),
            passed: true,
            evidence: "written by the test".into(),
        });
    let probed = record::ProbeRecord {
        agent: ADAPTER_ID,
        version: VERIFIED_VERSION.into(),
        executable: "/usr/bin/claude".into(),
        probed_at: gatehouse_core::Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
        passed: true,
        cases: cases.collect(),
        gatehouse_version: "0.1.0".into(),
    };
    probed.write(folder.path()).unwrap();
    folder
}

fn running(version: &str) -> RunningAgent {
    RunningAgent::new(Some("/proc/1/exe".into()), Ok(version.into()))
}

/// A record that `gatehouse probe claude` wrote before the kit held Claude's record
/// (captured from that code; its plan-deny case failed), where it always was: it unlocks
/// the same.
#[test]
fn a_record_written_before_the_kit_still_reads_the_same() {
    let state = tempfile::tempdir().unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/records/claude-probe-before-the-kit.json"
        ),
        state.path().join("claude-probe.json"),
    )
    .unwrap();
    let read = record::ProbeRecord::read(state.path(), ADAPTER_ID)
        .unwrap()
        .unwrap();
    assert_eq!(
        (read.version.as_str(), read.executable.to_str(), read.passed),
        (
            "2.1.332",
            Some("/home/person/.local/share/claude/versions/2.1.332"),
            false
        )
    );
    let names: Vec<&str> = read.cases.iter().map(|case| case.case.as_str()).collect();
    let probed: Vec<&str> = Capability::ALL
        .iter()
        .flat_map(|capability| capability.cases().iter().copied())
        .collect();
    assert_eq!(names, probed);
    let adapter = adapter_in(&state);
    let flags = adapter.capabilities_for_agent(&running("2.1.332"));
    let evidence = "by probe on 2026-12-01 for Claude Code 2.1.332";
    for tool in EDIT_TOOLS {
        let rule = flags.rule_for(PromptKind::Permission, tool).unwrap();
        assert_eq!(
            rule.actions,
            [
                ActionFlag::verified(Action::Once, evidence),
                ActionFlag::verified(Action::Deny, evidence),
                ActionFlag::verified(Action::Always, evidence),
            ]
        );
    }
    let bash = flags.rule_for(PromptKind::Permission, "Bash").unwrap();
    assert_eq!(
        bash.actions[2],
        ActionFlag::verified(Action::Always, evidence)
    );
    let plan = flags.rule_for(PromptKind::Plan, "ExitPlanMode").unwrap();
    for flag in &plan.actions {
        assert!(!flag.verified, "{flag:?}");
        assert!(flag.evidence.contains("failed (plan-deny)"), "{flag:?}");
    }
    let other = adapter.capabilities_for_agent(&running("9.9.9"));
    for tool in EDIT_TOOLS {
        assert!(other.offered(PromptKind::Permission, tool).is_empty());
    }
    assert_eq!(
        other.offered(PromptKind::Permission, "Bash"),
        [Action::Once, Action::Deny]
    );
}

#[test]
fn an_edit_under_a_claude_code_the_record_does_not_cover_is_read_only_and_says_why() {
    let (_state, adapter) = probed_adapter();
    let prompt = write_prompt();
    assert!(needs_a_probe(&prompt));
    let flags = adapter.capabilities_for_agent(&running("9.9.9"));
    assert!(flags.offered_for(&prompt).is_empty());
    let rule = flags.rule_for(PromptKind::Permission, "Write").unwrap();
    assert!(
        rule.actions[0]
            .evidence
            .contains("the probe passed for Claude Code 2.1.332, but Claude Code 9.9.9 is in use"),
        "{rule:?}"
    );
    assert!(adapter
        .deliverable_for(&prompt, Some(&running("9.9.9")))
        .is_empty());
    let unknown = RunningAgent::new(None, Err("no claude among the ancestors".into()));
    assert!(adapter.deliverable_for(&prompt, Some(&unknown)).is_empty());
}

#[test]
fn an_edit_under_the_probed_claude_code_keeps_what_the_probe_unlocked() {
    let (_state, adapter) = probed_adapter();
    let prompt = write_prompt();
    assert_eq!(
        adapter
            .capabilities_for_agent(&running(VERIFIED_VERSION))
            .offered_for(&prompt),
        [Action::Once, Action::Deny, Action::Always]
    );
    assert_eq!(
        adapter.deliverable_for(&prompt, Some(&running(VERIFIED_VERSION))),
        [Action::Once, Action::Deny, Action::Always]
    );
}

#[test]
fn the_hooks_own_check_uses_the_running_claude_codes_unlocks() {
    let (_state, adapter) = probed_adapter();
    let prompt = bash_prompt_with_a_suggestion();
    assert!(needs_a_probe(&prompt));
    assert_eq!(
        adapter.deliverable_for(&prompt, Some(&running("9.9.9"))),
        [Action::Once, Action::Deny]
    );
    let mut plain_bash = bash_prompt_with_a_suggestion();
    plain_bash.extra.suggestions.clear();
    assert!(!needs_a_probe(&plain_bash), "no version is asked for Bash");
    assert_eq!(adapter.running_agent(&plain_bash), None);
}

#[test]
fn with_no_record_only_bash_and_questions_are_answerable_and_the_reason_says_to_probe() {
    let state = tempfile::tempdir().unwrap();
    let adapter = adapter_in(&state);
    let flags = adapter.capabilities_for_agent(&running(VERIFIED_VERSION));
    assert_eq!(
        flags.offered(PromptKind::Permission, "Bash"),
        [Action::Once, Action::Deny]
    );
    for (kind, tool) in [
        (PromptKind::Permission, "Write"),
        (PromptKind::Plan, "ExitPlanMode"),
    ] {
        let rule = flags.rule_for(kind, tool).unwrap();
        for flag in &rule.actions {
            assert!(!flag.verified, "{flag:?}");
            assert!(
                flag.evidence.contains("run `gatehouse probe claude`"),
                "{flag:?}"
            );
        }
    }
}

/// The kit's rule per capability: a capability whose cases the record does not all hold stays
/// read-only and says so, while the others unlock.
#[test]
fn a_record_without_all_of_a_capabilitys_cases_leaves_it_read_only() {
    let state = state_with_cases(|case| case != "plan-approve");
    let adapter = adapter_in(&state);
    let flags = adapter.capabilities_for_agent(&running(VERIFIED_VERSION));
    assert_eq!(
        flags.offered_for(&write_prompt()),
        [Action::Once, Action::Deny, Action::Always]
    );
    let plan = flags.rule_for(PromptKind::Plan, "ExitPlanMode").unwrap();
    assert!(!plan.actions[0].verified);
    assert!(
        plan.actions[0]
            .evidence
            .contains("did not check plan approval and denial"),
        "{plan:?}"
    );
}
