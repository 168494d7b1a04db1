//! The probe's scripted model for OpenCode: the kit's chat-completions dialect (OpenCode's
//! `@ai-sdk/openai-compatible` provider speaks it), with two tools. A scripted call whose id
//! starts with [`QUESTION_CALL_PREFIX`] asks OpenCode's `question` tool one question, the call's
//! `command` being its text, with the options [`QUESTION_OPTIONS`]; any other call asks the
//! `bash` tool to run its `command` (OpenCode 1.18.33's `bash` takes `command`, `timeout` and
//! `workdir`, no description).

use std::io;

use gatehouse_harness::http::{Request, Response};
use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::{Dialect, Tool, Turn};
pub use gatehouse_harness::model::{ScriptedCall, ScriptedModel};
use serde_json::{json, Value};

/// The id prefix of a scripted call to the `question` tool.
pub const QUESTION_CALL_PREFIX: &str = "call_question";

/// The options of every scripted question.
pub const QUESTION_OPTIONS: [&str; 2] = ["Red", "Blue"];

/// OpenCode's shell tool.
pub const BASH: Tool = Tool {
    name: "bash",
    arguments: |call| json!({ "command": call.command }),
};

/// OpenCode's question tool, asking the call's `command` as one question.
pub const QUESTION: Tool = Tool {
    name: "question",
    arguments: |call| {
        let options: Vec<Value> = QUESTION_OPTIONS
            .iter()
            .map(|label| json!({ "label": label, "description": format!("the {} one", label.to_lowercase()) }))
            .collect();
        json!({ "questions": [{ "question": call.command, "header": "Probe", "options": options }] })
    },
};

/// A scripted call to the `question` tool.
pub fn question_call(call_id: &str, question: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("{QUESTION_CALL_PREFIX}_{call_id}"),
        command: question.into(),
        reason: String::new(),
    }
}

/// Chat completions with OpenCode's two tools.
pub struct OpenCodeChat;

impl OpenCodeChat {
    fn dialect_for(call: &ScriptedCall) -> Chat {
        let tool = if call.call_id.starts_with(QUESTION_CALL_PREFIX) {
            QUESTION
        } else {
            BASH
        };
        Chat { tool }
    }
}

impl Dialect for OpenCodeChat {
    fn base_path(&self) -> &'static str {
        Chat { tool: BASH }.base_path()
    }

    fn serves(&self, request: &Request) -> bool {
        Chat { tool: BASH }.serves(request)
    }

    fn read(&self, request: &Request, body: &Value) -> Turn {
        Chat { tool: BASH }.read(request, body)
    }

    fn call(&self, request: &Request, body: &Value, call: &ScriptedCall) -> Response {
        Self::dialect_for(call).call(request, body, call)
    }

    fn text(&self, request: &Request, body: &Value, text: &str) -> Response {
        Chat { tool: BASH }.text(request, body, text)
    }
}

/// Starts the scripted model on a free loopback port with the calls to hand out, in order; its
/// [`ScriptedModel::base_url`] is the provider's `options.baseURL`.
pub fn start(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(OpenCodeChat, script)
}
