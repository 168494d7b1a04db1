//! What an agent's own "don't ask again" rule lets through, typed: the adapter reads the agent's
//! rule once into a [`RuleMatch`] (an exact command, a prefix, a wildcard pattern, every call of a
//! tool, a mode), and every front end shows the same words for it ([`RuleMatch::describe`]).
//!
//! The words say what the agent matches, in full: a prefix rule such as Claude Code's
//! `git push:*` reads "every Bash command that is `git push` or starts with `git push ` ... (such
//! as `git push --force ...`)", never "exactly". Nothing is cut. The text inside is the agent's,
//! unchanged; a front end makes the whole description visible ([`crate::text::visible`]).

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
        }
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
