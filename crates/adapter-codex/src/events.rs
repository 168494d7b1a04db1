//! Codex's hook events, as gatehouse reads them.
//!
//! - `PermissionRequest` becomes a permission prompt. Codex runs this hook before it shows its
//!   own approval prompt and waits for it. A `Bash` prompt (what the probe proves) is held only
//!   while the gateway offers an action for it (`WhileActionable`): the gateway alone decides,
//!   for the Codex version the hook reports ([`crate::CodexAdapter`]), and otherwise lists it
//!   read-only with the reason and lets the hook return at once. Any other tool is registered for
//!   watching, read-only, and the hook returns at once.
//! - `PostToolUse` is a finished tool call, correlated with its prompt by tool and command.
//! - `UserPromptSubmit` (a later turn), `Stop` and `Interrupt` (Esc at Codex's prompt: Codex
//!   0.171.0 then sends no PostToolUse and no Stop) end the session's turn.
//! - `SessionEnd` ends the session.
//! - `SessionStart`, `PreToolUse` and anything else: nothing for gatehouse.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, HookEvent, NewPrompt, Observation, ParseError, PromptKind};
use serde::Deserialize;
use serde_json::Value;

use crate::ADAPTER_ID;

/// The only tool whose prompts the probe proves answerable: Codex names its shell, unified exec
/// and network approvals `Bash`.
pub const ANSWERABLE_TOOL: &str = "Bash";

#[derive(Debug, Deserialize)]
struct RawEvent {
    hook_event_name: String,
    session_id: String,
    #[serde(default)]
    cwd: String,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<Value>,
}

/// Reads one Codex hook event.
pub fn parse(stdin: &[u8]) -> Result<HookEvent, ParseError> {
    let value: Value =
        serde_json::from_slice(stdin).map_err(|error| ParseError::NotJson(error.to_string()))?;
    let event: RawEvent =
        serde_json::from_value(value).map_err(|error| ParseError::NotAnEvent(error.to_string()))?;
    let missing = |field: &str| {
        ParseError::NotAnEvent(format!(
            "a {} event without `{field}`",
            event.hook_event_name
        ))
    };
    let adapter = ADAPTER_ID.to_owned();
    let session = event.session_id.clone();
    match event.hook_event_name.as_str() {
        "PermissionRequest" => {
            let tool = event
                .tool_name
                .clone()
                .ok_or_else(|| missing("tool_name"))?;
            let input = event
                .tool_input
                .clone()
                .ok_or_else(|| missing("tool_input"))?;
            let command = input
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let summary = if command.is_empty() {
                input.to_string()
            } else {
                command.to_owned()
            };
            let (hold, read_only_reason) = if tool == ANSWERABLE_TOOL {
                // The gateway decides, for the Codex that runs this hook: it holds the prompt
                // only if it offers an action for it, else lists it read-only and lets go.
                (HoldMode::WhileActionable, None)
            } else {
                (HoldMode::RegisterOnly, Some(format!("the probe proves only {ANSWERABLE_TOOL} prompts of Codex; answer it in Codex's terminal")))
            };
            let prompt = NewPrompt {
                adapter,
                session,
                cwd: event.cwd.clone(),
                kind: PromptKind::Permission,
                correlation: correlation(&tool, &input),
                tool,
                input,
                summary,
                questions: Vec::new(),
                read_only_reason,
                host: String::new(),
                extra: Default::default(),
            };
            Ok(HookEvent::Prompt { prompt, hold })
        }
        "PostToolUse" => {
            let tool = event
                .tool_name
                .clone()
                .ok_or_else(|| missing("tool_name"))?;
            let input = event
                .tool_input
                .clone()
                .ok_or_else(|| missing("tool_input"))?;
            let correlation = correlation(&tool, &input);
            Ok(HookEvent::Observe(Observation::ToolFinished {
                adapter,
                session,
                correlation,
            }))
        }
        // A new prompt from the person starts a later turn: whatever the earlier turn asked is over.
        "UserPromptSubmit" | "Stop" | "Interrupt" => {
            Ok(HookEvent::Observe(Observation::TurnEnded {
                adapter,
                session,
            }))
        }
        "SessionEnd" => Ok(HookEvent::Observe(Observation::SessionEnded {
            adapter,
            session,
        })),
        _ => Ok(HookEvent::Ignore),
    }
}

/// PermissionRequest carries `{command, description}` and PostToolUse only `{command}`, so the
/// command alone identifies the call.
fn correlation(tool: &str, input: &Value) -> String {
    correlation_key(tool, input.get("command").unwrap_or(input))
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! fixture {
        ($name:literal) => {
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/codex-0.171.0/",
                $name,
                ".json"
            ))
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
        event["tool_name"] = "apply_patch".into();
        let HookEvent::Prompt { prompt, hold } = parse(event.to_string().as_bytes()).unwrap()
        else {
            panic!()
        };
        assert_eq!(hold, HoldMode::RegisterOnly);
        assert!(prompt.read_only_reason.unwrap().contains("only Bash"));
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
        assert!(matches!(
            turn_ended("Stop"),
            HookEvent::Observe(Observation::TurnEnded { .. })
        ));
        assert!(matches!(
            turn_ended("Interrupt"),
            HookEvent::Observe(Observation::TurnEnded { .. })
        ));
        assert!(matches!(
            turn_ended("SessionEnd"),
            HookEvent::Observe(Observation::SessionEnded { .. })
        ));
        assert_eq!(parse(fixture!("SessionStart")).unwrap(), HookEvent::Ignore);
        assert_eq!(
            parse(fixture!("PreToolUse-Bash")).unwrap(),
            HookEvent::Ignore
        );
    }

    #[test]
    fn input_that_is_not_an_event_is_an_error() {
        assert!(matches!(parse(b"not json"), Err(ParseError::NotJson(_))));
        assert!(matches!(parse(b"{}"), Err(ParseError::NotAnEvent(_))));
        let without_input =
            br#"{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Bash"}"#;
        assert!(matches!(
            parse(without_input),
            Err(ParseError::NotAnEvent(_))
        ));
    }
}
