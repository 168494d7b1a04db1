//! One scripted model on loopback, with a dialect per API: the script (commands the model asks
//! the agent to run, in order), what was handed out and what the agent reported back are kept
//! here once; a [`Dialect`] only reads one API's requests and writes its answers.
//!
//! The flow, whatever the API: a request that is not the dialect's is a 404, a body that is not
//! JSON a 400. A request that carries the results of tool calls records them (for
//! [`ScriptedModel::output_for`]; the result of a step is recorded once, even if the agent sends
//! it again) and is answered with the next step of the turn, if any, else the text
//! `done.`, which ends the turn. A new turn of the person's gets the next [`ScriptedTurn`] (or,
//! with the script used up, the text `done.`). Anything else (titles, routing, side questions)
//! gets the dialect's aside.
//!
//! A turn is a command ([`ScriptedCall`], which the dialect's [`Tool`] turns into a call) or
//! steps: tools named with their input, used one after the other, each after the result of the
//! one before (such as Read, then Edit), which a dialect serves with [`Dialect::tool_use`].
//!
//! The dialects here: [`anthropic`] (Anthropic messages, as Claude Code speaks it),
//! [`responses`] (OpenAI responses, as Codex speaks it), [`chat`] (OpenAI chat completions,
//! Copilot CLI's BYOK provider) and [`gemini`] (Gemini's generateContent). Which tool the model
//! calls and with which arguments is the caller's: the dialect is built with it.

pub mod anthropic;
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

/// What the scripted model does on one turn of the person's.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptedTurn {
    /// Asks the agent to run a command, with the dialect's tool.
    Command(ScriptedCall),
    /// Uses these tools (name, input as the API carries it) one after the other, each after the
    /// result of the one before; after the last result the model answers `done.`.
    Steps(Vec<(String, Value)>),
}

impl ScriptedTurn {
    /// A turn that uses the tool `name` with `input` once.
    pub fn tool_use(name: &str, input: Value) -> ScriptedTurn {
        ScriptedTurn::Steps(vec![(name.to_owned(), input)])
    }
}

/// What one request asks of the model, as a dialect reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// The agent reports the results of tool calls: (call id, result as the API carries it).
    Results(Vec<(String, Value)>),
    /// The person's new message, in a request that offers the scripted tool.
    Ask,
    /// The person's new message in a request that also reports results (such as a call the
    /// person refused in the agent's own dialog, which ended the last turn): the results are
    /// recorded, then it is [`Turn::Ask`].
    AskAfter(Vec<(String, Value)>),
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
    /// The answer that uses the tool `name` with `input`, as the call `call_id` (a step of a
    /// [`ScriptedTurn::Steps`]); a dialect that scripts commands only answers with an error.
    fn tool_use(
        &self,
        _request: &Request,
        _body: &Value,
        _call_id: &str,
        name: &str,
        _input: &Value,
    ) -> Response {
        let message = format!("this scripted model's API scripts commands only, not {name}");
        Response::json(
            "500 Internal Server Error",
            json!({ "error": { "message": message } }).to_string(),
        )
    }
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
    script: VecDeque<ScriptedTurn>,
    /// Hand out the last call again whenever the script is used up.
    repeat_last: Option<ScriptedCall>,
    /// The steps of the turn under way that are still to come.
    steps: VecDeque<(String, Value)>,
    /// The call ids the steps were served as, in order.
    steps_served: Vec<String>,
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
        let turns = script.into_iter().map(ScriptedTurn::Command).collect();
        Self::start_with(dialect, turns, None)
    }

    /// Starts the model with the turns to take, in order.
    pub fn start_turns(
        dialect: impl Dialect,
        script: Vec<ScriptedTurn>,
    ) -> io::Result<ScriptedModel> {
        Self::start_with(dialect, script, None)
    }

    /// Starts a model that asks for `call` on every new turn.
    pub fn repeating(dialect: impl Dialect, call: ScriptedCall) -> io::Result<ScriptedModel> {
        Self::start_with(dialect, Vec::new(), Some(call))
    }

    fn start_with(
        dialect: impl Dialect,
        script: Vec<ScriptedTurn>,
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

    /// Adds a turn to the end of the script.
    pub fn push_turn(&self, turn: ScriptedTurn) {
        lock(&self.state).script.push_back(turn);
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
    let mut state = lock(state);
    let next = match dialect.read(request, &body) {
        Turn::Aside => return dialect.aside(request, &body),
        Turn::Results(results) => match state.record(results) {
            true => state.next_step(),
            false => None,
        },
        Turn::AskAfter(results) => {
            state.record(results);
            state.next_turn()
        }
        Turn::Ask => state.next_turn(),
    };
    drop(state);
    match next {
        Some(Next::Call(call)) => dialect.call(request, &body, &call),
        Some(Next::Step(call_id, (name, input))) => {
            dialect.tool_use(request, &body, &call_id, &name, &input)
        }
        None => dialect.text(request, &body, dialect.done_text()),
    }
}

/// What the model hands out next.
enum Next {
    Call(ScriptedCall),
    /// A step, with the call id it is served as.
    Step(String, (String, Value)),
}

impl State {
    /// Records the results the model has not recorded yet (the result of a step counts once,
    /// even if the agent sends it again); whether there was any.
    fn record(&mut self, results: Vec<(String, Value)>) -> bool {
        let before = self.outputs.len();
        for (call_id, output) in results {
            let again = self.steps_served.contains(&call_id)
                && self
                    .outputs
                    .iter()
                    .any(|(recorded, _)| *recorded == call_id);
            if !again {
                self.outputs.push((call_id, output));
            }
        }
        self.outputs.len() > before
    }

    /// The next turn of the script (the rest of the turn under way is dropped).
    fn next_turn(&mut self) -> Option<Next> {
        self.steps.clear();
        match self.script.pop_front() {
            Some(ScriptedTurn::Steps(steps)) => {
                self.steps = steps.into();
                self.next_step()
            }
            Some(ScriptedTurn::Command(call)) => Some(self.serve(call)),
            None => self.repeat_last.clone().map(|call| self.serve(call)),
        }
    }

    fn serve(&mut self, call: ScriptedCall) -> Next {
        self.served.push(call.call_id.clone());
        Next::Call(call)
    }

    /// The next step of the turn under way, with a call id of its own.
    fn next_step(&mut self) -> Option<Next> {
        let step = self.steps.pop_front()?;
        let call_id = format!("toolu_scripted_{:04}", self.steps_served.len() + 1);
        self.steps_served.push(call_id.clone());
        self.served.push(call_id.clone());
        Some(Next::Step(call_id, step))
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
