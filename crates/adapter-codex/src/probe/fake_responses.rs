//! Codex's scripted model: the harness's OpenAI Responses dialect
//! ([`gatehouse_harness::model::responses`]) on loopback, whose calls are `exec_command` asking
//! for escalation (`sandbox_permissions: "require_escalated"`), which makes Codex ask for
//! approval, or, for a call whose command is a patch (it starts with `*** Begin Patch`), Codex's
//! freeform `apply_patch` tool, called with the patch as its whole input. The probe and the
//! end-to-end tests run the real Codex against it with no account, no network and no tokens.
//!
//! Codex 0.171.0 offers `apply_patch` only for a model whose catalog entry says
//! `apply_patch_tool_type: "freeform"`: [`MODEL_CATALOG`] is that entry, for `model_catalog_json`.

use std::io;

use gatehouse_harness::model::responses::{CustomTool, Responses};
use gatehouse_harness::model::Tool;
pub use gatehouse_harness::model::{ScriptedCall, ScriptedModel};
use serde_json::json;

/// The model Codex is configured with.
pub const MODEL: &str = "gpt-5.1-codex";

/// How a patch starts, in Codex's patch format.
pub const PATCH_START: &str = "*** Begin Patch";

/// Codex's shell tool, with the escalation that makes Codex ask; the call's reason is the
/// justification Codex shows.
pub const EXEC_COMMAND: Tool = Tool {
    name: "exec_command",
    arguments: |call| json!({ "cmd": call.command, "sandbox_permissions": "require_escalated", "justification": call.reason }),
};

/// Codex's freeform file-change tool, for the calls whose command is a patch.
pub const APPLY_PATCH: CustomTool = CustomTool {
    name: "apply_patch",
    takes: |call| call.command.starts_with(PATCH_START),
};

/// The model catalog (`model_catalog_json` in Codex's `config.toml`) with one entry for
/// [`MODEL`] whose `apply_patch_tool_type` is `freeform`: without it Codex 0.171.0 offers no
/// `apply_patch` tool for that model (observed; see the fixtures' README).
pub fn model_catalog() -> serde_json::Value {
    json!({ "models": [{
        "slug": MODEL, "display_name": MODEL, "description": "gatehouse's scripted model",
        "base_instructions": "You are a scripted stand-in model for offline checks.",
        "apply_patch_tool_type": "freeform", "shell_type": "unified_exec", "visibility": "list",
        "supported_in_api": true, "priority": 1, "default_reasoning_level": "medium",
        "supported_reasoning_levels": [{ "effort": "medium", "description": "medium" }],
        "context_window": 272000, "truncation_policy": { "mode": "tokens", "limit": 10000 },
        "input_modalities": ["text"], "prefer_websockets": false, "support_verbosity": false,
        "experimental_supported_tools": []
    }] })
}

/// The catalog's file name beside Codex's `config.toml`.
pub const MODEL_CATALOG: &str = "model-catalog.json";

/// Starts the scripted Responses API on a free loopback port with the calls to hand out, in
/// order; its [`ScriptedModel::base_url`] is the `base_url` of Codex's model provider.
pub fn start(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(dialect(), script)
}

/// The dialect: `exec_command`, and `apply_patch` for patches.
pub fn dialect() -> Responses {
    Responses {
        tool: EXEC_COMMAND,
        custom: Some(APPLY_PATCH),
    }
}
