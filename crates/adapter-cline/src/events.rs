//! Cline's hook events, as gatehouse reads them: one JSON object on the hook's stdin, naming its
//! event in `hookName`, with the task (`taskId`, which gatehouse takes as the session), the
//! workspace (`workspaceInfo.rootPath`), the agent (`agent_id`, and `parent_agent_id` for a
//! sub-agent). Captured from Cline 3.0.65 in `tests/data/cline-cli-3.0.65/`.
//!
//! - `tool_call` (the `PreToolUse` file; `tool_call: {id, name, input}`, `id` the model's call
//!   id): a permission prompt, read-only with the reason ([`read_only_reason`]) and only
//!   registered: the hook returns at once. Cline runs this hook for every call, before its own
//!   dialog, which asks about every tool alike while "Auto-approve all" is off. A `run_commands`
//!   call (`{commands: [..]}`) is summed up as its commands, one a line.
//! - `tool_result` (`PostToolUse`; `tool_result: {id, ...}`): the call is over, after an Approve
//!   (`postToolUse.success: true`) or a Deny in Cline's dialog (`success: false`, the output
//!   "This tool call was rejected by the user ..."): it settles the prompt of the same call id.
//! - `agent_end`, `agent_abort`, `agent_error` (`TaskComplete`, `TaskCancel`, `TaskError`) of the
//!   task's own agent: the turn is over. A sub-agent's (with a `parent_agent_id`) is not the
//!   task's turn and is nothing for gatehouse. `session_shutdown` (`SessionShutdown`): the session
//!   ended.
//! - Anything else (`agent_start`, `prompt_submit`, ...): nothing for gatehouse.
//!
//! Cline's hooks inherit its `TMUX` and `TMUX_PANE` and name no process of Cline's: the hook
//! names the pane from them, as for every agent whose adapter says nothing of its terminal.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, HookEvent, ParseError};
use gatehouse_harness::events::{read, session_ended, tool_finished, turn_ended, PermissionParts};
use serde::Deserialize;
use serde_json::Value;

use crate::auto_approve::AutoApprove;
use crate::ADAPTER_ID;

/// Cline's shell tool, whose input is `{commands: [..]}`.
pub const SHELL_TOOL: &str = "run_commands";

/// The reason of a prompt Cline asks about in its dialog.
pub const ASKED_IN_CLINE: &str = "Cline asks in its own dialog, and its hooks cannot allow a \
    call, only cancel the whole turn: answer [y] Approve or [n] Deny in Cline's terminal";

/// The reason of a call Cline runs without asking.
pub const RUNS_UNASKED: &str = "Cline's \"Auto-approve all\" is on (its saved toolAutoApprove \
    is not false), so Cline runs this call without asking, with or without gatehouse, unless it \
    was started with --auto-approve false: gatehouse only shows it. To be asked, turn it off with \
    Shift+Tab in Cline's TUI";

/// One event, as Cline writes it; only what gatehouse reads.
#[derive(Debug, Deserialize)]
struct Payload {
    #[serde(rename = "hookName")]
    hook_name: String,
    #[serde(rename = "taskId")]
    task_id: String,
    #[serde(default)]
    parent_agent_id: Option<String>,
    #[serde(default, rename = "workspaceInfo")]
    workspace_info: Option<WorkspaceInfo>,
    #[serde(default)]
    tool_call: Option<ToolCall>,
    #[serde(default)]
    tool_result: Option<ToolResult>,
}

#[derive(Debug, Deserialize)]
struct WorkspaceInfo {
    #[serde(default, rename = "rootPath")]
    root_path: String,
}

#[derive(Debug, Deserialize)]
struct ToolCall {
    id: String,
    name: String,
    #[serde(default)]
    input: Value,
}

#[derive(Debug, Deserialize)]
struct ToolResult {
    id: String,
}

/// Reads one Cline hook event; `auto_approve` (Cline's saved setting) is read only for a call.
pub fn parse(
    stdin: &[u8],
    auto_approve: impl FnOnce() -> AutoApprove,
) -> Result<HookEvent, ParseError> {
    let (_, payload) = read::<Payload>(stdin)?;
    let missing = |field: &str| {
        ParseError::NotAnEvent(format!(
            "a Cline {} event without `{field}`",
            payload.hook_name
        ))
    };
    let session = payload.task_id.clone();
    let own_agent = payload.parent_agent_id.is_none();
    match payload.hook_name.as_str() {
        "tool_call" => {
            let call = payload
                .tool_call
                .filter(|call| !call.id.is_empty() && !call.name.is_empty())
                .ok_or_else(|| missing("tool_call` with an `id` and a `name"))?;
            let cwd = payload
                .workspace_info
                .map(|info| info.root_path)
                .unwrap_or_default();
            let commands = commands_of(&call.name, &call.input);
            let mut prompt = PermissionParts {
                adapter: ADAPTER_ID,
                session,
                cwd,
                correlation: call_correlation(&call.id),
                tool: call.name,
                input: call.input,
                read_only_reason: Some(read_only_reason(auto_approve()).to_owned()),
            }
            .prompt();
            if let Some(commands) = commands {
                prompt.summary = commands;
            }
            Ok(HookEvent::Prompt {
                prompt,
                hold: HoldMode::RegisterOnly,
            })
        }
        "tool_result" => {
            let result = payload
                .tool_result
                .filter(|result| !result.id.is_empty())
                .ok_or_else(|| missing("tool_result` with an `id"))?;
            Ok(tool_finished(
                ADAPTER_ID,
                session,
                call_correlation(&result.id),
            ))
        }
        "agent_end" | "agent_abort" | "agent_error" if own_agent => {
            Ok(turn_ended(ADAPTER_ID, session))
        }
        "session_shutdown" => Ok(session_ended(ADAPTER_ID, session)),
        _ => Ok(HookEvent::Ignore),
    }
}

/// Why a Cline prompt is read-only, with Cline's saved "Auto-approve all".
pub fn read_only_reason(auto_approve: AutoApprove) -> &'static str {
    match auto_approve {
        AutoApprove::Off => ASKED_IN_CLINE,
        AutoApprove::On => RUNS_UNASKED,
    }
}

/// A `run_commands` call's commands, one a line, when they are all strings.
fn commands_of(tool: &str, input: &Value) -> Option<String> {
    if tool != SHELL_TOOL {
        return None;
    }
    let commands = input.get("commands")?.as_array()?;
    let commands: Option<Vec<&str>> = commands.iter().map(Value::as_str).collect();
    commands
        .filter(|commands| !commands.is_empty())
        .map(|commands| commands.join("\n"))
}

/// The correlation key of Cline's tool call `id`: a prompt and its `tool_result` name the same.
pub fn call_correlation(id: &str) -> String {
    correlation_key("cline-tool-call", &Value::String(id.to_owned()))
}

#[cfg(test)]
mod tests;
