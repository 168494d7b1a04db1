//! What `gatehouse probe claude` proves, by its cases: the kit's probe record
//! ([`ProbeRecord`], saved as `claude-probe.json` in gatehouse's state folder with the keys
//! `claude_version` and `claude_executable`, as it always was) read per capability.
//!
//! Per capability ([`Capability`], a group of the kit's unlock rule): file edits, `always` from
//! Claude Code's own suggestions, and plans, each unlocked by the kit's rule over its own cases
//! only, and only for the Claude Code version the probe ran against. No record, an unreadable
//! one, another version, or a failed or missing case: read-only, with a reason that says what to
//! do (and names the failed case). Records written before the kit also name each case's
//! capability (`"capability": "edits"`); the case names say the same, and are what is read.

use gatehouse_harness::gated::UnlockGroup;

/// The probe record, the kit's, for the agent `claude`, and the kit's answer per group.
pub use gatehouse_harness::record::{ProbeRecord, Unlock};

/// What a probe can unlock beyond Bash once/deny and questions; its number is its group's place
/// in the kit's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// `once` and `deny` for Write, Edit and MultiEdit.
    Edits = 0,
    /// `always`, by one of Claude Code's own suggestions.
    Always = 1,
    /// `once` (approve) and `deny` for plans (ExitPlanMode).
    Plan = 2,
}

impl Capability {
    pub const ALL: [Capability; 3] = [Capability::Edits, Capability::Always, Capability::Plan];

    /// The names of the probe's cases that prove this capability.
    pub const fn cases(self) -> &'static [&'static str] {
        match self {
            Capability::Edits => &["write-once", "write-deny", "edit-once", "edit-deny"],
            Capability::Always => &["always-session"],
            Capability::Plan => &["plan-deny", "plan-approve"],
        }
    }

    pub const fn words(self) -> &'static str {
        match self {
            Capability::Edits => "once and deny for file edits",
            Capability::Always => "always, from Claude Code's own suggestions",
            Capability::Plan => "plan approval and denial",
        }
    }

    /// The capability as a group of the kit's unlock rule.
    pub const fn group(self) -> UnlockGroup {
        UnlockGroup {
            proves: self.words(),
            cases: self.cases(),
        }
    }
}

/// The groups of the kit's unlock rule, in the order of [`Capability`].
pub const GROUPS: [UnlockGroup; 3] = [
    Capability::Edits.group(),
    Capability::Always.group(),
    Capability::Plan.group(),
];

/// What is unlocked, capability by capability: the kit's rule for each group of [`GROUPS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlocks(Vec<Unlock>);

impl Unlocks {
    /// The kit's rule, one answer per group of [`GROUPS`].
    pub fn of(groups: Vec<Unlock>) -> Unlocks {
        Unlocks(groups)
    }

    /// Everything read-only for one reason.
    pub fn none(reason: &str) -> Unlocks {
        let reason = reason.to_owned();
        Unlocks(vec![Unlock::ReadOnly { reason }; GROUPS.len()])
    }

    /// The most a probe can unlock, for the hook's own check.
    pub fn all() -> Unlocks {
        let verified = Unlock::Verified {
            version: String::new(),
            evidence: String::new(),
        };
        Unlocks(vec![verified; GROUPS.len()])
    }

    /// Whether `capability` is unlocked; read-only when the rule left it out.
    pub fn gate(&self, capability: Capability) -> Unlock {
        self.0
            .get(capability as usize)
            .cloned()
            .unwrap_or_else(|| Unlock::ReadOnly {
                reason: "no probe has checked it; run `gatehouse probe claude`".into(),
            })
    }
}
