//! What Copilot states to the kit: its flags before and after a probe, and its probe record.

use gatehouse_core::{PromptKind, Timestamp};
use gatehouse_harness::probe::CaseResult;
use gatehouse_harness::record::{ProbeRecord, Unlock};
use gatehouse_harness::verdict::testing::assert_once_and_deny_only;

use crate::AGENT;

#[test]
fn read_only_offers_nothing_and_says_why() {
    let flags = AGENT.capabilities_for(&[Unlock::ReadOnly {
        reason: "no probe".into(),
    }]);
    assert!(flags.offered(PromptKind::Permission, "bash").is_empty());
    let rule = flags.rule_for(PromptKind::Permission, "bash").unwrap();
    assert_eq!(rule.actions[0].evidence, "no probe");
    let unprobed = AGENT.capabilities();
    assert!(unprobed.offered(PromptKind::Permission, "bash").is_empty());
    assert_eq!(
        unprobed
            .rule_for(PromptKind::Permission, "bash")
            .unwrap()
            .actions[0]
            .evidence,
        "no probe has checked that this Copilot CLI honours gatehouse's answers"
    );
    assert_eq!(
        (unprobed.adapter.as_str(), unprobed.name.as_str()),
        ("copilot", "GitHub Copilot CLI")
    );
}

#[test]
fn a_verified_probe_offers_once_and_deny_for_bash_only() {
    let flags = AGENT.capabilities_for(&[Unlock::Verified {
        version: "1.0.102".into(),
        evidence: "by probe on 2026-12-01 for Copilot CLI 1.0.102".into(),
    }]);
    assert_once_and_deny_only(&flags, "bash", &["edit", "Bash"]);
    let bash = flags.rule_for(PromptKind::Permission, "bash").unwrap();
    assert_eq!(
        bash.actions[0].evidence,
        "by probe on 2026-12-01 for Copilot CLI 1.0.102"
    );
    assert_eq!(
        bash.actions[2].evidence,
        "no probe checks Copilot's \"don't ask again\""
    );
    assert_eq!(
        flags
            .rule_for(PromptKind::Permission, "edit")
            .unwrap()
            .actions[0]
            .evidence,
        "the probe proves bash prompts only; answer the others in Copilot's terminal"
    );
}

/// The rule itself is tested in the kit; here: this agent's words, and this record's file,
/// including one written before the kit had the record.
#[test]
fn the_rule_names_copilot_and_its_probe_and_the_record_survives_a_write_and_a_read() {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("state");
    let unlock_read = || {
        AGENT
            .unlock(AGENT.record(&state), |_| Ok("1.0.102".to_owned()))
            .remove(0)
    };
    assert!(
        matches!(unlock_read(), Unlock::ReadOnly { reason } if reason.contains("this Copilot CLI honours gatehouse's answers; run `gatehouse probe copilot`"))
    );
    let record = ProbeRecord {
        agent: "copilot",
        version: "1.0.102".into(),
        executable: "/usr/bin/copilot".into(),
        probed_at: Timestamp::parse_rfc3339("2026-11-30T03:00:00Z").unwrap(),
        passed: true,
        cases: vec![CaseResult {
            case: "allow".into(),
            passed: true,
            evidence: "ran".into(),
        }],
        gatehouse_version: "0.1.0".into(),
    };
    record.write(&state).unwrap();
    assert_eq!(AGENT.record(&state).unwrap(), Some(record.clone()));
    assert_eq!(
        unlock_read(),
        Unlock::Verified {
            version: "1.0.102".into(),
            evidence: "by probe on 2026-11-30 for Copilot CLI 1.0.102".into()
        }
    );
    let another = AGENT
        .unlock(Ok(Some(record.clone())), |_| Ok("1.0.103".to_owned()))
        .remove(0);
    assert!(
        matches!(another, Unlock::ReadOnly { reason } if reason.contains("passed for Copilot CLI 1.0.102, but Copilot CLI 1.0.103 is in use"))
    );
    // As the adapter wrote it before the kit had the record.
    let written_before = r#"{"copilot_version": "1.0.102", "copilot_executable": "/usr/bin/copilot",
        "probed_at": "2026-11-30T03:00:00Z", "passed": true,
        "cases": [{"case": "allow", "passed": true, "evidence": "ran"}], "gatehouse_version": "0.1.0"}"#;
    std::fs::write(state.join("copilot-probe.json"), written_before).unwrap();
    assert_eq!(AGENT.record(&state).unwrap(), Some(record));
}

#[test]
fn a_passing_probe_says_it_offers_once_and_deny_for_bash_as_before() {
    assert_eq!(
        AGENT.offers(),
        ("once and deny".to_owned(), "bash prompts".to_owned())
    );
}
