//! The Anthropic messages dialect, as Claude Code 2.1.332 speaks it with `ANTHROPIC_BASE_URL`
//! set: `POST /v1/messages`, with `"stream": true` answered by server-sent events
//! (`message_start`, one content block, `message_delta` with the stop reason, `message_stop`),
//! and without it by one `message`; `POST /v1/messages/count_tokens` is answered with a count.
//!
//! Only a main-loop request (streaming, with tools) takes part in the script: its last message,
//! a user message, reports results in its `tool_result` blocks (recorded whole, see
//! [`tool_result_text`]) and opens a new turn when it also holds typed text (not a
//! `<system-reminder>`). Every other request is an aside, answered with `done.` (with tools) or
//! `OK`.
//!
//! In a tool's input, the string [`PLAN_FILE`] stands for the plan file the request names:
//! Claude Code in plan mode tells the model "create your plan at PATH using the Write tool", and
//! reads the plan from that file.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};

use super::{Dialect, ScriptedCall, Tool, Turn};
use crate::http::{Request, Response};

/// A string in a scripted tool input that stands for the plan file the request names.
pub const PLAN_FILE: &str = "<plan file>";

/// The messages API with `tool` as the scripted commands' tool.
pub struct Anthropic {
    tool: Tool,
    /// How many messages were answered, which numbers their ids.
    messages: AtomicU64,
}

impl Anthropic {
    pub fn new(tool: Tool) -> Anthropic {
        Anthropic {
            tool,
            messages: AtomicU64::new(0),
        }
    }

    /// The assistant's message holding `block`, which ends for `stop_reason`: streamed or whole
    /// as the request asked.
    fn message(&self, body: &Value, block: Value, stop_reason: &str) -> Response {
        let number = self.messages.fetch_add(1, Ordering::Relaxed) + 1;
        let message = |content: Value, stop_reason: Value| {
            json!({
                "id": format!("msg_fake_{number:04}"),
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": null,
                "usage": { "input_tokens": 10, "output_tokens": 2 }
            })
        };
        if body["stream"] != true {
            return Response::json(
                "200 OK",
                message(json!([block]), json!(stop_reason)).to_string(),
            );
        }
        // A block starts empty, and its text or input comes as one delta.
        let (start, delta) = match block["type"].as_str() {
            Some("tool_use") => {
                let delta = json!({ "type": "input_json_delta", "partial_json": block["input"].to_string() });
                (json!({ "input": {} }), delta)
            }
            _ => (
                json!({ "text": "" }),
                json!({ "type": "text_delta", "text": block["text"] }),
            ),
        };
        let mut started = block;
        if let (Some(fields), Value::Object(empty)) = (started.as_object_mut(), start) {
            fields.extend(empty);
        }
        let events = [
            (
                "message_start",
                json!({ "type": "message_start", "message": message(json!([]), Value::Null) }),
            ),
            (
                "content_block_start",
                json!({ "type": "content_block_start", "index": 0, "content_block": started }),
            ),
            (
                "content_block_delta",
                json!({ "type": "content_block_delta", "index": 0, "delta": delta }),
            ),
            (
                "content_block_stop",
                json!({ "type": "content_block_stop", "index": 0 }),
            ),
            (
                "message_delta",
                json!({ "type": "message_delta", "delta": { "stop_reason": stop_reason, "stop_sequence": null }, "usage": { "output_tokens": 5 } }),
            ),
            ("message_stop", json!({ "type": "message_stop" })),
        ];
        Response::events(events.map(|(name, data)| (Some(name), data.to_string())))
    }
}

