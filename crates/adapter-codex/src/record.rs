//! The probe record: what the last `gatehouse probe codex` found, saved as
//! `codex-probe.json` in gatehouse's state folder, and the rule that turns it into Codex's
//! capability flags.
//!
//! The rule ([`unlock`]): `once` and `deny` are verified only while the record says the probe
//! passed and its Codex version equals the version of the Codex in use. No record, a record that
//! cannot be read, a failed probe, a version that cannot be read or a different version: read-only,
//! with a reason that says what to do.
//!
//! Per kind ([`unlocks`]): the same rule for each of shell commands, file changes (patches) and
//! "always" (a rule for the next session), each over its own cases only. A kind whose cases the
//! record does not hold (a record from an older probe, without the patch cases) stays read-only
//! with the reason, so an old record never unlocks what it did not check.

use std::path::{Path, PathBuf};

use gatehouse_core::Timestamp;
use serde::{Deserialize, Serialize};

use gatehouse_harness::record::{standard_unlock, AgentWords, StandardRecord};

use crate::version::VersionError;

/// The record's file name inside gatehouse's state folder.
pub const RECORD_FILE_NAME: &str = "codex-probe.json";

/// The outcome of one probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// The version the probed Codex printed, such as `0.171.0`.
    pub codex_version: String,
    /// The Codex executable that was probed.
    pub codex_executable: PathBuf,
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

/// Whether gatehouse may answer Codex's permission prompts: the kit's standard rule.
pub use gatehouse_harness::record::Unlock;

impl StandardRecord for ProbeRecord {
    fn agent_version(&self) -> &str {
        &self.codex_version
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

/// How the rule and the probe name Codex.
pub const WORDS: AgentWords = AgentWords {
    name: "Codex",
    probe_command: "gatehouse probe codex",
};

/// Applies the kit's standard rule ([`gatehouse_harness::record::standard_unlock`]): verified
/// only for a passing record whose version equals the version of the Codex in use.
/// `version_in_use` is asked only when the record passed.
pub fn unlock(
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
) -> Unlock {
    standard_unlock(WORDS, record, version_in_use)
}

/// What one probe proves, by its cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Shell commands (`Bash`): the standard cases.
    Shell,
    /// File changes (`apply_patch`).
    Patch,
    /// "always": a rule written now counts from the next session on.
    Always,
}

/// The standard cases, for shell commands.
pub const SHELL_CASES: [&str; 3] = ["allow", "deny", "no-verdict"];
/// The cases for patches.
pub const PATCH_CASES: [&str; 3] = ["patch-allow", "patch-deny", "patch-no-verdict"];
/// The case for "always".
pub const ALWAYS_CASES: [&str; 1] = ["always-next-session"];

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Shell, Kind::Patch, Kind::Always];

    /// The names of the cases that prove this kind.
    pub fn cases(self) -> &'static [&'static str] {
        match self {
            Kind::Shell => &SHELL_CASES,
            Kind::Patch => &PATCH_CASES,
            Kind::Always => &ALWAYS_CASES,
        }
    }

    /// What the kind is, for people.
    pub fn words(self) -> &'static str {
        match self {
            Kind::Shell => "shell commands",
            Kind::Patch => "file changes (apply_patch)",
            Kind::Always => "\"always\" (a rule for the next session)",
        }
    }
}

/// Whether each kind is unlocked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlocks {
    pub shell: Unlock,
    pub patch: Unlock,
    pub always: Unlock,
}

impl Unlocks {
    /// Every kind read-only for the same reason.
    pub fn read_only(reason: impl Into<String>) -> Unlocks {
        let reason = reason.into();
        let read_only = Unlock::ReadOnly { reason };
        Unlocks {
            shell: read_only.clone(),
            patch: read_only.clone(),
            always: read_only,
        }
    }

    /// Every kind verified, with no evidence: the most any record can unlock.
    pub fn at_best() -> Unlocks {
        let verified = Unlock::Verified {
            version: String::new(),
            evidence: String::new(),
        };
        Unlocks {
            shell: verified.clone(),
            patch: verified.clone(),
            always: verified,
        }
    }

    pub fn of(&self, kind: Kind) -> &Unlock {
        match kind {
            Kind::Shell => &self.shell,
            Kind::Patch => &self.patch,
            Kind::Always => &self.always,
        }
    }
}

/// The record as one kind's cases see it.
struct KindView<'a> {
    record: &'a ProbeRecord,
    kind: Kind,
}

impl KindView<'_> {
    fn missing(&self) -> bool {
        self.kind
            .cases()
            .iter()
            .any(|name| !self.record.cases.iter().any(|case| case.case == *name))
    }
}

impl StandardRecord for KindView<'_> {
    fn agent_version(&self) -> &str {
        &self.record.codex_version
    }

    fn passed(&self) -> bool {
        !self.missing()
            && self
                .record
                .cases
                .iter()
                .filter(|case| self.kind.cases().contains(&case.case.as_str()))
                .all(|case| case.passed)
    }

    fn failed_cases(&self) -> Vec<&str> {
        self.record
            .cases
            .iter()
            .filter(|case| self.kind.cases().contains(&case.case.as_str()) && !case.passed)
            .map(|case| case.case.as_str())
            .collect()
    }

    fn probed_on(&self) -> String {
        self.record.probed_on()
    }
}

