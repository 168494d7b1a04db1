//! A scripted stand-in for an OpenAI chat-completions API on loopback (Copilot CLI's BYOK
//! provider), so that the probe and the end-to-end tests run the real Copilot CLI with no
//! account, no network and no tokens. Built on the harness's [`ScriptedServer`].
//!
//! Copilot CLI 1.0.102 sends `POST /v1/chat/completions` with `"stream": true` and its tools, and
//! reads server-sent `chat.completion.chunk`s ending with `data: [DONE]`. The answer depends on
//! the last message:
//!
//! - the person's message (role `user`) in a request with tools: the next [`ScriptedCall`], as
//!   one `tool_calls` entry for `bash` with `{command, description}`; with nothing left in the
//!   script, the text `done.`;
//! - a tool result (role `tool`): its content is recorded for [`FakeChat::output_for`], and the
//!   answer is the text `done.`, which ends the turn;
//! - anything else: the text `done.`.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use gatehouse_harness::http::{Request, Response, ScriptedServer};
use serde_json::{json, Value};

/// One command the scripted model asks Copilot to run with its `bash` tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedCall {
    pub call_id: String,
    pub command: String,
    /// Copilot shows it as the dialog's title.
    pub description: String,
}

#[derive(Default)]
struct State {
    script: VecDeque<ScriptedCall>,
    served: Vec<String>,
    outputs: HashMap<String, String>,
}

/// A running fake; it stops when dropped.
pub struct FakeChat {
    server: ScriptedServer,
    state: Arc<Mutex<State>>,
}

impl FakeChat {
    /// Starts the fake on a free loopback port with the calls to hand out, in order.
    pub fn start(script: Vec<ScriptedCall>) -> io::Result<FakeChat> {
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            ..State::default()
        }));
        let answering = Arc::clone(&state);
        let server = ScriptedServer::start(move |request| respond(request, &answering))?;
        Ok(FakeChat { server, state })
    }

    /// The value of `COPILOT_PROVIDER_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.base_url())
    }

    /// Whether the call `call_id` has been handed to Copilot.
    pub fn served(&self, call_id: &str) -> bool {
        lock(&self.state)
            .served
            .iter()
            .any(|served| served == call_id)
    }

    /// What Copilot reported back to the model for the call `call_id`, once it did.
    pub fn output_for(&self, call_id: &str) -> Option<String> {
        lock(&self.state).outputs.get(call_id).cloned()
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn respond(request: &Request, state: &Mutex<State>) -> Response {
    if request.method != "POST"
        || !request
            .route()
            .trim_end_matches('/')
            .ends_with("/chat/completions")
    {
        return Response::not_found(request);
    }
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        let body = json!({ "error": { "message": "the request body is not JSON" } });
        return Response::json("400 Bad Request", body.to_string());
    };
    let delta = answer(&body, state);
    if body["stream"] != true {
        let finish = if delta.get("tool_calls").is_some() {
            "tool_calls"
        } else {
            "stop"
        };
        let mut message = delta;
        if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
            calls.iter_mut().for_each(|call| {
                call.as_object_mut().map(|call| call.remove("index"));
            });
        }
        let completion = json!({ "id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{ "index": 0, "message": message, "finish_reason": finish }], "usage": usage() });
        return Response::json("200 OK", completion.to_string());
    }
    Response::events(
        chunks(&body["model"], delta)
            .into_iter()
            .map(|data| (None, data)),
    )
}

/// The assistant's message (as a streaming delta) that answers one request.
fn answer(body: &Value, state: &Mutex<State>) -> Value {
    let last = body["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .cloned()
        .unwrap_or(Value::Null);
    let has_tools = body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty());
    let mut state = lock(state);
    if last["role"] == "tool" {
        let content = match &last["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let call_id = last["tool_call_id"].as_str().unwrap_or_default().to_owned();
        state.outputs.insert(call_id, content);
        return text("done.");
    }
    if !has_tools || last["role"] != "user" {
        return text("done.");
    }
    let Some(call) = state.script.pop_front() else {
        return text("done.");
    };
    state.served.push(call.call_id.clone());
    let arguments = json!({ "command": call.command, "description": call.description });
    json!({ "role": "assistant", "content": null, "tool_calls": [{
        "index": 0, "id": call.call_id, "type": "function",
        "function": { "name": "bash", "arguments": arguments.to_string() },
    }] })
}

fn text(content: &str) -> Value {
    json!({ "role": "assistant", "content": content })
}

fn usage() -> Value {
    json!({ "prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2 })
}

/// The chunks of one streamed answer: the delta, the finish, the usage, then `[DONE]`.
fn chunks(model: &Value, delta: Value) -> Vec<String> {
    let finish = if delta.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let chunk = |choices: Value, usage: Option<Value>| {
        let mut chunk = json!({ "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model, "choices": choices });
        if let Some(usage) = usage {
            chunk["usage"] = usage;
        }
        chunk.to_string()
    };
    vec![
        chunk(
            json!([{ "index": 0, "delta": delta, "finish_reason": null }]),
            None,
        ),
        chunk(
            json!([{ "index": 0, "delta": {}, "finish_reason": finish }]),
            None,
        ),
        chunk(json!([]), Some(usage())),
        "[DONE]".to_owned(),
    ]
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;

    fn post(fake: &FakeChat, body: &Value) -> String {
        let mut stream = TcpStream::connect(fake.server.address()).unwrap();
        let body = body.to_string();
        write!(
            stream,
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    #[test]
    fn a_turn_gets_the_scripted_call_then_done_and_the_tool_result_is_recorded() {
        let call = ScriptedCall {
            call_id: "call_allow".into(),
            command: "printf allow > a.txt".into(),
            description: "probe".into(),
        };
        let fake = FakeChat::start(vec![call]).unwrap();
        let tools = json!([{ "type": "function", "function": { "name": "bash" } }]);
        let user = json!({ "role": "user", "content": "go" });
        let first = post(
            &fake,
            &json!({ "stream": true, "tools": tools, "messages": [user] }),
        );
        assert!(first.starts_with("HTTP/1.1 200 OK"), "{first}");
        assert!(first.contains(r#""finish_reason":"tool_calls""#), "{first}");
        assert!(
            first.contains(r#"\"command\":\"printf allow > a.txt\""#),
            "{first}"
        );
        assert!(first.ends_with("data: [DONE]\n\n"), "{first}");
        assert!(fake.served("call_allow"));
        let result = json!({ "role": "tool", "tool_call_id": "call_allow", "content": "Permission denied by a PermissionRequest hook: no" });
        let second = post(
            &fake,
            &json!({ "stream": true, "tools": tools, "messages": [user, result] }),
        );
        assert!(second.contains("done."), "{second}");
        assert_eq!(
            fake.output_for("call_allow").as_deref(),
            Some("Permission denied by a PermissionRequest hook: no")
        );
        let plain = post(
            &fake,
            &json!({ "messages": [{ "role": "user", "content": "title?" }] }),
        );
        assert!(plain.contains(r#""object":"chat.completion""#), "{plain}");
    }
}
