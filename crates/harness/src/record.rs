//! A probe's record of what it proved, kept as JSON in gatehouse's state folder: read (a missing
//! record is none yet) and written atomically (a temporary file renamed over it), whatever the
//! agent. The record of a standard probe ([`ProbeRecord`]) and the standard unlock rule
//! ([`standard_unlock`]) are here once, and the same rule per group of cases
//! ([`grouped_unlock`]) for an agent whose probe proves more than one set of answers.
//!
//! The standard rule: answers are verified only while the record says the probe passed and its
//! version equals the version of the agent in use. No record, a record that cannot be read, a
//! failed probe, a version that cannot be read or a different version: read-only, with a reason
//! that says what to do.

use std::fmt::Display;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use gatehouse_core::Timestamp;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::probe::CaseResult;

/// Why a probe record could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read the probe record {path}: {source}; run the probe again")]
    Read { path: PathBuf, source: io::Error },
    #[error("the probe record {path} is not valid: {source}; run the probe again")]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot write the probe record {path}: {source}; check that folder's permissions, then run the probe again")]
    Write { path: PathBuf, source: io::Error },
}

/// Reads the record at `path`; a missing file is `Ok(None)`.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, RecordError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RecordError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|source| RecordError::Invalid {
            path: path.to_path_buf(),
            source,
        })
}

/// Writes the record atomically, creating its folder.
pub fn write<T: Serialize>(path: &Path, record: &T) -> Result<(), RecordError> {
    let write_error = |source| RecordError::Write {
        path: path.to_path_buf(),
        source,
    };
    let folder = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder).map_err(write_error)?;
    let mut text = serde_json::to_string_pretty(record)
        .map_err(|error| write_error(io::Error::other(error)))?;
    text.push('\n');
    write_atomically(path, &text).map_err(write_error)
}

/// Writes `text` to a temporary file beside `path`, readable by its owner only, and renames it
/// over `path` (a symbolic link there is replaced, never followed): a reader sees the old text
/// or the new, never a part. The folder must exist.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = folder.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let _ = fs::remove_file(&temporary);
    let result = options
        .open(&temporary)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
        })
        .and_then(|()| fs::rename(&temporary, path));
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Whether gatehouse may answer an agent's prompts, by the standard rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unlock {
    /// A passing probe matches the agent in use; `evidence` says which probe.
    Verified { version: String, evidence: String },
    /// Read-only; `reason` says why and what to do.
    ReadOnly { reason: String },
}

/// What the standard rule reads of an adapter's probe record.
pub trait StandardRecord {
    /// The version of the agent the probe ran against.
    fn agent_version(&self) -> &str;
    /// Whether every case passed.
    fn passed(&self) -> bool;
    /// The names of the cases that failed.
    fn failed_cases(&self) -> Vec<&str>;
    /// The day of the probe, such as `2026-11-30`.
    fn probed_on(&self) -> String;
}

/// How the rule names the agent: `name` (such as `Copilot CLI`), and the adapter's id (such as
/// `copilot`), which names the command that probes it ([`AgentWords::probe_command`]).
#[derive(Debug, Clone, Copy)]
pub struct AgentWords {
    pub name: &'static str,
    pub adapter: &'static str,
}

impl AgentWords {
    /// The command that probes the agent, such as `gatehouse probe copilot`.
    pub fn probe_command(&self) -> String {
        format!("gatehouse probe {}", self.adapter)
    }
}

/// Applies the standard rule. `version_in_use` is asked only when the record passed, so that the
/// common case (no probe yet) costs one failed file open.
pub fn standard_unlock<R: StandardRecord, E: Display>(
    words: AgentWords,
    record: Result<Option<R>, RecordError>,
    version_in_use: impl FnOnce(&R) -> Result<String, E>,
) -> Unlock {
    let (name, probe_command) = (words.name, words.probe_command());
    let read_only = |reason: String| Unlock::ReadOnly { reason };
    let record = match record {
        Ok(Some(record)) => record,
        Ok(None) => {
            return read_only(format!("no probe has checked that this {name} honours gatehouse's answers; run `{probe_command}`"))
        }
        Err(error) => return read_only(error.to_string()),
    };
    if !record.passed() {
        return read_only(format!(
            "the probe of {name} {} on {} failed ({}); see `{probe_command}`",
            record.agent_version(),
            record.probed_on(),
            record.failed_cases().join(", ")
        ));
    }
    match version_in_use(&record) {
        Err(error) => read_only(format!("the version of the {name} in use cannot be read: {error}")),
        Ok(version) if version != record.agent_version() => read_only(format!(
            "the probe passed for {name} {}, but {name} {version} is in use; run `{probe_command}` for this version",
            record.agent_version()
        )),
        Ok(version) => Unlock::Verified {
            evidence: format!("by probe on {} for {name} {version}", record.probed_on()),
            version,
        },
    }
}

