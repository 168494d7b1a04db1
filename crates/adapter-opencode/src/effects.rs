//! What an agent of the OpenCode family really does with each answer to a permission prompt, in
//! the prompt's own fields (a text [`Preview`] and the one `always` [`Suggestion`]), so that
//! `list`, the console and the web page show it. Observed with OpenCode 1.18.33
//! (tests/data/opencode-1.18.33/README.md) and Kilo Code CLI 7.7.7:
//!
//! - `once` runs this call.
//! - `always` approves the request's `always` patterns (`printf *` for `printf approved >
//!   proof.txt`), not just this call, and every other request of the session waiting then that
//!   its patterns match. How long is the agent's own ([`AlwaysKept`]): OpenCode keeps it for
//!   every session of that process until it restarts (nothing is saved); Kilo writes it into its
//!   user configuration (`permission.bash` of `~/.config/kilo/kilo.json`), so it holds in every
//!   session and project, after a restart too, until someone removes it.
//! - `reject` rejects this request and every other request of the session still waiting; with a
//!   message the model reads it and the turn goes on.
//!
//! Each pattern says what it lets through beyond its words ([`RuleMatch::with_warnings`]): the
//! agent matches `printf *` against the command's text, redirects included (`printf approved >
//! proof.txt` ran again unasked), so a pattern for a program whose further words may run other
//! programs (`git *`, `npm run *`) says plainly that it lets such commands through.
//!
//! `always` is offered only when every pattern it would approve is shown in full: with more than
//! [`MAX_ALWAYS_PATTERNS`] patterns, one longer than [`MAX_PATTERN_CHARS`], one that is not text,
//! or none, there is no suggestion, and the preview says why.

use gatehouse_core::rule_match::code;
use gatehouse_core::{AlwaysScope, Preview, PreviewFormat, RuleMatch, Suggestion};
use serde_json::json;

use crate::PluginAgent;

/// The most `always` patterns a suggestion shows; a request with more is offered no `always`.
pub const MAX_ALWAYS_PATTERNS: usize = 16;

/// The longest `always` pattern a suggestion shows, in characters.
pub const MAX_PATTERN_CHARS: usize = 2000;

/// How long an agent's `always` approves its patterns, and where it keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlwaysKept {
    /// In the agent's process, for every session, until it restarts; nothing is saved
    /// (OpenCode 1.18.33: after a restart it asked again, and its database stayed empty).
    UntilRestart,
    /// Written into the agent's user configuration file, described here (such as
    /// `~/.config/kilo/kilo.json`): every session and project, after a restart too, until
    /// someone removes it (Kilo Code CLI 7.7.7 added `"printf *": "allow"` to its
    /// `permission.bash`, and after a restart ran `printf other > other.txt` unasked).
    InUserConfiguration(&'static str),
}

impl AlwaysKept {
    /// The scopes the person may choose for the suggestion: the one the agent really uses.
    pub fn scopes(self) -> Vec<AlwaysScope> {
        match self {
            AlwaysKept::UntilRestart => vec![AlwaysScope::Session],
            AlwaysKept::InUserConfiguration(_) => vec![AlwaysScope::User],
        }
    }
}

/// One permission request, as far as its answers' effects go.
#[derive(Debug, Clone, Copy)]
pub struct PermissionEffects<'a> {
    /// The agent that asks, such as OpenCode.
    pub agent: &'a PluginAgent,
    /// The permission, such as `bash`.
    pub permission: &'a str,
    /// What the call does, as the prompt's summary says it (the command, for `bash`).
    pub command: &'a str,
    /// The request's `always` patterns; `None` when they are not all text.
    pub always: Option<&'a [String]>,
}

