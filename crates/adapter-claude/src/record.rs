//! The probe record: what the last `gatehouse probe claude` found, saved as `claude-probe.json`
//! in gatehouse's state folder, and the rule that turns it into what is unlocked.
//!
//! The rule ([`unlock`]): a capability ([`Capability`]) is verified only while the record's
//! Claude Code version equals the version in use and every case of that capability passed. No
//! record, an unreadable one, another version, or a failed case: read-only, with a reason that
//! names what to do (and the failed case).

use std::path::{Path, PathBuf};

use gatehouse_core::Timestamp;
use serde::{Deserialize, Serialize};

use crate::version::VersionError;

/// The record's file name inside gatehouse's state folder.
pub const RECORD_FILE_NAME: &str = "claude-probe.json";

/// What a probe can unlock beyond Bash once/deny and questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    /// `once` and `deny` for Write, Edit and MultiEdit.
    Edits,
    /// `always`, by one of Claude Code's own suggestions.
    Always,
    /// `once` (approve) and `deny` for plans (ExitPlanMode).
    Plan,
}

impl Capability {
    pub const ALL: [Capability; 3] = [Capability::Edits, Capability::Always, Capability::Plan];

    pub fn words(self) -> &'static str {
        match self {
            Capability::Edits => "once and deny for file edits",
            Capability::Always => "always, from Claude Code's own suggestions",
            Capability::Plan => "plan approval and denial",
        }
    }
}

/// The outcome of one probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// The version the probed Claude Code printed, such as `2.1.332`.
    pub claude_version: String,
    /// The executable that was probed.
    pub claude_executable: PathBuf,
    pub probed_at: Timestamp,
    /// Whether every case passed.
    pub passed: bool,
    pub cases: Vec<CaseResult>,
    /// The gatehouse that ran the probe.
    pub gatehouse_version: String,
}

/// One case of the probe, and what was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseResult {
    /// Such as `write-once`.
    pub case: String,
    /// What the case proves.
    pub capability: Capability,
    pub passed: bool,
    /// What was observed, in words.
    pub evidence: String,
}

impl ProbeRecord {
    /// The day of the probe, such as `2026-12-01`.
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

/// Whether one capability is unlocked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Proven for the version in use; the evidence names the probe.
    Verified(String),
    /// Read-only; the reason says why and what to do.
    ReadOnly(String),
}

/// What is unlocked, capability by capability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlocks {
    pub edits: Gate,
    pub always: Gate,
    pub plan: Gate,
}

impl Unlocks {
    /// Everything read-only for one reason.
    pub fn none(reason: &str) -> Unlocks {
        let gate = || Gate::ReadOnly(reason.to_owned());
        Unlocks {
            edits: gate(),
            always: gate(),
            plan: gate(),
        }
    }

    /// The most a probe can unlock, for the hook's own check.
    pub fn all() -> Unlocks {
        let gate = || Gate::Verified(String::new());
        Unlocks {
            edits: gate(),
            always: gate(),
            plan: gate(),
        }
    }

    pub fn gate(&self, capability: Capability) -> &Gate {
        match capability {
            Capability::Edits => &self.edits,
            Capability::Always => &self.always,
            Capability::Plan => &self.plan,
        }
    }

    fn gate_mut(&mut self, capability: Capability) -> &mut Gate {
        match capability {
            Capability::Edits => &mut self.edits,
            Capability::Always => &mut self.always,
            Capability::Plan => &mut self.plan,
        }
    }
}

