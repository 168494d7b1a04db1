//! Claude Code's `permission_suggestions`, as prompts carry them: only those that stop a repeat
//! prompt become [`Suggestion`]s that `always` may pick, each with a typed account of what it
//! lets through ([`RuleMatch`]), read once here and shown by every front end.
//!
//! Observed with Claude Code 2.1.332 (see the fixtures' README): an `addRules` suggestion with
//! `behavior: allow` (an exact command for Bash) and `setMode acceptEdits` (for edits) stop the
//! next prompt; `addDirectories` does not, so it is never offered. Anything else is left out.
//!
//! How Claude Code 2.1.332 matches a Bash rule's content (read from its bundled matcher,
//! `shellRuleMatching`): content ending in `:*` (the legacy prefix syntax, on one line) is a
//! prefix, and allows the prefix alone or followed by a space and anything (`git push:*` allows
//! `git push --force origin main`); otherwise content with a `*` not escaped by a backslash is a
//! wildcard pattern, each `*` any text (a single trailing ` *` is optional, so `git push *` is
//! the same prefix); anything else is one exact command. A rule with no content allows every
//! call of its tool. Rules of other tools are named in Claude Code's own syntax.
//!
//! gatehouse passes Claude Code's suggestion through unchanged, so the words say what Claude Code
//! will let through: a prefix or pattern for a program whose further words may run other
//! programs says so plainly, and a command that runs a script says the script's contents are not
//! part of the rule ([`RuleMatch::with_warnings`], [`gatehouse_core::safe_words`]).

use gatehouse_core::{AlwaysScope, RuleMatch, Suggestion};
use serde_json::Value;

/// The tool whose rule content is a shell command matched as described above.
const SHELL_TOOL: &str = "Bash";

/// What accept-edits mode lets through, in Claude Code 2.1.332: file edits in the session's
/// folders, and the filesystem commands its matcher lists (`mkdir`, `touch`, `rm`, `rmdir`, `mv`,
/// `cp`, `sed`) on paths there.
const ACCEPT_EDITS_LETS_THROUGH: &str = "every file edit and new file in the session's folders (its working folder and any added ones), and the commands mkdir, touch, rm, rmdir, mv, cp and sed on paths there, for the rest of the session";

/// The suggestions of a PermissionRequest that stop repeats, with ids `s1`, `s2`, ... in order.
pub fn from_event(suggestions: Option<&Value>) -> Vec<Suggestion> {
    let Some(list) = suggestions.and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(describe)
        .enumerate()
        .map(|(index, (allows, scopes, native))| Suggestion {
            id: format!("s{}", index + 1),
            summary: gatehouse_core::text::visible(&RuleMatch::describe_all(&allows)).into_owned(),
            allows,
            scopes,
            native,
        })
        .collect()
}

/// What one suggestion lets through, the scopes it may be kept in, and itself; `None` for one
/// that does not stop repeats.
fn describe(suggestion: &Value) -> Option<(Vec<RuleMatch>, Vec<AlwaysScope>, Value)> {
    let text = |name: &str| suggestion.get(name).and_then(Value::as_str);
    match text("type")? {
        "addRules" if text("behavior") == Some("allow") => {
            let rules = suggestion.get("rules")?.as_array()?;
            let allows: Vec<RuleMatch> = rules
                .iter()
                .map(|rule| rule_match(rule).map(RuleMatch::with_warnings))
                .collect::<Option<_>>()?;
            if allows.is_empty() {
                return None;
            }
            Some((allows, Vec::new(), suggestion.clone()))
        }
        // Only kept for the session: persisting a mode was not observed.
        "setMode" if text("mode") == Some("acceptEdits") => Some((
            vec![RuleMatch::Mode {
                mode: "acceptEdits".into(),
                lets_through: ACCEPT_EDITS_LETS_THROUGH.into(),
            }],
            vec![AlwaysScope::Session],
            suggestion.clone(),
        )),
        _ => None,
    }
}

