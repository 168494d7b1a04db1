//! The probe record: what the last `gatehouse probe copilot` found, saved as
//! `copilot-probe.json` in gatehouse's state folder, and the rule that turns it into Copilot CLI's
//! capability flags.
//!
//! The rule ([`unlock`]): `once` and `deny` are verified only while the record says the probe
//! passed and its Copilot CLI version equals the version of the Copilot CLI in use. No record, a record that
//! cannot be read, a failed probe, a version that cannot be read or a different version: read-only,
//! with a reason that says what to do.

use std::path::{Path, PathBuf};

use gatehouse_core::Timestamp;
use serde::{Deserialize, Serialize};

use gatehouse_harness::record::{standard_unlock, AgentWords, StandardRecord};

use crate::version::VersionError;

/// The record's file name inside gatehouse's state folder.
pub const RECORD_FILE_NAME: &str = "copilot-probe.json";

/// The outcome of one probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// The version the probed Copilot CLI printed, such as `1.0.102`.
    pub copilot_version: String,
    /// The Copilot CLI executable that was probed.
    pub copilot_executable: PathBuf,
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

/// Whether gatehouse may answer Copilot CLI's permission prompts: the kit's standard rule.
pub use gatehouse_harness::record::Unlock;

impl StandardRecord for ProbeRecord {
    fn agent_version(&self) -> &str {
        &self.copilot_version
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

/// How the rule and the probe name Copilot CLI.
pub const WORDS: AgentWords = AgentWords {
    name: "Copilot CLI",
    probe_command: "gatehouse probe copilot",
};

/// Applies the kit's standard rule ([`gatehouse_harness::record::standard_unlock`]): verified
/// only for a passing record whose version equals the version of the Copilot CLI in use.
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
    fn the_rule_names_copilot_and_its_probe_and_the_record_survives_a_write_and_a_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = record_path(&folder.path().join("state"));
        let unlock_read = || unlock(read(&path), |_| Ok("1.0.102".to_owned()));
        assert!(
            matches!(unlock_read(), Unlock::ReadOnly { reason } if reason.contains("this Copilot CLI honours gatehouse's answers; run `gatehouse probe copilot`"))
        );
        let record = ProbeRecord {
            copilot_version: "1.0.102".into(),
            copilot_executable: "/usr/bin/copilot".into(),
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
                version: "1.0.102".into(),
                evidence: "by probe on 2026-11-30 for Copilot CLI 1.0.102".into()
            }
        );
        let another = unlock(Ok(Some(record)), |_| Ok("1.0.103".to_owned()));
        assert!(
            matches!(another, Unlock::ReadOnly { reason } if reason.contains("passed for Copilot CLI 1.0.102, but Copilot CLI 1.0.103 is in use"))
        );
    }
}
