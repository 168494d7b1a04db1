//! Verdicts in Codex's words: the JSON a PermissionRequest hook prints on stdout. Codex 0.171.0
//! ran the command for `{"behavior":"allow"}` without showing its own prompt, and for
//! `{"behavior":"deny","message":...}` showed "Blocked by hook" with the message and did not run
//! it (`gatehouse probe codex` checks both again for each Codex version).
//!
//! "always" for a Bash prompt ([`render_for`]) is allow now AND a rule in gatehouse's own rules
//! file, which Codex reads from the next session on ([`crate::rules`]): Codex refuses
//! `updatedPermissions` (its hook fails and its own prompt decides), so the rule is the adapter's
//! side effect, done here, in the hook, just before the verdict is printed. The allow goes out
//! either way (it is what the person answered for this call); a `systemMessage`, which Codex
//! shows under the call, says whether the rule was written, and if not, why.

use std::path::Path;

use gatehouse_core::{Answer, NewPrompt, Verdict};
use serde_json::json;

use crate::events::ANSWERABLE_TOOL;
use crate::rules::{self, Added};

/// What Codex tells the model when the person denies without a message of their own.
pub use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

/// Where an "always" writes its rule, and with which shell the command's pattern is made.
pub struct RulesTarget<'a> {
    /// gatehouse's rules file; `None` when neither `CODEX_HOME` nor `HOME` is set.
    pub path: Option<&'a Path>,
    pub shell: Option<&'a str>,
}

/// The hook's stdout for a verdict on `prompt`: [`render`], except that "always" on a Bash
/// prompt writes the rule into `target` first and answers allow, saying what became of the rule.
pub fn render_for(prompt: &NewPrompt, verdict: &Verdict, target: &RulesTarget<'_>) -> String {
    if !matches!(verdict.0, Answer::Always { .. }) || prompt.tool != ANSWERABLE_TOOL {
        return render(verdict);
    }
    let command = prompt
        .input
        .get("command")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let written = rules::pattern_for(command, target.shell)
        .map_err(rules::RuleError::from)
        .and_then(|pattern| {
            let path = target.path.ok_or_else(|| rules::RuleError::Io {
                path: rules::RULES_FILE_NAME.into(),
                source: std::io::Error::other("neither CODEX_HOME nor HOME is set"),
            })?;
            rules::add_rule(path, &pattern.words()).map(|added| (added, path))
        });
    let message = match written {
        Ok((Added::Written, path)) => format!(
            "gatehouse: allowed, and a rule for this command was added to {}: it counts {}",
            path.display(),
            rules::TAKES_EFFECT
        ),
        Ok((Added::AlreadyThere, path)) => format!(
            "gatehouse: allowed; {} already holds the rule for this command: it counts {}",
            path.display(),
            rules::TAKES_EFFECT
        ),
        Err(error) => format!("gatehouse: allowed this once only; no rule was written: {error}"),
    };
    json!({
        "systemMessage": message,
        "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": { "behavior": "allow" } }
    })
    .to_string()
}

/// The hook's stdout for a verdict: the kit's, in Claude Code's PermissionRequest shape. Codex
/// asks no questions through this hook, and `always` is delivered by [`render_for`], for Bash
/// prompts only: anywhere else either is a deny, which never keeps a rule nobody proved.
pub fn render(verdict: &Verdict) -> String {
    gatehouse_harness::verdict::permission_request_decision(verdict, "Codex")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_allows_and_deny_carries_its_message() {
        gatehouse_harness::verdict::testing::assert_permission_request_decisions(render, "Codex");
    }

    fn bash_prompt(command: &str) -> NewPrompt {
        let event = serde_json::json!({
            "hook_event_name": "PermissionRequest", "session_id": "s", "cwd": "/p",
            "tool_name": "Bash", "tool_input": { "command": command }
        });
        match crate::events::parse_with(event.to_string().as_bytes(), &|| None).unwrap() {
            gatehouse_core::HookEvent::Prompt { prompt, .. } => prompt,
            other => panic!("{other:?}"),
        }
    }

    fn always() -> Verdict {
        Verdict(Answer::Always {
            suggestion: Some("s1".into()),
            scope: gatehouse_core::AlwaysScope::User,
        })
    }

    #[test]
    fn always_writes_the_rule_then_allows_and_says_from_when() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("rules/gatehouse.rules");
        let target = RulesTarget {
            path: Some(&path),
            shell: Some("/bin/bash"),
        };
        let rendered = render_for(&bash_prompt("cat t0.txt"), &always(), &target);
        let output: serde_json::Value = serde_json::from_str(&rendered).unwrap();
        assert_eq!(
            output["hookSpecificOutput"]["decision"],
            serde_json::json!({ "behavior": "allow" }),
            "no updatedPermissions: Codex refuses them"
        );
        let message = output["systemMessage"].as_str().unwrap();
        assert!(
            message.contains("from your next Codex session on; this session will still ask"),
            "{message}"
        );
        assert_eq!(
            rules::read_rules(&std::fs::read_to_string(&path).unwrap()).unwrap(),
            vec![vec!["cat".to_owned(), "t0.txt".to_owned()]]
        );
        let again = render_for(&bash_prompt("cat t0.txt"), &always(), &target);
        assert!(again.contains("already holds the rule"));
        // A program whose further words may run code: allowed this once, and no rule.
        let sed = render_for(&bash_prompt("sed -n 1p f"), &always(), &target);
        assert!(
            sed.contains("allowed this once only; no rule was written"),
            "{sed}"
        );
        assert_eq!(
            rules::read_rules(&std::fs::read_to_string(&path).unwrap()).unwrap(),
            vec![vec!["cat".to_owned(), "t0.txt".to_owned()]]
        );
    }

    #[test]
    fn always_that_cannot_write_its_rule_allows_this_once_and_says_why() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("gatehouse.rules");
        std::fs::write(
            &path,
            "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\n",
        )
        .unwrap();
        let target = RulesTarget {
            path: Some(&path),
            shell: Some("/bin/bash"),
        };
        let rendered = render_for(&bash_prompt("cat t0.txt"), &always(), &target);
        assert!(rendered.contains(r#""behavior":"allow""#));
        assert!(
            rendered.contains("allowed this once only; no rule was written"),
            "{rendered}"
        );
        let no_home = render_for(
            &bash_prompt("cat t0.txt"),
            &always(),
            &RulesTarget {
                path: None,
                shell: None,
            },
        );
        assert!(
            no_home.contains("neither CODEX_HOME nor HOME is set"),
            "{no_home}"
        );
        let once = render_for(&bash_prompt("cat t0.txt"), &Verdict(Answer::Once), &target);
        assert_eq!(once, render(&Verdict(Answer::Once)));
    }

    #[test]
    fn always_on_anything_but_a_bash_prompt_never_allows() {
        let mut prompt = bash_prompt("cat t0.txt");
        prompt.tool = "apply_patch".into();
        let target = RulesTarget {
            path: None,
            shell: None,
        };
        assert!(render_for(&prompt, &always(), &target).contains(r#""behavior":"deny""#));
    }
}
