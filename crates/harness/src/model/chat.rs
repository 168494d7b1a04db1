//! The OpenAI chat-completions dialect, as Copilot CLI 1.0.102 speaks it to a BYOK provider:
//! `POST /v1/chat/completions`, with `"stream": true` answered by server-sent
//! `chat.completion.chunk`s ending with `data: [DONE]`, and without it by one
//! `chat.completion`.
//!
//! A last message of role `tool` reports a result (its content a string, or text parts as Qwen
//! Code sends it); a last message of role `user` in a request
//! with tools is a new turn; anything else is an aside, answered with the text `done.`.

use serde_json::{json, Value};

use super::{ScriptedCall, Tool, Turn};
use crate::http::{Request, Response};

/// Chat completions with `tool` as the scripted calls' function.
pub struct Chat {
    pub tool: Tool,
}

impl super::Dialect for Chat {
    fn base_path(&self) -> &'static str {
        "/v1"
    }

    fn serves(&self, request: &Request) -> bool {
        super::posted_to(request, "/chat/completions")
    }

    fn read(&self, _request: &Request, body: &Value) -> Turn {
        let last = body["messages"]
            .as_array()
            .and_then(|messages| messages.last())
            .cloned()
            .unwrap_or(Value::Null);
        let has_tools = body["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty());
        if last["role"] == "tool" {
            let call_id = last["tool_call_id"].as_str().unwrap_or_default().to_owned();
            return Turn::Results(vec![(call_id, content_text(&last["content"]))]);
        }
        if !has_tools || last["role"] != "user" {
            return Turn::Aside;
        }
        Turn::Ask
    }

    fn call(&self, _request: &Request, body: &Value, call: &ScriptedCall) -> Response {
        let arguments = (self.tool.arguments)(call);
        answer(
            body,
            json!({ "role": "assistant", "content": null, "tool_calls": [{
                "index": 0, "id": call.call_id, "type": "function",
                "function": { "name": self.tool.name, "arguments": arguments.to_string() },
            }] }),
        )
    }

    fn text(&self, _request: &Request, body: &Value, text: &str) -> Response {
        answer(body, json!({ "role": "assistant", "content": text }))
    }
}

/// A message's content as text: a string as it is; an array of parts (as Qwen Code sends a tool
/// result: `[{"type": "text", "text": ...}]`) as its text parts joined; anything else as it is.
fn content_text(content: &Value) -> Value {
    match content.as_array() {
        Some(parts) if parts.iter().all(|part| part["text"].is_string()) => Value::String(
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => content.clone(),
    }
}

/// The assistant's message `delta`, streamed or whole as the request asked.
fn answer(body: &Value, delta: Value) -> Response {
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
    use super::super::{post, test_call, ScriptedModel};
    use super::*;

    const BASH: Tool = Tool::command_and_description("bash");

    #[test]
    fn a_turn_gets_the_scripted_call_then_done_and_the_tool_result_is_recorded() {
        let call = test_call("call_allow", "printf allow > a.txt");
        let model = ScriptedModel::start(Chat { tool: BASH }, vec![call]).unwrap();
        let path = "/v1/chat/completions";
        let tools = json!([{ "type": "function", "function": { "name": "bash" } }]);
        let user = json!({ "role": "user", "content": "go" });
        let first = post(
            &model,
            path,
            &json!({ "stream": true, "tools": tools, "messages": [user] }),
        );
        assert!(first.starts_with("HTTP/1.1 200 OK"), "{first}");
        assert!(first.contains(r#""finish_reason":"tool_calls""#), "{first}");
        assert!(
            first.contains(r#"\"command\":\"printf allow > a.txt\""#),
            "{first}"
        );
        assert!(first.ends_with("data: [DONE]\n\n"), "{first}");
        assert!(model.served("call_allow"));
        let result = json!({ "role": "tool", "tool_call_id": "call_allow", "content": "Permission denied by a PermissionRequest hook: no" });
        let second = post(
            &model,
            path,
            &json!({ "stream": true, "tools": tools, "messages": [user, result] }),
        );
        assert!(second.contains("done."), "{second}");
        assert_eq!(
            model.output_for("call_allow").as_deref(),
            Some("Permission denied by a PermissionRequest hook: no")
        );
        let parts = json!({ "role": "tool", "tool_call_id": "call_parts", "content": [{ "type": "text", "text": "line one" }, { "type": "text", "text": "line two" }] });
        post(
            &model,
            path,
            &json!({ "stream": true, "tools": tools, "messages": [user, parts] }),
        );
        assert_eq!(
            model.output_for("call_parts").as_deref(),
            Some("line one\nline two")
        );
        let plain = post(
            &model,
            path,
            &json!({ "messages": [{ "role": "user", "content": "title?" }] }),
        );
        assert!(plain.contains(r#""object":"chat.completion""#), "{plain}");
    }
}
