//! Gemini CLI's hook events, as gatehouse reads them. Every event names itself
//! (`hook_event_name`), so the hook command carries no event name.
//!
//! - `Notification` of type `ToolPermission` for a shell command (`details.type` `exec`) becomes a
//!   permission prompt of the tool `run_shell_command`, registered for watching only
//!   ([`HoldMode::RegisterOnly`]): Gemini draws its dialog as it runs this hook, and the hook
//!   cannot answer it. The summary is the command; the input is `details` as Gemini sent it.
//! - `AfterTool` is a finished tool call (Allow in Gemini's dialog), correlated with its prompt
//!   by tool and command: the Notification carries only the command, AfterTool
//!   `{command, description}`.
//! - `BeforeAgent` (the person sent a new prompt) and `AfterAgent` (the agent's turn ended) end
//!   the session's turn: whatever the dialog asked is over. No or Esc in the dialog gives no
//!   event; the next BeforeAgent, the session's end or the gateway's stale timer withdraws that
//!   prompt.
//! - `SessionEnd` ends the session.
//! - `BeforeTool` of `run_shell_command` (hooked only by an answerable install, see
//!   [`crate::policy`]) is a permission prompt held until its outcome
//!   ([`HoldMode::WhileActionable`]): Gemini waits for this hook before it would show any dialog,
//!   and with gatehouse's allow policy the hook's answer decides. The summary is the command;
//!   the input is `tool_input` as Gemini sent it (`{command, description}`). A `BeforeTool`
//!   of another tool, or without a command, is nothing for gatehouse (the hook then answers
//!   `ask`: see [`crate::verdict::NO_VERDICT`]).
//! - Every other event, and every other notification (edits, MCP tools, information prompts:
//!   their notification does not name the tool), is nothing for gatehouse.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::text::one_line;
use gatehouse_core::{HoldMode, HookEvent, NewPrompt, ParseError};
use gatehouse_harness::events::{
    command_correlation, read, ClaudeShapePayload, PermissionParts, Settling,
};
use serde::Deserialize;
use serde_json::Value;

use crate::{ADAPTER_ID, READ_ONLY_REASON};

/// Gemini CLI's shell tool, whose dialogs are of type `exec`.
pub const SHELL_TOOL: &str = "run_shell_command";

/// The longest summary, in characters.
const SUMMARY_CHARS: usize = 300;

/// The fields of a `Notification` beyond Claude Code's shape.
#[derive(Debug, Deserialize)]
struct NotificationFields {
    #[serde(default)]
    notification_type: Option<String>,
    #[serde(default)]
    details: Option<Value>,
}

/// Reads one Gemini CLI hook event.
pub fn parse(stdin: &[u8]) -> Result<HookEvent, ParseError> {
    let (value, event) = read::<ClaudeShapePayload>(stdin)?;
    let fields = NotificationFields::deserialize(&value)
        .map_err(|error| ParseError::NotAnEvent(error.to_string()))?;
    match event.hook_event_name.as_str() {
        "Notification" => Ok(notification(event, fields)),
        "BeforeTool" => Ok(before_tool(event)),
        _ => SETTLING.observe(event),
    }
}

/// AfterTool (Allow in Gemini's dialog), and the ends of turns and sessions, settle prompts.
const SETTLING: Settling = Settling {
    adapter: ADAPTER_ID,
    tool_finished: "AfterTool",
    turn_ended: &["BeforeAgent", "AfterAgent"],
    session_ended: "SessionEnd",
    correlation: command_correlation,
};

/// A `BeforeTool` of the shell tool is a prompt to hold; any other is ignored.
fn before_tool(event: ClaudeShapePayload) -> HookEvent {
    if event.tool_name.as_deref() != Some(SHELL_TOOL) {
        return HookEvent::Ignore;
    }
    let Some(input) = event.tool_input.filter(Value::is_object) else {
        return HookEvent::Ignore;
    };
    match input.get("command").and_then(Value::as_str) {
        Some(command) => HookEvent::Prompt {
            prompt: shell_prompt(event.session_id, event.cwd, command, &input, None),
            hold: HoldMode::WhileActionable,
        },
        None => HookEvent::Ignore,
    }
}

/// A `ToolPermission` notification of a shell command is a prompt to watch; any other is ignored.
fn notification(event: ClaudeShapePayload, fields: NotificationFields) -> HookEvent {
    if fields.notification_type.as_deref() != Some("ToolPermission") {
        return HookEvent::Ignore;
    }
    let Some(details) = fields.details else {
        return HookEvent::Ignore;
    };
    if details.get("type").and_then(Value::as_str) != Some("exec") {
        return HookEvent::Ignore;
    }
    match details.get("command").and_then(Value::as_str) {
        Some(command) => HookEvent::Prompt {
            prompt: shell_prompt(
                event.session_id,
                event.cwd,
                command,
                &details,
                Some(READ_ONLY_REASON.to_owned()),
            ),
            hold: HoldMode::RegisterOnly,
        },
        None => HookEvent::Ignore,
    }
}

/// A permission prompt of the shell tool for `command`, with `input` as Gemini sent it.
fn shell_prompt(
    session: String,
    cwd: String,
    command: &str,
    input: &Value,
    read_only_reason: Option<String>,
) -> NewPrompt {
    NewPrompt {
        summary: one_line(command, SUMMARY_CHARS),
        ..PermissionParts {
            adapter: ADAPTER_ID,
            session,
            cwd,
            tool: SHELL_TOOL.to_owned(),
            correlation: correlation_key(SHELL_TOOL, &Value::from(command)),
            input: input.clone(),
            read_only_reason,
        }
        .prompt()
    }
}

#[cfg(test)]
mod tests;
