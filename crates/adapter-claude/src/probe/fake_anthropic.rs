//! A scripted fake of the Anthropic Messages API on loopback, for driving the real Claude Code
//! with no account, network or tokens: the one fake that `gatehouse probe claude` and the
//! end-to-end tests share.
//!
//! The fake is a [`gatehouse_harness::http::ScriptedServer`] (loopback, a thread a connection,
//! `Connection: close`) with the Anthropic-specific answers here. Each new user turn sent to
//! `POST /v1/messages` (a streaming request that carries tools and whose last user message holds
//! typed text) is answered with the next `ScriptedTurn`, streamed as server-sent events. When the
//! following request carries `tool_result` blocks, the fake records them and answers with the
//! short text `done.`, which ends the turn. Side requests (no tools, non-streaming requests, token
//! counting) get short harmless answers, and unknown paths get a 404 JSON error. Every request
//! body is recorded so that tests can inspect what Claude Code sent.

use std::collections::{HashSet, VecDeque};
use std::io;
use std::sync::{Arc, Mutex};

use gatehouse_harness::http::{Request, Response, ScriptedServer};

use serde_json::{json, Value};

/// A string in a scripted tool input that the fake replaces with the plan file Claude Code named
/// in the request ("create your plan at PATH using the Write tool"), for scripting a plan.
pub const PLAN_FILE: &str = "<plan file>";

/// The text the fake answers with once a tool result has arrived, and for unscripted turns.
pub const DONE_TEXT: &str = "done.";

/// One scripted answer to a user turn.
#[derive(Debug, Clone)]
pub enum ScriptedTurn {
    /// The model asks to use the tool `name` with `input`; after the tool result arrives the
    /// fake answers with the text `done.`.
    ToolUse { name: String, input: Value },
    /// The model answers with this text and no tool use.
    Text(String),
    /// The model uses these tools one after the other, each after the result of the one
    /// before (such as Read, then Edit); after the last result the fake answers `done.`.
    Steps(Vec<(String, Value)>),
}

impl ScriptedTurn {
    /// Builds a tool-use turn from a tool name and its input.
    pub fn tool_use(name: &str, input: Value) -> ScriptedTurn {
        ScriptedTurn::ToolUse {
            name: name.to_string(),
            input,
        }
    }
}

/// One request as the fake received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The HTTP method, such as `POST`.
    pub method: String,
    /// The request target including any query string, such as `/v1/messages?beta=true`.
    pub path: String,
    /// The parsed JSON body, or `Value::Null` when there was no body, or a string when the
    /// body was not JSON.
    pub body: Value,
}

/// The state shared between the test and the server threads.
#[derive(Default)]
struct State {
    script: VecDeque<ScriptedTurn>,
    requests: Vec<RecordedRequest>,
    tool_results: Vec<Value>,
    seen_tool_use_ids: HashSet<String>,
    next_message: u64,
    /// The rest of a [`ScriptedTurn::Steps`] turn.
    pending_steps: VecDeque<(String, Value)>,
}

/// A running fake Anthropic API; it stops when dropped.
pub struct FakeAnthropic {
    server: ScriptedServer,
    state: Arc<Mutex<State>>,
}

impl FakeAnthropic {
    /// Starts the fake on a free loopback port with the given script of turns.
    pub fn start(script: Vec<ScriptedTurn>) -> io::Result<FakeAnthropic> {
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            ..State::default()
        }));
        let answering = Arc::clone(&state);
        let server = ScriptedServer::start(move |request| answer(request, &answering))?;
        Ok(FakeAnthropic { server, state })
    }

    /// Returns the URL to put in `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// Returns the recorded `tool_result` content blocks, in the order they arrived.
    pub fn tool_results(&self) -> Vec<Value> {
        self.lock().tool_results.clone()
    }

    /// Returns the bodies of all requests received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.lock()
            .requests
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }

    /// Returns all requests received so far with their method and path.
    pub fn recorded_requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// Returns how many scripted turns have not been used yet.
    pub fn remaining_turns(&self) -> usize {
        self.lock().script.len()
    }

    /// Appends a turn to the end of the script.
    pub fn push_turn(&self, turn: ScriptedTurn) {
        self.lock().script.push_back(turn);
    }

    /// How many requests have arrived.
    pub fn request_count(&self) -> usize {
        self.lock().requests.len()
    }

    /// How many tool results have arrived.
    pub fn tool_result_count(&self) -> usize {
        self.lock().tool_results.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic on a server thread must not hide the recorded data from the test.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Records the request and answers it from the script.
fn answer(request: &Request, state: &Mutex<State>) -> Response {
    let body = if request.body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&request.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&request.body).into_owned()))
    };
    let mut state = state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    state.requests.push(RecordedRequest {
        method: request.method.clone(),
        path: request.path.clone(),
        body: body.clone(),
    });
    respond(&mut state, &request.method, &request.path, &body)
}