/// What one rule (`{toolName, ruleContent}`) lets through, as Claude Code matches it.
pub fn rule_match(rule: &Value) -> Option<RuleMatch> {
    let tool = rule.get("toolName")?.as_str()?.to_owned();
    let content = match rule.get("ruleContent") {
        None | Some(Value::Null) => "",
        Some(content) => content.as_str()?,
    };
    if content.is_empty() {
        return Some(RuleMatch::EveryCall { tool });
    }
    if tool != SHELL_TOOL {
        return Some(RuleMatch::AgentRule {
            tool,
            rule: content.to_owned(),
        });
    }
    Some(shell_rule_match(tool, content))
}

/// A Bash rule's content, read as Claude Code reads it.
fn shell_rule_match(tool: String, content: &str) -> RuleMatch {
    if let Some(prefix) = content.strip_suffix(":*") {
        // Claude Code's `/^(.+):\*$/`: `.` matches no line terminator.
        let one_line = !prefix.contains(['\n', '\r', '\u{2028}', '\u{2029}']);
        return if !prefix.is_empty() && one_line {
            RuleMatch::Prefix {
                tool,
                prefix: prefix.to_owned(),
            }
        } else {
            RuleMatch::Exact {
                tool,
                command: content.to_owned(),
            }
        };
    }
    let stars = unescaped_stars(content);
    if stars == 0 {
        return RuleMatch::Exact {
            tool,
            command: content.to_owned(),
        };
    }
    let pattern = content.trim();
    if pattern == "*" {
        return RuleMatch::EveryCall { tool };
    }
    // One trailing ` *` and nothing else special: Claude Code makes that part optional, which is
    // the prefix rule exactly.
    if let Some(prefix) = pattern.strip_suffix(" *") {
        if stars == 1 && !prefix.contains('\\') && !prefix.trim().is_empty() {
            return RuleMatch::Prefix {
                tool,
                prefix: prefix.trim_end().to_owned(),
            };
        }
    }
    RuleMatch::Wildcard {
        tool,
        pattern: content.to_owned(),
    }
}

/// How many `*` in `text` are not escaped by an odd number of backslashes.
fn unescaped_stars(text: &str) -> usize {
    let characters: Vec<char> = text.chars().collect();
    (0..characters.len())
        .filter(|&index| {
            characters[index] == '*'
                && characters[..index]
                    .iter()
                    .rev()
                    .take_while(|&&character| character == '\\')
                    .count()
                    % 2
                    == 0
        })
        .count()
}

