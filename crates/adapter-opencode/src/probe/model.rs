//! The probe's scripted model for OpenCode and its forks: the kit's chat-completions dialect
//! (their `@ai-sdk/openai-compatible` provider speaks it), with two tools. A scripted call whose
//! id starts with [`QUESTION_CALL_PREFIX`] asks the `question` tool one question, the call's
//! `command` being its text, with the options [`QUESTION_OPTIONS`]; one whose id starts with
//! [`PAIR_CALL_PREFIX`] asks the `bash` tool twice in one answer (its `command`'s two lines, as
//! calls `ID_a` and `ID_b`), so that two requests wait at once; any other call asks the `bash`
//! tool to run its `command`. The `bash` tool's arguments are the agent's ([`OpenCodeChat::bash`]):
//! OpenCode 1.18.33's takes `command`, `timeout` and `workdir`, no description ([`BASH`]); Kilo
//! Code CLI 7.7.7's also takes a `description`.

use std::io;

use gatehouse_harness::http::{Request, Response};
use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::{Dialect, Tool, Turn};
pub use gatehouse_harness::model::{ScriptedCall, ScriptedModel};
use serde_json::{json, Value};

/// The id prefix of a scripted call to the `question` tool.
pub const QUESTION_CALL_PREFIX: &str = "call_question";

/// The id prefix of a scripted answer with two `bash` calls.
pub const PAIR_CALL_PREFIX: &str = "call_pair";

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

/// A scripted answer with two `bash` calls at once, `ID_a` running `first` and `ID_b` `second`.
pub fn pair_call(call_id: &str, first: &str, second: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("{PAIR_CALL_PREFIX}_{call_id}"),
        command: format!("{first}\n{second}"),
        reason: String::new(),
    }
}

/// Chat completions with the agent's two tools: its shell tool, `bash`, and [`QUESTION`].
pub struct OpenCodeChat {
    pub bash: Tool,
}

impl OpenCodeChat {
    fn dialect_for(&self, call: &ScriptedCall) -> Chat {
        let tool = if call.call_id.starts_with(QUESTION_CALL_PREFIX) {
            QUESTION
        } else {
            self.bash
        };
        Chat { tool }
    }
}

impl Dialect for OpenCodeChat {
    fn base_path(&self) -> &'static str {
        Chat { tool: self.bash }.base_path()
    }

    fn serves(&self, request: &Request) -> bool {
        Chat { tool: self.bash }.serves(request)
    }

    fn read(&self, request: &Request, body: &Value) -> Turn {
        Chat { tool: self.bash }.read(request, body)
    }

    fn call(&self, request: &Request, body: &Value, call: &ScriptedCall) -> Response {
        if call.call_id.starts_with(PAIR_CALL_PREFIX) {
            return two_calls(self.bash, body, call);
        }
        self.dialect_for(call).call(request, body, call)
    }

    fn text(&self, request: &Request, body: &Value, text: &str) -> Response {
        Chat { tool: self.bash }.text(request, body, text)
    }
}

/// Starts OpenCode's scripted model ([`start_with`] its [`BASH`]).
pub fn start(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    start_with(BASH, script)
}

/// Starts the scripted model with the agent's shell tool `bash` on a free loopback port, with
/// the calls to hand out, in order; its [`ScriptedModel::base_url`] is the provider's
/// `options.baseURL`.
pub fn start_with(bash: Tool, script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(OpenCodeChat { bash }, script)
}

/// The answer with the two `bash` calls of a pair, streamed or whole as the request asked.
fn two_calls(bash: Tool, body: &Value, pair: &ScriptedCall) -> Response {
    let mut commands = pair.command.lines();
    let calls: Vec<Value> = ["a", "b"]
        .iter()
        .enumerate()
        .map(|(index, suffix)| {
            let call = ScriptedCall {
                call_id: format!("{}_{suffix}", pair.call_id),
                command: commands.next().unwrap_or_default().to_owned(),
                reason: pair.reason.clone(),
            };
            let arguments = (bash.arguments)(&call);
            json!({ "index": index, "id": call.call_id, "type": "function",
                    "function": { "name": bash.name, "arguments": arguments.to_string() } })
        })
        .collect();
    let usage = json!({ "prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2 });
    let model = &body["model"];
    if body["stream"] != true {
        let message = json!({ "role": "assistant", "content": null, "tool_calls": calls });
        let completion = json!({ "id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{ "index": 0, "message": message, "finish_reason": "tool_calls" }], "usage": usage });
        return Response::json("200 OK", completion.to_string());
    }
    let chunk = |choices: Value| json!({ "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model, "choices": choices });
    let delta = json!({ "role": "assistant", "content": null, "tool_calls": calls });
    let mut last = chunk(json!([]));
    last["usage"] = usage;
    Response::events(
        [
            chunk(json!([{ "index": 0, "delta": delta, "finish_reason": null }])).to_string(),
            chunk(json!([{ "index": 0, "delta": {}, "finish_reason": "tool_calls" }])).to_string(),
            last.to_string(),
            "[DONE]".to_owned(),
        ]
        .into_iter()
        .map(|data| (None, data)),
    )
}
