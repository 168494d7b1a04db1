//! Qwen Code's hook events, as gatehouse reads them. Every payload names its event
//! (`hook_event_name`) and carries `session_id` and `cwd`, as Claude Code's do.
//!
//! - `PermissionRequest` (`tool_name`, `tool_input`; no `tool_use_id`, no suggestions) becomes a
//!   permission prompt. Qwen runs this hook before it shows its own dialog and waits for it. A
//!   `run_shell_command` prompt (what the probe proves; `{command, description}`) is held only
//!   while the gateway offers an action for it (`WhileActionable`): the gateway alone decides, for
//!   the Qwen Code version the hook reports, and otherwise lists it read-only with the reason and
//!   lets the hook return at once, so Qwen's dialog decides. Any other tool is registered for
//!   watching, read-only, with the reason.
//! - `PostToolUse` is a finished tool call (a Yes in Qwen's dialog, or a call it allowed). It has
//!   a `tool_use_id` that `PermissionRequest` lacks, so both are correlated by tool and command
//!   (by the whole input for other tools), which both carry alike.
//! - `PostToolBatch` with a call whose `status` is `cancelled` is a No or an Esc in Qwen's dialog:
//!   Qwen ends the turn there, with no `Stop`, so it ends the session's turn. Other batches are
//!   already told by `PostToolUse`, or come after a hook's own verdict.
//! - `Stop` ends the session's turn; `SessionEnd` ends the session.
//! - Anything else (`PreToolUse`, which runs only after the permission step, `UserPromptSubmit`,
//!   `Notification`, ...): nothing for gatehouse.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, HookEvent, NewPrompt, Observation, ParseError, PromptKind};
use serde::Deserialize;
use serde_json::Value;

use crate::ADAPTER_ID;

/// The only tool whose prompts the probe proves answerable: Qwen's shell tool.
pub const ANSWERABLE_TOOL: &str = "run_shell_command";

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
    #[serde(default)]
    tool_calls: Vec<BatchCall>,
}

/// One call of a `PostToolBatch`.
#[derive(Debug, Deserialize)]
struct BatchCall {
    #[serde(default)]
    status: String,
}

/// Reads one Qwen Code hook event. `event` (a word after `gatehouse hook qwen`) is not needed:
/// Qwen's payloads name themselves.
pub fn parse(stdin: &[u8], _event: Option<&str>) -> Result<HookEvent, ParseError> {
    let value: Value =
        serde_json::from_slice(stdin).map_err(|error| ParseError::NotJson(error.to_string()))?;
    let raw: RawEvent =
        serde_json::from_value(value).map_err(|error| ParseError::NotAnEvent(error.to_string()))?;
    let name = raw.hook_event_name.as_str();
    let missing = |field: &str| ParseError::NotAnEvent(format!("a {name} event without `{field}`"));
    let adapter = ADAPTER_ID.to_owned();
    let session = raw.session_id.clone();
    match name {
        "PermissionRequest" => {
            let tool = raw.tool_name.clone().ok_or_else(|| missing("tool_name"))?;
            let input = raw
                .tool_input
                .clone()
                .ok_or_else(|| missing("tool_input"))?;
            Ok(permission_prompt(adapter, session, raw.cwd, tool, input))
        }
        "PostToolUse" => {
            let tool = raw.tool_name.ok_or_else(|| missing("tool_name"))?;
            let input = raw.tool_input.ok_or_else(|| missing("tool_input"))?;
            Ok(HookEvent::Observe(Observation::ToolFinished {
                adapter,
                session,
                correlation: correlation(&tool, &input),
            }))
        }
        "PostToolBatch" if raw.tool_calls.iter().any(|call| call.status == "cancelled") => {
            Ok(HookEvent::Observe(Observation::TurnEnded {
                adapter,
                session,
            }))
        }
        "Stop" => Ok(HookEvent::Observe(Observation::TurnEnded {
            adapter,
            session,
        })),
        "SessionEnd" => Ok(HookEvent::Observe(Observation::SessionEnded {
            adapter,
            session,
        })),
        _ => Ok(HookEvent::Ignore),
    }
}

fn permission_prompt(
    adapter: String,
    session: String,
    cwd: String,
    tool: String,
    input: Value,
) -> HookEvent {
    let command = input
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let shell = tool == ANSWERABLE_TOOL && !command.is_empty();
    let summary = if command.is_empty() {
        input.to_string()
    } else {
        command.to_owned()
    };
    let (hold, read_only_reason) = if shell {
        // The gateway decides, for the Qwen Code that runs this hook: it holds the prompt only if
        // it offers an action for it, else lists it read-only and lets go at once.
        (HoldMode::WhileActionable, None)
    } else {
        (
            HoldMode::RegisterOnly,
            Some(format!("the probe proves only {ANSWERABLE_TOOL} prompts of Qwen Code; answer it in Qwen's terminal")),
        )
    };
    let prompt = NewPrompt {
        adapter,
        session,
        cwd,
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
    HookEvent::Prompt { prompt, hold }
}

/// The command alone identifies a shell call; any other call, its whole input.
fn correlation(tool: &str, input: &Value) -> String {
    match input.get("command") {
        Some(command) if tool == ANSWERABLE_TOOL => correlation_key(tool, command),
        _ => correlation_key(tool, input),
    }
}

#[cfg(test)]
mod tests;
