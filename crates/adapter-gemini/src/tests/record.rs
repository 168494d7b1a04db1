//! The probe record: Gemini's is the kit's ([`gatehouse_harness::record::ProbeRecord`], agent
//! `gemini`), in the same file with the same keys as before, so a record written before still
//! unlocks exactly what it did.

use gatehouse_harness::record::{ProbeRecord, Unlock};

use crate::{unlock, ADAPTER_ID, AGENT};

/// The rule itself is tested in the kit; here: this agent's words, and this record's file.
#[test]
fn without_a_record_the_rule_names_gemini_and_its_probe() {
    let folder = tempfile::tempdir().unwrap();
    assert!(matches!(
        unlock(AGENT.record(folder.path()), |_| Ok("0.61.0".to_owned())),
        Unlock::ReadOnly { reason } if reason == "no probe has checked that this Gemini CLI honours gatehouse's answers; run `gatehouse probe gemini`"
    ));
    assert_eq!(
        ProbeRecord::path(folder.path(), ADAPTER_ID),
        folder.path().join("gemini-probe.json")
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
