//! The probe record: what the last `gatehouse probe opencode` found, saved as
//! `opencode-probe.json` in gatehouse's state folder, and the kit's standard rule that turns it
//! into OpenCode's capability flags: verified only while the record says the probe passed and
//! its OpenCode version equals the version of the OpenCode in use; otherwise read-only, with a
//! reason that says what to do.

use std::path::{Path, PathBuf};

use gatehouse_core::Timestamp;
use serde::{Deserialize, Serialize};

use gatehouse_harness::record::{standard_unlock, AgentWords, StandardRecord};

pub use gatehouse_harness::probe::CaseResult;
pub use gatehouse_harness::record::{RecordError, Unlock};

/// The record's file name inside gatehouse's state folder.
pub const RECORD_FILE_NAME: &str = "opencode-probe.json";

/// The outcome of one probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// The version the probed OpenCode printed, such as `1.18.33`.
    pub opencode_version: String,
    /// The OpenCode executable that was probed.
    pub opencode_executable: PathBuf,
    /// When the probe ran.
    pub probed_at: Timestamp,
    /// Whether every case passed.
    pub passed: bool,
    pub cases: Vec<CaseResult>,
    /// The gatehouse that ran the probe.
    pub gatehouse_version: String,
}

/// Where the record lives inside a state folder.
pub fn record_path(state_dir: &Path) -> PathBuf {
    state_dir.join(RECORD_FILE_NAME)
}

/// Reads the record; a missing file is `Ok(None)`.
pub fn read(path: &Path) -> Result<Option<ProbeRecord>, RecordError> {
    gatehouse_harness::record::read(path)
}

/// Writes the record atomically, creating the folder.
pub fn write(path: &Path, record: &ProbeRecord) -> Result<(), RecordError> {
    gatehouse_harness::record::write(path, record)
}

impl StandardRecord for ProbeRecord {
    fn agent_version(&self) -> &str {
        &self.opencode_version
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
        self.probed_at.to_string().chars().take(10).collect()
    }
}

/// How the rule and the probe name OpenCode.
pub const WORDS: AgentWords = AgentWords {
    name: "OpenCode",
    probe_command: "gatehouse probe opencode",
};

/// The kit's standard rule for OpenCode; `version_in_use` is asked only when the record passed.
pub fn unlock<E: std::fmt::Display>(
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, E>,
) -> Unlock {
    standard_unlock(WORDS, record, version_in_use)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_names_opencode_and_its_probe_and_the_record_survives_a_write_and_a_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = record_path(&folder.path().join("state"));
        let unlock_read = || unlock(read(&path), |_| Ok::<_, String>("1.18.33".to_owned()));
        assert!(
            matches!(unlock_read(), Unlock::ReadOnly { reason } if reason.contains("this OpenCode honours gatehouse's answers; run `gatehouse probe opencode`"))
        );
        let record = ProbeRecord {
            opencode_version: "1.18.33".into(),
            opencode_executable: "/usr/bin/opencode".into(),
            probed_at: Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
            passed: true,
            cases: vec![CaseResult {
                case: "once".into(),
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
                version: "1.18.33".into(),
                evidence: "by probe on 2026-12-01 for OpenCode 1.18.33".into()
            }
        );
        let another = unlock(Ok(Some(record)), |_| Ok::<_, String>("1.18.34".to_owned()));
        assert!(
            matches!(another, Unlock::ReadOnly { reason } if reason.contains("passed for OpenCode 1.18.33, but OpenCode 1.18.34 is in use"))
        );
    }
}
