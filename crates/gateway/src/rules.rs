//! How the gateway applies gatehouse's rules to a prompt as it arrives: only to a held permission
//! prompt the capability gate lets gatehouse answer (never a read-only one, never one whose
//! verdict is not offered), with the facts the adapter found ([`RuleFactsSource`]) and the folder
//! and every file the call names with their links resolved (on this machine). The verdict then travels the person's path (`Gateway::answer`), by
//! `rule ID`, so receipts, the audit log and "at most one verdict" hold as for any answer.
//!
//! The gateway knows no agent: what command a call runs and which files it touches come from the
//! binary's [`RuleFactsSource`], which asks the prompt's adapter; a prompt it says nothing of is
//! decided by no rule.

use std::path::Path;

pub use gatehouse_core::adapter::RuleFacts;
use gatehouse_core::rules::{decide, Decision, PromptFacts, RuleVerdict};
use gatehouse_core::{Action, Answer, NewPrompt, Prompt, PromptKind, Timestamp};

/// Where the gateway gets a prompt's [`RuleFacts`]: the binary's wiring, per adapter.
pub trait RuleFactsSource: Send + Sync {
    /// The facts of `prompt`, or `None` when its adapter cannot say (then no rule decides it).
    fn facts(&self, prompt: &NewPrompt) -> Option<RuleFacts>;
}

/// A source from a function, for tests and for the binary's wiring.
impl<F> RuleFactsSource for F
where
    F: Fn(&NewPrompt) -> Option<RuleFacts> + Send + Sync,
{
    fn facts(&self, prompt: &NewPrompt) -> Option<RuleFacts> {
        self(prompt)
    }
}

/// `cwd` with every link resolved, for a prompt of this machine; `None` for another host's (its
/// folders are not here to resolve) or a folder that cannot be resolved.
fn resolved_cwd(cwd: &str, of_this_machine: bool) -> Option<String> {
    if !of_this_machine || !Path::new(cwd).is_absolute() {
        return None;
    }
    std::fs::canonicalize(cwd)
        .ok()
        .and_then(|path| path.to_str().map(str::to_owned))
}

/// Every path of `paths` with its links resolved, relative ones from `cwd` (the folder as the
/// agent gave it): for each, the real path of its deepest part that exists, then the rest, which
/// may hold no `..` and no link (a dangling one leads anywhere). `None` when any path cannot be
/// resolved, so that no rule allows the call. A path starting with `~` is kept as it is: no
/// folder covers it.
fn resolved_paths(paths: &[String], cwd: &str) -> Option<Vec<String>> {
    paths
        .iter()
        .map(|path| {
            if path.starts_with('~') {
                return Some(path.clone());
            }
            let joined = Path::new(cwd).join(path);
            resolved_path(&joined)?.to_str().map(str::to_owned)
        })
        .collect()
}

fn resolved_path(path: &Path) -> Option<std::path::PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    for existing in path.ancestors() {
        if std::fs::symlink_metadata(existing).is_err() {
            continue;
        }
        let rest = path.strip_prefix(existing).ok()?;
        let climbs = rest
            .components()
            .any(|component| component == std::path::Component::ParentDir);
        if climbs {
            return None;
        }
        return Some(std::fs::canonicalize(existing).ok()?.join(rest));
    }
    None
}

/// The rule's decision for `prompt` as listed (its actions decided), and the answer it gives;
/// `None` when no rule decides or the answer is not one gatehouse may give for it.
pub(crate) fn rule_answer(
    rules: &[gatehouse_core::rules::Rule],
    prompt: &Prompt,
    facts: &RuleFacts,
    local_host: &str,
    now: Timestamp,
) -> Option<(Decision, Answer)> {
    let new = &prompt.prompt;
    if rules.is_empty() || new.kind != PromptKind::Permission || prompt.is_read_only() {
        return None;
    }
    let of_this_machine = prompt.origin == gatehouse_core::Origin::Local
        && (new.host.is_empty() || new.host == local_host);
    let host = if new.host.is_empty() {
        local_host
    } else {
        &new.host
    };
    let cwd = resolved_cwd(&new.cwd, of_this_machine);
    let paths = match (&facts.paths, of_this_machine) {
        (Some(paths), true) => resolved_paths(paths, &new.cwd),
        (paths, _) => paths.clone(),
    };
    let decision = decide(
        rules,
        &PromptFacts {
            agent: &new.adapter,
            host,
            session: Some(&new.session),
            tool: &new.tool,
            cwd: cwd.as_deref(),
            command: facts.command.as_deref(),
            paths: paths.as_deref(),
            now,
        },
    )?;
    let (answer, needs) = match &decision.verdict {
        RuleVerdict::Allow => (Answer::Once, Action::Once),
        RuleVerdict::Deny { message } => (
            Answer::Deny {
                message: Some(message.clone()),
            },
            Action::Deny,
        ),
    };
    prompt
        .actions
        .contains(&needs)
        .then_some((decision, answer))
}

/// Who answered, for the audit log and `watch`: `rule ID`, then the ids of the rules that
/// allowed the other parts of a compound command (`rule r1, r2`).
pub fn rule_answerer(decision: &Decision) -> String {
    let ids: Vec<&str> = std::iter::once(&decision.rule_id)
        .chain(&decision.also_by)
        .map(|id| id.0.as_str())
        .collect();
    format!("rule {}", ids.join(", "))
}
