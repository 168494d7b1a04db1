//! A rule in plain words for people, saying exactly what it lets through or blocks: the command
//! and what may follow it, the folder, the agent, the host, how long, and where it came from.
//! Every name and word is quoted as code ([`crate::rule_match::code`]), so no text of an agent's
//! can read as gatehouse's words.

use super::pattern::{CommandPattern, FurtherWords};
use super::{Expiry, Provenance, Rule, RuleVerdict};
use crate::rule_match::code;
use crate::safe_words;

/// What `rule` lets through or blocks, in full, for people.
pub fn describe(rule: &Rule) -> String {
    let spec = rule.spec();
    let allow = rule.is_allow();
    let mut words = String::from(if allow { "Allows " } else { "Denies " });
    words.push_str(&what(rule));
    words.push_str(&where_(rule));
    words.push_str(&match &spec.agent {
        None => ", for any agent".to_owned(),
        Some(agent) => format!(", for the agent {}", code(agent)),
    });
    words.push_str(&match &spec.host {
        None => " on any host".to_owned(),
        Some(host) => format!(" on the host {}", code(host)),
    });
    words.push_str(&match &spec.expiry {
        Expiry::UntilRemoved => ", until removed".to_owned(),
        Expiry::Until(end) => format!(", until {end}"),
        Expiry::Session(session) => format!(", in the session {} only", code(session)),
    });
    if let RuleVerdict::Deny { message } = &spec.verdict {
        words.push_str(&format!(", telling the model {}", code(message)));
    }
    words.push('.');
    if let Some(pattern) = &spec.command {
        if allow {
            words.push_str(" In a command of several parts (`;`, `&&`, `||`, `|`, `&`, lines), every part needs a rule that allows it; copies between the standard outputs (`2>&1`) may come anywhere.");
            words.push_str(&format!(
                " A part's standard input may come from another command (`|`) only for {}.",
                safe_words::read_only_names()
            ));
            if let Some(unseen) = safe_words::unseen_code(&pattern.words_text()) {
                words.push_str(&format!(
                    " The rule covers the command's words only, not {unseen}: whatever is there when it runs, runs without asking."
                ));
            }
        } else {
            words.push_str(&format!(
                " It matches these words only: {} by another path, or run through another program, is not denied.",
                code(pattern.program())
            ));
        }
    }
    words.push(' ');
    words.push_str(&match &spec.provenance {
        Provenance::ByHand { at } => format!("Made by hand at {at}."),
        Provenance::FromAnswer {
            prompt,
            front_end,
            at,
        } => format!(
            "Made from the answer to prompt {} on {} at {at}.",
            code(&prompt.to_string()),
            code(front_end)
        ),
    });
    words
}

/// The calls the rule matches: a command and what may follow it, or a tool's calls.
fn what(rule: &Rule) -> String {
    let spec = rule.spec();
    let tool = spec.tool.as_deref().map(code);
    match (&spec.command, tool) {
        (Some(pattern), Some(tool)) => {
            format!("the {tool} command {}", command(pattern, rule.is_allow()))
        }
        (Some(pattern), None) => format!("the shell command {}", command(pattern, rule.is_allow())),
        (None, Some(tool)) if rule.is_allow() => {
            format!("every {tool} call that runs no shell command, whatever its input")
        }
        (None, Some(tool)) => format!("every {tool} call, whatever its input"),
        (None, None) => "every call of every tool".to_owned(),
    }
}

fn command(pattern: &CommandPattern, allow: bool) -> String {
    let words = code(&pattern.words_text());
    match pattern.further() {
        FurtherWords::Nothing => format!("{words} followed by nothing else"),
        FurtherWords::These(listed) => {
            let listed: Vec<String> = listed.iter().map(|word| code(word)).collect();
            format!(
                "{words} followed by nothing else or only by the words {} (any of them, any number of times, in any order)",
                listed.join(", ")
            )
        }
        FurtherWords::Any => match safe_words::read_only_program(pattern.program()) {
            Some(program) if allow => format!(
                "{words} followed by any words (whatever they are, {} only {}: it runs no other program and writes no file)",
                code(program.name),
                program.does
            ),
            _ => format!("{words} followed by any words"),
        },
    }
}

/// The folder, and for an allow rule what must be in it.
fn where_(rule: &Rule) -> String {
    let spec = rule.spec();
    let folder = code(&spec.folder.to_string());
    let is_root = spec.folder == super::Folder::root();
    match (rule.is_allow(), spec.command.is_some()) {
        (true, true) if is_root => {
            ", run in any folder (its words may name files anywhere)".to_owned()
        }
        (true, true) => {
            format!(", run in {folder} or a folder below it (its words may name files anywhere)")
        }
        (true, false) if is_root => ", run in any folder".to_owned(),
        (true, false) => {
            format!(", run in {folder} or a folder below it and naming only files there")
        }
        (false, _) if is_root => ", in any folder".to_owned(),
        (false, true) => format!(", run in {folder} or a folder below it"),
        (false, false) => format!(", run in {folder} or a folder below it, or naming a file there"),
    }
}