/// Where Claude Code keeps a suggestion for a scope (its `destination`).
pub fn destination(scope: AlwaysScope) -> &'static str {
    match scope {
        AlwaysScope::Session => "session",
        AlwaysScope::Project => "localSettings",
        AlwaysScope::User => "userSettings",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash_rule(content: &str) -> RuleMatch {
        rule_match(&json!({ "toolName": "Bash", "ruleContent": content })).unwrap()
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
            other => panic!("{other}"),
        }
    }

    #[test]
    fn the_fixtures_exact_command_rule_is_that_command_only() {
        let event: Value = serde_json::from_slice(include_bytes!(
            "../tests/data/claude-code-2.1.332/PermissionRequest-Bash-addRules.json"
        ))
        .unwrap();
        let suggestions = from_event(event.get("permission_suggestions"));
        assert_eq!(suggestions.len(), 1);
        assert_eq!(suggestions[0].id, "s1");
        let command = "node -e \"require('fs').appendFileSync('ran.log','x')\"";
        assert_eq!(suggestions[0].allows, [bash("exact", command)]);
        assert_eq!(
            suggestions[0].summary,
            format!("only the Bash command `{command}`, exactly as written")
        );
        assert!(suggestions[0].scopes.is_empty());
        assert_eq!(suggestions[0].native["destination"], "localSettings");
    }

    #[test]
    fn a_legacy_prefix_rule_allows_every_command_that_starts_with_it() {
        let suggestions = from_event(Some(&json!([{
            "type": "addRules",
            "rules": [{ "toolName": "Bash", "ruleContent": "git push:*" }],
            "behavior": "allow",
            "destination": "localSettings"
        }])));
        assert_eq!(
            suggestions[0].allows,
            [bash("prefix", "git push").with_warnings()]
        );
        let summary = &suggestions[0].summary;
        assert!(!summary.contains("exactly"), "{summary}");
        assert!(
            summary.starts_with("every Bash command that is `git push` or starts with it"),
            "{summary}"
        );
        assert!(summary.contains("`git push --force ...`"), "{summary}");
    }

    fn summary_of(content: &str) -> String {
        let suggestions = from_event(Some(&json!([{
            "type": "addRules",
            "rules": [{ "toolName": "Bash", "ruleContent": content }],
            "behavior": "allow",
            "destination": "localSettings"
        }])));
        assert_eq!(suggestions[0].summary, suggestions[0].describe());
        suggestions[0].summary.clone()
    }

    /// Claude Code's `Bash(sed -n:*)` lets through `sed -n -e 'e sh x' f`: the words say that
    /// it lets through commands that run other programs.
    #[test]
    fn a_prefix_for_a_program_whose_further_words_may_run_code_says_so_plainly() {
        insta::assert_snapshot!(summary_of("sed -n:*"), @"every Bash command that is `sed -n` or starts with it followed by a space, whatever comes after (such as `sed -n --force ...`). This includes commands that run other programs or write any file: the further words of `sed` are not known to be harmless");
        insta::assert_snapshot!(summary_of("git diff *"), @"every Bash command that is `git diff` or starts with it followed by a space, whatever comes after (such as `git diff --force ...`). This includes commands that run other programs or write any file: the further words of `git` are not known to be harmless. The rule covers the command's words only, not the repository's hooks and the programs its configuration names: whatever is there when it runs again runs without asking");
        insta::assert_snapshot!(summary_of("cat:*"), @"every Bash command that is `cat` or starts with it followed by a space, whatever comes after (such as `cat --force ...`). Whatever words follow, `cat` only reads files and prints them: it runs no other program and writes no file, though what follows may also be shell syntax, such as a redirect (`> file`) that writes any file");
    }

    /// An exact command that runs a script: the script's contents are not part of the rule.
    #[test]
    fn an_exact_command_that_runs_a_script_says_its_contents_are_not_part_of_the_rule() {
        insta::assert_snapshot!(summary_of("python tool.py"), @"only the Bash command `python tool.py`, exactly as written. The rule covers the command's words only, not the contents of `tool.py`: whatever is there when it runs again runs without asking");
        insta::assert_snapshot!(summary_of("npm run x"), @"only the Bash command `npm run x`, exactly as written. The rule covers the command's words only, not package.json's scripts and the install scripts of packages: whatever is there when it runs again runs without asking");
    }

    #[test]
    fn bash_rule_shapes_are_read_as_claude_code_matches_them() {
        assert_eq!(bash_rule("npm test"), bash("exact", "npm test"));
        assert_eq!(bash_rule("npm run test:*"), bash("prefix", "npm run test"));
        // A trailing ` *` is optional in Claude Code: the same as the prefix rule.
        assert_eq!(bash_rule("git push *"), bash("prefix", "git push"));
        assert_eq!(bash_rule("git push*"), bash("wildcard", "git push*"));
        assert_eq!(bash_rule("npm * --save"), bash("wildcard", "npm * --save"));
        assert_eq!(bash_rule("git * main *"), bash("wildcard", "git * main *"));
        // An escaped star is a literal star: an exact command.
        assert_eq!(bash_rule(r"echo \*"), bash("exact", r"echo \*"));
        assert_eq!(bash_rule(r"echo \\*"), bash("wildcard", r"echo \\*"));
        // `:*` that is not the one-line prefix syntax matches literally.
        assert_eq!(bash_rule(":*"), bash("exact", ":*"));
        assert_eq!(bash_rule("a\nb:*"), bash("exact", "a\nb:*"));
        for everything in ["*", " * "] {
            assert_eq!(
                bash_rule(everything),
                RuleMatch::EveryCall {
                    tool: "Bash".into()
                }
            );
        }
    }

    #[test]
    fn a_rule_without_content_allows_every_call_of_its_tool() {
        for rule in [
            json!({ "toolName": "Bash" }),
            json!({ "toolName": "Bash", "ruleContent": "" }),
            json!({ "toolName": "Bash", "ruleContent": null }),
        ] {
            assert_eq!(
                rule_match(&rule),
                Some(RuleMatch::EveryCall {
                    tool: "Bash".into()
                })
            );
        }
        assert_eq!(
            rule_match(&json!({ "toolName": "Bash", "ruleContent": 7 })),
            None
        );
        assert_eq!(rule_match(&json!({ "ruleContent": "ls" })), None);
    }

    #[test]
    fn other_tools_rules_are_named_in_claude_codes_syntax() {
        assert_eq!(
            rule_match(&json!({ "toolName": "WebFetch", "ruleContent": "domain:x.org" })),
            Some(RuleMatch::AgentRule {
                tool: "WebFetch".into(),
                rule: "domain:x.org".into()
            })
        );
    }

    #[test]
    fn every_rule_of_a_suggestion_is_described_in_full() {
        let long = format!("echo {}", "y".repeat(3000));
        let suggestions = from_event(Some(&json!([{
            "type": "addRules",
            "rules": [
                { "toolName": "Bash", "ruleContent": long },
                { "toolName": "Bash", "ruleContent": "rm:*" },
            ],
            "behavior": "allow",
            "destination": "session"
        }])));
        let summary = &suggestions[0].summary;
        assert!(summary.contains(&long), "the long command is cut");
        assert!(
            summary.contains("; and every Bash command that is `rm`"),
            "{summary}"
        );
        assert_eq!(suggestions[0].describe(), *summary);
    }

    #[test]
    fn accept_edits_is_for_the_session_only_and_says_what_it_lets_through() {
        let suggestions = from_event(Some(
            &json!([{ "type": "setMode", "mode": "acceptEdits", "destination": "session" }]),
        ));
        assert_eq!(
            suggestions[0].summary,
            format!("mode `acceptEdits`: {ACCEPT_EDITS_LETS_THROUGH}")
        );
        assert!(suggestions[0].summary.contains("rm, rmdir, mv"));
        assert_eq!(suggestions[0].scopes, [AlwaysScope::Session]);
    }

    #[test]
    fn directories_deny_rules_and_unknown_kinds_are_never_always() {
        let suggestions = from_event(Some(&json!([
            { "type": "addDirectories", "directories": ["/p"], "destination": "session" },
            { "type": "addRules", "rules": [{ "toolName": "Bash" }], "behavior": "deny", "destination": "session" },
            { "type": "setMode", "mode": "bypassPermissions", "destination": "session" },
            { "type": "somethingNew" },
            { "type": "addRules", "rules": [], "behavior": "allow", "destination": "session" },
            { "type": "addRules", "rules": [{ "toolName": "WebFetch", "ruleContent": "domain:x.org" }], "behavior": "allow", "destination": "session" },
        ])));
        let summaries: Vec<&str> = suggestions.iter().map(|s| s.summary.as_str()).collect();
        assert_eq!(
            summaries,
            ["every WebFetch call that the agent's own rule `WebFetch(domain:x.org)` matches"]
        );
        assert_eq!(suggestions[0].id, "s1");
        assert!(from_event(None).is_empty());
    }

    #[test]
    fn hostile_rule_text_is_made_visible_in_the_summary_and_kept_exact_in_the_rule() {
        let content = "ls\u{1b}[2J\u{202e}";
        let suggestions = from_event(Some(&json!([{
            "type": "addRules",
            "rules": [{ "toolName": "Bash", "ruleContent": content }],
            "behavior": "allow",
            "destination": "session"
        }])));
        assert!(!suggestions[0].summary.contains('\u{1b}'));
        assert!(!suggestions[0].summary.contains('\u{202e}'));
        assert_eq!(suggestions[0].allows, [bash("exact", content)]);
    }
}
