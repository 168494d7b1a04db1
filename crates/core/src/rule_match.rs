//! What an agent's own "don't ask again" rule lets through, typed: the adapter reads the agent's
//! rule once into a [`RuleMatch`] (an exact command, a prefix, a wildcard pattern, every call of a
//! tool, a mode), and every front end shows the same words for it ([`RuleMatch::describe`]).
//!
//! The words say what the agent matches, in full: a prefix rule such as Claude Code's
//! `git push:*` reads "every Bash command that is `git push` or starts with `git push ` ... (such
//! as `git push --force ...`)", never "exactly". Nothing is cut. The text inside is the agent's,
//! unchanged; a front end makes the whole description visible ([`crate::text::visible`]).
//!
//! What a shell rule lets through beyond its words is said too ([`RuleMatch::with_warnings`]):
//! that further words may run other programs (unless the program is one whose further words never
//! run code, [`crate::safe_words`]), and that the code of a script, a Makefile or a package's
//! scripts is not part of the rule. Adapters wrap every rule they describe with it.

use serde::{Deserialize, Serialize};

/// What one rule of a suggestion lets through from now on, as the agent matches it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RuleMatch {
    /// Every call of `tool`, whatever its input (a rule that names only the tool).
    EveryCall { tool: String },
    /// Only the command `command`, exactly as written.
    Exact { tool: String, command: String },
    /// Every command that is `prefix`, or `prefix` followed by a space and anything at all.
    Prefix { tool: String, prefix: String },
    /// Every command that matches `pattern`, in which each `*` not escaped by a backslash stands
    /// for any text, spaces included.
    Wildcard { tool: String, pattern: String },
    /// Every call of `tool` that the agent's own rule `rule` matches, in the agent's syntax,
    /// which gatehouse does not interpret (such as `domain:example.org` for a web fetch).
    AgentRule { tool: String, rule: String },
    /// A mode for the rest of the session, and what it lets through in words.
    Mode { mode: String, lets_through: String },
    /// Every command whose words, as the agent splits it, begin with `words` (Codex's
    /// `prefix_rule`): the command itself, or it followed by more words.
    WordPrefix { tool: String, words: Vec<String> },
    /// `rule`, but only from the agent's next session on: the running session still asks
    /// (Codex reads its rules files only when a session starts).
    NextSession { agent: String, rule: Box<RuleMatch> },
    /// `rule`, and what it lets through that its words alone do not say ([`Self::with_warnings`]):
    /// further words that may run other programs, or code in files that the rule does not cover.
    /// A front end that does not know this kind shows the suggestion's summary, which says it.
    Warned {
        rule: Box<RuleMatch>,
        warning: String,
    },
}

impl RuleMatch {
    /// What the rule lets through, for people, in full.
    pub fn describe(&self) -> String {
        match self {
            RuleMatch::EveryCall { tool } => {
                format!("every {tool} call, whatever its input")
            }
            RuleMatch::Exact { tool, command } => {
                format!("only the {tool} command {}, exactly as written", code(command))
            }
            RuleMatch::Prefix { tool, prefix } => format!(
                "every {tool} command that is {} or starts with it followed by a space, whatever comes after (such as {})",
                code(prefix),
                code(&format!("{prefix} --force ..."))
            ),
            RuleMatch::Wildcard { tool, pattern } => format!(
                "every {tool} command that matches the pattern {}, where each * stands for any text (spaces and options included)",
                code(pattern)
            ),
            RuleMatch::AgentRule { tool, rule } => format!(
                "every {tool} call that the agent's own rule {} matches",
                code(&format!("{tool}({rule})"))
            ),
            RuleMatch::Mode { mode, lets_through } => {
                format!("mode {}: {lets_through}", code(mode))
            }
            RuleMatch::WordPrefix { tool, words } => {
                let quoted: Vec<String> = words.iter().map(|word| code(word)).collect();
                format!(
                    "every {tool} command whose words begin with {} (that command, or it followed by more words, such as {})",
                    quoted.join(" "),
                    code(&format!("{} --force ...", words.join(" ")))
                )
            }
            RuleMatch::NextSession { agent, rule } => format!(
                "{}, from your next {agent} session on; this session will still ask",
                rule.describe()
            ),
            RuleMatch::Warned { rule, warning } => format!("{}. {warning}", rule.describe()),
        }
    }

    /// This rule with what it lets through beyond its words, as [`RuleMatch::Warned`], for a
    /// shell rule that lets through more than it shows; else the rule unchanged.
    pub fn with_warnings(self) -> RuleMatch {
        match self.warning() {
            Some(warning) => RuleMatch::Warned {
                rule: Box::new(self),
                warning,
            },
            None => self,
        }
    }

