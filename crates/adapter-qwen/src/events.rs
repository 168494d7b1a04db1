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
use gatehouse_core::{HookEvent, ParseError};
use gatehouse_harness::events::{read, turn_ended, ClaudeShapePayload, PermissionParts, Settling};
use serde::Deserialize;
use serde_json::Value;

use crate::ADAPTER_ID;

/// The only tool whose prompts the probe proves answerable: Qwen's shell tool.
pub const ANSWERABLE_TOOL: &str = "run_shell_command";

/// The calls of a `PostToolBatch`, each with its `status`.
#[derive(Debug, Default, Deserialize)]
struct Batch {
    #[serde(default)]
    tool_calls: Vec<BatchCall>,
}

#[derive(Debug, Deserialize)]
struct BatchCall {
    #[serde(default)]
    status: String,
}

/// Reads one Qwen Code hook event. `event` (a word after `gatehouse hook qwen`) is not needed:
/// Qwen's payloads name themselves.
pub fn parse(stdin: &[u8], _event: Option<&str>) -> Result<HookEvent, ParseError> {
    let (value, mut raw) = read::<ClaudeShapePayload>(stdin)?;
    let cancelled = || {
        Batch::deserialize(&value)
            .unwrap_or_default()
            .tool_calls
            .iter()
            .any(|call| call.status == "cancelled")
    };
    match raw.hook_event_name.as_str() {
        "PermissionRequest" => {
            let (tool, input) = raw.take_tool_call()?;
            Ok(permission_prompt(raw.session_id, raw.cwd, tool, input))
        }
        "PostToolBatch" if cancelled() => Ok(turn_ended(ADAPTER_ID, raw.session_id)),
        _ => SETTLING.observe(raw),
    }
}

/// PostToolUse, Stop and SessionEnd settle prompts.
const SETTLING: Settling = Settling::claude_code(ADAPTER_ID, correlation);

fn permission_prompt(session: String, cwd: String, tool: String, input: Value) -> HookEvent {
    let shell = tool == ANSWERABLE_TOOL
        && input
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|command| !command.is_empty());
    // A shell prompt: the gateway decides, for the Qwen Code that runs this hook; it holds the
    // prompt only if it offers an action for it, else lists it read-only and lets go at once.
    let read_only_reason = (!shell).then(|| format!("the probe proves only {ANSWERABLE_TOOL} prompts of Qwen Code; answer it in Qwen's terminal"));
    PermissionParts {
        adapter: ADAPTER_ID,
        session,
        cwd,
        correlation: correlation(&tool, &input),
        tool,
        input,
        read_only_reason,
    }
    .held_while_actionable()
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