impl Dialect for Anthropic {
    fn base_path(&self) -> &'static str {
        ""
    }

    fn serves(&self, request: &Request) -> bool {
        request.method == "POST"
            && matches!(
                request.route(),
                "/v1/messages" | "/v1/messages/count_tokens"
            )
    }

    fn read(&self, request: &Request, body: &Value) -> Turn {
        let has_tools = body["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty());
        if request.route() != "/v1/messages" || !has_tools || body["stream"] != true {
            return Turn::Aside;
        }
        let last = body["messages"]
            .as_array()
            .and_then(|messages| messages.last());
        let blocks = match last {
            Some(last) if last["role"] == "user" => match &last["content"] {
                Value::Array(blocks) => blocks.clone(),
                Value::String(text) => vec![json!({ "type": "text", "text": text })],
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        let results: Vec<(String, Value)> = blocks
            .iter()
            .filter(|block| block["type"] == "tool_result")
            .map(|block| {
                (
                    block["tool_use_id"].as_str().unwrap_or_default().to_owned(),
                    block.clone(),
                )
            })
            .collect();
        let typed = blocks.iter().any(|block| {
            block["type"] == "text"
                && !block["text"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_start()
                    .starts_with("<system-reminder>")
        });
        match (typed, results.is_empty()) {
            (true, true) => Turn::Ask,
            (true, false) => Turn::AskAfter(results),
            (false, false) => Turn::Results(results),
            (false, true) => Turn::Aside,
        }
    }

    fn call(&self, request: &Request, body: &Value, call: &ScriptedCall) -> Response {
        let input = (self.tool.arguments)(call);
        self.tool_use(request, body, &call.call_id, self.tool.name, &input)
    }

    fn tool_use(
        &self,
        _request: &Request,
        body: &Value,
        call_id: &str,
        name: &str,
        input: &Value,
    ) -> Response {
        let input = with_plan_file(input, body);
        let block = json!({ "type": "tool_use", "id": call_id, "name": name, "input": input });
        self.message(body, block, "tool_use")
    }

    fn text(&self, _request: &Request, body: &Value, text: &str) -> Response {
        self.message(body, json!({ "type": "text", "text": text }), "end_turn")
    }

    /// A token count, or a short text: `done.` where tools were offered, else `OK`.
    fn aside(&self, request: &Request, body: &Value) -> Response {
        if request.route() == "/v1/messages/count_tokens" {
            return Response::json("200 OK", json!({ "input_tokens": 10 }).to_string());
        }
        let has_tools = body["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty());
        self.text(
            request,
            body,
            if has_tools { super::DONE_TEXT } else { "OK" },
        )
    }
}

/// `input` with each of its values that is [`PLAN_FILE`] replaced by the plan file the request
/// names (left as it is when the request names none).
fn with_plan_file(input: &Value, body: &Value) -> Value {
    let text = body.to_string();
    let named = text
        .split_once("create your plan at ")
        .and_then(|(_, rest)| rest.split_once(" using"))
        .map(|(path, _)| Value::String(path.to_owned()));
    let plan_file = |value: &Value| match &named {
        Some(path) if value == PLAN_FILE => path.clone(),
        _ => value.clone(),
    };
    match input {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), plan_file(value)))
                .collect(),
        ),
        other => plan_file(other),
    }
}

