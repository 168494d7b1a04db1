//! gatehouse's own rules: what the person lets through (or blocks) without being asked, for
//! every agent alike, decided by [`decide`] when a prompt arrives.
//!
//! A rule is allow or deny (with a message for the model), for an agent or any, a host or any, a
//! folder and below, a tool or any, and for shell commands a [`CommandPattern`]; it lasts until
//! removed, until an instant, or for one session, and says where it came from.
//!
//! Safe by construction:
//! - A shell command is matched on its parsed form ([`shell`]), never on its text. A compound
//!   command is allowed only if every part is allowed by some rule and no part is denied; any
//!   deny wins; a command the parser is unsure of is never allowed ([`shell::Unsure`]).
//! - An allow rule never names a shell, an interpreter, a wrapper (`env`, `sudo`, `xargs`, ...)
//!   or a builtin that changes the shell's state (`cd`, `export`, ...), and a command with such a
//!   program in any part is never allowed ([`pattern::refusal`]).
//! - "Any words may follow" exists only for programs whose further words run no code
//!   ([`crate::safe_words::FURTHER_WORDS_RUN_NO_CODE`]); for others the person lists the words.
//! - A part that reads a pipe (`a | b`) is allowed only if its program is one of those, since
//!   what reads its input may run it as code (`sqlite3`'s `.shell`).
//! - A folder covers paths by components; `..` and a leading `~` are refused ([`Folder`]).
//! - An allow rule names a tool or a command: none allows every tool.
//! - [`describe`] says in plain words exactly what a rule lets through.
//!
//! Pure: no files, no clock (the caller hands in `now`), no agent names (the caller's strings).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::prompt::DecisionId;
use crate::time::Timestamp;

mod decide;
mod describe;
pub mod folder;
pub mod pattern;
pub mod shell;

pub use decide::{decide, Decision, PromptFacts};
pub use describe::describe;
pub use folder::{Folder, FolderError};
pub use pattern::{CommandPattern, FurtherWords, PatternError};

/// A rule's id, given by whoever keeps the rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RuleId(pub String);

/// What a rule does to the prompts it matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum RuleVerdict {
    Allow,
    /// Deny, with a message the model sees.
    Deny {
        message: String,
    },
}

/// How long a rule lasts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Expiry {
    UntilRemoved,
    /// Until this instant (the rule no longer matches from it on).
    Until(Timestamp),
    /// Only for prompts of the session with this id, as the caller names sessions.
    Session(String),
}

/// Where a rule came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Provenance {
    /// Made by the person with a command or a front end's rule form.
    ByHand { at: Timestamp },
    /// Made from the person's answer to a prompt, on a front end.
    FromAnswer {
        prompt: DecisionId,
        front_end: String,
        at: Timestamp,
    },
}

/// A rule's parts as given, before they are checked ([`Rule::new`]); also its form on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSpec {
    pub id: RuleId,
    #[serde(flatten)]
    pub verdict: RuleVerdict,
    /// The agent's name, or `None` for any agent.
    pub agent: Option<String>,
    /// The host's name, or `None` for any host.
    pub host: Option<String>,
    pub folder: Folder,
    /// The tool's name, or `None` for any tool.
    pub tool: Option<String>,
    /// For shell commands: which ones.
    pub command: Option<CommandPattern>,
    pub expiry: Expiry,
    pub provenance: Provenance,
}

/// A checked rule: made only by [`Rule::new`], also when read back from disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RuleSpec", into = "RuleSpec")]
pub struct Rule {
    spec: RuleSpec,
}

/// Why a rule is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    #[error("the command pattern is refused: {0}")]
    Pattern(#[from] PatternError),
    #[error("an allow rule must name its tool or a command: one for every tool would let through tools that run anything")]
    AllowsEveryTool,
    #[error("the {0} name is empty: name one, or leave it out to mean any")]
    EmptyName(&'static str),
    #[error("a deny rule needs a message for the model: say why, or what to do instead")]
    EmptyDenyMessage,
    #[error("the rule's id is empty")]
    EmptyId,
}

impl Rule {
    /// Checks `spec`: an allow rule names a tool or a command, and its command pattern is one an
    /// allow rule may have ([`CommandPattern::check_allowable`]); names are not empty.
    pub fn new(spec: RuleSpec) -> Result<Rule, RuleError> {
        if spec.id.0.is_empty() {
            return Err(RuleError::EmptyId);
        }
        for (what, name) in [
            ("agent", &spec.agent),
            ("host", &spec.host),
            ("tool", &spec.tool),
        ] {
            if name.as_deref().is_some_and(|name| name.trim().is_empty()) {
                return Err(RuleError::EmptyName(what));
            }
        }
        match &spec.verdict {
            RuleVerdict::Allow => {
                if spec.tool.is_none() && spec.command.is_none() {
                    return Err(RuleError::AllowsEveryTool);
                }
                if let Some(pattern) = &spec.command {
                    pattern.check_allowable()?;
                }
            }
            RuleVerdict::Deny { message } => {
                if message.trim().is_empty() {
                    return Err(RuleError::EmptyDenyMessage);
                }
            }
        }
        Ok(Rule { spec })
    }

    pub fn spec(&self) -> &RuleSpec {
        &self.spec
    }

    pub fn id(&self) -> &RuleId {
        &self.spec.id
    }

    pub fn is_allow(&self) -> bool {
        self.spec.verdict == RuleVerdict::Allow
    }
}

impl TryFrom<RuleSpec> for Rule {
    type Error = RuleError;

    fn try_from(spec: RuleSpec) -> Result<Rule, RuleError> {
        Rule::new(spec)
    }
}

impl From<Rule> for RuleSpec {
    fn from(rule: Rule) -> RuleSpec {
        rule.spec
    }
}

#[cfg(test)]
mod holes_tests;
#[cfg(test)]
mod tests;