impl PermissionEffects<'_> {
    /// Why `always` is not offered for this request, if it is not.
    pub fn always_withheld(&self) -> Option<String> {
        let name = self.agent.name;
        let Some(patterns) = self.always else {
            return Some(format!(
                "{name}'s list of patterns to approve holds something that is not text"
            ));
        };
        if patterns.is_empty() {
            return Some(format!("{name} names no pattern to approve"));
        }
        if patterns.len() > MAX_ALWAYS_PATTERNS {
            return Some(format!(
                "{name} would approve {} patterns, more than gatehouse shows ({MAX_ALWAYS_PATTERNS})",
                patterns.len()
            ));
        }
        if patterns
            .iter()
            .any(|pattern| pattern.chars().count() > MAX_PATTERN_CHARS)
        {
            return Some(format!(
                "a pattern {name} would approve is longer than gatehouse shows ({MAX_PATTERN_CHARS} characters)"
            ));
        }
        None
    }

    /// What `always` lets through, pattern by pattern (the agent's `*` stands for any text), with
    /// what each lets through beyond its words.
    pub fn rules(&self) -> Vec<RuleMatch> {
        self.always
            .unwrap_or_default()
            .iter()
            .map(|pattern| {
                RuleMatch::Wildcard {
                    tool: self.permission.to_owned(),
                    pattern: pattern.clone(),
                }
                .with_warnings()
            })
            .collect()
    }

    /// For how long and where `always` approves its patterns, in words after the rules, for
    /// the suggestion's summary.
    fn kept(&self) -> String {
        let name = self.agent.name;
        match self.agent.always {
            AlwaysKept::UntilRestart => {
                format!("in every session of this {name} until it restarts ({name} saves nothing)")
            }
            AlwaysKept::InUserConfiguration(file) => format!(
                "from now on in every session and project, after {name} restarts too: {name} saves the rule in {file}"
            ),
        }
    }

    /// The one `always` suggestion, when it can be shown in full.
    pub fn suggestion(&self) -> Option<Suggestion> {
        if self.always_withheld().is_some() {
            return None;
        }
        let rules = self.rules();
        let native_rules: Vec<_> = self
            .always
            .unwrap_or_default()
            .iter()
            .map(|pattern| json!({ "toolName": self.permission, "ruleContent": pattern }))
            .collect();
        Some(Suggestion {
            id: "s1".into(),
            summary: format!(
                "{}: {}, and every request of this session waiting now that it matches",
                RuleMatch::describe_all(&rules),
                self.kept()
            ),
            allows: rules,
            scopes: self.agent.always.scopes(),
            native: json!({ "behavior": "allow", "rules": native_rules, "reply": "always" }),
        })
    }

    /// The title of the preview, such as `What OpenCode does with each answer`.
    pub fn preview_title(&self) -> String {
        format!("What {} does with each answer", self.agent.name)
    }

    /// The preview: each answer, and what the agent does with it.
    pub fn preview(&self) -> Preview {
        let (name, permission) = (self.agent.name, self.permission);
        let always = match (self.always_withheld(), self.agent.always) {
            (Some(why), _) => format!("always: not offered, because {why}."),
            (None, AlwaysKept::UntilRestart) => format!(
                "always: {name} allows this call and, from then on, {} without asking, in every session of this {name} process until it restarts ({name} saves nothing); any other request of this session waiting now that it matches is approved too.",
                RuleMatch::describe_all(&self.rules())
            ),
            (None, AlwaysKept::InUserConfiguration(file)) => format!(
                "always: {name} allows this call and, from then on, {} without asking, in every session and project, after {name} restarts too: {name} saves the rule in {file}, where it stays until someone removes it; any other request of this session waiting now that it matches is approved too.",
                RuleMatch::describe_all(&self.rules())
            ),
        };
        let text = [
            format!(
                "once: {name} allows this {permission} call, {}, this time only.",
                code(self.command)
            ),
            always,
            format!("reject: {name} does not run it, and rejects every other request of this session still waiting; the model reads your message and the turn goes on."),
        ]
        .join("\n");
        Preview {
            format: PreviewFormat::Text,
            title: self.preview_title(),
            text,
            incomplete: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects<'a>(always: Option<&'a [String]>) -> PermissionEffects<'a> {
        PermissionEffects {
            agent: &crate::OPENCODE,
            permission: "bash",
            command: "printf approved > proof.txt",
            always,
        }
    }

    #[test]
    fn always_shows_the_broader_pattern_for_the_whole_process_and_the_waiting_requests() {
        let patterns = vec!["printf *".to_owned()];
        let effects = effects(Some(&patterns));
        let suggestion = effects.suggestion().unwrap();
        assert_eq!(
            suggestion.allows,
            [RuleMatch::Wildcard {
                tool: "bash".into(),
                pattern: "printf *".into()
            }
            .with_warnings()]
        );
        assert_eq!(suggestion.scopes, [AlwaysScope::Session]);
        assert!(suggestion.summary.contains("until it restarts"));
        let preview = effects.preview();
        assert!(preview.text.contains("`printf *`"), "{}", preview.text);
        assert!(
            preview
                .text
                .contains("until it restarts (OpenCode saves nothing)")
        );
        assert!(
            preview
                .text
                .contains("any other request of this session waiting now")
        );
        assert!(
            preview
                .text
                .contains("rejects every other request of this session")
        );
        assert!(preview.text.contains("`printf approved > proof.txt`"));
        assert_eq!(preview.incomplete, None);
    }

    /// Kilo Code CLI 7.7.7 writes an `always` into its user configuration: the prompt says so
    /// (every session and project, after a restart too) and offers the user scope only, never the
    /// session OpenCode's would be.
    #[test]
    fn kilos_always_says_it_is_saved_for_every_project_and_offers_the_user_scope_only() {
        let patterns = vec!["printf *".to_owned()];
        let effects = PermissionEffects {
            agent: &crate::kilo::KILO,
            ..effects(Some(&patterns))
        };
        let suggestion = effects.suggestion().unwrap();
        assert_eq!(suggestion.scopes, [AlwaysScope::User]);
        assert!(
            suggestion
                .summary
                .contains("in every session and project, after Kilo restarts too: Kilo saves the rule in ~/.config/kilo/kilo.json"),
            "{}",
            suggestion.summary
        );
        assert!(!suggestion.summary.contains("saves nothing"));
        let preview = effects.preview();
        assert_eq!(preview.title, "What Kilo does with each answer");
        assert!(
            preview.text.contains("Kilo saves the rule in ~/.config/kilo/kilo.json, where it stays until someone removes it"),
            "{}",
            preview.text
        );
        assert!(!preview.text.contains("OpenCode"), "{}", preview.text);
        assert!(
            !preview.text.contains("until it restarts"),
            "{}",
            preview.text
        );
    }

    /// OpenCode's `always` for `git status` approves `git status *`: the words say that it lets
    /// through commands that run other programs, and for `echo *`, that a redirect may follow;
    /// `printf *` is not harmless (bash's `printf -v` assigns a variable whose subscript runs code).
    #[test]
    fn always_says_what_the_broader_pattern_lets_through_beyond_its_words() {
        let said = |pattern: &str| {
            let patterns = vec![pattern.to_owned()];
            let effects = PermissionEffects {
                agent: &crate::OPENCODE,
                permission: "bash",
                command: "git status",
                always: Some(&patterns),
            };
            let suggestion = effects.suggestion().unwrap();
            assert!(effects.preview().text.contains(&suggestion.describe()));
            suggestion.describe()
        };
        assert_eq!(
            said("git status *"),
            "every bash command that matches the pattern `git status *`, where each * stands for any text (spaces and options included). This includes commands that run other programs or write any file: the further words of `git` are not known to be harmless. The rule covers the command's words only, not the repository's hooks and the programs its configuration names: whatever is there when it runs again runs without asking"
        );
        assert_eq!(
            said("echo *"),
            "every bash command that matches the pattern `echo *`, where each * stands for any text (spaces and options included). Whatever words follow, `echo` only prints its words: it runs no other program and writes no file, though what follows may also be shell syntax, such as a redirect (`> file`) that writes any file"
        );
        assert!(
            said("printf *").contains("the further words of `printf` are not known to be harmless")
        );
        assert!(said("npm run *").contains("not package.json's scripts"));
    }

    #[test]
    fn always_is_withheld_unless_every_pattern_is_shown_in_full() {
        let many: Vec<String> = (0..=MAX_ALWAYS_PATTERNS)
            .map(|n| format!("p{n} *"))
            .collect();
        let long = vec!["x".repeat(MAX_PATTERN_CHARS + 1)];
        let none: Vec<String> = Vec::new();
        for (always, why) in [
            (Some(many.as_slice()), "patterns, more than gatehouse shows"),
            (Some(long.as_slice()), "longer than gatehouse shows"),
            (Some(none.as_slice()), "names no pattern"),
            (None, "not text"),
        ] {
            let effects = effects(always);
            assert!(effects.suggestion().is_none());
            let preview = effects.preview();
            assert!(
                preview.text.contains("always: not offered"),
                "{}",
                preview.text
            );
            assert!(preview.text.contains(why), "{}", preview.text);
        }
    }

    #[test]
    fn a_command_with_backticks_cannot_end_its_quote() {
        let patterns = vec!["echo ``` *".to_owned()];
        let effects = PermissionEffects {
            agent: &crate::OPENCODE,
            permission: "bash",
            command: "echo ``` done",
            always: Some(&patterns),
        };
        let preview = effects.preview();
        assert!(
            preview.text.contains("````echo ``` done````"),
            "{}",
            preview.text
        );
    }
}