/// A set of probe cases that unlocks something on its own, such as Codex's patch cases: it is
/// unlocked by the standard rule over its cases only, so a failed case elsewhere does not lock
/// it, and a record that holds none of its cases (from a probe that came before them) leaves it
/// read-only, saying so.
#[derive(Debug, Clone, Copy)]
pub struct UnlockGroup {
    /// What the cases prove, for people, such as `file changes (apply_patch)`.
    pub proves: &'static str,
    /// The cases' names; empty: every case of the record (the standard rule).
    pub cases: &'static [&'static str],
}

impl UnlockGroup {
    /// The standard group: every case of the record.
    pub const EVERY_CASE: UnlockGroup = UnlockGroup {
        proves: "",
        cases: &[],
    };
}

/// The record as one group's cases see it.
struct GroupView<'a> {
    record: &'a ProbeRecord,
    group: &'a UnlockGroup,
}

impl GroupView<'_> {
    fn of_the_group(&self, name: &str) -> bool {
        self.group.cases.is_empty() || self.group.cases.contains(&name)
    }

    /// Whether the record lacks one of the group's cases.
    fn missing(&self) -> bool {
        self.group
            .cases
            .iter()
            .any(|name| !self.record.cases.iter().any(|case| case.case == *name))
    }
}

impl StandardRecord for GroupView<'_> {
    fn agent_version(&self) -> &str {
        &self.record.version
    }

    fn passed(&self) -> bool {
        if self.group.cases.is_empty() {
            return self.record.passed;
        }
        !self.missing()
            && self
                .record
                .cases
                .iter()
                .filter(|case| self.of_the_group(&case.case))
                .all(|case| case.passed)
    }

    fn failed_cases(&self) -> Vec<&str> {
        self.record
            .cases
            .iter()
            .filter(|case| self.of_the_group(&case.case) && !case.passed)
            .map(|case| case.case.as_str())
            .collect()
    }

    fn probed_on(&self) -> String {
        self.record.probed_on()
    }
}

/// The standard rule for each of `groups`, over that group's cases only (in their order). A
/// group whose cases the record does not all hold (a record from an older probe) stays read-only
/// and says so, so an old record never unlocks what it did not check. `version_in_use` is asked
/// at most once, and only when some group passed.
pub fn grouped_unlock<E: Display>(
    words: AgentWords,
    groups: &[UnlockGroup],
    record: Result<Option<ProbeRecord>, RecordError>,
    version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, E>,
) -> Vec<Unlock> {
    let record = match record {
        Ok(Some(record)) => record,
        other => {
            let read_only = standard_unlock(words, other, |record: &ProbeRecord| {
                Ok::<_, String>(record.version.clone())
            });
            return vec![read_only; groups.len()];
        }
    };
    let view = |group| GroupView {
        record: &record,
        group,
    };
    let version = if groups.iter().any(|group| view(group).passed()) {
        version_in_use(&record).map_err(|error| error.to_string())
    } else {
        Err(String::new())
    };
    let one = |group| {
        let view = view(group);
        if view.missing() {
            return Unlock::ReadOnly {
                reason: format!(
                    "the probe of {} {} on {} did not check {} (it came before gatehouse could); run `{}` again",
                    words.name,
                    record.version,
                    record.probed_on(),
                    group.proves,
                    words.probe_command()
                ),
            };
        }
        standard_unlock(words, Ok(Some(view)), |_| version.clone())
    };
    groups.iter().map(one).collect()
}

