//! `gatehouse rule add|remove` and `gatehouse rules`: the person's rules, kept in gatehouse's
//! own rules file (`$XDG_STATE_HOME/gatehouse/rules.json`, owner-only), which the gateway looks
//! at again before it decides the next prompt. Every rule is checked by the rules core as it is
//! made ([`gatehouse_core::rules::Rule::new`]), and its errors say what to do.

use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use gatehouse_core::rules::{
    describe, CommandPattern, Expiry, Folder, FurtherWords, Provenance, Rule, RuleId, RuleSpec,
    RuleVerdict,
};
use gatehouse_core::text::visible;
use gatehouse_core::Timestamp;
use gatehouse_gateway::rules_file;

pub const RULE_AFTER_HELP: &str = "\
A rule answers a prompt as it reaches the gateway, before any front end sees it, and the audit
log names the rule. It applies only where gatehouse may answer that agent's prompts at all
(`gatehouse status`): never to a read-only prompt.

Examples:
  gatehouse rule add allow --tool Bash --command 'cargo test' --further --all
      # `cargo test` or `cargo test --all`, in this folder and below, for every agent
  gatehouse rule add allow --agent claude --command 'git status' --folder ~/src/app
  gatehouse rule add allow --command 'cat' --any-further --for 2h
      # any words may follow only programs that never run code (cat, ls, grep, ...)
  gatehouse rule add deny --command 'git push' --message 'push from your own terminal'
  gatehouse rules                       # every rule with its id and what it lets through
  gatehouse rule remove r1a2b3c4        # takes effect for the very next prompt

A command is matched on its parsed words, never on its text: `cargo test; rm -rf x`,
`cargo test $(touch p)`, `cargo test > ~/.bashrc`, `CARGO_HOME=/tmp cargo test` and a command
of several lines still reach you. Shells, interpreters, `env`, `sudo`, `xargs` and `cd` can
never be allowed by a rule.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Verdict {
    /// Let matching calls run without asking.
    Allow,
    /// Refuse matching calls, with --message for the model.
    Deny,
}

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// allow or deny.
    verdict: Verdict,
    /// Only this agent's prompts, by adapter id (`gatehouse status` lists them) [default: any].
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Only prompts from this host, as `gatehouse list` names it [default: any].
    #[arg(long, value_name = "NAME")]
    host: Option<String>,
    /// The folder, and every folder below it, links resolved [default: the current folder].
    #[arg(long, value_name = "DIR")]
    folder: Option<PathBuf>,
    /// Only this tool, by the agent's name for it (`Bash`, `shell`) [default: any].
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// The command: a program and its leading words, as you would type them (`'cargo test'`).
    #[arg(long, value_name = "WORDS")]
    command: Option<String>,
    /// A word that may follow the command's words (any number of times, in any order); repeat
    /// for more words. Without --further or --any-further nothing may follow.
    #[arg(
        long,
        value_name = "WORD",
        allow_hyphen_values = true,
        requires = "command"
    )]
    further: Vec<String>,
    /// Any words may follow (only for programs whose words never run code: cat, ls, grep, ...).
    #[arg(long, conflicts_with = "further", requires = "command")]
    any_further: bool,
    /// How long the rule lasts, such as 30m, 2h or 7d [default: until removed].
    #[arg(long = "for", value_name = "DURATION")]
    lasts: Option<String>,
    /// For deny: what the model is told (why, or what to do instead).
    #[arg(long, value_name = "TEXT")]
    message: Option<String>,
    /// Print the new rule as JSON.
    #[arg(long)]
    json: bool,
}

/// Where the rules file is: in gatehouse's state folder, beside the audit log.
fn rules_path() -> anyhow::Result<PathBuf> {
    let state = crate::config::state_dir().context(
        "neither XDG_STATE_HOME nor HOME is set, so the rules file has no home; set one",
    )?;
    Ok(rules_file::rules_path(&state))
}

fn load(path: &Path) -> anyhow::Result<Vec<Rule>> {
    rules_file::load(path).map_err(anyhow::Error::new)
}

fn save(path: &Path, rules: &[Rule]) -> anyhow::Result<()> {
    rules_file::save(path, rules).with_context(|| {
        format!(
            "cannot write the rules file {}; check that folder's permissions",
            path.display()
        )
    })
}