/// The standard rule for each kind, over that kind's cases only. `version_in_use` is asked at
/// most once, and only when some kind passed.
pub fn unlocks(
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
) -> Unlocks {
    let record = match record {
        Ok(Some(record)) => record,
        other => {
            let reason = match standard_unlock(WORDS, other, |record: &ProbeRecord| {
                Ok::<_, VersionError>(record.codex_version.clone())
            }) {
                Unlock::ReadOnly { reason } => reason,
                Unlock::Verified { .. } => unreachable!("no record verifies nothing"),
            };
            return Unlocks::read_only(reason);
        }
    };
    let view = |kind| KindView {
        record: &record,
        kind,
    };
    let version = if Kind::ALL.iter().any(|kind| view(*kind).passed()) {
        version_in_use(&record).map_err(|error| error.to_string())
    } else {
        Err(String::new())
    };
    let one = |kind: Kind| {
        let view = view(kind);
        if view.missing() {
            return Unlock::ReadOnly {
                reason: format!(
                    "the probe of Codex {} on {} did not check {} (it came before gatehouse could); run `{}` again",
                    record.codex_version,
                    record.probed_on(),
                    kind.words(),
                    WORDS.probe_command
                ),
            };
        }
        standard_unlock(WORDS, Ok(Some(view)), |_| version.clone())
    };
    Unlocks {
        shell: one(Kind::Shell),
        patch: one(Kind::Patch),
        always: one(Kind::Always),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule itself is tested in the kit; here: this agent's words, and this record's file.
    #[test]
    fn the_rule_names_codex_and_its_probe_and_the_record_survives_a_write_and_a_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = record_path(&folder.path().join("state"));
        let unlock_read = || unlock(read(&path), |_| Ok("0.171.0".to_owned()));
        assert!(
            matches!(unlock_read(), Unlock::ReadOnly { reason } if reason.contains("this Codex honours gatehouse's answers; run `gatehouse probe codex`"))
        );
        let record = ProbeRecord {
            codex_version: "0.171.0".into(),
            codex_executable: "/usr/bin/codex".into(),
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
                version: "0.171.0".into(),
                evidence: "by probe on 2026-11-30 for Codex 0.171.0".into()
            }
        );
        let another = unlock(Ok(Some(record)), |_| Ok("0.172.0".to_owned()));
        assert!(
            matches!(another, Unlock::ReadOnly { reason } if reason.contains("passed for Codex 0.171.0, but Codex 0.172.0 is in use"))
        );
    }

    fn record_with(cases: &[(&str, bool)]) -> ProbeRecord {
        ProbeRecord {
            codex_version: "0.171.0".into(),
            codex_executable: "/usr/bin/codex".into(),
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

    #[test]
    fn an_older_record_without_the_patch_cases_unlocks_shell_commands_only() {
        let old = record_with(&[("allow", true), ("deny", true), ("no-verdict", true)]);
        assert!(old.passed, "it passed every case it had");
        let unlocked = unlocks(Ok(Some(old)), |_| Ok("0.171.0".into()));
        assert!(matches!(unlocked.shell, Unlock::Verified { .. }));
        for read_only in [&unlocked.patch, &unlocked.always] {
            assert!(
                matches!(read_only, Unlock::ReadOnly { reason } if reason.contains("did not check") && reason.contains("run `gatehouse probe codex` again")),
                "{read_only:?}"
            );
        }
    }

    #[test]
    fn each_kind_is_unlocked_by_its_own_cases_for_the_version_in_use_only() {
        let all = unlocks(Ok(Some(record_with(&every_case("")))), |_| {
            Ok("0.171.0".into())
        });
        assert_eq!(all.patch, all.shell);
        assert!(matches!(all.always, Unlock::Verified { .. }));

        let patch_failed = unlocks(Ok(Some(record_with(&every_case("patch-deny")))), |_| {
            Ok("0.171.0".into())
        });
        assert!(matches!(patch_failed.shell, Unlock::Verified { .. }));
        assert!(matches!(patch_failed.always, Unlock::Verified { .. }));
        assert!(
            matches!(&patch_failed.patch, Unlock::ReadOnly { reason } if reason.contains("failed (patch-deny)")),
            "{:?}",
            patch_failed.patch
        );

        let other_version = unlocks(Ok(Some(record_with(&every_case("")))), |_| {
            Ok("0.172.0".into())
        });
        for kind in Kind::ALL {
            assert!(
                matches!(other_version.of(kind), Unlock::ReadOnly { reason } if reason.contains("but Codex 0.172.0 is in use"))
            );
        }
        let none = unlocks(Ok(None), |_| panic!("no version is asked without a record"));
        assert!(
            matches!(none.patch, Unlock::ReadOnly { reason } if reason.contains("run `gatehouse probe codex`"))
        );
    }
}
