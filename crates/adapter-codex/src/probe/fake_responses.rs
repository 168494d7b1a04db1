//! Codex's scripted model: the harness's OpenAI Responses dialect
//! ([`gatehouse_harness::model::responses`]) on loopback, whose calls are `exec_command` asking
//! for escalation (`sandbox_permissions: "require_escalated"`), which makes Codex ask for
//! approval. The probe and the end-to-end tests run the real Codex against it with no account,
//! no network and no tokens.

use std::io;

use gatehouse_harness::model::responses::Responses;
use gatehouse_harness::model::Tool;
pub use gatehouse_harness::model::{ScriptedCall, ScriptedModel};
use serde_json::json;

/// Codex's shell tool, with the escalation that makes Codex ask; the call's reason is the
/// justification Codex shows.
pub const EXEC_COMMAND: Tool = Tool {
    name: "exec_command",
    arguments: |call| json!({ "cmd": call.command, "sandbox_permissions": "require_escalated", "justification": call.reason }),
};

/// Starts the scripted Responses API on a free loopback port with the calls to hand out, in
/// order; its [`ScriptedModel::base_url`] is the `base_url` of Codex's model provider.
pub fn start(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(Responses { tool: EXEC_COMMAND }, script)
}