/// The text of a `tool_result` block's content, whether a string or a list of blocks.
pub fn tool_result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{post, test_call, ScriptedModel, ScriptedTurn};
    use super::*;

    const BASH: Tool = Tool {
        name: "Bash",
        arguments: |call| json!({ "command": call.command, "description": call.reason }),
    };

    fn user(content: Value) -> Value {
        json!({ "role": "user", "content": content })
    }

    fn main_loop(messages: Value) -> Value {
        json!({ "model": "m", "stream": true, "tools": [{ "name": "Bash" }], "messages": messages,
            "system": "create your plan at /home/p/.claude/plans/x.md using the Write tool" })
    }

    fn result(id: &str, text: &str) -> Value {
        json!({ "type": "tool_result", "tool_use_id": id, "content": [{ "type": "text", "text": text }] })
    }

    /// The `input` of the tool use in a streamed answer.
    fn input_of(answer: &str) -> Value {
        let data = answer
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str::<Value>(data).unwrap())
            .find(|event| event["delta"]["type"] == "input_json_delta")
            .unwrap_or_else(|| panic!("no tool input in {answer}"));
        serde_json::from_str(data["delta"]["partial_json"].as_str().unwrap()).unwrap()
    }

    #[test]
    fn steps_are_served_one_after_each_result_which_is_recorded_once() {
        let steps = ScriptedTurn::Steps(vec![
            (
                "Write".into(),
                json!({ "file_path": PLAN_FILE, "content": "plan" }),
            ),
            ("ExitPlanMode".into(), json!({})),
        ]);
        let model = ScriptedModel::start_turns(Anthropic::new(BASH), vec![steps]).unwrap();
        let path = "/v1/messages?beta=true";
        let asked = user(json!("plan it"));
        let first = post(&model, path, &main_loop(json!([asked])));
        assert!(first.contains("event: message_start"), "{first}");
        assert!(first.contains(r#""stop_reason":"tool_use""#), "{first}");
        assert_eq!(input_of(&first)["file_path"], "/home/p/.claude/plans/x.md");
        let written = user(json!([result("toolu_scripted_0001", "written")]));
        let second = post(&model, path, &main_loop(json!([asked, written])));
        assert!(second.contains(r#""name":"ExitPlanMode""#), "{second}");
        // The same request again (a retry) records nothing and serves no further step.
        let again = post(&model, path, &main_loop(json!([asked, written])));
        assert!(again.contains(r#""text":"done.""#), "{again}");
        let approved = user(json!([result("toolu_scripted_0002", "approved")]));
        let last = post(&model, path, &main_loop(json!([asked, written, approved])));
        assert!(last.contains(r#""text":"done.""#), "{last}");
        let texts: Vec<String> = model.outputs().iter().map(tool_result_text).collect();
        assert_eq!(texts, ["written", "approved"]);
    }

    #[test]
    fn a_typed_message_after_a_refused_call_records_it_and_takes_the_next_turn() {
        let turns = vec![
            ScriptedTurn::tool_use("Write", json!({ "file_path": "a" })),
            ScriptedTurn::Command(test_call("call_bash", "printf x > x.txt")),
        ];
        let model = ScriptedModel::start_turns(Anthropic::new(BASH), turns).unwrap();
        post(
            &model,
            "/v1/messages",
            &main_loop(json!([user(json!("write"))])),
        );
        let refused = user(json!([
            result("toolu_scripted_0001", "The user doesn't want to proceed"),
            { "type": "text", "text": "run it instead" }
        ]));
        let answer = post(&model, "/v1/messages", &main_loop(json!([refused])));
        assert_eq!(input_of(&answer)["command"], "printf x > x.txt");
        assert!(model.served("call_bash"));
        assert_eq!(model.outputs().len(), 1);
    }

    #[test]
    fn side_requests_get_short_answers_and_other_routes_none() {
        let model = ScriptedModel::start_turns(Anthropic::new(BASH), Vec::new()).unwrap();
        let title = post(
            &model,
            "/v1/messages",
            &json!({ "model": "m", "messages": [user(json!("title?"))] }),
        );
        assert!(
            title.contains(r#""type":"message""#) && title.contains(r#""text":"OK""#),
            "{title}"
        );
        let reminder =
            user(json!([{ "type": "text", "text": "<system-reminder>x</system-reminder>" }]));
        let aside = post(&model, "/v1/messages", &main_loop(json!([reminder])));
        assert!(aside.contains(r#""text":"done.""#), "{aside}");
        let count = post(&model, "/v1/messages/count_tokens", &json!({}));
        assert!(count.contains(r#""input_tokens":10"#), "{count}");
        let unknown = post(&model, "/v1/models", &json!({}));
        assert!(unknown.starts_with("HTTP/1.1 404"), "{unknown}");
    }
}