/// The record of a standard probe (allow, deny, no verdict), whatever the agent: saved as
/// `<id>-probe.json` in gatehouse's state folder, with the agent's version and executable under
/// `<id>_version` and `<id>_executable` (as `codex_version` and `copilot_version` have always
/// been written), so records written before the kit had it still read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeRecord {
    /// The adapter's id, such as `copilot`: it names the file and the two agent keys.
    pub agent: &'static str,
    /// The version the probed agent printed, such as `1.0.102`.
    pub version: String,
    /// The agent's executable that was probed.
    pub executable: PathBuf,
    /// When the probe ran.
    pub probed_at: Timestamp,
    /// Whether every case passed.
    pub passed: bool,
    pub cases: Vec<CaseResult>,
    /// The gatehouse that ran the probe.
    pub gatehouse_version: String,
}

/// A [`ProbeRecord`] as its file holds it, with the agent keys named generically.
#[derive(Serialize, Deserialize)]
struct StoredRecord {
    version: String,
    executable: PathBuf,
    probed_at: Timestamp,
    passed: bool,
    cases: Vec<CaseResult>,
    gatehouse_version: String,
}

impl ProbeRecord {
    /// The record's file name in a state folder for the adapter `agent`.
    pub fn file_name(agent: &str) -> String {
        format!("{agent}-probe.json")
    }

    /// Where the record of the adapter `agent` lives inside a state folder.
    pub fn path(state_dir: &Path, agent: &str) -> PathBuf {
        state_dir.join(Self::file_name(agent))
    }

    /// Reads the record of the adapter `agent` from `state_dir`; a missing file is `Ok(None)`.
    pub fn read(state_dir: &Path, agent: &'static str) -> Result<Option<ProbeRecord>, RecordError> {
        let path = Self::path(state_dir, agent);
        let Some(mut value) = read::<serde_json::Value>(&path)? else {
            return Ok(None);
        };
        if let Some(fields) = value.as_object_mut() {
            for (generic, named) in Self::agent_keys(agent) {
                if let Some(field) = fields.remove(&named) {
                    fields.insert(generic.to_owned(), field);
                }
            }
        }
        let stored: StoredRecord = serde_json::from_value(value)
            .map_err(|source| RecordError::Invalid { path, source })?;
        Ok(Some(ProbeRecord {
            agent,
            version: stored.version,
            executable: stored.executable,
            probed_at: stored.probed_at,
            passed: stored.passed,
            cases: stored.cases,
            gatehouse_version: stored.gatehouse_version,
        }))
    }

    /// Writes the record atomically into `state_dir` (see [`write`]).
    pub fn write(&self, state_dir: &Path) -> Result<(), RecordError> {
        write(&Self::path(state_dir, self.agent), self)
    }

    /// The day of the probe, such as `2026-11-30`.
    pub fn probed_on(&self) -> String {
        self.probed_at.to_string().chars().take(10).collect()
    }

    fn agent_keys(agent: &str) -> [(&'static str, String); 2] {
        [
            ("version", format!("{agent}_version")),
            ("executable", format!("{agent}_executable")),
        ]
    }
}

impl Serialize for ProbeRecord {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let stored = StoredRecord {
            version: self.version.clone(),
            executable: self.executable.clone(),
            probed_at: self.probed_at,
            passed: self.passed,
            cases: self.cases.clone(),
            gatehouse_version: self.gatehouse_version.clone(),
        };
        let value = serde_json::to_value(stored).map_err(serde::ser::Error::custom)?;
        let serde_json::Value::Object(fields) = value else {
            return Err(serde::ser::Error::custom("a probe record is a JSON object"));
        };
        // The agent keys first, in the order records have always had.
        let mut named = serde_json::Map::new();
        for (generic, agent_key) in Self::agent_keys(self.agent) {
            named.insert(agent_key, fields[generic].clone());
        }
        for (key, field) in fields {
            if key != "version" && key != "executable" {
                named.insert(key, field);
            }
        }
        named.serialize(serializer)
    }
}

