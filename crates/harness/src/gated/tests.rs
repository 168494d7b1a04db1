//! The kit's probe-gated adapter with a made-up agent: the rule, the record it reads, and what a
//! hook reports and may deliver.

use std::path::Path;

use gatehouse_core::Timestamp;

use super::*;
use crate::probe::CaseResult;

fn last_word(output: &str) -> Option<String> {
    output.split_whitespace().last().map(str::to_owned)
}

const AGENT: AgentDescription = AgentDescription {
    id: "agent",
    name: "The Agent",
    short_name: "Agent",
    executable: AgentExecutable {
        program: "no-such-agent-anywhere",
        names: &["no-such-agent-anywhere"],
        pid_variable: None,
        version_variable: None,
        installed_if_not_running: true,
        parse: last_word,
    },
    unlocks: Unlocks {
        groups: &[UnlockGroup::EVERY_CASE],
        tools: &[ToolUnlock::once_and_deny("shell", 0, "no always here")],
        questions: None,
        elsewhere: "answer the others in the agent's terminal",
        held: None,
    },
    while_held: None,
    installer: &NothingInstalled,
    // The hook's stdin is the prompt's tool.
    events: |stdin, _event| {
        Ok(HookEvent::Prompt {
            prompt: prompt(std::str::from_utf8(stdin).unwrap()),
            hold: gatehouse_core::HoldMode::WhileActionable,
        })
    },
    verdicts: |_prompt, _verdict| String::new(),
};

/// The made-up agent's installer: nothing is installed in these tests.
struct NothingInstalled;

impl HookInstaller for NothingInstalled {
    fn settings_path(
        &self,
        _scope: &gatehouse_core::kit::SettingsScope,
    ) -> Result<PathBuf, KitError> {
        unreachable!("nothing is installed in these tests")
    }
    fn settings_described(&self) -> &'static str {
        unreachable!("nothing is installed in these tests")
    }
    fn install(
        &self,
        _request: &gatehouse_core::kit::InstallRequest,
    ) -> Result<gatehouse_core::kit::InstallOutcome, KitError> {
        unreachable!("nothing is installed in these tests")
    }
    fn uninstall(&self, _settings: &Path) -> Result<gatehouse_core::kit::InstallOutcome, KitError> {
        unreachable!("nothing is installed in these tests")
    }
}

fn record(passed: bool) -> ProbeRecord {
    ProbeRecord {
        agent: "agent",
        version: "1.2.3".into(),
        executable: "/usr/bin/agent".into(),
        probed_at: Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
        passed,
        cases: vec![CaseResult {
            case: "deny".into(),
            passed,
            evidence: "seen".into(),
        }],
        gatehouse_version: "0.1.0".into(),
    }
}

fn prompt(tool: &str) -> NewPrompt {
    NewPrompt {
        adapter: "agent".into(),
        session: "s".into(),
        cwd: "/w".into(),
        kind: PromptKind::Permission,
        tool: tool.into(),
        input: serde_json::json!({ "command": "ls" }),
        summary: "ls".into(),
        questions: Vec::new(),
        correlation: String::new(),
        read_only_reason: None,
        host: String::new(),
        extra: Default::default(),
    }
}

/// The evidence of `once` in the permission rule for `tool`.
fn once_evidence(flags: &AdapterCapabilities, tool: &str) -> String {
    let rule = flags.rule_for(PromptKind::Permission, tool).unwrap();
    rule.actions[0].evidence.clone()
}

fn reported(version: &str) -> RunningAgent {
    RunningAgent::new(None, Ok(version.into()))
}

#[test]
fn read_only_offers_nothing_for_any_tool_and_says_why() {
    let flags = AGENT.capabilities();
    assert_eq!(
        (flags.adapter.as_str(), flags.name.as_str()),
        ("agent", "The Agent")
    );
    assert!(flags.offered(PromptKind::Permission, "shell").is_empty());
    assert_eq!(
        once_evidence(&flags, "other"),
        "no probe has checked that this Agent honours gatehouse's answers"
    );
}

#[test]
fn a_verified_probe_offers_the_unlocked_actions_for_the_unlocked_tool_only() {
    let flags = AGENT.capabilities_for(&AGENT.unlock_of(&record(true)));
    assert_eq!(
        flags.offered(PromptKind::Permission, "shell"),
        vec![Action::Once, Action::Deny]
    );
    assert_eq!(
        once_evidence(&flags, "shell"),
        "by probe on 2026-12-01 for Agent 1.2.3"
    );
    let shell = flags.rule_for(PromptKind::Permission, "shell").unwrap();
    assert_eq!(
        (shell.actions[2].action, shell.actions[2].evidence.as_str()),
        (Action::Always, "no always here")
    );
    assert!(flags.offered(PromptKind::Permission, "Shell").is_empty());
    assert_eq!(
        once_evidence(&flags, "edit"),
        "the probe proves shell prompts only; answer the others in the agent's terminal"
    );
}