fn respond(state: &mut State, method: &str, path: &str, body: &Value) -> Response {
    let route = path.split('?').next().unwrap_or(path);
    if method == "POST" && route == "/v1/messages/count_tokens" {
        return json_response("200 OK", &json!({ "input_tokens": 10 }));
    }
    if method != "POST" || route != "/v1/messages" {
        let error = json!({
            "type": "error",
            "error": { "type": "not_found_error", "message": format!("no route for {method} {path}") }
        });
        return json_response("404 Not Found", &error);
    }
    state.next_message += 1;
    let message_id = format!("msg_fake_{:04}", state.next_message);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-haiku-4-5")
        .to_string();
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    let streaming = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let last_user = last_user_content(body);

    // Tool results are recorded once each, even if Claude Code repeats a request.
    let mut saw_new_user_text = false;
    let mut saw_new_tool_result = false;
    for block in &last_user {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => {
                let id = block
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if state.seen_tool_use_ids.insert(id) {
                    state.tool_results.push(block.clone());
                    saw_new_tool_result = true;
                }
            }
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                if !text.trim_start().starts_with("<system-reminder>") {
                    saw_new_user_text = true;
                }
            }
            _ => {}
        }
    }

    // Only a main-loop request (streaming, with tools) that opens a new user turn uses the script.
    let main_loop = has_tools && streaming;
    let turn = if main_loop && saw_new_user_text {
        match state.script.pop_front() {
            Some(ScriptedTurn::Steps(steps)) => {
                state.pending_steps = steps.into();
                next_step(state)
            }
            other => other,
        }
    } else if main_loop && saw_new_tool_result {
        next_step(state)
    } else {
        None
    };
    let reply_text = if has_tools { DONE_TEXT } else { "OK" };
    if !streaming {
        let message = json!({
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{ "type": "text", "text": reply_text }],
            "stop_reason": "end_turn",
            "stop_sequence": null,
            "usage": { "input_tokens": 10, "output_tokens": 2 }
        });
        return json_response("200 OK", &message);
    }
    let mut events = Vec::new();
    events.push(sse(
        "message_start",
        &json!({
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": { "input_tokens": 10, "output_tokens": 1 }
            }
        }),
    ));
    let stop_reason = match turn {
        Some(ScriptedTurn::ToolUse { name, input }) => {
            let input = with_plan_file(input, body);
            let tool_use_id = format!("toolu_fake_{:04}", state.next_message);
            events.push(sse(
                "content_block_start",
                &json!({
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": { "type": "tool_use", "id": tool_use_id, "name": name, "input": {} }
                }),
            ));
            events.push(sse(
                "content_block_delta",
                &json!({
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": { "type": "input_json_delta", "partial_json": input.to_string() }
                }),
            ));
            "tool_use"
        }
        Some(ScriptedTurn::Text(text)) => {
            push_text_block(&mut events, &text);
            "end_turn"
        }
        Some(ScriptedTurn::Steps(_)) | None => {
            push_text_block(&mut events, reply_text);
            "end_turn"
        }
    };
    events.push(sse(
        "content_block_stop",
        &json!({ "type": "content_block_stop", "index": 0 }),
    ));
    events.push(sse(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": { "stop_reason": stop_reason, "stop_sequence": null },
            "usage": { "output_tokens": 5 }
        }),
    ));
    events.push(sse("message_stop", &json!({ "type": "message_stop" })));
    Response {
        status: "200 OK".into(),
        content_type: "text/event-stream".into(),
        body: events.concat().into_bytes(),
    }
}

/// `input` with every [`PLAN_FILE`] string replaced by the plan file the request names.
fn with_plan_file(input: Value, body: &Value) -> Value {
    let text = body.to_string();
    let named = text
        .split_once("create your plan at ")
        .and_then(|(_, rest)| rest.split_once(" using"))
        .map(|(path, _)| path.to_owned());
    match (input, named) {
        (Value::String(text), Some(path)) if text == PLAN_FILE => Value::String(path),
        (Value::Object(map), Some(path)) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let value = if value == PLAN_FILE {
                        Value::String(path.clone())
                    } else {
                        value
                    };
                    (key, value)
                })
                .collect(),
        ),
        (input, _) => input,
    }
}

/// The next step of a [`ScriptedTurn::Steps`] turn, as a tool use.
fn next_step(state: &mut State) -> Option<ScriptedTurn> {
    state
        .pending_steps
        .pop_front()
        .map(|(name, input)| ScriptedTurn::ToolUse { name, input })
}

/// Returns the content blocks of the last message when it is a user message.
fn last_user_content(body: &Value) -> Vec<Value> {
    let Some(last) = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
    else {
        return Vec::new();
    };
    if last.get("role").and_then(Value::as_str) != Some("user") {
        return Vec::new();
    }
    match last.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(text)) => vec![json!({ "type": "text", "text": text })],
        _ => Vec::new(),
    }
}

/// Appends the start and delta events of a text content block.
fn push_text_block(events: &mut Vec<String>, text: &str) {
    events.push(sse(
        "content_block_start",
        &json!({
            "type": "content_block_start",
            "index": 0,
            "content_block": { "type": "text", "text": "" }
        }),
    ));
    events.push(sse(
        "content_block_delta",
        &json!({
            "type": "content_block_delta",
            "index": 0,
            "delta": { "type": "text_delta", "text": text }
        }),
    ));
}

/// Formats one server-sent event.
fn sse(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

fn json_response(status: &str, body: &Value) -> Response {
    Response::json(status, body.to_string())
}

/// Returns the text of a tool result's content, whether it is a string or a list of blocks.
pub fn tool_result_text(block: &Value) -> String {
    match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
