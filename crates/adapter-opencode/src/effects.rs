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
//!   user configuration (`permission.bash` of `~/.config/kilo/kilo.json` for a bash pattern), so
//!   it holds in every session and project, after a restart too, until someone removes it.
//!
//!   For `bash` gatehouse never offers it ([`bash_always_withheld!`]): the agent checks a
//!   pattern only against the commands its parser finds in a script and runs the rest
//!   unchecked, so after an `always` for `cat README.md` (`cat *`), OpenCode 1.18.33 ran
//!   `x='$(touch pwned)'; cat ${x@P}`, ``cat ${x:-`touch pwned`}`` and `export P='$(touch
//!   pwned)'; cat ${P@P}` unasked (and Kilo Code CLI 7.7.7, which saves the rule, in every
//!   project after restarts too). The other permissions (`edit` and the rest, which the person
//!   answers in the agent's terminal) keep it, described here.
//! - `reject` rejects this request and every other request of the session still waiting; with a
//!   message the model reads it and the turn goes on.
//!
//! Each pattern says what it lets through beyond its words ([`RuleMatch::with_warnings`]): the
//! agent matches `printf *` against the command's text, redirects included (`printf approved >
//! proof.txt` ran again unasked), so a pattern for a program whose further words may run other
//! programs (`git *`, `npm run *`) says plainly that it lets such commands through.
//!
//! `always` is offered only for a permission other than `bash`, and only when every pattern it
//! would approve is shown in full: with more than [`MAX_ALWAYS_PATTERNS`] patterns, one longer
//! than [`MAX_PATTERN_CHARS`], one that is not text, or none, there is no suggestion, and the
//! preview says why.

use gatehouse_core::rule_match::code;
use gatehouse_core::{AlwaysScope, Preview, PreviewFormat, RuleMatch, Suggestion};
use serde_json::json;

use crate::events::ANSWERABLE_PERMISSION;
use crate::PluginAgent;

/// Why `always` is never offered for a `bash` request of the agent called `$name` (a literal, the
/// agent's [`PluginAgent::name`]), in words for people: its [`PluginAgent::bash_always_withheld`],
/// which the preview says after "always: not offered, because" and `gatehouse status --json`
/// gives as the evidence of bash's `always`. A macro, so that the text is one constant string.
#[macro_export]
macro_rules! bash_always_withheld {
    ($name:literal) => {
        concat!(
            $name,
            " checks a bash pattern only against the commands it finds in a script, and runs the rest (an assignment, `export` or `declare`, a command in backquotes inside ${x:-...}) unchecked, so a pattern such as `cat *` would let a script run any code (shown with OpenCode 1.18.33 and Kilo 7.7.7); answer once"
        )
    };
}

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
        if self.permission == ANSWERABLE_PERMISSION {
            return Some(self.agent.bash_always_withheld.to_owned());
        }
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

    /// An `edit` request as OpenCode asks it: the file, and `*` to approve every edit.
    fn effects<'a>(always: Option<&'a [String]>) -> PermissionEffects<'a> {
        PermissionEffects {
            agent: &crate::OPENCODE,
            permission: "edit",
            command: "src/main.rs",
            always,
        }
    }

    /// OpenCode 1.18.33 (and Kilo Code CLI 7.7.7) checks a bash pattern only against the
    /// commands its parser finds in a script: after an `always` for `cat README.md` (`cat *`),
    /// `x='$(touch pwned)'; cat ${x@P}` ran unasked. So no `always` is offered for bash, and the
    /// preview says why, never that `cat *` is harmless.
    #[test]
    fn a_bash_request_of_opencode_or_kilo_gets_no_always_and_the_preview_says_why() {
        let patterns = vec!["cat *".to_owned()];
        for agent in [&crate::OPENCODE, &crate::kilo::KILO] {
            let effects = PermissionEffects {
                agent,
                permission: "bash",
                command: "cat README.md",
                always: Some(&patterns),
            };
            assert!(effects.suggestion().is_none(), "{}", agent.name);
            let text = effects.preview().text;
            let why = format!(
                "always: not offered, because {} checks a bash pattern only against the commands it finds in a script",
                agent.name
            );
            assert!(text.contains(&why), "{text}");
            assert!(
                text.contains("`cat *` would let a script run any code"),
                "{text}"
            );
            assert!(text.contains("answer once."), "{text}");
            let once = format!(
                "once: {} allows this bash call, `cat README.md`, this time only.",
                agent.name
            );
            assert!(text.contains(&once), "{text}");
            assert!(!text.contains("only reads files"), "{text}");
        }
        assert!(crate::kilo::KILO
            .bash_always_withheld
            .starts_with("Kilo checks"));
    }

    #[test]
    fn always_shows_the_broader_pattern_for_the_whole_process_and_the_waiting_requests() {
        let patterns = vec!["*".to_owned()];
        let effects = effects(Some(&patterns));
        let suggestion = effects.suggestion().unwrap();
        assert_eq!(
            suggestion.allows,
            [RuleMatch::Wildcard {
                tool: "edit".into(),
                pattern: "*".into()
            }]
        );
        assert_eq!(suggestion.scopes, [AlwaysScope::Session]);
        assert!(suggestion.summary.contains("until it restarts"));
        let preview = effects.preview();
        assert!(preview.text.contains("pattern `*`"), "{}", preview.text);
        assert!(preview
            .text
            .contains("until it restarts (OpenCode saves nothing)"));
        assert!(preview
            .text
            .contains("any other request of this session waiting now"));
        assert!(preview
            .text
            .contains("rejects every other request of this session"));
        assert!(preview.text.contains("this edit call, `src/main.rs`"));
        assert_eq!(preview.incomplete, None);
    }

    /// Kilo Code CLI 7.7.7 writes an `always` into its user configuration: the prompt says so
    /// (every session and project, after a restart too) and offers the user scope only, never the
    /// session OpenCode's would be.
    #[test]
    fn kilos_always_says_it_is_saved_for_every_project_and_offers_the_user_scope_only() {
        let patterns = vec!["*".to_owned()];
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

    /// Withheld for bash comes first: whatever the patterns, the preview gives that reason.
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
            for (permission, why) in [("edit", why), ("bash", "checks a bash pattern only")] {
                let effects = PermissionEffects {
                    permission,
                    ..effects(always)
                };
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