impl StandardRecord for ProbeRecord {
    fn agent_version(&self) -> &str {
        &self.version
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_written_and_read_back_and_a_missing_one_is_none() {
        let folder =
            std::env::temp_dir().join(format!("gatehouse-harness-record-{}", std::process::id()));
        let path = folder.join("state/agent-probe.json");
        assert!(read::<Vec<String>>(&path).unwrap().is_none());
        write(&path, &vec!["passed".to_owned()]).unwrap();
        assert_eq!(
            read::<Vec<String>>(&path).unwrap(),
            Some(vec!["passed".to_owned()])
        );
        fs::write(&path, "{not json").unwrap();
        assert!(matches!(
            read::<Vec<String>>(&path),
            Err(RecordError::Invalid { .. })
        ));
        fs::remove_dir_all(&folder).unwrap();
    }

    struct Probed {
        version: &'static str,
        failed: Vec<&'static str>,
    }

    impl StandardRecord for Probed {
        fn agent_version(&self) -> &str {
            self.version
        }
        fn passed(&self) -> bool {
            self.failed.is_empty()
        }
        fn failed_cases(&self) -> Vec<&str> {
            self.failed.clone()
        }
        fn probed_on(&self) -> String {
            "2026-11-30".into()
        }
    }

    const WORDS: AgentWords = AgentWords {
        name: "Agent",
        adapter: "agent",
    };

    fn passing(version: &'static str) -> Result<Option<Probed>, RecordError> {
        Ok(Some(Probed {
            version,
            failed: Vec::new(),
        }))
    }

    fn in_use(version: &str) -> impl FnOnce(&Probed) -> Result<String, String> + '_ {
        move |_| Ok(version.to_owned())
    }

    fn reason(unlock: Unlock) -> String {
        match unlock {
            Unlock::ReadOnly { reason } => reason,
            verified => panic!("{verified:?}"),
        }
    }

    #[test]
    fn a_passing_record_for_the_version_in_use_verifies() {
        assert_eq!(
            standard_unlock(WORDS, passing("1.0"), in_use("1.0")),
            Unlock::Verified {
                version: "1.0".into(),
                evidence: "by probe on 2026-11-30 for Agent 1.0".into()
            }
        );
    }

    #[test]
    fn another_version_is_read_only() {
        let reason = reason(standard_unlock(WORDS, passing("1.0"), in_use("1.1")));
        assert!(
            reason.contains(
                "passed for Agent 1.0, but Agent 1.1 is in use; run `gatehouse probe agent`"
            ),
            "{reason}"
        );
    }

    #[test]
    fn a_failed_probe_is_read_only_and_names_the_failed_case_without_asking_the_version() {
        let failed = Ok(Some(Probed {
            version: "1.0",
            failed: vec!["deny"],
        }));
        let reason = reason(standard_unlock(
            WORDS,
            failed,
            |_: &Probed| -> Result<String, String> {
                panic!("no version needed for a failed probe")
            },
        ));
        assert!(reason.contains("failed (deny)"), "{reason}");
    }

    #[test]
    fn no_record_is_read_only_and_the_version_is_not_even_asked() {
        let reason = reason(standard_unlock(
            WORDS,
            Ok(None),
            |_: &Probed| -> Result<String, String> { panic!("no version needed without a record") },
        ));
        assert!(reason.contains("run `gatehouse probe agent`"), "{reason}");
    }

    #[test]
    fn an_unreadable_version_or_record_is_read_only() {
        let reason1 = reason(standard_unlock(WORDS, passing("1.0"), |_| {
            Err::<String, _>("no such file")
        }));
        assert!(
            reason1.contains("cannot be read: no such file"),
            "{reason1}"
        );
        let broken = Err(RecordError::Write {
            path: "/x".into(),
            source: io::Error::other("full"),
        });
        let reason2 = reason(standard_unlock(WORDS, broken, in_use("1.0")));
        assert!(
            reason2.contains("cannot write the probe record /x"),
            "{reason2}"
        );
    }

    #[test]
    #[cfg(unix)]
    fn an_atomic_write_replaces_the_file_owner_only_and_leaves_no_temporary_file() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("agent-probe.json");
        write_atomically(&path, "old").unwrap();
        write_atomically(&path, "new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let names: Vec<_> = fs::read_dir(folder.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("agent-probe.json")]);
    }
}
