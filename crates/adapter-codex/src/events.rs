//! Codex's hook events, as gatehouse reads them.
//!
//! - `PermissionRequest` becomes a permission prompt. Codex runs this hook before it shows its
//!   own approval prompt and waits for it. A `Bash` or `apply_patch` prompt (what the probe
//!   proves) is held only while the gateway offers an action for it (`WhileActionable`): the
//!   gateway alone decides, for the Codex version the hook reports ([`crate::CodexAdapter`]), and
//!   otherwise lists it read-only with the reason and lets the hook return at once. Any other
//!   tool is registered for watching, read-only, and the hook returns at once.
//!   A Bash prompt carries the one suggestion "always" can pick: the `prefix_rule` gatehouse
//!   would write for exactly that command ([`crate::rules`]), counting from the next Codex
//!   session on, described with what further words may do; a command no rule can say exactly
//!   (or whose further words may run code) gets none, and a note saying why. An
//!   `apply_patch` prompt carries its patch as a diff ([`crate::patch`]).
//! - `PostToolUse` is a finished tool call, correlated with its prompt by tool and command (a
//!   patch without its final newline: Codex's PermissionRequest drops it, PostToolUse keeps it).
//! - `UserPromptSubmit` (a later turn), `Stop` and `Interrupt` (Esc at Codex's prompt: Codex
//!   0.171.0 then sends no PostToolUse and no Stop) end the session's turn.
//! - `SessionEnd` ends the session.
//! - `SessionStart`, `PreToolUse` and anything else: nothing for gatehouse.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{
    AlwaysScope, HookEvent, ParseError, Preview, PreviewFormat, PromptExtra, RuleMatch, Suggestion,
};
use gatehouse_harness::events::{
    command_correlation, held_while_actionable, read, ClaudeShapePayload, PermissionParts, Settling,
};
use serde_json::{json, Value};

use crate::rules::{self, Pattern};
use crate::ADAPTER_ID;

/// The shell tool, whose prompts the probe proves answerable: Codex names its shell, unified
/// exec and network approvals `Bash`.
pub const ANSWERABLE_TOOL: &str = "Bash";

/// The file-change tool, whose prompts the probe proves answerable too.
pub const PATCH_TOOL: &str = "apply_patch";

/// The tools whose prompts a probe can make answerable.
pub const PROBED_TOOLS: [&str; 2] = [ANSWERABLE_TOOL, PATCH_TOOL];

/// The title of the note on a Bash prompt for which no rule can be written.
pub const NO_ALWAYS_TITLE: &str =
    "\"always\" (a rule for your next Codex session) is not offered for this command";

/// Reads one Codex hook event; the person's shell (for a rule's pattern) is found only for a
/// Bash prompt ([`rules::person_shell`]).
pub fn parse(stdin: &[u8]) -> Result<HookEvent, ParseError> {
    parse_with(stdin, &rules::person_shell)
}

/// [`parse`] with the person's shell given, for tests.
pub fn parse_with(
    stdin: &[u8],
    shell: &dyn Fn() -> Option<String>,
) -> Result<HookEvent, ParseError> {
    let (_, mut event) = read::<ClaudeShapePayload>(stdin)?;
    if event.hook_event_name != "PermissionRequest" {
        return SETTLING.observe(event);
    }
    let (tool, input) = event.take_tool_call()?;
    let command = input
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // The summary is the command (the kit's), or for a patch, what it changes.
    let mut patch_summary = None;
    let mut extra = PromptExtra::default();
    if tool == ANSWERABLE_TOOL {
        match rules::pattern_for(command, shell().as_deref()) {
            Ok(pattern) => extra.suggestions.extend(suggestion(&pattern)),
            Err(why) => {
                extra.preview = Some(Preview {
                    format: PreviewFormat::Text,
                    title: NO_ALWAYS_TITLE.into(),
                    text: why.to_string(),
                    incomplete: None,
                })
            }
        }
    } else if tool == PATCH_TOOL {
        let view = crate::patch::view(command, &event.cwd);
        patch_summary = Some(view.summary);
        extra.preview = Some(view.preview);
    }
    // The gateway decides, for the Codex that runs this hook: it holds the prompt only if
    // it offers an action for it, else lists it read-only and lets go.
    let read_only_reason = (!PROBED_TOOLS.contains(&tool.as_str())).then(|| format!("the probe proves only {ANSWERABLE_TOOL} and {PATCH_TOOL} prompts of Codex; answer it in Codex's terminal"));
    let mut prompt = PermissionParts {
        adapter: ADAPTER_ID,
        session: event.session_id.clone(),
        cwd: event.cwd.clone(),
        correlation: correlation(&tool, &input),
        tool,
        input,
        read_only_reason,
    }
    .prompt();
    if let Some(summary) = patch_summary {
        prompt.summary = summary;
    }
    prompt.extra = extra;
    Ok(held_while_actionable(prompt))
}

