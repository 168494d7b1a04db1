//! Copilot CLI's scripted model: the harness's chat-completions dialect
//! ([`gatehouse_harness::model::chat`]) on loopback as Copilot's BYOK provider, whose calls are
//! its `bash` tool with `{command, description}`. The probe and the end-to-end tests run the
//! real Copilot CLI against it with no account, no network and no tokens.

use std::io;

use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::Tool;
pub use gatehouse_harness::model::{ScriptedCall, ScriptedModel};

/// Copilot's `bash` tool; the call's reason is the description Copilot shows as the dialog's
/// title.
pub const BASH: Tool = Tool::command_and_description("bash");

/// Starts the scripted chat-completions API on a free loopback port with the calls to hand out,
/// in order; its [`ScriptedModel::base_url`] is the value of `COPILOT_PROVIDER_BASE_URL`.
pub fn start(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(Chat { tool: BASH }, script)
}