#[test]
fn an_agent_that_gives_up_on_its_hook_says_how_long_a_prompt_is_held_beside_the_evidence() {
    let held = AgentDescription {
        unlocks: Unlocks {
            held: Some("answer within 40 s"),
            ..AGENT.unlocks
        },
        ..AGENT
    };
    let flags = held.capabilities_for(&held.unlock_of(&record(true)));
    assert_eq!(
        once_evidence(&flags, "shell"),
        "by probe on 2026-12-01 for Agent 1.2.3; answer within 40 s"
    );
    let shell = flags.rule_for(PromptKind::Permission, "shell").unwrap();
    assert_eq!(shell.actions[2].evidence, "no always here");
    let unprobed = held.capabilities();
    assert!(!unprobed.rules[0].actions[0].evidence.contains("40 s"));
}

#[test]
fn the_record_keeps_the_agent_keys_and_the_rule_follows_the_reported_version() {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("state");
    let none = &AGENT.reported_unlock(Some(&state), &reported("1.2.3"))[0];
    assert!(
        matches!(&none, Unlock::ReadOnly { reason } if reason.contains("run `gatehouse probe agent`")),
        "{none:?}"
    );
    record(true).write(&state).unwrap();
    let text = std::fs::read_to_string(state.join("agent-probe.json")).unwrap();
    assert!(
        text.find("\"agent_version\": \"1.2.3\"").unwrap()
            < text.find("\"agent_executable\"").unwrap()
            && !text.contains("\"version\""),
        "{text}"
    );
    assert_eq!(AGENT.record(&state).unwrap(), Some(record(true)));
    assert!(matches!(
        &AGENT.reported_unlock(Some(&state), &reported("1.2.3"))[0],
        Unlock::Verified { .. }
    ));
    let other = &AGENT.reported_unlock(Some(&state), &reported("1.2.4"))[0];
    assert!(
        matches!(&other, Unlock::ReadOnly { reason } if reason.contains("passed for Agent 1.2.3, but Agent 1.2.4 is in use")),
        "{other:?}"
    );
    let unknown = &AGENT.reported_unlock(
        Some(&state),
        &RunningAgent::new(None, Err("no agent".into())),
    )[0];
    assert!(matches!(unknown, Unlock::ReadOnly { .. }));
    record(false).write(&state).unwrap();
    let failed = &AGENT.reported_unlock(Some(&state), &reported("1.2.3"))[0];
    assert!(
        matches!(&failed, Unlock::ReadOnly { reason } if reason.contains("failed (deny)")),
        "{failed:?}"
    );
    std::fs::write(state.join("agent-probe.json"), "{\"agent_version\": 1}").unwrap();
    assert!(matches!(
        &AGENT.reported_unlock(Some(&state), &reported("1.2.3"))[0],
        Unlock::ReadOnly { .. }
    ));
    assert!(matches!(
        &AGENT.reported_unlock(None, &reported("1.2.3"))[0],
        Unlock::ReadOnly { reason } if reason.contains("XDG_STATE_HOME")
    ));
    assert!(matches!(
        &AGENT.installed_unlock(Some(Path::new("/nonexistent")))[0],
        Unlock::ReadOnly { .. }
    ));
}

#[test]
fn a_hook_reports_its_agent_and_may_deliver_at_best_the_unlocked_actions_of_the_unlocked_tool() {
    assert!(AGENT.depends_on_the_version(&prompt("shell")));
    assert!(!AGENT.depends_on_the_version(&prompt("edit")));
    let mut read_only = prompt("shell");
    read_only.read_only_reason = Some("the agent runs it anyway".into());
    assert!(!AGENT.depends_on_the_version(&read_only));
    assert_eq!(
        AGENT.deliverable_actions(&prompt("shell")),
        vec![Action::Once, Action::Deny]
    );
    assert!(AGENT.deliverable_actions(&prompt("edit")).is_empty());
    assert!(AGENT.deliverable_actions(&read_only).is_empty());
    let found = AGENT.running_agent(None);
    assert!(found.version().is_err(), "{found:?}");
}