/// PostToolUse, and the ends of turns and sessions, settle prompts. A new prompt from the person
/// (`UserPromptSubmit`) starts a later turn: whatever the earlier turn asked is over.
const SETTLING: Settling = Settling {
    adapter: ADAPTER_ID,
    tool_finished: "PostToolUse",
    turn_ended: &["UserPromptSubmit", "Stop", "Interrupt"],
    session_ended: "SessionEnd",
    correlation,
};

/// PermissionRequest carries `{command, description}` and PostToolUse only `{command}`, so the
/// command alone identifies the call; a patch's final newline, which PermissionRequest drops, is
/// not part of it.
fn correlation(tool: &str, input: &Value) -> String {
    match input.get("command").and_then(Value::as_str) {
        Some(patch) if tool == PATCH_TOOL => {
            correlation_key(tool, &Value::from(patch.trim_end_matches('\n')))
        }
        _ => command_correlation(tool, input),
    }
}

/// The one suggestion "always" picks for a Bash prompt: the rule gatehouse writes for exactly
/// this command, for every project of the person (their `CODEX_HOME`), counting from their next
/// Codex session on.
fn suggestion(pattern: &Pattern) -> Option<Suggestion> {
    let words = pattern.words();
    let rule_text = rules::render_rule(&words)?;
    let rule = match pattern {
        Pattern::Words(words) => RuleMatch::WordPrefix {
            tool: ANSWERABLE_TOOL.into(),
            words: words.clone(),
        },
        Pattern::Shell { command, .. } => RuleMatch::Exact {
            tool: ANSWERABLE_TOOL.into(),
            command: command.clone(),
        },
    };
    let allows = vec![RuleMatch::NextSession {
        agent: "Codex".into(),
        rule: Box::new(rule),
    }
    .with_warnings()];
    Some(Suggestion {
        id: "s1".into(),
        summary: gatehouse_core::text::visible(&RuleMatch::describe_all(&allows)).into_owned(),
        allows,
        scopes: vec![AlwaysScope::User],
        native: json!({
            "rule_text": rule_text,
            "pattern": words,
            "file": format!("$CODEX_HOME/rules/{}", rules::RULES_FILE_NAME),
        }),
    })
}

#[cfg(test)]
mod tests {
    use gatehouse_core::{HoldMode, NewPrompt, Observation};
    use gatehouse_harness::events::testing::assert_not_events;

    use super::*;

    macro_rules! fixture {
        ($name:literal) => {
            gatehouse_harness::captured_payload!("codex-0.171.0", $name)
        };
    }

    #[test]
    fn a_bash_permission_request_is_held_while_the_gateway_offers_an_action() {
        let HookEvent::Prompt { prompt, hold } = parse(fixture!("PermissionRequest-Bash")).unwrap()
        else {
            panic!("a prompt");
        };
        assert_eq!(hold, HoldMode::WhileActionable, "the gateway decides");
        assert_eq!(prompt.read_only_reason, None);
        assert_eq!(prompt.summary, "printf approved > codex-proof.txt");
        assert_eq!(prompt.tool, "Bash");
        assert_eq!(prompt.session, "01a22a61-eeff-7072-a7bc-094a92b5a039");
    }

    #[test]
    fn another_tool_is_only_watched() {
        let mut event: Value = serde_json::from_slice(fixture!("PermissionRequest-Bash")).unwrap();
        event["tool_name"] = "WebSearch".into();
        let HookEvent::Prompt { prompt, hold } = parse(event.to_string().as_bytes()).unwrap()
        else {
            panic!()
        };
        assert_eq!(hold, HoldMode::RegisterOnly);
        assert!(prompt
            .read_only_reason
            .unwrap()
            .contains("only Bash and apply_patch"));
    }

