//! Claude Code's `permission_suggestions`, as prompts carry them: only those that stop a repeat
//! prompt become [`Suggestion`]s that `always` may pick, described for people.
//!
//! Observed with Claude Code 2.1.332 (see the fixtures' README): an `addRules` suggestion with
//! `behavior: allow` (an exact command for Bash) and `setMode acceptEdits` (for edits) stop the
//! next prompt; `addDirectories` does not, so it is never offered. Anything else is left out.

use gatehouse_core::{AlwaysScope, Suggestion};
use serde_json::Value;

/// The longest rule text kept in a summary, in characters.
const RULE_CHARS: usize = 200;

/// The suggestions of a PermissionRequest that stop repeats, with ids `s1`, `s2`, ... in order.
pub fn from_event(suggestions: Option<&Value>) -> Vec<Suggestion> {
    let Some(list) = suggestions.and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(describe)
        .enumerate()
        .map(|(index, (summary, scopes, native))| Suggestion {
            id: format!("s{}", index + 1),
            summary,
            scopes,
            native,
        })
        .collect()
}

/// What one suggestion does, the scopes it may be kept in, and itself; `None` for one that
/// does not stop repeats.
fn describe(suggestion: &Value) -> Option<(String, Vec<AlwaysScope>, Value)> {
    let text = |name: &str| suggestion.get(name).and_then(Value::as_str);
    match text("type")? {
        "addRules" if text("behavior") == Some("allow") => {
            let rules = suggestion.get("rules")?.as_array()?;
            let words: Vec<String> = rules.iter().map(describe_rule).collect::<Option<_>>()?;
            if words.is_empty() {
                return None;
            }
            Some((words.join("; "), Vec::new(), suggestion.clone()))
        }
        // Only kept for the session: persisting a mode was not observed.
        "setMode" if text("mode") == Some("acceptEdits") => Some((
            "accept edits (every file edit, for the rest of the session)".into(),
            vec![AlwaysScope::Session],
            suggestion.clone(),
        )),
        _ => None,
    }
}

fn describe_rule(rule: &Value) -> Option<String> {
    let tool = rule.get("toolName")?.as_str()?;
    let tool = gatehouse_core::text::one_line(tool, 80);
    match rule.get("ruleContent").and_then(Value::as_str) {
        Some(content) if tool == "Bash" => Some(format!(
            "allow exactly `{}`",
            gatehouse_core::text::one_line(content, RULE_CHARS)
        )),
        Some(content) => Some(format!(
            "allow {tool} `{}`",
            gatehouse_core::text::one_line(content, RULE_CHARS)
        )),
        None => Some(format!("allow every {tool} call")),
    }
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

    #[test]
    fn an_exact_command_rule_is_allow_exactly() {
        let suggestions = from_event(Some(&json!([{
            "type": "addRules",
            "rules": [{ "toolName": "Bash", "ruleContent": "node -e \"x\"" }],
            "behavior": "allow",
            "destination": "localSettings"
        }])));
        assert_eq!(suggestions.len(), 1);
        assert_eq!(suggestions[0].id, "s1");
        assert_eq!(suggestions[0].summary, "allow exactly `node -e \"x\"`");
        assert!(suggestions[0].scopes.is_empty());
        assert_eq!(suggestions[0].native["destination"], "localSettings");
    }

    #[test]
    fn accept_edits_is_for_the_session_only() {
        let suggestions = from_event(Some(
            &json!([{ "type": "setMode", "mode": "acceptEdits", "destination": "session" }]),
        ));
        assert_eq!(
            suggestions[0].summary,
            "accept edits (every file edit, for the rest of the session)"
        );
        assert_eq!(suggestions[0].scopes, [AlwaysScope::Session]);
    }

    #[test]
    fn directories_deny_rules_and_unknown_kinds_are_never_always() {
        let suggestions = from_event(Some(&json!([
            { "type": "addDirectories", "directories": ["/p"], "destination": "session" },
            { "type": "addRules", "rules": [{ "toolName": "Bash" }], "behavior": "deny", "destination": "session" },
            { "type": "setMode", "mode": "bypassPermissions", "destination": "session" },
            { "type": "somethingNew" },
            { "type": "addRules", "rules": [{ "toolName": "WebFetch", "ruleContent": "domain:x.org" }], "behavior": "allow", "destination": "session" },
        ])));
        let summaries: Vec<&str> = suggestions.iter().map(|s| s.summary.as_str()).collect();
        assert_eq!(summaries, ["allow WebFetch `domain:x.org`"]);
        assert_eq!(suggestions[0].id, "s1");
        assert!(from_event(None).is_empty());
    }

    #[test]
    fn hostile_rule_text_is_made_visible() {
        let suggestions = from_event(Some(&json!([{
            "type": "addRules",
            "rules": [{ "toolName": "Bash", "ruleContent": "ls\u{1b}[2J\u{202e}" }],
            "behavior": "allow",
            "destination": "session"
        }])));
        assert!(!suggestions[0].summary.contains('\u{1b}'));
        assert!(!suggestions[0].summary.contains('\u{202e}'));
    }
}
