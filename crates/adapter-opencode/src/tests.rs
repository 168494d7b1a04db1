//! OpenCode's flags and record through the kit: what a passing probe offers, the flags exactly as
//! before the kit held OpenCode's rule, and a record as OpenCode's probe wrote it before; and
//! what the family's event tests share ([`captured`], [`from_plugin`], [`in_tmux`]).

use gatehouse_core::{Action, PromptKind, Timestamp};
use gatehouse_harness::probe::CaseResult;
use gatehouse_harness::record::{ProbeRecord, Unlock};

use serde_json::{json, Value};

use crate::events::HookEnvironment;
use crate::{capabilities, AGENT};

/// The text of an event captured from an agent of the family: `tests/data/FOLDER/NAME.json`.
macro_rules! captured {
    ($folder:literal, $name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/",
            $folder,
            "/",
            $name,
            ".json"
        ))
    };
}
pub(crate) use captured;

/// What the plugin writes on the hook's stdin for `event`, in the project `/home/dev/project`.
pub(crate) fn from_plugin(event: &str) -> Vec<u8> {
    let event: Value = serde_json::from_str(event).unwrap();
    json!({ "directory": "/home/dev/project", "payload": event })
        .to_string()
        .into_bytes()
}

/// The hook's environment in the tmux pane `pane` of the server `tmux`, started by the agent's
/// process `agent_pid`.
pub(crate) fn in_tmux(tmux: &str, pane: &str, agent_pid: &str) -> HookEnvironment {
    HookEnvironment {
        tmux: Some(tmux.into()),
        tmux_pane: Some(pane.into()),
        agent_pid: Some(agent_pid.into()),
    }
}

fn verified(evidence: &str) -> Unlock {
    Unlock::Verified {
        version: "1.18.33".into(),
        evidence: evidence.into(),
    }
}

#[test]
fn read_only_offers_nothing_and_says_why() {
    let flags = capabilities();
    assert!(flags.offered(PromptKind::Permission, "bash").is_empty());
    assert!(flags.offered(PromptKind::Question, "question").is_empty());
    let rule = flags.rule_for(PromptKind::Question, "question").unwrap();
    assert!(rule.actions[0].evidence.contains("no probe"));
}

/// A passing probe verifies `once` and `deny` for bash; its `always` stays unverified, its
/// evidence the reason it is never offered (what `gatehouse status --json` says).
#[test]
fn a_verified_probe_offers_once_and_deny_for_bash_never_always_and_answers_for_questions() {
    let flags = AGENT.capabilities_for(&[verified("by probe on 2026-12-01 for OpenCode 1.18.33")]);
    assert_eq!(
        flags.offered(PromptKind::Permission, "bash"),
        vec![Action::Once, Action::Deny]
    );
    let bash = flags.rule_for(PromptKind::Permission, "bash").unwrap();
    let always = bash
        .actions
        .iter()
        .find(|flag| flag.action == Action::Always)
        .unwrap();
    assert!(!always.verified);
    assert_eq!(always.evidence, crate::OPENCODE.bash_always_withheld);
    assert!(always
        .evidence
        .starts_with("OpenCode checks a bash pattern only against"));
    assert!(flags.offered(PromptKind::Permission, "edit").is_empty());
    assert_eq!(
        flags.offered(PromptKind::Question, "question"),
        vec![Action::Answer]
    );
}

/// Verified, read-only, and with no probe, as OpenCode's own `capabilities_for` rendered them
/// before the kit held its rule (tests/data/capabilities-before-the-kit.json, written by that code),
/// but for one change since: bash's `always` is no longer verified, its evidence the reason.
#[test]
fn the_flags_are_those_from_before_the_kit_but_for_bashs_always() {
    let mut before: Vec<serde_json::Value> = serde_json::from_str(include_str!(
        "../tests/data/capabilities-before-the-kit.json"
    ))
    .unwrap();
    let bash_always = &mut before[0]["rules"][0]["actions"][2];
    assert_eq!(bash_always["action"], "always");
    *bash_always = serde_json::json!({
        "action": "always",
        "verified": false,
        "evidence": crate::OPENCODE.bash_always_withheld,
    });
    let read_only = Unlock::ReadOnly {
        reason: "ro".into(),
    };
    let now: Vec<serde_json::Value> = [
        AGENT.capabilities_for(&[verified("ev")]),
        AGENT.capabilities_for(&[read_only]),
        capabilities(),
    ]
    .iter()
    .map(|flags| serde_json::to_value(flags).unwrap())
    .collect();
    assert_eq!(now, before);
}

/// `opencode-probe.json` as gatehouse wrote it before the kit held OpenCode's record.
const RECORD_BEFORE_THE_KIT: &str = r#"{
  "opencode_version": "1.18.33",
  "opencode_executable": "/work/main/node_modules/opencode-ai/bin/opencode.exe",
  "probed_at": "2026-12-01T03:00:00.000Z",
  "passed": true,
  "cases": [
    { "case": "once", "passed": true, "evidence": "ran" },
    { "case": "question", "passed": true, "evidence": "answered" }
  ],
  "gatehouse_version": "0.1.0"
}
"#;

#[test]
fn a_record_written_before_the_kit_reads_unlocks_the_same_and_is_written_back_alike() {
    let folder = tempfile::tempdir().unwrap();
    let unlock_read = || {
        AGENT
            .unlock(AGENT.record(folder.path()), |_| Ok("1.18.33".to_owned()))
            .remove(0)
    };
    assert!(
        matches!(unlock_read(), Unlock::ReadOnly { reason } if reason.contains("this OpenCode honours gatehouse's answers; run `gatehouse probe opencode`"))
    );
    let path = folder.path().join("opencode-probe.json");
    std::fs::write(&path, RECORD_BEFORE_THE_KIT).unwrap();
    let record = AGENT.record(folder.path()).unwrap().unwrap();
    assert_eq!(
        record.executable.to_str(),
        Some("/work/main/node_modules/opencode-ai/bin/opencode.exe")
    );
    assert_eq!(
        unlock_read(),
        verified("by probe on 2026-12-01 for OpenCode 1.18.33")
    );
    let another = AGENT
        .unlock(Ok(Some(record.clone())), |_| Ok("1.18.34".to_owned()))
        .remove(0);
    assert!(
        matches!(another, Unlock::ReadOnly { reason } if reason.contains("passed for OpenCode 1.18.33, but OpenCode 1.18.34 is in use"))
    );
    record.write(folder.path()).unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let before: serde_json::Value = serde_json::from_str(RECORD_BEFORE_THE_KIT).unwrap();
    assert_eq!(written, before);
    assert_eq!(
        written.as_object().unwrap().keys().collect::<Vec<_>>(),
        [
            "opencode_version",
            "opencode_executable",
            "probed_at",
            "passed",
            "cases",
            "gatehouse_version"
        ]
    );
    let failed = ProbeRecord {
        passed: false,
        cases: vec![CaseResult {
            case: "always".into(),
            passed: false,
            evidence: String::new(),
        }],
        probed_at: Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
        ..record
    };
    let flags = AGENT.capabilities_for(&AGENT.unlock_of(&failed));
    assert!(flags.offered(PromptKind::Question, "question").is_empty());
}

#[test]
fn a_passing_probe_says_it_offers_once_and_deny_and_answers() {
    assert_eq!(
        AGENT.offers(),
        (
            "once and deny".to_owned(),
            "bash prompts, and answers to its questions".to_owned()
        )
    );
}