/// A duration such as 30m, 2h or 7d, in milliseconds.
fn parse_duration(text: &str) -> anyhow::Result<u64> {
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let seconds_per_unit: u64 = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => bail!("--for takes a duration such as 30m, 2h or 7d; got `{text}`"),
    };
    let count: u64 = number
        .parse()
        .with_context(|| format!("--for needs a number before `{unit}`; got `{text}`"))?;
    if count == 0 {
        bail!("--for needs a duration longer than 0; leave it out for a rule that lasts until removed");
    }
    Ok(count.saturating_mul(seconds_per_unit).saturating_mul(1_000))
}

/// A new id, not among `taken`.
fn new_id(taken: &[Rule]) -> RuleId {
    loop {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|elapsed| elapsed.as_nanos())
                .unwrap_or_default(),
        );
        let id = RuleId(format!("r{:08x}", hasher.finish() as u32));
        if !taken.iter().any(|rule| rule.id() == &id) {
            return id;
        }
    }
}

/// The rule `arguments` ask for, checked, with an id not among `taken`.
fn rule_from(arguments: &AddArgs, taken: &[Rule], now: Timestamp) -> anyhow::Result<Rule> {
    if let Some(agent) = &arguments.agent {
        let registry = crate::adapters::registry();
        if registry.get(agent).is_none() {
            let known: Vec<&str> = registry.ids().collect();
            bail!(
                "no agent `{}`: --agent takes one of {}",
                visible(agent),
                known.join(", ")
            );
        }
    }
    let verdict = match (arguments.verdict, &arguments.message) {
        (Verdict::Allow, Some(_)) => {
            bail!("--message is for deny rules: the model is told only why a call is denied")
        }
        (Verdict::Allow, None) => RuleVerdict::Allow,
        (Verdict::Deny, message) => RuleVerdict::Deny {
            message: message.clone().context(
                "a deny rule needs --message TEXT for the model: say why, or what to do instead",
            )?,
        },
    };
    let folder = match &arguments.folder {
        Some(folder) => folder.clone(),
        None => std::env::current_dir().context("cannot tell the current folder; give --folder")?,
    };
    let resolved = std::fs::canonicalize(&folder).with_context(|| {
        format!(
            "cannot resolve the folder {}: give a folder that exists",
            folder.display()
        )
    })?;
    let resolved = resolved
        .to_str()
        .context("the folder's path is not UTF-8; give another --folder")?;
    let further = if arguments.any_further {
        FurtherWords::Any
    } else if arguments.further.is_empty() {
        FurtherWords::Nothing
    } else {
        FurtherWords::These(arguments.further.clone())
    };
    let command = arguments
        .command
        .as_deref()
        .map(|command| CommandPattern::from_command(command, further))
        .transpose()
        .map_err(|error| anyhow::anyhow!("--command is refused: {error}"))?;
    let expiry = match &arguments.lasts {
        Some(text) => Expiry::Until(Timestamp::from_unix_millis(
            now.unix_millis().saturating_add(parse_duration(text)?),
        )),
        None => Expiry::UntilRemoved,
    };
    Rule::new(RuleSpec {
        id: new_id(taken),
        verdict,
        agent: arguments.agent.clone(),
        host: arguments.host.clone(),
        folder: Folder::new(resolved)
            .map_err(|error| anyhow::anyhow!("--folder is refused: {error}"))?,
        tool: arguments.tool.clone(),
        command,
        expiry,
        provenance: Provenance::ByHand { at: now },
    })
    // The core's error holds its cause's words already: one line, said once.
    .map_err(|error| anyhow::anyhow!("the rule is refused: {error}"))
}

/// `gatehouse rule add`.
pub fn add(arguments: AddArgs) -> anyhow::Result<ExitCode> {
    let path = rules_path()?;
    let mut rules = load(&path)?;
    let rule = rule_from(&arguments, &rules, gatehouse_host_ipc::now())?;
    rules.push(rule.clone());
    save(&path, &rules)?;
    if arguments.json {
        println!("{}", serde_json::to_string_pretty(&rule_json(&rule))?);
    } else {
        println!("{}  {}", rule.id().0, visible(&describe(&rule)));
    }
    Ok(ExitCode::SUCCESS)
}

