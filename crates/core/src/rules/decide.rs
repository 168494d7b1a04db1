//! Which rule, if any, decides a prompt: any deny wins; a shell command is allowed only when it
//! parses, no part names a refused program, every part is matched by an allow rule, and every
//! part that reads a pipe is a program whose input runs no code there
//! ([`safe_words::FURTHER_WORDS_RUN_NO_CODE`]).

use super::folder::Folder;
use super::pattern::refusal;
use super::shell::{self, SimpleCommand};
use super::{Expiry, Rule, RuleId, RuleVerdict};
use crate::safe_words;
use crate::time::Timestamp;

/// What [`decide`] knows of a prompt, all of it as the gateway and the adapter found it.
#[derive(Debug, Clone, Copy)]
pub struct PromptFacts<'a> {
    /// The agent's name, as rules name it.
    pub agent: &'a str,
    /// The host the agent runs on.
    pub host: &'a str,
    /// The session the prompt belongs to, if known (for rules of [`Expiry::Session`]).
    pub session: Option<&'a str>,
    /// The tool's name.
    pub tool: &'a str,
    /// The folder the agent runs the tool in, absolute and resolved; `None` when unknown, and
    /// then no rule's folder covers the prompt.
    pub cwd: Option<&'a str>,
    /// The shell command, for every call that runs one (whatever the tool's name): `Some` makes
    /// only command patterns able to allow it.
    pub command: Option<&'a str>,
    /// Every file the call reads or writes (absolute, or relative to `cwd`), or `None` when the
    /// adapter cannot tell, and then no allow rule covers the call; `Some(&[])` for a call that
    /// names no file. Not used for commands, whose words may name files anywhere.
    pub paths: Option<&'a [String]>,
    /// The time now, for rules that end at an instant.
    pub now: Timestamp,
}

/// What a rule decided for a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The rule that decided: the deny that matched, or the allow of the first part.
    pub rule_id: RuleId,
    pub verdict: RuleVerdict,
    /// For an allowed compound command, the other rules that allowed its other parts.
    pub also_by: Vec<RuleId>,
}

/// The decision of `rules` for the prompt of `facts`, or `None` when no rule decides it and it
/// goes to the person. Rules are tried in order; any deny wins over every allow.
pub fn decide(rules: &[Rule], facts: &PromptFacts<'_>) -> Option<Decision> {
    let cwd = facts.cwd.and_then(|cwd| Folder::new(cwd).ok());
    let parts = facts.command.map(shell::parse);
    let in_scope = |rule: &&Rule| applies_to(rule, facts, cwd.as_ref());
    for rule in rules
        .iter()
        .filter(in_scope)
        .filter(|rule| !rule.is_allow())
    {
        let denied = match (&rule.spec.command, &parts) {
            (None, _) => true,
            (Some(pattern), Some(Ok(parts))) => parts.iter().any(|part| pattern.matches(part)),
            (Some(_), _) => false,
        };
        if denied {
            return Some(Decision {
                rule_id: rule.spec.id.clone(),
                verdict: rule.spec.verdict.clone(),
                also_by: Vec::new(),
            });
        }
    }
    // Checked again here, not only when made: a rule that would allow too much allows nothing.
    let allows: Vec<&Rule> = rules
        .iter()
        .filter(in_scope)
        .filter(|rule| rule.is_allow())
        .filter(|rule| {
            rule.spec
                .command
                .as_ref()
                .is_none_or(|pattern| pattern.check_allowable().is_ok())
        })
        .collect();
    let mut deciding: Vec<RuleId> = Vec::new();
    match parts {
        None => deciding.extend(
            allows
                .iter()
                .find(|rule| rule.spec.command.is_none())
                .map(|rule| rule.spec.id.clone()),
        ),
        Some(Err(_unsure)) => return None,
        Some(Ok(parts)) => {
            for part in &parts {
                if part.reads_pipe && safe_words::read_only_program(part.program()).is_none() {
                    return None;
                }
                let id = allowing_rule(&allows, part)?;
                if !deciding.contains(id) {
                    deciding.push(id.clone());
                }
            }
        }
    }
    let mut deciding = deciding.into_iter();
    Some(Decision {
        rule_id: deciding.next()?,
        verdict: RuleVerdict::Allow,
        also_by: deciding.collect(),
    })
}

/// The first allow rule whose pattern matches `part`, unless its program is refused.
fn allowing_rule<'a>(allows: &[&'a Rule], part: &SimpleCommand) -> Option<&'a RuleId> {
    if refusal(part.program()).is_some() {
        return None;
    }
    allows.iter().find_map(|rule| {
        let pattern = rule.spec.command.as_ref()?;
        pattern.matches(part).then_some(&rule.spec.id)
    })
}

/// Whether `rule`'s agent, host, tool, expiry and folder cover the prompt. An allow rule's
/// folder must cover the working folder and every file the call names; a deny rule's, either.
fn applies_to(rule: &Rule, facts: &PromptFacts<'_>, cwd: Option<&Folder>) -> bool {
    let spec = &rule.spec;
    let named =
        |name: &Option<String>, actual: &str| name.as_deref().is_none_or(|name| name == actual);
    let current = match &spec.expiry {
        Expiry::UntilRemoved => true,
        Expiry::Until(end) => facts.now < *end,
        Expiry::Session(session) => facts.session == Some(session.as_str()),
    };
    if !(current
        && named(&spec.agent, facts.agent)
        && named(&spec.host, facts.host)
        && named(&spec.tool, facts.tool))
    {
        return false;
    }
    let cwd_inside = cwd.is_some_and(|cwd| spec.folder.contains(cwd));
    let is_command = facts.command.is_some();
    if rule.is_allow() {
        cwd_inside
            && (is_command
                || facts
                    .paths
                    .is_some_and(|paths| paths.iter().all(|path| spec.folder.covers(path, cwd))))
    } else {
        cwd_inside
            || (!is_command
                && facts
                    .paths
                    .unwrap_or_default()
                    .iter()
                    .any(|path| spec.folder.covers(path, cwd)))
    }
}
