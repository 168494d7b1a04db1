//! Copilot CLI's hook events, as gatehouse reads them. Most payloads do not name their event, so
//! the hook command carries it (`gatehouse hook copilot permissionRequest`); `permissionRequest`
//! also names itself (`hookName`), which is the fallback.
//!
//! - `permissionRequest` becomes a permission prompt. Copilot runs this hook before it shows its
//!   own dialog and waits for it, so the hook holds the prompt for an answer only while answers
//!   are unlocked for the running Copilot CLI and the tool is `bash` (what the probe proves);
//!   otherwise it registers the prompt for watching, read-only with the reason, and returns at
//!   once, and Copilot's dialog decides. Copilot runs this hook also for calls it would run
//!   without asking, with the same payload; those gatehouse can tell ([`crate::own_rules`]) are
//!   only watched too.
//! - `postToolUse` is a finished tool call (a Yes in Copilot's dialog, or a call it allowed),
//!   correlated with its prompt by tool and command: `permissionRequest` carries
//!   `toolInput {command}`, `postToolUse` `toolArgs {command, description}`.
//! - `agentStop` and `userPromptSubmitted` (a later turn: a No or Esc in Copilot's dialog sends
//!   no event of its own) end the session's turn; `sessionEnd` ends the session.
//! - Anything else (`preToolUse`, `sessionStart`, `notification`, ...): nothing for gatehouse.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, HookEvent, NewPrompt, Observation, ParseError, PromptKind};
use serde::Deserialize;
use serde_json::Value;

use crate::record::Unlock;
use crate::ADAPTER_ID;

/// The only tool whose prompts the probe proves answerable: Copilot's shell tool.
pub const ANSWERABLE_TOOL: &str = "bash";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEvent {
    #[serde(default)]
    hook_name: Option<String>,
    session_id: String,
    #[serde(default)]
    cwd: String,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<Value>,
    #[serde(default)]
    tool_args: Option<Value>,
}

/// Reads one Copilot CLI hook event named `event` (from the hook's command line). `unlock` is
/// asked only for a `permissionRequest`; `own_rules` (command, cwd: why Copilot may run it
/// without asking) only for an answerable one.
pub fn parse(
    stdin: &[u8],
    event: Option<&str>,
    unlock: impl FnOnce() -> Unlock,
    own_rules: impl FnOnce(&str, &str) -> Option<String>,
) -> Result<HookEvent, ParseError> {
    let value: Value =
        serde_json::from_slice(stdin).map_err(|error| ParseError::NotJson(error.to_string()))?;
    let raw: RawEvent =
        serde_json::from_value(value).map_err(|error| ParseError::NotAnEvent(error.to_string()))?;
    let Some(name) = event.or(raw.hook_name.as_deref()).map(str::to_owned) else {
        return Err(ParseError::NotAnEvent(
            "the event is not named: the hook command must end with it, as in `gatehouse hook copilot permissionRequest`".into(),
        ));
    };
    let missing = |field: &str| ParseError::NotAnEvent(format!("a {name} event without `{field}`"));
    let adapter = ADAPTER_ID.to_owned();
    let session = raw.session_id.clone();
    match name.as_str() {
        "permissionRequest" => {
            let tool = raw.tool_name.clone().ok_or_else(|| missing("toolName"))?;
            let input = raw.tool_input.clone().ok_or_else(|| missing("toolInput"))?;
            let command = input
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let summary = if command.is_empty() {
                input.to_string()
            } else {
                command.to_owned()
            };
            let (hold, read_only_reason) = match unlock() {
                // The gateway has the last word: it holds the prompt only if it offers an action
                // for it too, else only watches it.
                Unlock::Verified { .. } if tool == ANSWERABLE_TOOL => {
                    match own_rules(command, &raw.cwd) {
                        None => (HoldMode::WhileActionable, None),
                        Some(reason) => (HoldMode::RegisterOnly, Some(reason)),
                    }
                }
                Unlock::Verified { version, .. } => (
                    HoldMode::RegisterOnly,
                    Some(format!("the probe proves only bash prompts of Copilot CLI {version}; answer it in Copilot's terminal")),
                ),
                Unlock::ReadOnly { reason } => (
                    HoldMode::RegisterOnly,
                    Some(format!("{reason}; meanwhile answer it in Copilot's terminal")),
                ),
            };
            let prompt = NewPrompt {
                adapter,
                session,
                cwd: raw.cwd.clone(),
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
        "postToolUse" => {
            let tool = raw.tool_name.clone().ok_or_else(|| missing("toolName"))?;
            let input = raw.tool_args.clone().ok_or_else(|| missing("toolArgs"))?;
            Ok(HookEvent::Observe(Observation::ToolFinished {
                adapter,
                session,
                correlation: correlation(&tool, &input),
            }))
        }
        "agentStop" | "userPromptSubmitted" => Ok(HookEvent::Observe(Observation::TurnEnded {
            adapter,
            session,
        })),
        "sessionEnd" => Ok(HookEvent::Observe(Observation::SessionEnded {
            adapter,
            session,
        })),
        _ => Ok(HookEvent::Ignore),
    }
}

/// The command alone identifies the call: `postToolUse` adds a `description`.
fn correlation(tool: &str, input: &Value) -> String {
    correlation_key(tool, input.get("command").unwrap_or(input))
}

#[cfg(test)]
mod tests;
