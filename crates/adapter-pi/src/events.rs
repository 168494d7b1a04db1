//! What gatehouse's pi extension hands to `gatehouse hook pi EVENT` ([`crate::install`]): one
//! JSON object on stdin, `{"event": EVENT, "session": ID, "cwd": FOLDER, ...}`, the event also
//! the hook command's last word. pi itself has no hooks and no permission prompt: the extension,
//! inside pi's process, sees each tool call before it runs (pi's `tool_call` event, captured in
//! `tests/data/pi-0.73.1/`) and asks about the calls of the tools chosen at install.
//!
//! - `tool_call` (`toolName`, `toolCallId`, `input`): a permission prompt for that call. pi's
//!   own dialog, which the extension shows meanwhile, stays live and the first answer wins, so
//!   the prompt is held while the gateway offers an action for it (`WhileActionable`); before a
//!   probe it is only listed, read-only, and the dialog decides.
//! - `tool_call_settled` (the same fields): the call was answered in pi's dialog, or the turn
//!   was cancelled, before gatehouse answered: it settles the prompt of that call.
//! - `agent_end`: the turn is over; `session_shutdown`: pi's session ended.
//! - Anything else: nothing for gatehouse.
//!
//! A prompt and its settling name the same call by its `toolCallId` (the model's call id) in
//! the correlation key, within the session.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HookEvent, ParseError, TerminalLocation};
use gatehouse_harness::events::{
    held_while_actionable, read, session_ended, tool_finished, turn_ended, PermissionParts,
};
use serde::Deserialize;
use serde_json::Value;

use crate::ADAPTER_ID;

/// The only tool whose prompts the probe proves answerable: pi's shell tool.
pub const ANSWERABLE_TOOL: &str = "bash";

/// The variable in which the extension names pi's process to the hook.
pub const PID_VARIABLE: &str = "GATEHOUSE_PI_PID";

/// The variable in which the extension names pi's version to the hook, read from the package
/// of the script pi runs (pi sets its process title, so its command line names no script).
pub const VERSION_VARIABLE: &str = "GATEHOUSE_PI_VERSION";

/// One event as the extension writes it.
#[derive(Debug, Deserialize)]
struct Payload {
    #[serde(default)]
    event: Option<String>,
    session: String,
    #[serde(default)]
    cwd: String,
    #[serde(default, rename = "toolName")]
    tool_name: Option<String>,
    #[serde(default, rename = "toolCallId")]
    tool_call_id: Option<String>,
    #[serde(default)]
    input: Value,
}

/// What the hook's environment says of the pi that runs it: the extension runs in pi's
/// process, so the hook inherits `TMUX` and `TMUX_PANE`, and [`PID_VARIABLE`] names pi.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookEnvironment {
    pub tmux: Option<String>,
    pub tmux_pane: Option<String>,
    pub pi_pid: Option<String>,
}

impl HookEnvironment {
    /// This process's environment.
    pub fn current() -> Self {
        let variable = |name: &str| std::env::var(name).ok();
        HookEnvironment {
            tmux: variable("TMUX"),
            tmux_pane: variable("TMUX_PANE"),
            pi_pid: variable(PID_VARIABLE),
        }
    }
}

/// Reads one event the extension handed to the hook; `event` is the word the hook command
/// ends with (the payload's `event` when there is none).
pub fn parse(
    stdin: &[u8],
    event: Option<&str>,
    environment: &HookEnvironment,
) -> Result<HookEvent, ParseError> {
    let (_, payload) = read::<Payload>(stdin)?;
    let Some(name) = event.or(payload.event.as_deref()) else {
        return Err(ParseError::NotAnEvent(
            "the event is not named: the hook command must end with it, as in `gatehouse hook pi tool_call`".into(),
        ));
    };
    let session = payload.session;
    match name {
        "tool_call" | "tool_call_settled" => {
            let missing =
                |field: &str| ParseError::NotAnEvent(format!("a pi {name} without `{field}`"));
            let call_id = payload
                .tool_call_id
                .filter(|id| !id.is_empty())
                .ok_or_else(|| missing("toolCallId"))?;
            let correlation = call_correlation(&call_id);
            if name == "tool_call_settled" {
                return Ok(tool_finished(ADAPTER_ID, session, correlation));
            }
            let tool = payload
                .tool_name
                .filter(|tool| !tool.is_empty())
                .ok_or_else(|| missing("toolName"))?;
            let mut prompt = PermissionParts {
                adapter: ADAPTER_ID,
                session,
                cwd: payload.cwd,
                tool,
                input: payload.input,
                correlation,
                read_only_reason: None,
            }
            .prompt();
            prompt.extra.terminal = TerminalLocation::from_values(
                environment.tmux.as_deref(),
                environment.tmux_pane.as_deref(),
                environment.pi_pid.as_deref(),
            );
            Ok(held_while_actionable(prompt))
        }
        "agent_end" => Ok(turn_ended(ADAPTER_ID, session)),
        "session_shutdown" => Ok(session_ended(ADAPTER_ID, session)),
        _ => Ok(HookEvent::Ignore),
    }
}

/// The correlation key of pi's tool call `id`: a prompt and its settling name the same.
pub fn call_correlation(id: &str) -> String {
    correlation_key("pi-tool-call", &Value::String(id.to_owned()))
}

#[cfg(test)]
mod tests;