    /// What a shell rule lets through beyond its words, in sentences; `None` when nothing.
    fn warning(&self) -> Option<String> {
        let shell = |tool: &str| tool.eq_ignore_ascii_case("bash");
        let sentences: Vec<String> = match self {
            RuleMatch::NextSession { rule, .. } => return rule.warning(),
            RuleMatch::Exact { tool, command } if shell(tool) => {
                unseen_code_warning(command).into_iter().collect()
            }
            RuleMatch::Prefix { tool, prefix } if shell(tool) => {
                let program = prefix.split_whitespace().next();
                [
                    Some(further_words_warning(program, true)),
                    unseen_code_warning(prefix),
                ]
                .into_iter()
                .flatten()
                .collect()
            }
            RuleMatch::Wildcard { tool, pattern } if shell(tool) => {
                let program = pattern
                    .split_whitespace()
                    .next()
                    .filter(|first| !first.contains(['*', '?', '\\']));
                [
                    Some(further_words_warning(program, true)),
                    unseen_code_warning(pattern),
                ]
                .into_iter()
                .flatten()
                .collect()
            }
            RuleMatch::WordPrefix { tool, words } if shell(tool) => {
                let program = words.first().map(String::as_str);
                [
                    Some(further_words_warning(program, false)),
                    unseen_code_warning(&words.join(" ")),
                ]
                .into_iter()
                .flatten()
                .collect()
            }
            _ => Vec::new(),
        };
        (!sentences.is_empty()).then(|| sentences.join(". "))
    }

    /// The words for several rules, in order.
    pub fn describe_all(rules: &[RuleMatch]) -> String {
        rules
            .iter()
            .map(RuleMatch::describe)
            .collect::<Vec<_>>()
            .join("; and ")
    }
}

/// What further words after `program` may do, in a sentence: for a program whose further words
/// never run code ([`crate::safe_words`]), what it does whatever follows; else, plainly, that the
/// rule lets through commands that run other programs. `syntax_may_follow`: the agent matches
/// the command's text, so shell syntax (a redirect) may follow the words too.
fn further_words_warning(program: Option<&str>, syntax_may_follow: bool) -> String {
    match program.and_then(crate::safe_words::read_only_program) {
        Some(known) => {
            let syntax = if syntax_may_follow {
                ", though what follows may also be shell syntax, such as a redirect (`> file`) that writes any file"
            } else {
                ""
            };
            format!(
                "Whatever words follow, {} only {}: it runs no other program and writes no file{syntax}",
                code(known.name),
                known.does
            )
        }
        None => {
            let whose = program
                .map(|program| format!(" of {}", code(program)))
                .unwrap_or_default();
            format!(
                "This includes commands that run other programs or write any file: the further words{whose} are not known to be harmless"
            )
        }
    }
}

/// That the code a command runs from files is not part of its rule, when it runs any
/// ([`crate::safe_words::unseen_code`]).
fn unseen_code_warning(command: &str) -> Option<String> {
    crate::safe_words::unseen_code(command).map(|what| {
        format!("The rule covers the command's words only, not {what}: whatever is there when it runs again runs without asking")
    })
}

