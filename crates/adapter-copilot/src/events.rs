//! Copilot CLI's hook events, as gatehouse reads them. Most payloads do not name their event, so
//! the hook command carries it (`gatehouse hook copilot permissionRequest`); `permissionRequest`
//! also names itself (`hookName`), which is the fallback.
//!
//! - `permissionRequest` becomes a permission prompt. Copilot runs this hook before it shows its
//!   own dialog and waits for it. A `bash` prompt (what the probe proves) is held only while the
//!   gateway offers an action for it (`WhileActionable`): the gateway alone decides, for the
//!   Copilot CLI version the hook reports ([`crate::CopilotAdapter`]), and otherwise lists it
//!   read-only with the reason and lets the hook return at once, so Copilot's dialog decides.
//!   Any other tool is registered for watching, read-only. Copilot runs this hook also for calls
//!   it would run without asking, with the same payload; those gatehouse can tell
//!   ([`crate::own_rules`]) are only watched too.
//! - `postToolUse` is a finished tool call (a Yes in Copilot's dialog, or a call it allowed),
//!   correlated with its prompt by tool and command: `permissionRequest` carries
//!   `toolInput {command}`, `postToolUse` `toolArgs {command, description}`.
//! - `agentStop` and `userPromptSubmitted` (a later turn: a No or Esc in Copilot's dialog sends
//!   no event of its own) end the session's turn; `sessionEnd` ends the session.
//! - Anything else (`preToolUse`, `sessionStart`, `notification`, ...): nothing for gatehouse.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, HookEvent, Observation, ParseError};
use gatehouse_harness::events::{read, PermissionParts};
use serde::Deserialize;
use serde_json::Value;

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

/// Reads one Copilot CLI hook event named `event` (from the hook's command line). `own_rules`
/// (command, cwd: why Copilot may run it without asking) is asked only for a `bash` prompt.
pub fn parse(
    stdin: &[u8],
    event: Option<&str>,
    own_rules: impl FnOnce(&str, &str) -> Option<String>,
) -> Result<HookEvent, ParseError> {
    let (_, raw) = read::<RawEvent>(stdin)?;
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
            let (hold, read_only_reason) = if tool != ANSWERABLE_TOOL {
                (HoldMode::RegisterOnly, Some(format!("the probe proves only {ANSWERABLE_TOOL} prompts of Copilot CLI; answer it in Copilot's terminal")))
            } else {
                match own_rules(command, &raw.cwd) {
                    // The gateway decides, for the Copilot CLI that runs this hook: it holds the
                    // prompt only if it offers an action for it, else lists it read-only and lets go.
                    None => (HoldMode::WhileActionable, None),
                    Some(reason) => (HoldMode::RegisterOnly, Some(reason)),
                }
            };
            let prompt = PermissionParts {
                adapter: ADAPTER_ID,
                session,
                cwd: raw.cwd.clone(),
                correlation: correlation(&tool, &input),
                tool,
                input,
                read_only_reason,
            }
            .prompt();
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
