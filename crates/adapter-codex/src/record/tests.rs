//! Codex's groups of cases through the kit's rule, and records as Codex wrote them before the kit.

use gatehouse_core::Timestamp;

use super::*;
use crate::AGENT;

fn record_with(cases: &[(&str, bool)]) -> ProbeRecord {
    ProbeRecord {
        agent: "codex",
        version: "0.171.0".into(),
        executable: "/usr/bin/codex".into(),
        probed_at: Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
        passed: cases.iter().all(|(_, passed)| *passed),
        cases: cases
            .iter()
            .map(|(name, passed)| CaseResult {
                case: (*name).into(),
                passed: *passed,
                evidence: String::new(),
            })
            .collect(),
        gatehouse_version: "0.1.0".into(),
    }
}

fn every_case(failing: &str) -> Vec<(&'static str, bool)> {
    Kind::ALL
        .iter()
        .flat_map(|kind| kind.cases().iter())
        .map(|name| (*name, *name != failing))
        .collect()
}

fn unlocks(record: ProbeRecord, version: &str) -> Vec<Unlock> {
    AGENT.unlock(Ok(Some(record)), |_| Ok(version.to_owned()))
}

/// The rule itself is tested in the kit; here: this agent's words, and this record's file.
#[test]
fn the_rule_names_codex_and_its_probe_and_the_record_survives_a_write_and_a_read() {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("state");
    let unlock_read = || AGENT.unlock(AGENT.record(&state), |_| Ok("0.171.0".to_owned()));
    assert!(
        matches!(&unlock_read()[0], Unlock::ReadOnly { reason } if reason.contains("this Codex honours gatehouse's answers; run `gatehouse probe codex`"))
    );
    let record = record_with(&every_case(""));
    record.write(&state).unwrap();
    assert!(state.join("codex-probe.json").is_file());
    assert_eq!(AGENT.record(&state).unwrap(), Some(record.clone()));
    assert_eq!(
        unlock_read()[0],
        Unlock::Verified {
            version: "0.171.0".into(),
            evidence: "by probe on 2026-12-01 for Codex 0.171.0".into()
        }
    );
    let another = &unlocks(record, "0.172.0")[0];
    assert!(
        matches!(another, Unlock::ReadOnly { reason } if reason.contains("passed for Codex 0.171.0, but Codex 0.172.0 is in use"))
    );
}

#[test]
fn an_older_record_without_the_patch_cases_unlocks_shell_commands_only() {
    let old = record_with(&[("allow", true), ("deny", true), ("no-verdict", true)]);
    assert!(old.passed, "it passed every case it had");
    let unlocked = unlocks(old, "0.171.0");
    assert!(matches!(
        unlocked[Kind::Shell as usize],
        Unlock::Verified { .. }
    ));
    for read_only in &unlocked[1..] {
        assert!(
            matches!(read_only, Unlock::ReadOnly { reason } if reason.contains("did not check") && reason.contains("run `gatehouse probe codex` again")),
            "{read_only:?}"
        );
    }
}

#[test]
fn each_kind_is_unlocked_by_its_own_cases_for_the_version_in_use_only() {
    let all = unlocks(record_with(&every_case("")), "0.171.0");
    assert_eq!(all[Kind::Patch as usize], all[Kind::Shell as usize]);
    assert!(matches!(
        all[Kind::Always as usize],
        Unlock::Verified { .. }
    ));

    let patch_failed = unlocks(record_with(&every_case("patch-deny")), "0.171.0");
    assert!(matches!(
        patch_failed[Kind::Shell as usize],
        Unlock::Verified { .. }
    ));
    assert!(matches!(
        patch_failed[Kind::Always as usize],
        Unlock::Verified { .. }
    ));
    assert!(
        matches!(&patch_failed[Kind::Patch as usize], Unlock::ReadOnly { reason } if reason == "the probe of Codex 0.171.0 on 2026-12-01 failed (patch-deny); see `gatehouse probe codex`"),
        "{:?}",
        patch_failed[Kind::Patch as usize]
    );

    let other_version = unlocks(record_with(&every_case("")), "0.172.0");
    for unlock in &other_version {
        assert!(
            matches!(unlock, Unlock::ReadOnly { reason } if reason.contains("but Codex 0.172.0 is in use"))
        );
    }
    let none = AGENT.unlock(Ok(None), |_| panic!("no version is asked without a record"));
    assert!(
        matches!(&none[Kind::Patch as usize], Unlock::ReadOnly { reason } if reason.contains("run `gatehouse probe codex`"))
    );
}

/// `codex-probe.json` as gatehouse wrote it before the kit held Codex's record (keys, order and
/// all), with the always case failed: it still reads, and unlocks what it unlocked then.
const RECORD_BEFORE_THE_KIT: &str = r#"{
  "codex_version": "0.171.0",
  "codex_executable": "/work/main/node_modules/@openai/codex/bin/codex",
  "probed_at": "2026-12-01T03:00:00.000Z",
  "passed": false,
  "cases": [
    { "case": "allow", "passed": true, "evidence": "ran" },
    { "case": "deny", "passed": true, "evidence": "blocked" },
    { "case": "no-verdict", "passed": true, "evidence": "its own prompt" },
    { "case": "patch-allow", "passed": true, "evidence": "written" },
    { "case": "patch-deny", "passed": true, "evidence": "blocked" },
    { "case": "patch-no-verdict", "passed": true, "evidence": "its own prompt" },
    { "case": "always-next-session", "passed": false, "evidence": "asked again" }
  ],
  "gatehouse_version": "0.1.0"
}
"#;

#[test]
fn a_record_written_before_the_kit_reads_and_unlocks_the_same_kinds_and_is_written_back_alike() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("codex-probe.json"),
        RECORD_BEFORE_THE_KIT,
    )
    .unwrap();
    let record = AGENT.record(folder.path()).unwrap().unwrap();
    assert_eq!(
        (record.version.as_str(), record.executable.to_str()),
        (
            "0.171.0",
            Some("/work/main/node_modules/@openai/codex/bin/codex")
        )
    );
    let unlocked = unlocks(record.clone(), "0.171.0");
    let evidence = "by probe on 2026-12-01 for Codex 0.171.0";
    for kind in [Kind::Shell, Kind::Patch] {
        assert_eq!(
            unlocked[kind as usize],
            Unlock::Verified {
                version: "0.171.0".into(),
                evidence: evidence.into()
            }
        );
    }
    assert_eq!(
        unlocked[Kind::Always as usize],
        Unlock::ReadOnly {
            reason: "the probe of Codex 0.171.0 on 2026-12-01 failed (always-next-session); see `gatehouse probe codex`".into()
        }
    );
    record.write(folder.path()).unwrap();
    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(folder.path().join("codex-probe.json")).unwrap(),
    )
    .unwrap();
    let before: serde_json::Value = serde_json::from_str(RECORD_BEFORE_THE_KIT).unwrap();
    assert_eq!(written, before);
    let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "codex_version",
            "codex_executable",
            "probed_at",
            "passed",
            "cases",
            "gatehouse_version"
        ]
    );
}