    fn prompt_of(stdin: &[u8], shell: Option<&str>) -> (NewPrompt, HoldMode) {
        let shell = shell.map(str::to_owned);
        gatehouse_harness::events::testing::prompt_of(
            parse_with(stdin, &move || shell.clone()).unwrap(),
        )
    }

    #[test]
    fn a_patch_is_held_while_the_gateway_offers_an_action_and_shown_as_a_diff() {
        let (prompt, hold) = prompt_of(fixture!("PermissionRequest-apply_patch"), None);
        assert_eq!(hold, HoldMode::WhileActionable);
        assert_eq!(prompt.tool, "apply_patch");
        assert_eq!(prompt.read_only_reason, None);
        assert_eq!(prompt.summary, "apply_patch: add hello.txt");
        let preview = prompt.extra.preview.unwrap();
        assert_eq!(preview.format, PreviewFormat::Diff);
        assert!(preview.text.ends_with("+hello from patch\n"));
        assert!(prompt.extra.suggestions.is_empty(), "no always for patches");
        let (outside, _) = prompt_of(
            fixture!("PermissionRequest-apply_patch-outside-workspace"),
            None,
        );
        assert!(outside.summary.contains("OUTSIDE the session's folder"));
    }

    #[test]
    fn a_patch_prompt_is_settled_by_its_post_tool_use_despite_the_final_newline() {
        let (prompt, _) = prompt_of(fixture!("PermissionRequest-apply_patch"), None);
        let HookEvent::Observe(Observation::ToolFinished { correlation, .. }) =
            parse(fixture!("PostToolUse-apply_patch")).unwrap()
        else {
            panic!("an observation");
        };
        assert_eq!(correlation, prompt.correlation);
        let (multi, _) = prompt_of(fixture!("PermissionRequest-apply_patch-multi-file"), None);
        assert_ne!(multi.correlation, prompt.correlation);
    }

    #[test]
    fn a_bash_prompt_suggests_the_exact_rule_for_the_next_session() {
        let (prompt, _) = prompt_of(fixture!("PermissionRequest-Bash"), Some("/bin/bash"));
        let [suggestion] = prompt.extra.suggestions.as_slice() else {
            panic!("one suggestion: {:?}", prompt.extra.suggestions);
        };
        assert_eq!(suggestion.scopes, [AlwaysScope::User]);
        assert_eq!(
            suggestion.native["rule_text"],
            r#"prefix_rule(pattern=["/bin/bash", "-lc", "printf approved > codex-proof.txt"], decision="allow")"#
        );
        assert_eq!(
            suggestion.describe(),
            "only the Bash command `printf approved > codex-proof.txt`, exactly as written, from your next Codex session on; this session will still ask"
        );
        assert_eq!(suggestion.summary, suggestion.describe());
        assert_eq!(prompt.extra.preview, None);
    }

    fn with_command(command: &str) -> Vec<u8> {
        let mut event: Value = serde_json::from_slice(fixture!("PermissionRequest-Bash")).unwrap();
        event["tool_input"]["command"] = command.into();
        event.to_string().into_bytes()
    }

    /// The words form for a program whose further words never run code, described with what
    /// they may add.
    #[test]
    fn a_read_only_command_suggests_its_words_and_says_what_more_words_may_do() {
        let (prompt, _) = prompt_of(&with_command("cat README.md"), None);
        let [suggestion] = prompt.extra.suggestions.as_slice() else {
            panic!("one suggestion: {:?}", prompt.extra.suggestions);
        };
        let paths: Vec<String> = crate::rules::system_paths("cat")
            .iter()
            .map(|path| format!("{path:?}"))
            .collect();
        assert_eq!(
            suggestion.native["rule_text"],
            format!(
                r#"host_executable(name="cat", paths=[{}]); prefix_rule(pattern=["cat", "README.md"], decision="allow")"#,
                paths.join(", ")
            )
        );
        assert_eq!(
            suggestion.describe(),
            "every Bash command whose words begin with `cat` `README.md` (that command, or it followed by more words, such as `cat README.md --force ...`), from your next Codex session on; this session will still ask. Whatever words follow, `cat` only reads files and prints them: it runs no other program and writes no file"
        );
        assert_eq!(suggestion.summary, suggestion.describe());
    }