/// Applies the rule. `version_in_use` is asked only when a record exists.
pub fn unlock(
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
) -> Unlocks {
    let record = match record {
        Ok(Some(record)) => record,
        Ok(None) => {
            return Unlocks::none(
                "no probe has checked this Claude Code version; run `gatehouse probe claude`",
            )
        }
        Err(error) => return Unlocks::none(&error.to_string()),
    };
    let version = match version_in_use(&record) {
        Err(error) => {
            return Unlocks::none(&format!(
                "the version of the Claude Code in use cannot be read: {error}"
            ))
        }
        Ok(version) if version != record.claude_version => {
            return Unlocks::none(&format!(
                "the probe ran for Claude Code {}, but Claude Code {version} is in use; run `gatehouse probe claude` for this version",
                record.claude_version
            ))
        }
        Ok(version) => version,
    };
    let mut unlocks = Unlocks::none("");
    for capability in Capability::ALL {
        let cases: Vec<&CaseResult> = record
            .cases
            .iter()
            .filter(|case| case.capability == capability)
            .collect();
        let failed: Vec<&str> = cases
            .iter()
            .filter(|case| !case.passed)
            .map(|case| case.case.as_str())
            .collect();
        *unlocks.gate_mut(capability) = if cases.is_empty() {
            Gate::ReadOnly(format!(
                "the probe of Claude Code {version} did not check it; run `gatehouse probe claude`"
            ))
        } else if !failed.is_empty() {
            Gate::ReadOnly(format!(
                "the probe of Claude Code {version} on {} failed ({}); see `gatehouse probe claude`",
                record.probed_on(),
                failed.join(", ")
            ))
        } else {
            Gate::Verified(format!(
                "by probe on {} for Claude Code {version}",
                record.probed_on()
            ))
        };
    }
    unlocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(version: &str, failed: &[&str]) -> ProbeRecord {
        let case = |name: &str, capability| CaseResult {
            case: name.into(),
            capability,
            passed: !failed.contains(&name),
            evidence: "seen".into(),
        };
        let cases = vec![
            case("write-once", Capability::Edits),
            case("edit-deny", Capability::Edits),
            case("always-session", Capability::Always),
            case("plan-deny", Capability::Plan),
        ];
        ProbeRecord {
            claude_version: version.into(),
            claude_executable: "/usr/bin/claude".into(),
            probed_at: Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
            passed: failed.is_empty(),
            cases,
            gatehouse_version: "0.1.0".into(),
        }
    }

    fn in_use(version: &str) -> impl FnOnce(&ProbeRecord) -> Result<String, VersionError> + '_ {
        move |_| Ok(version.to_owned())
    }

    #[test]
    fn a_passing_record_for_the_version_in_use_unlocks_everything() {
        let unlocks = unlock(Ok(Some(record("2.1.332", &[]))), in_use("2.1.332"));
        for capability in Capability::ALL {
            assert_eq!(
                unlocks.gate(capability),
                &Gate::Verified("by probe on 2026-12-01 for Claude Code 2.1.332".into())
            );
        }
    }

    #[test]
    fn a_failed_case_locks_its_capability_only_and_names_itself() {
        let unlocks = unlock(
            Ok(Some(record("2.1.332", &["edit-deny"]))),
            in_use("2.1.332"),
        );
        let Gate::ReadOnly(reason) = &unlocks.edits else {
            panic!()
        };
        assert!(reason.contains("failed (edit-deny)"), "{reason}");
        assert!(matches!(unlocks.always, Gate::Verified(_)));
        assert!(matches!(unlocks.plan, Gate::Verified(_)));
    }

    #[test]
    fn another_version_or_no_record_unlocks_nothing() {
        let unlocks = unlock(Ok(Some(record("2.1.332", &[]))), in_use("2.1.400"));
        for capability in Capability::ALL {
            let Gate::ReadOnly(reason) = unlocks.gate(capability) else {
                panic!()
            };
            assert!(
                reason.contains("but Claude Code 2.1.400 is in use"),
                "{reason}"
            );
        }
        let unlocks = unlock(Ok(None), |_| panic!("no version needed without a record"));
        assert!(
            matches!(unlocks.edits, Gate::ReadOnly(reason) if reason.contains("gatehouse probe claude"))
        );
    }

    #[test]
    fn a_record_survives_a_write_and_a_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = record_path(&folder.path().join("state"));
        assert!(read(&path).unwrap().is_none());
        write(&path, &record("2.1.332", &[])).unwrap();
        assert_eq!(read(&path).unwrap(), Some(record("2.1.332", &[])));
        std::fs::write(&path, "{ not json").unwrap();
        assert!(matches!(read(&path), Err(RecordError::Invalid { .. })));
    }
}