#[test]
fn a_hook_looks_for_its_agent_only_when_a_probe_record_could_unlock_its_version() {
    let state = tempfile::tempdir().unwrap();
    // The agent is found where its record says it was probed (it is not on PATH), and counts
    // each time its `--version` runs.
    let agent = crate::executable::testing::script(
        state.path(),
        "probed-agent",
        "echo run >> \"$0.runs\"\necho \"agent-cli 1.2.3\"\n",
    );
    let runs = || {
        std::fs::read_to_string(agent.with_extension("runs"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    // No record: nothing is looked up or run, and the reason says what to do; what the hook
    // reports leaves the prompt read-only.
    let unknown = AGENT.running_agent(Some(state.path()));
    let reason = unknown.version().unwrap_err();
    assert!(
        reason.contains("no probe record of Agent") && reason.contains("gatehouse probe agent"),
        "{reason}"
    );
    assert_eq!(unknown.executable, None);
    assert_eq!(runs(), 0, "nothing was run without a record");
    // A record written meanwhile does not unlock the version that was not looked up.
    let mut probed = record(true);
    probed.executable = agent.clone();
    probed.write(state.path()).unwrap();
    assert!(matches!(
        &AGENT.reported_unlock(Some(state.path()), &unknown)[0],
        Unlock::ReadOnly { reason } if reason.contains("no probe record of Agent")
    ));
    // With the record, the agent is looked up, and its version unlocks the record's actions.
    let found = AGENT.running_agent(Some(state.path()));
    assert_eq!(found.version(), Ok("1.2.3"), "{found:?}");
    assert_eq!(runs(), 1);
    assert!(matches!(
        &AGENT.reported_unlock(Some(state.path()), &found)[0],
        Unlock::Verified { .. }
    ));
    // A record that cannot be read is reported as such, with nothing looked up either.
    std::fs::write(
        state.path().join("agent-probe.json"),
        "{\"agent_version\": 1}",
    )
    .unwrap();
    assert!(AGENT.running_agent(Some(state.path())).version().is_err());
    assert_eq!(runs(), 1);
    // No state folder: no record can be found, so nothing is looked up.
    let nowhere = AGENT.running_agent(None);
    assert!(
        nowhere.version().unwrap_err().contains("XDG_STATE_HOME"),
        "{nowhere:?}"
    );
}

#[test]
fn an_agent_whose_probe_proves_answers_offers_them_for_questions_and_its_hook_reports_for_them() {
    let answering = AgentDescription {
        unlocks: Unlocks {
            questions: Some(0),
            ..AGENT.unlocks
        },
        ..AGENT
    };
    let mut question = prompt("question");
    question.kind = PromptKind::Question;
    assert!(!AGENT.depends_on_the_version(&question));
    assert!(answering.depends_on_the_version(&question));
    let flags = answering.capabilities_for(&answering.unlock_of(&record(true)));
    assert_eq!(
        flags.offered(PromptKind::Question, "question"),
        vec![Action::Answer]
    );
    let failed = answering.capabilities_for(&answering.unlock_of(&record(false)));
    assert!(failed.offered(PromptKind::Question, "question").is_empty());
    assert!(AGENT
        .capabilities_for(&AGENT.unlock_of(&record(true)))
        .rule_for(PromptKind::Question, "question")
        .is_none());
}

/// An agent that must also be configured to let its hook answer, and whose prompts that nothing
/// could be offered for are left to it: what Gemini CLI needs of the kit.
#[derive(Default)]
struct NotConfigured;

impl GatedAgent for NotConfigured {
    const AGENT: AgentDescription = AGENT;

    fn probe(&self) -> &dyn AgentProbe {
        unreachable!("nothing is probed in this test")
    }
    fn installed_not_answerable(&self) -> Option<String> {
        Some("not configured to answer, as the gateway sees it".into())
    }
    fn running_not_answerable(&self) -> Option<String> {
        Some("not configured to answer, where the hook runs".into())
    }
    fn ignore_undeliverable(&self) -> bool {
        true
    }
}

#[test]
fn an_agent_not_configured_to_answer_is_read_only_whatever_its_record_and_its_hook_leaves_it() {
    let folder = tempfile::tempdir().unwrap();
    record(true).write(folder.path()).unwrap();
    let adapter = GatedAdapter::<NotConfigured>::new(Some(folder.path().into()));
    // The gateway: read-only with the condition's reason, though the record passed.
    let flags = adapter.capabilities();
    assert!(flags.offered(PromptKind::Permission, "shell").is_empty());
    assert_eq!(
        once_evidence(&flags, "shell"),
        "not configured to answer, as the gateway sees it"
    );
    // The hook: the condition is reported as the running agent's problem, so nothing is
    // offered, and the prompt is left to the agent rather than listed.
    let running = adapter.running_agent(&prompt("shell")).unwrap();
    assert_eq!(
        running.version(),
        Err("not configured to answer, where the hook runs".to_owned())
    );
    assert!(adapter
        .capabilities_for_agent(&running)
        .offered(PromptKind::Permission, "shell")
        .is_empty());
    assert_eq!(
        adapter.parse_hook_event(b"shell", None).unwrap(),
        HookEvent::Ignore
    );
    assert_eq!(
        adapter.parse_hook_event(b"edit", None).unwrap(),
        HookEvent::Ignore
    );
    // What the record unlocks for a reported version is still the rule's.
    assert_eq!(
        adapter
            .capabilities_for_agent(&reported("1.2.3"))
            .offered(PromptKind::Permission, "shell"),
        vec![Action::Once, Action::Deny]
    );
}
