//! One scripted model on loopback, with a dialect per API: the script (commands the model asks
//! the agent to run, in order), what was handed out and what the agent reported back are kept
//! here once; a [`Dialect`] only reads one API's requests and writes its answers.
//!
//! The flow, whatever the API: a request that is not the dialect's is a 404, a body that is not
//! JSON a 400. A request that carries the results of tool calls records them (for
//! [`ScriptedModel::output_for`]) and is answered with the text `done.`, which ends the turn. A
//! new turn of the person's gets the next [`ScriptedCall`] (or, with the script used up, the
//! text `done.`). Anything else (titles, routing, side questions) gets the dialect's aside.
//!
//! The dialects here: [`responses`] (OpenAI responses, as Codex speaks it), [`chat`] (OpenAI
//! chat completions, Copilot CLI's BYOK provider) and [`gemini`] (Gemini's generateContent).
//! Which tool the model calls and with which arguments is the caller's: the dialect is built
//! with it.

pub mod chat;
pub mod gemini;
pub mod responses;

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};

use crate::http::{Request, Response, ScriptedServer};

/// The text the model answers with once a tool result arrived, and when its script is used up.
pub const DONE_TEXT: &str = "done.";

/// One command the scripted model asks the agent to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedCall {
    pub call_id: String,
    pub command: String,
    /// Why the model wants it run; agents show it as the prompt's reason or title.
    pub reason: String,
}

/// The tool that a dialect's scripted calls use: its name, and its arguments for one call.
#[derive(Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    pub arguments: fn(&ScriptedCall) -> Value,
}

/// What one request asks of the model, as a dialect reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// The agent reports the results of tool calls: (call id, result as the API carries it).
    Results(Vec<(String, Value)>),
    /// The person's new message, in a request that offers the scripted tool.
    Ask,
    /// Anything else: a title, a routing question, a request without tools.
    Aside,
}

/// One API's requests and answers.
pub trait Dialect: Send + Sync + 'static {
    /// The path prefix the agent is given as its base URL, such as `/v1`.
    fn base_path(&self) -> &'static str;
    /// Whether the request is one this API serves (method and route).
    fn serves(&self, request: &Request) -> bool;
    /// What the request asks.
    fn read(&self, request: &Request, body: &Value) -> Turn;
    /// The answer that asks the agent to run `call`.
    fn call(&self, request: &Request, body: &Value, call: &ScriptedCall) -> Response;
    /// The answer that says `text` and asks for nothing.
    fn text(&self, request: &Request, body: &Value, text: &str) -> Response;
    /// The answer to an [`Turn::Aside`]; plain text `done.` unless the API wants more.
    fn aside(&self, request: &Request, body: &Value) -> Response {
        self.text(request, body, DONE_TEXT)
    }
    /// The text that ends a turn.
    fn done_text(&self) -> &'static str {
        DONE_TEXT
    }
}

#[derive(Default)]
struct State {
    script: VecDeque<ScriptedCall>,
    /// Hand out the last call again whenever the script is used up.
    repeat_last: Option<ScriptedCall>,
    served: Vec<String>,
    outputs: Vec<(String, Value)>,
}

/// A running scripted model; it stops when dropped.
pub struct ScriptedModel {
    server: ScriptedServer,
    base_path: &'static str,
    state: Arc<Mutex<State>>,
}

impl ScriptedModel {
    /// Starts the model on a free loopback port with the calls to hand out, in order.
    pub fn start(dialect: impl Dialect, script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
        Self::start_with(dialect, script, None)
    }

    /// Starts a model that asks for `call` on every new turn.
    pub fn repeating(dialect: impl Dialect, call: ScriptedCall) -> io::Result<ScriptedModel> {
        Self::start_with(dialect, Vec::new(), Some(call))
    }

    fn start_with(
        dialect: impl Dialect,
        script: Vec<ScriptedCall>,
        repeat_last: Option<ScriptedCall>,
    ) -> io::Result<ScriptedModel> {
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            repeat_last,
            ..State::default()
        }));
        let base_path = dialect.base_path();
        let answering = Arc::clone(&state);
        let server = ScriptedServer::start(move |request| respond(&dialect, request, &answering))?;
        Ok(ScriptedModel {
            server,
            base_path,
            state,
        })
    }

    /// The base URL the agent is given, such as `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("{}{}", self.server.base_url(), self.base_path)
    }

    pub fn address(&self) -> SocketAddr {
        self.server.address()
    }

    /// Whether the call `call_id` has been handed to the agent.
    pub fn served(&self, call_id: &str) -> bool {
        lock(&self.state)
            .served
            .iter()
            .any(|served| served == call_id)
    }

    /// What the agent reported back for the call `call_id`, once it did, as text.
    pub fn output_for(&self, call_id: &str) -> Option<String> {
        lock(&self.state)
            .outputs
            .iter()
            .find(|(id, _)| id == call_id)
            .map(|(_, output)| as_text(output))
    }

    /// Every tool result that reached the model, in order, as the API carried it.
    pub fn outputs(&self) -> Vec<Value> {
        lock(&self.state)
            .outputs
            .iter()
            .map(|(_, output)| output.clone())
            .collect()
    }
}

impl Tool {
    /// The shell tool `name` of most agents: `{command, description}`, the call's reason as the
    /// description the agent shows.
    pub const fn command_and_description(name: &'static str) -> Tool {
        Tool {
            name,
            arguments: |call| json!({ "command": call.command, "description": call.reason }),
        }
    }
}

/// Whether `request` is a POST to a route ending with `suffix` (a trailing `/` aside).
pub fn posted_to(request: &Request, suffix: &str) -> bool {
    request.method == "POST" && request.route().trim_end_matches('/').ends_with(suffix)
}

/// A JSON value as text: a string as it is, anything else as JSON.
pub fn as_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn respond(dialect: &dyn Dialect, request: &Request, state: &Mutex<State>) -> Response {
    if !dialect.serves(request) {
        return Response::not_found(request);
    }
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        let body = json!({ "error": { "message": "the request body is not JSON" } });
        return Response::json("400 Bad Request", body.to_string());
    };
    match dialect.read(request, &body) {
        Turn::Results(results) => {
            lock(state).outputs.extend(results);
            dialect.text(request, &body, dialect.done_text())
        }
        Turn::Aside => dialect.aside(request, &body),
        Turn::Ask => {
            let mut state = lock(state);
            let next = state.script.pop_front().or(state.repeat_last.clone());
            match next {
                Some(call) => {
                    state.served.push(call.call_id.clone());
                    drop(state);
                    dialect.call(request, &body, &call)
                }
                None => {
                    drop(state);
                    dialect.text(request, &body, dialect.done_text())
                }
            }
        }
    }
}

/// The call the dialects' tests script.
#[cfg(test)]
pub(crate) fn test_call(call_id: &str, command: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: call_id.into(),
        command: command.into(),
        reason: "probe".into(),
    }
}

/// Posts `body` to `path` of a running model and returns the whole HTTP response, for the
/// dialects' tests.
#[cfg(test)]
pub(crate) fn post(model: &ScriptedModel, path: &str, body: &Value) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(model.address()).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}
