//! The probe record: Gemini's is the kit's ([`gatehouse_harness::record::ProbeRecord`], agent
//! `gemini`), in the same file with the same keys as before, so a record written before still
//! unlocks exactly what it did.

use gatehouse_core::Timestamp;
use gatehouse_harness::probe::CaseResult;
use gatehouse_harness::record::{ProbeRecord, Unlock};

use crate::{unlock, ADAPTER_ID, AGENT};

/// The rule itself is tested in the kit; here: this agent's words, and this record's file.
#[test]
fn the_rule_names_gemini_and_its_probe_and_the_record_survives_a_write_and_a_read() {
    let folder = tempfile::tempdir().unwrap();
    let state_dir = folder.path().join("state");
    let unlock_read = || unlock(AGENT.record(&state_dir), |_| Ok("0.61.0".to_owned()));
    assert!(
        matches!(unlock_read(), Unlock::ReadOnly { reason } if reason.contains("this Gemini CLI honours gatehouse's answers; run `gatehouse probe gemini`"))
    );
    let record = ProbeRecord {
        agent: ADAPTER_ID,
        version: "0.61.0".into(),
        executable: "/usr/bin/gemini".into(),
        probed_at: Timestamp::parse_rfc3339("2026-11-30T03:00:00Z").unwrap(),
        passed: true,
        cases: vec![CaseResult {
            case: "allow".into(),
            passed: true,
            evidence: "ran".into(),
        }],
        gatehouse_version: "0.1.0".into(),
    };
    record.write(&state_dir).unwrap();
    assert!(state_dir.join("gemini-probe.json").is_file());
    assert_eq!(AGENT.record(&state_dir).unwrap(), Some(record.clone()));
    assert_eq!(
        unlock_read(),
        Unlock::Verified {
            version: "0.61.0".into(),
            evidence: "by probe on 2026-11-30 for Gemini CLI 0.61.0".into()
        }
    );
    let another = unlock(Ok(Some(record)), |_| Ok("0.62.0".to_owned()));
    assert!(
        matches!(another, Unlock::ReadOnly { reason } if reason.contains("passed for Gemini CLI 0.61.0, but Gemini CLI 0.62.0 is in use"))
    );
}

/// A `gemini-probe.json` exactly as gatehouse wrote it before Gemini was on the kit's record
/// (written by that code's `record::write`, commit 2aace94).
const RECORD_WRITTEN_BEFORE_THE_KIT: &str = r#"{
  "gemini_version": "0.61.0",
  "gemini_executable": "/usr/bin/gemini",
  "probed_at": "2026-11-30T03:00:00.000Z",
  "passed": true,
  "cases": [
    {
      "case": "allow",
      "passed": true,
      "evidence": "ran"
    },
    {
      "case": "deny",
      "passed": true,
      "evidence": "blocked"
    },
    {
      "case": "no-verdict",
      "passed": true,
      "evidence": "dialog"
    }
  ],
  "gatehouse_version": "0.1.0"
}
"#;

/// A record written by the code before this one unlocks exactly what it did, and a record
/// written now is the same bytes.
#[test]
fn a_record_written_before_the_kit_unlocks_the_same_and_is_written_the_same() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("gemini-probe.json");
    std::fs::write(&path, RECORD_WRITTEN_BEFORE_THE_KIT).unwrap();
    assert_eq!(
        unlock(AGENT.record(folder.path()), |_| Ok("0.61.0".to_owned())),
        Unlock::Verified {
            version: "0.61.0".into(),
            evidence: "by probe on 2026-11-30 for Gemini CLI 0.61.0".into()
        }
    );
    assert!(matches!(
        unlock(AGENT.record(folder.path()), |_| Ok("0.62.0".to_owned())),
        Unlock::ReadOnly { reason } if reason == "the probe passed for Gemini CLI 0.61.0, but Gemini CLI 0.62.0 is in use; run `gatehouse probe gemini` for this version"
    ));
    let record = AGENT.record(folder.path()).unwrap().unwrap();
    assert_eq!(
        (record.agent, record.executable.to_str()),
        ("gemini", Some("/usr/bin/gemini"))
    );
    std::fs::remove_file(&path).unwrap();
    record.write(folder.path()).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        RECORD_WRITTEN_BEFORE_THE_KIT
    );
}