    /// `always` for `sed -n 1p f` would have let `sed -n 1p f -e 'e sh x'` through: no
    /// suggestion, and the note says why (the captured `mkdir ask` too).
    #[test]
    fn a_command_whose_further_words_may_run_code_gets_no_suggestion() {
        for stdin in [
            with_command("sed -n 1p f"),
            fixture!("PermissionRequest-Bash-rule-prompt").to_vec(),
        ] {
            let (prompt, hold) = prompt_of(&stdin, Some("/bin/bash"));
            assert_eq!(hold, HoldMode::WhileActionable, "once and deny still apply");
            assert!(prompt.extra.suggestions.is_empty());
            let note = prompt.extra.preview.unwrap();
            assert_eq!(note.title, NO_ALWAYS_TITLE);
            assert!(
                note.text.contains("followed by any more words")
                    && note.text.contains("not known to be harmless"),
                "{}",
                note.text
            );
        }
    }

    /// An exact rule for a command that runs a script says the script is not part of it.
    #[test]
    fn a_shell_rule_for_a_command_that_runs_a_script_says_its_contents_are_not_part_of_it() {
        let (prompt, _) = prompt_of(
            &with_command("python3 tool.py > out.txt"),
            Some("/bin/bash"),
        );
        assert_eq!(
            prompt.extra.suggestions[0].describe(),
            "only the Bash command `python3 tool.py > out.txt`, exactly as written, from your next Codex session on; this session will still ask. The rule covers the command's words only, not the contents of `tool.py`: whatever is there when it runs again runs without asking"
        );
    }

    #[test]
    fn a_bash_prompt_no_rule_can_say_exactly_gets_no_suggestion_and_a_note_why() {
        let mut event: Value = serde_json::from_slice(fixture!("PermissionRequest-Bash")).unwrap();
        event["tool_input"]["command"] = "touch a && rm -rf ~".into();
        let (prompt, hold) = prompt_of(event.to_string().as_bytes(), Some("/bin/bash"));
        assert_eq!(hold, HoldMode::WhileActionable, "once and deny still apply");
        assert!(prompt.extra.suggestions.is_empty());
        let note = prompt.extra.preview.unwrap();
        assert_eq!(note.title, NO_ALWAYS_TITLE);
        assert!(note.text.contains("cannot tell exactly how Codex splits"));
        let (zsh, _) = prompt_of(fixture!("PermissionRequest-Bash"), Some("/usr/bin/zsh"));
        assert!(zsh.extra.suggestions.is_empty());
        assert!(zsh
            .extra
            .preview
            .unwrap()
            .text
            .contains("your shell is /usr/bin/zsh"));
    }

    #[test]
    fn post_tool_use_correlates_by_command() {
        let HookEvent::Prompt { prompt, .. } = parse(fixture!("PermissionRequest-Bash")).unwrap()
        else {
            panic!()
        };
        let HookEvent::Observe(Observation::ToolFinished { correlation, .. }) =
            parse(fixture!("PostToolUse-Bash")).unwrap()
        else {
            panic!("an observation");
        };
        assert_eq!(correlation, prompt.correlation);
    }

    #[test]
    fn turn_and_session_endings_are_observed_and_the_rest_is_ignored() {
        let turn_ended = |name: &str| {
            let event =
                serde_json::json!({ "hook_event_name": name, "session_id": "s", "turn_id": "t" });
            parse(event.to_string().as_bytes()).unwrap()
        };
        assert!(matches!(
            parse(fixture!("UserPromptSubmit")).unwrap(),
            HookEvent::Observe(Observation::TurnEnded { .. })
        ));
        for name in ["Stop", "Interrupt"] {
            let event = turn_ended(name);
            assert!(
                matches!(event, HookEvent::Observe(Observation::TurnEnded { .. })),
                "{name}: {event:?}"
            );
        }
        assert!(matches!(
            turn_ended("SessionEnd"),
            HookEvent::Observe(Observation::SessionEnded { .. })
        ));
        for ignored in [
            fixture!("SessionStart"),
            fixture!("PreToolUse-Bash").as_slice(),
        ] {
            assert_eq!(parse(ignored).unwrap(), HookEvent::Ignore);
        }
    }

    #[test]
    fn input_that_is_not_an_event_is_an_error() {
        let without_input =
            br#"{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Bash"}"#;
        assert_not_events(parse, without_input);
    }
}
