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

/// Whether gatehouse may answer Copilot CLI's permission prompts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unlock {
    /// A passing probe matches the Copilot CLI in use; `evidence` says which probe.
    Verified { version: String, evidence: String },
    /// Read-only; `reason` says why and what to do.
    ReadOnly { reason: String },
}

/// Applies the rule: verified only for a passing record whose version equals the version of the
/// Copilot CLI in use. `version_in_use` is asked only when the record passed, so that the common case
/// (no probe yet) costs one failed file open.
pub fn unlock(
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
) -> Unlock {
    let read_only = |reason: String| Unlock::ReadOnly { reason };
    let record = match record {
        Ok(Some(record)) => record,
        Ok(None) => {
            return read_only("no probe has checked that this Copilot CLI honours gatehouse's answers; run `gatehouse probe copilot`".into())
        }
        Err(error) => return read_only(error.to_string()),
    };
    if !record.passed {
        let failed: Vec<&str> = record
            .cases
            .iter()
            .filter(|case| !case.passed)
            .map(|case| case.case.as_str())
            .collect();
        return read_only(format!(
            "the probe of Copilot CLI {} on {} failed ({}); see `gatehouse probe copilot`",
            record.copilot_version,
            record.probed_on(),
            failed.join(", ")
        ));
    }
    match version_in_use(&record) {
        Err(error) => read_only(format!("the version of the Copilot CLI in use cannot be read: {error}")),
        Ok(version) if version != record.copilot_version => read_only(format!(
            "the probe passed for Copilot CLI {}, but Copilot CLI {version} is in use; run `gatehouse probe copilot` for this version",
            record.copilot_version
        )),
        Ok(version) => Unlock::Verified {
            evidence: format!("by probe on {} for Copilot CLI {version}", record.probed_on()),
            version,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(version: &str, passed: bool) -> ProbeRecord {
        ProbeRecord {
            copilot_version: version.into(),
            copilot_executable: "/usr/bin/copilot".into(),
            probed_at: Timestamp::parse_rfc3339("2026-11-30T03:00:00Z").unwrap(),
            passed,
            cases: vec![
                CaseResult {
                    case: "allow".into(),
                    passed: true,
                    evidence: "ran".into(),
                },
                CaseResult {
                    case: "deny".into(),
                    passed,
                    evidence: "did not run".into(),
                },
            ],
            gatehouse_version: "0.1.0".into(),
        }
    }

    fn in_use(version: &str) -> impl FnOnce(&ProbeRecord) -> Result<String, VersionError> + '_ {
        move |_| Ok(version.to_owned())
    }

    #[test]
    fn a_passing_record_for_the_version_in_use_verifies() {
        let unlock = unlock(Ok(Some(record("1.0.102", true))), in_use("1.0.102"));
        assert_eq!(
            unlock,
            Unlock::Verified {
                version: "1.0.102".into(),
                evidence: "by probe on 2026-11-30 for Copilot CLI 1.0.102".into()
            }
        );
    }

    #[test]
    fn another_version_is_read_only() {
        let Unlock::ReadOnly { reason } =
            unlock(Ok(Some(record("1.0.102", true))), in_use("1.0.103"))
        else {
            panic!()
        };
        assert!(
            reason.contains("passed for Copilot CLI 1.0.102, but Copilot CLI 1.0.103 is in use"),
            "{reason}"
        );
    }

    #[test]
    fn a_failed_probe_is_read_only_and_names_the_failed_case() {
        let Unlock::ReadOnly { reason } =
            unlock(Ok(Some(record("1.0.102", false))), in_use("1.0.102"))
        else {
            panic!()
        };
        assert!(reason.contains("failed (deny)"), "{reason}");
    }

    #[test]
    fn no_record_is_read_only_and_the_version_is_not_even_asked() {
        let unlock = unlock(Ok(None), |_| panic!("no version needed without a record"));
        assert!(
            matches!(unlock, Unlock::ReadOnly { reason } if reason.contains("gatehouse probe copilot"))
        );
    }

    #[test]
    fn an_unreadable_version_is_read_only() {
        let unlock = unlock(Ok(Some(record("1.0.102", true))), |_| {
            Err(crate::version::not_found())
        });
        assert!(matches!(unlock, Unlock::ReadOnly { reason } if reason.contains("cannot be read")));
    }

    #[test]
    fn an_unreadable_record_is_read_only() {
        let folder = tempfile::tempdir().unwrap();
        let path = record_path(folder.path());
        std::fs::write(&path, "{ not json").unwrap();
        let unlock = unlock(read(&path), |_| {
            panic!("no version needed for a broken record")
        });
        assert!(matches!(unlock, Unlock::ReadOnly { reason } if reason.contains("is not valid")));
    }

    #[test]
    fn a_record_survives_a_write_and_a_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = record_path(&folder.path().join("state"));
        assert!(read(&path).unwrap().is_none());
        write(&path, &record("1.0.102", true)).unwrap();
        assert_eq!(read(&path).unwrap(), Some(record("1.0.102", true)));
    }
}
