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
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};

/// The largest request body read; Codex's requests are far smaller.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

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
    address: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl FakeResponses {
    /// Starts the fake on a free loopback port with the calls to hand out, in order.
    pub fn start(script: Vec<ScriptedCall>) -> io::Result<FakeResponses> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            ..State::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("fake-responses".into())
                .spawn(move || accept(&listener, &state, &stop))?
        };
        Ok(FakeResponses {
            address,
            state,
            stop,
            acceptor: Some(acceptor),
        })
    }

    /// The `base_url` for Codex's model provider.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
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

impl Drop for FakeResponses {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // A connection wakes the acceptor so that it sees the flag.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_secs(1));
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn accept(listener: &TcpListener, state: &Arc<Mutex<State>>, stop: &AtomicBool) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let state = Arc::clone(state);
        // A connection that fails is Codex's to retry; the probe's deadlines catch the rest.
        let _ = std::thread::Builder::new()
            .name("fake-responses-connection".into())
            .spawn(move || {
                let _ = serve(stream, &state);
            });
    }
}

/// A request as read from the wire.
struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> io::Result<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, path) = (
        parts.next().unwrap_or_default().to_owned(),
        parts.next().unwrap_or_default().to_owned(),
    );
    let (mut length, mut chunked) = (0usize, false);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((header.as_str(), ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 || body.len() + size > MAX_BODY_BYTES {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            let mut end_of_chunk = String::new();
            reader.read_line(&mut end_of_chunk)?;
        }
    } else {
        body.resize(length.min(MAX_BODY_BYTES), 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Request { method, path, body })
}

fn serve(mut stream: TcpStream, state: &Mutex<State>) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let request = read_request(&stream)?;
    if request.method != "POST" || !request.path.trim_end_matches('/').ends_with("/responses") {
        let body = json!({ "error": { "message": format!("the probe's fake model has no {} {}", request.method, request.path) } });
        return respond(
            &mut stream,
            "404 Not Found",
            "application/json",
            body.to_string().as_bytes(),
        );
    }
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        let body = json!({ "error": { "message": "the request body is not JSON" } });
        return respond(
            &mut stream,
            "400 Bad Request",
            "application/json",
            body.to_string().as_bytes(),
        );
    };
    let item = answer(&body, state);
    respond(
        &mut stream,
        "200 OK",
        "text/event-stream",
        events(&item).as_bytes(),
    )
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

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
) -> io::Result<()> {
    let head = format!("HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(fake: &FakeResponses, body: &Value) -> String {
        let mut stream = TcpStream::connect(fake.address).unwrap();
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
