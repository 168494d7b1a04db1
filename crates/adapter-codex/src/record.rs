//! What `gatehouse probe codex` proves, by its cases: the kit's probe record
//! ([`gatehouse_harness::record::ProbeRecord`], saved as `codex-probe.json` in gatehouse's state
//! folder with the keys `codex_version` and `codex_executable`, as it always was) read per kind.
//!
//! Per kind ([`Kind`], a group of the kit's unlock rule): shell commands, file changes (patches)
//! and "always" (a rule for the next session), each unlocked by the standard rule over its own
//! cases only. A kind whose cases the record does not hold (a record from an older probe, without
//! the patch cases) stays read-only with the reason, so an old record never unlocks what it did
//! not check.

use gatehouse_harness::gated::UnlockGroup;

/// The probe record, the kit's, for the agent `codex`.
pub use gatehouse_harness::record::{ProbeRecord, RecordError, Unlock};

/// One case of the probe, and what was seen: the kit's, as every probe records it.
pub use gatehouse_harness::probe::CaseResult;

/// What one probe proves, by its cases; its number is its group's place in the kit's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Shell commands (`Bash`): the standard cases.
    Shell = 0,
    /// File changes (`apply_patch`).
    Patch = 1,
    /// "always": a rule written now counts from the next session on.
    Always = 2,
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
    pub const fn cases(self) -> &'static [&'static str] {
        match self {
            Kind::Shell => &SHELL_CASES,
            Kind::Patch => &PATCH_CASES,
            Kind::Always => &ALWAYS_CASES,
        }
    }

    /// What the kind is, for people.
    pub const fn words(self) -> &'static str {
        match self {
            Kind::Shell => "shell commands",
            Kind::Patch => "file changes (apply_patch)",
            Kind::Always => "\"always\" (a rule for the next session)",
        }
    }

    /// The kind as a group of the kit's unlock rule.
    pub const fn group(self) -> UnlockGroup {
        UnlockGroup {
            proves: self.words(),
            cases: self.cases(),
        }
    }
}

#[cfg(test)]
mod tests;
