//! Factory Droid's hook events, as gatehouse reads them. Every payload names its event
//! (`hook_event_name`) and carries `session_id`, `cwd` and Droid's autonomy level
//! (`permission_mode`), in Claude Code's shape.
//!
//! - `PreToolUse` of Droid's shell tool `Execute` (`{command, summary, riskLevel,
//!   riskLevelReason}`; no `tool_use_id`) becomes a permission prompt. Droid runs this hook for
//!   every call, before it decides whether to ask, and waits for it, showing no dialog. A call
//!   Droid would ask about is held only while the gateway offers an action for it
//!   (`WhileActionable`): the gateway alone decides, for the Droid version the hook reports, and
//!   otherwise lists it read-only with the reason and lets the hook return at once, so Droid's
//!   dialog decides. A call Droid runs by its own rules ([`crate::own_rules`]) is only watched,
//!   read-only with the reason.
//! - `PreToolUse` of any other tool (reading, searching, editing files, ...) is nothing for
//!   gatehouse: the event comes before Droid decides, and for most such calls Droid asks nobody,
//!   so listing them would show prompts that are not there. The installer's matcher sends only
//!   `Execute` calls anyway.
//! - `PostToolUse` is a finished call (a Yes in Droid's dialog, or a call it ran by itself),
//!   correlated with its prompt by tool and command: neither event has a call id.
//! - `Stop` ends the session's turn: Droid sends it also after "No, cancel" or Esc in its
//!   dialog. `SessionEnd` ends the session.
//! - Anything else (`Notification` as Droid draws its dialog, `UserPromptSubmit`, which also
//!   comes for a message that steers a running turn, ...): nothing for gatehouse.

use gatehouse_core::{HookEvent, ParseError};
use gatehouse_harness::events::{
    command_correlation, read, ClaudeShapePayload, PermissionParts, Settling,
};
use serde_json::Value;

use crate::{own_rules, ADAPTER_ID};

/// The only tool whose prompts the probe proves answerable: Droid's shell tool.
pub const ANSWERABLE_TOOL: &str = "Execute";

/// PostToolUse, Stop and SessionEnd settle prompts.
const SETTLING: Settling = Settling::claude_code(ADAPTER_ID, command_correlation);

/// Reads one Droid hook event; `allowlist` (Droid's command allowlist, [`own_rules`]) is read
/// only for a shell call.
pub fn parse(
    stdin: &[u8],
    allowlist: impl FnOnce() -> Vec<String>,
) -> Result<HookEvent, ParseError> {
    let (value, mut raw) = read::<ClaudeShapePayload>(stdin)?;
    if raw.hook_event_name != "PreToolUse" {
        return SETTLING.observe(raw);
    }
    let (tool, input) = raw.take_tool_call()?;
    if tool != ANSWERABLE_TOOL {
        return Ok(HookEvent::Ignore);
    }
    let mode = text_of(&value, "permission_mode").unwrap_or_default();
    let read_only_reason = match text_of(&input, "command").filter(|command| !command.is_empty()) {
        Some(command) => own_rules::runs_without_asking(
            command,
            mode,
            text_of(&input, "riskLevel"),
            &allowlist(),
        ),
        None => Some(format!(
            "an {ANSWERABLE_TOOL} call without a command is nothing the probe proves; answer it in Droid's terminal"
        )),
    };
    Ok(PermissionParts {
        adapter: ADAPTER_ID,
        session: raw.session_id,
        cwd: raw.cwd,
        correlation: command_correlation(&tool, &input),
        tool,
        input,
        read_only_reason,
    }
    .held_while_actionable())
}

/// The text of `object`'s field `field`, when it is a string.
fn text_of<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object.get(field).and_then(Value::as_str)
}

#[cfg(test)]
mod tests;