/// `gatehouse rule remove ID`.
pub fn remove(id: &str) -> anyhow::Result<ExitCode> {
    let path = rules_path()?;
    let mut rules = load(&path)?;
    let Some(at) = rules.iter().position(|rule| rule.id().0 == id) else {
        bail!(
            "no rule `{}` in {}; `gatehouse rules` lists their ids",
            visible(id),
            path.display()
        );
    };
    let removed = rules.remove(at);
    save(&path, &rules)?;
    println!(
        "removed {}  {}",
        removed.id().0,
        visible(&describe(&removed))
    );
    Ok(ExitCode::SUCCESS)
}

/// A rule for scripts: its id, its description, and the rule as on disk.
fn rule_json(rule: &Rule) -> serde_json::Value {
    serde_json::json!({
        "id": rule.id().0,
        "description": describe(rule),
        "rule": rule,
    })
}

/// `gatehouse rules`.
pub fn list(json: bool) -> anyhow::Result<ExitCode> {
    let path = rules_path()?;
    let rules = load(&path)?;
    if json {
        let listed: Vec<_> = rules.iter().map(rule_json).collect();
        println!("{}", serde_json::to_string_pretty(&listed)?);
    } else if rules.is_empty() {
        eprintln!(
            "gatehouse: no rules in {}; make one with `gatehouse rule add` (see `gatehouse rule add --help`)",
            path.display()
        );
    } else {
        for rule in &rules {
            println!("{}  {}", rule.id().0, visible(&describe(rule)));
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Add {
        #[command(flatten)]
        add: AddArgs,
    }

    fn rule(words: &[&str]) -> anyhow::Result<Rule> {
        let mut argv = vec!["add"];
        argv.extend_from_slice(words);
        let add = Add::try_parse_from(argv)?.add;
        rule_from(&add, &[], Timestamp::from_unix_millis(1_000_000))
    }

    #[test]
    fn a_rule_is_made_from_flags_in_the_resolved_folder() {
        let made = rule(&[
            "allow",
            "--tool",
            "Bash",
            "--command",
            "cargo test",
            "--further",
            "--all",
            "--folder",
            "/",
        ])
        .unwrap();
        let spec = made.spec();
        assert_eq!(spec.tool.as_deref(), Some("Bash"));
        let pattern = spec.command.as_ref().unwrap();
        assert_eq!(pattern.words_text(), "cargo test");
        assert_eq!(
            pattern.further(),
            &FurtherWords::These(vec!["--all".into()])
        );
        assert_eq!(spec.expiry, Expiry::UntilRemoved);
        assert!(made.id().0.starts_with('r'));
    }

    #[test]
    fn the_cores_refusals_and_missing_parts_say_what_to_do() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["allow", "--command", "bash -c x", "--folder", "/"],
                "shell or an interpreter",
            ),
            (
                &[
                    "allow",
                    "--command",
                    "cargo test",
                    "--any-further",
                    "--folder",
                    "/",
                ],
                "list the further words",
            ),
            (
                &["allow", "--folder", "/"],
                "must name its tool or a command",
            ),
            (
                &["deny", "--command", "git push", "--folder", "/"],
                "needs --message",
            ),
            (
                &[
                    "allow",
                    "--agent",
                    "no-such-agent",
                    "--tool",
                    "Bash",
                    "--folder",
                    "/",
                ],
                "--agent takes one of",
            ),
            (
                &["allow", "--tool", "Bash", "--for", "2w", "--folder", "/"],
                "30m, 2h or 7d",
            ),
            (
                &[
                    "allow",
                    "--tool",
                    "Bash",
                    "--folder",
                    "/no/such/folder/here",
                ],
                "give a folder that exists",
            ),
        ];
        for (words, expected) in cases {
            let error = format!("{:#}", rule(words).unwrap_err());
            assert!(error.contains(expected), "{words:?}: {error}");
            assert_eq!(error.matches(expected).count(), 1, "said once: {error}");
        }
    }

    #[test]
    fn a_rule_for_a_while_ends_then() {
        let made = rule(&["allow", "--tool", "Read", "--for", "2h", "--folder", "/"]).unwrap();
        assert_eq!(
            made.spec().expiry,
            Expiry::Until(Timestamp::from_unix_millis(1_000_000 + 7_200_000))
        );
    }
}
