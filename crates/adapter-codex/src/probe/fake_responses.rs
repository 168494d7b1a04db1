//! A scripted stand-in for the OpenAI Responses API on loopback, so that the probe runs the real
//! Codex with no account, no network and no tokens.
//!
//! It listens on `127.0.0.1:0` and answers each connection on its own thread with HTTP/1.1 and
//! `Connection: close`. Codex 0.171.0 sends `POST /v1/responses` with a JSON body, and reads
//! server-sent events: `response.created`, `response.output_item.done` with one item, and
//! `response.completed` with a `usage` object. The answer depends on the request:
//!
//! - a turn of the conversation (its `tools` include `exec_command`) whose last input item is the
//!   person's message: the next [`ScriptedCall`], as a `function_call` of `exec_command` that asks
//!   for escalation (`sandbox_permissions: "require_escalated"`), which makes Codex ask for
//!   approval; with nothing left in the script, the text `done.`;
//! - a turn whose last input item is a `function_call_output`: the output is recorded for
//!   [`FakeResponses::output_for`], and the answer is the text `done.`, which ends the turn;
//! - any other request (Codex also asks the model for a thread title, with no tools): the text
//!   `{"title":"gatehouse probe"}`, which suits the title's JSON schema.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use gatehouse_harness::http::{Request, Response, ScriptedServer};
use serde_json::{json, Value};

/// One command the scripted model asks Codex to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedCall {
    pub call_id: String,
    pub command: String,
    /// Why the model wants escalation; Codex shows it as the prompt's reason.
    pub justification: String,
}

#[derive(Default)]
struct State {
    script: VecDeque<ScriptedCall>,
    served: Vec<String>,
    outputs: HashMap<String, String>,
}

/// A running fake; it stops when dropped.
pub struct FakeResponses {
    server: ScriptedServer,
    state: Arc<Mutex<State>>,
}

impl FakeResponses {
    /// Starts the fake on a free loopback port with the calls to hand out, in order.
    pub fn start(script: Vec<ScriptedCall>) -> io::Result<FakeResponses> {
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            ..State::default()
        }));
        let answering = Arc::clone(&state);
        let server = ScriptedServer::start(move |request| respond(request, &answering))?;
        Ok(FakeResponses { server, state })
    }

    /// The `base_url` for Codex's model provider.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.base_url())
    }

    /// Whether the call `call_id` has been handed to Codex.
    pub fn served(&self, call_id: &str) -> bool {
        lock(&self.state)
            .served
            .iter()
            .any(|served| served == call_id)
    }

    /// What Codex reported back to the model for the call `call_id`, once it did.
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
            .ends_with("/responses")
    {
        return Response::not_found(request);
    }
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        let body = json!({ "error": { "message": "the request body is not JSON" } });
        return Response::json("400 Bad Request", body.to_string());
    };
    let item = answer(&body, state);
    Response {
        status: "200 OK".into(),
        content_type: "text/event-stream".into(),
        body: events(&item).into_bytes(),
    }
}

/// The output item that answers one request.
fn answer(body: &Value, state: &Mutex<State>) -> Value {
    let has_exec = body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == "exec_command"));
    if !has_exec {
        return message(r#"{"title":"gatehouse probe"}"#);
    }
    let last = body["input"]
        .as_array()
        .and_then(|input| input.last())
        .cloned()
        .unwrap_or(Value::Null);
    let mut state = lock(state);
    if last["type"] == "function_call_output" {
        let output = match &last["output"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        state.outputs.insert(
            last["call_id"].as_str().unwrap_or_default().to_owned(),
            output,
        );
        return message("done.");
    }
    let Some(call) = state.script.pop_front() else {
        return message("done.");
    };
    state.served.push(call.call_id.clone());
    let arguments = json!({ "cmd": call.command, "sandbox_permissions": "require_escalated", "justification": call.justification });
    json!({
        "type": "function_call",
        "id": format!("fc_{}", call.call_id),
        "call_id": call.call_id,
        "name": "exec_command",
        "arguments": arguments.to_string(),
        "status": "completed",
    })
}

fn message(text: &str) -> Value {
    json!({
        "type": "message",
        "id": "msg_probe",
        "role": "assistant",
        "status": "completed",
        "content": [{ "type": "output_text", "text": text, "annotations": [] }],
    })
}

/// The server-sent events of one response carrying `item`.
fn events(item: &Value) -> String {
    let usage = json!({ "input_tokens": 1, "input_tokens_details": null, "output_tokens": 1, "output_tokens_details": null, "total_tokens": 2 });
    [
        ("response.created", json!({ "type": "response.created", "response": { "id": "resp_probe" } })),
        ("response.output_item.done", json!({ "type": "response.output_item.done", "output_index": 0, "item": item })),
        ("response.completed", json!({ "type": "response.completed", "response": { "id": "resp_probe", "usage": usage } })),
    ]
    .iter()
    .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
    .collect()
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;

    fn post(fake: &FakeResponses, body: &Value) -> String {
        let mut stream = TcpStream::connect(fake.server.address()).unwrap();
        let body = body.to_string();
        write!(
            stream,
            "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    #[test]
    fn a_turn_gets_the_scripted_call_then_done_and_the_output_is_recorded() {
        let call = ScriptedCall {
            call_id: "call_allow".into(),
            command: "printf allow > a.txt".into(),
            justification: "probe".into(),
        };
        let fake = FakeResponses::start(vec![call]).unwrap();
        let tools = json!([{ "type": "function", "name": "exec_command" }]);
        let first = post(
            &fake,
            &json!({ "tools": tools, "input": [{ "type": "message", "role": "user", "content": [] }] }),
        );
        assert!(first.starts_with("HTTP/1.1 200 OK"));
        assert!(first.contains("event: response.output_item.done"));
        assert!(
            first.contains(r#"\"sandbox_permissions\":\"require_escalated\""#),
            "{first}"
        );
        assert!(fake.served("call_allow"));
        let output = json!({ "type": "function_call_output", "call_id": "call_allow", "output": "Process exited with code 0" });
        let second = post(&fake, &json!({ "tools": tools, "input": [output] }));
        assert!(second.contains("done."));
        assert_eq!(
            fake.output_for("call_allow").as_deref(),
            Some("Process exited with code 0")
        );
        let title = post(&fake, &json!({ "tools": [], "input": [] }));
        assert!(title.contains("gatehouse probe"));
    }
}
