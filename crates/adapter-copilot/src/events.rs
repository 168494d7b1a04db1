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

use gatehouse_core::{HookEvent, ParseError};
use gatehouse_harness::events::{
    command_correlation, read, required, session_ended, tool_finished, turn_ended, PermissionParts,
};
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
    let session = raw.session_id.clone();
    match name.as_str() {
        "permissionRequest" => {
            let tool = required(raw.tool_name, &name, "toolName")?;
            let input = required(raw.tool_input, &name, "toolInput")?;
            let command = input
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            // The gateway decides, for the Copilot CLI that runs this hook, unless the prompt is
            // of another tool or one Copilot may run by its own rules.
            let read_only_reason = if tool != ANSWERABLE_TOOL {
                Some(format!("the probe proves only {ANSWERABLE_TOOL} prompts of Copilot CLI; answer it in Copilot's terminal"))
            } else {
                own_rules(command, &raw.cwd)
            };
            Ok(PermissionParts {
                adapter: ADAPTER_ID,
                session,
                cwd: raw.cwd,
                correlation: command_correlation(&tool, &input),
                tool,
                input,
                read_only_reason,
            }
            .held_while_actionable())
        }
        // The command alone identifies the call: `postToolUse` adds a `description`.
        "postToolUse" => {
            let tool = required(raw.tool_name, &name, "toolName")?;
            let input = required(raw.tool_args, &name, "toolArgs")?;
            Ok(tool_finished(
                ADAPTER_ID,
                session,
                command_correlation(&tool, &input),
            ))
        }
        "agentStop" | "userPromptSubmitted" => Ok(turn_ended(ADAPTER_ID, session)),
        "sessionEnd" => Ok(session_ended(ADAPTER_ID, session)),
        _ => Ok(HookEvent::Ignore),
    }
}

#[cfg(test)]
mod tests;