/// `text` between backticks, as Markdown quotes code: with more backticks around it than in any
/// run inside it, and a space inside the fence where the text starts or ends with a backtick, so
/// that the agent's text cannot end the quote early and read as gatehouse's words.
pub fn code(text: &str) -> String {
    let longest_run = text
        .split(|character| character != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that a Bash rule of `kind` for `text` is described in `words`, and returns them.
    fn assert_bash_words(kind: fn(String, String) -> RuleMatch, text: &str, words: &str) -> String {
        let described = kind("Bash".into(), text.into()).describe();
        assert_eq!(described, words);
        described
    }

    #[test]
    fn a_prefix_rule_says_it_lets_through_every_continuation() {
        let words = assert_bash_words(
            |tool, prefix| RuleMatch::Prefix { tool, prefix },
            "git push",
            "every Bash command that is `git push` or starts with it followed by a space, whatever comes after (such as `git push --force ...`)",
        );
        assert!(!words.contains("exactly"));
    }

    #[test]
    fn an_exact_rule_is_exactly_that_command_in_full() {
        let long = format!("echo {}", "x".repeat(5000));
        assert_bash_words(
            |tool, command| RuleMatch::Exact { tool, command },
            &long,
            &format!("only the Bash command `{long}`, exactly as written"),
        );
    }

    #[test]
    fn a_wildcard_rule_says_what_a_star_stands_for() {
        assert_bash_words(
            |tool, pattern| RuleMatch::Wildcard { tool, pattern },
            "npm * --save",
            "every Bash command that matches the pattern `npm * --save`, where each * stands for any text (spaces and options included)",
        );
    }

    #[test]
    fn tool_wide_agent_rules_and_modes_have_their_own_words() {
        let cases = [
            (
                RuleMatch::EveryCall {
                    tool: "Bash".into(),
                },
                "every Bash call, whatever its input",
            ),
            (
                RuleMatch::AgentRule {
                    tool: "WebFetch".into(),
                    rule: "domain:example.org".into(),
                },
                "every WebFetch call that the agent's own rule `WebFetch(domain:example.org)` matches",
            ),
            (
                RuleMatch::Mode {
                    mode: "acceptEdits".into(),
                    lets_through: "every file edit".into(),
                },
                "mode `acceptEdits`: every file edit",
            ),
        ];
        for (rule, words) in cases {
            assert_eq!(rule.describe(), words);
        }
    }

    #[test]
    fn a_word_prefix_names_each_word_and_a_later_rule_says_when_it_counts() {
        let words = RuleMatch::WordPrefix {
            tool: "Bash".into(),
            words: vec!["touch".into(), "t0.txt".into()],
        };
        assert_eq!(
            words.describe(),
            "every Bash command whose words begin with `touch` `t0.txt` (that command, or it followed by more words, such as `touch t0.txt --force ...`)"
        );
        let later = RuleMatch::NextSession {
            agent: "Codex".into(),
            rule: Box::new(RuleMatch::Exact {
                tool: "Bash".into(),
                command: "printf x > y".into(),
            }),
        };
        assert_eq!(
            later.describe(),
            "only the Bash command `printf x > y`, exactly as written, from your next Codex session on; this session will still ask"
        );
        assert_eq!(
            serde_json::to_value(&later).unwrap(),
            serde_json::json!({ "kind": "next_session", "agent": "Codex", "rule": { "kind": "exact", "tool": "Bash", "command": "printf x > y" } })
        );
    }

    fn bash(kind: &str, text: &str) -> RuleMatch {
        let (tool, text) = ("Bash".to_owned(), text.to_owned());
        match kind {
            "exact" => RuleMatch::Exact {
                tool,
                command: text,
            },
            "prefix" => RuleMatch::Prefix { tool, prefix: text },
            "wildcard" => RuleMatch::Wildcard {
                tool,
                pattern: text,
            },
            "words" => RuleMatch::WordPrefix {
                tool,
                words: text.split(' ').map(str::to_owned).collect(),
            },
            other => panic!("{other}"),
        }
    }

    fn warned(kind: &str, text: &str) -> String {
        bash(kind, text).with_warnings().describe()
    }

    /// A prefix for a program whose further words can run code says so plainly (Claude Code's
    /// `Bash(sed -n:*)` lets through `sed -n -e 'e sh x' f`).
    #[test]
    fn a_prefix_for_a_program_not_known_harmless_says_it_lets_through_other_programs() {
        insta::assert_snapshot!(warned("prefix", "sed -n"), @"every Bash command that is `sed -n` or starts with it followed by a space, whatever comes after (such as `sed -n --force ...`). This includes commands that run other programs or write any file: the further words of `sed` are not known to be harmless");
        insta::assert_snapshot!(warned("wildcard", "git *"), @"every Bash command that matches the pattern `git *`, where each * stands for any text (spaces and options included). This includes commands that run other programs or write any file: the further words of `git` are not known to be harmless. The rule covers the command's words only, not the repository's hooks and the programs its configuration names: whatever is there when it runs again runs without asking");
        insta::assert_snapshot!(warned("wildcard", "* --version"), @"every Bash command that matches the pattern `* --version`, where each * stands for any text (spaces and options included). This includes commands that run other programs or write any file: the further words are not known to be harmless");
    }

    /// Only for a program on the allow-list do further words read as harmless, and for the
    /// agents that match the command's text, a redirect is said to remain possible.
    #[test]
    fn a_prefix_for_a_read_only_program_says_what_further_words_can_do() {
        insta::assert_snapshot!(warned("words", "cat README.md"), @"every Bash command whose words begin with `cat` `README.md` (that command, or it followed by more words, such as `cat README.md --force ...`). Whatever words follow, `cat` only reads files and prints them: it runs no other program and writes no file");
        insta::assert_snapshot!(warned("prefix", "grep -rn"), @"every Bash command that is `grep -rn` or starts with it followed by a space, whatever comes after (such as `grep -rn --force ...`). Whatever words follow, `grep` only searches files and prints the lines that match: it runs no other program and writes no file, though what follows may also be shell syntax, such as a redirect (`> file`) that writes any file");
    }

    /// A command that runs a script, a module or a runner's files says that their contents are
    /// not part of the rule, even an exact one.
    #[test]
    fn a_rule_for_a_command_that_runs_a_script_says_the_scripts_contents_are_not_part_of_it() {
        insta::assert_snapshot!(warned("exact", "sh setup.sh"), @"only the Bash command `sh setup.sh`, exactly as written. The rule covers the command's words only, not the contents of `setup.sh`: whatever is there when it runs again runs without asking");
        insta::assert_snapshot!(warned("exact", "python tool.py > out.txt"), @"only the Bash command `python tool.py > out.txt`, exactly as written. The rule covers the command's words only, not the contents of `tool.py`: whatever is there when it runs again runs without asking");
        insta::assert_snapshot!(warned("prefix", "npm run x"), @"every Bash command that is `npm run x` or starts with it followed by a space, whatever comes after (such as `npm run x --force ...`). This includes commands that run other programs or write any file: the further words of `npm` are not known to be harmless. The rule covers the command's words only, not package.json's scripts and the install scripts of packages: whatever is there when it runs again runs without asking");
        let later = RuleMatch::NextSession {
            agent: "Codex".into(),
            rule: Box::new(bash("exact", "make > build.log")),
        }
        .with_warnings();
        insta::assert_snapshot!(later.describe(), @"only the Bash command `make > build.log`, exactly as written, from your next Codex session on; this session will still ask. The rule covers the command's words only, not the Makefile: whatever is there when it runs again runs without asking");
    }

    #[test]
    fn rules_that_let_through_nothing_unseen_carry_no_warning() {
        for rule in [
            bash("exact", "printf approved > codex-proof.txt"),
            bash(
                "exact",
                "node -e \"require('fs').appendFileSync('ran.log','x')\"",
            ),
            RuleMatch::EveryCall {
                tool: "Bash".into(),
            },
            RuleMatch::Prefix {
                tool: "WebFetch".into(),
                prefix: "sed".into(),
            },
        ] {
            assert_eq!(rule.clone().with_warnings(), rule);
        }
        let warned = bash("prefix", "sed").with_warnings();
        assert!(matches!(warned, RuleMatch::Warned { .. }));
        assert_eq!(warned.clone().with_warnings(), warned, "warned once");
    }

    #[test]
    fn a_warned_rule_is_its_own_kind_on_the_wire() {
        let warned = bash("prefix", "sed").with_warnings();
        let wire = serde_json::to_value(&warned).unwrap();
        assert_eq!(wire["kind"], "warned");
        assert_eq!(wire["rule"]["kind"], "prefix");
        assert!(wire["warning"]
            .as_str()
            .unwrap()
            .starts_with("This includes"));
        let back: RuleMatch = serde_json::from_value(wire).unwrap();
        assert_eq!(back, warned);
    }

    #[test]
    fn backticks_in_the_agents_text_cannot_close_the_quote() {
        assert_eq!(code("ls"), "`ls`");
        assert_eq!(code("echo `id`"), "`` echo `id` ``");
        assert_eq!(code("a ``b`` c"), "```a ``b`` c```");
        assert_bash_words(
            |tool, command| RuleMatch::Exact { tool, command },
            "ls`, and every other command `x",
            "only the Bash command ``ls`, and every other command `x``, exactly as written",
        );
    }

    #[test]
    fn several_rules_are_all_described() {
        let rules = [
            RuleMatch::Exact {
                tool: "Bash".into(),
                command: "ls".into(),
            },
            RuleMatch::EveryCall {
                tool: "Write".into(),
            },
        ];
        assert_eq!(
            RuleMatch::describe_all(&rules),
            "only the Bash command `ls`, exactly as written; and every Write call, whatever its input"
        );
    }

    #[test]
    fn the_wire_carries_the_kind_and_old_suggestions_keep_their_summary() {
        let prefix = RuleMatch::Prefix {
            tool: "Bash".into(),
            prefix: "git push".into(),
        };
        assert_eq!(
            serde_json::to_value(&prefix).unwrap(),
            serde_json::json!({ "kind": "prefix", "tool": "Bash", "prefix": "git push" })
        );
        let old: crate::Suggestion = serde_json::from_value(serde_json::json!({
            "id": "s1", "summary": "allow exactly `ls`", "native": {}
        }))
        .unwrap();
        assert!(old.allows.is_empty());
        assert_eq!(old.describe(), "allow exactly `ls`");
        let new = crate::Suggestion {
            allows: vec![prefix],
            ..old
        };
        assert!(new
            .describe()
            .starts_with("every Bash command that is `git push`"));
        let on_the_wire = serde_json::to_value(&new).unwrap();
        assert_eq!(on_the_wire["allows"][0]["kind"], "prefix");
    }
}
