//! The probe record: what the last `gatehouse probe gemini` found, saved as
//! `gemini-probe.json` in gatehouse's state folder, and the rule that turns it into Gemini CLI's
//! capability flags.
//!
//! The rule ([`unlock`]): `once` and `deny` are verified only while the record says the probe
//! passed and its Gemini CLI version equals the version of the Gemini CLI in use. No record, a record that
//! cannot be read, a failed probe, a version that cannot be read or a different version: read-only,
//! with a reason that says what to do.

use std::path::{Path, PathBuf};

use gatehouse_core::Timestamp;
use serde::{Deserialize, Serialize};

use gatehouse_harness::record::{standard_unlock, AgentWords, StandardRecord};

use crate::version::VersionError;

/// The record's file name inside gatehouse's state folder.
pub const RECORD_FILE_NAME: &str = "gemini-probe.json";

/// The outcome of one probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// The version the probed Gemini CLI printed, such as `0.61.0`.
    pub gemini_version: String,
    /// The Gemini CLI executable that was probed.
    pub gemini_executable: PathBuf,
    /// When the probe ran.
    pub probed_at: Timestamp,
    /// Whether every case passed.
    pub passed: bool,
    pub cases: Vec<CaseResult>,
    /// The gatehouse that ran the probe.
    pub gatehouse_version: String,
}

/// One case of the probe, and what was seen: the kit's, as every probe records it.
pub use gatehouse_harness::probe::CaseResult;

impl ProbeRecord {
    /// The day of the probe, such as `2026-11-30`.
    pub fn probed_on(&self) -> String {
        self.probed_at.to_string().chars().take(10).collect()
    }
}

/// Why the record could not be read or written.
pub use gatehouse_harness::record::RecordError;

/// Where the record lives inside a state folder.
pub fn record_path(state_dir: &Path) -> PathBuf {
    state_dir.join(RECORD_FILE_NAME)
}

/// Reads the record; a missing file is `Ok(None)`.
pub fn read(path: &Path) -> Result<Option<ProbeRecord>, RecordError> {
    gatehouse_harness::record::read(path)
}

/// Writes the record atomically (a temporary file renamed over it), creating the folder.
pub fn write(path: &Path, record: &ProbeRecord) -> Result<(), RecordError> {
    gatehouse_harness::record::write(path, record)
}

/// Whether gatehouse may answer Gemini CLI's permission prompts: the kit's standard rule.
pub use gatehouse_harness::record::Unlock;

impl StandardRecord for ProbeRecord {
    fn agent_version(&self) -> &str {
        &self.gemini_version
    }

    fn passed(&self) -> bool {
        self.passed
    }

    fn failed_cases(&self) -> Vec<&str> {
        self.cases
            .iter()
            .filter(|case| !case.passed)
            .map(|case| case.case.as_str())
            .collect()
    }

    fn probed_on(&self) -> String {
        ProbeRecord::probed_on(self)
    }
}

/// How the rule and the probe name Gemini CLI.
pub const WORDS: AgentWords = AgentWords {
    name: "Gemini CLI",
    probe_command: "gatehouse probe gemini",
};

/// Applies the kit's standard rule ([`gatehouse_harness::record::standard_unlock`]): verified
/// only for a passing record whose version equals the version of the Gemini CLI in use.
/// `version_in_use` is asked only when the record passed.
pub fn unlock(
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
) -> Unlock {
    standard_unlock(WORDS, record, version_in_use)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule itself is tested in the kit; here: this agent's words, and this record's file.
    #[test]
    fn the_rule_names_gemini_and_its_probe_and_the_record_survives_a_write_and_a_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = record_path(&folder.path().join("state"));
        let unlock_read = || unlock(read(&path), |_| Ok("0.61.0".to_owned()));
        assert!(
            matches!(unlock_read(), Unlock::ReadOnly { reason } if reason.contains("this Gemini CLI honours gatehouse's answers; run `gatehouse probe gemini`"))
        );
        let record = ProbeRecord {
            gemini_version: "0.61.0".into(),
            gemini_executable: "/usr/bin/gemini".into(),
            probed_at: Timestamp::parse_rfc3339("2026-11-30T03:00:00Z").unwrap(),
            passed: true,
            cases: vec![CaseResult {
                case: "allow".into(),
                passed: true,
                evidence: "ran".into(),
            }],
            gatehouse_version: "0.1.0".into(),
        };
        write(&path, &record).unwrap();
        assert_eq!(read(&path).unwrap(), Some(record.clone()));
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

    /// A `gemini-probe.json` exactly as gatehouse wrote it before Gemini was on the kit's record.
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
        let path = record_path(folder.path());
        std::fs::write(&path, RECORD_WRITTEN_BEFORE_THE_KIT).unwrap();
        assert_eq!(
            unlock(read(&path), |_| Ok("0.61.0".to_owned())),
            Unlock::Verified {
                version: "0.61.0".into(),
                evidence: "by probe on 2026-11-30 for Gemini CLI 0.61.0".into()
            }
        );
        assert!(matches!(
            unlock(read(&path), |_| Ok("0.62.0".to_owned())),
            Unlock::ReadOnly { reason } if reason == "the probe passed for Gemini CLI 0.61.0, but Gemini CLI 0.62.0 is in use; run `gatehouse probe gemini` for this version"
        ));
        let record = read(&path).unwrap().unwrap();
        std::fs::remove_file(&path).unwrap();
        write(&path, &record).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            RECORD_WRITTEN_BEFORE_THE_KIT
        );
    }
}
