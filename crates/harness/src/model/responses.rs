//! The OpenAI Responses dialect, as Codex 0.171.0 speaks it: `POST /v1/responses` with a JSON
//! body, answered with server-sent events `response.created`, `response.output_item.done` (one
//! item) and `response.completed` (with a `usage` object).
//!
//! A request whose `tools` include the scripted tool and whose last input item is a
//! `function_call_output` reports a result; with the tool and any other last item it is a new
//! turn; without the tool (Codex also asks for a thread title) it is an aside, answered with
//! `{"title":"gatehouse probe"}`, which suits the title's JSON schema.
//!
//! A freeform tool ([`CustomTool`], such as Codex's `apply_patch`) takes the calls it picks: the
//! model calls it with a `custom_tool_call` whose `input` is the call's command (a whole patch),
//! and its result comes back as a `custom_tool_call_output`. Codex 0.171.0 got only `aborted`
//! for a `function_call` named `apply_patch`.

use serde_json::{json, Value};

use super::{Dialect, ScriptedCall, Tool, Turn};
use crate::http::{Request, Response};

/// The Responses API with `tool` as the scripted calls' function, and `custom` (if any) for the
/// calls it picks.
pub struct Responses {
    pub tool: Tool,
    pub custom: Option<CustomTool>,
}

/// A freeform tool of the Responses API: its name, and which scripted calls it takes (their
/// command is the tool's whole input).
#[derive(Clone, Copy)]
pub struct CustomTool {
    pub name: &'static str,
    pub takes: fn(&ScriptedCall) -> bool,
}

impl Dialect for Responses {
    fn base_path(&self) -> &'static str {
        "/v1"
    }

    fn serves(&self, request: &Request) -> bool {
        super::posted_to(request, "/responses")
    }

    fn read(&self, _request: &Request, body: &Value) -> Turn {
        let has_tool = body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == self.tool.name));
        if !has_tool {
            return Turn::Aside;
        }
        let last = body["input"]
            .as_array()
            .and_then(|input| input.last())
            .cloned()
            .unwrap_or(Value::Null);
        if last["type"] == "function_call_output" || last["type"] == "custom_tool_call_output" {
            let call_id = last["call_id"].as_str().unwrap_or_default().to_owned();
            return Turn::Results(vec![(call_id, last["output"].clone())]);
        }
        Turn::Ask
    }

    fn call(&self, _request: &Request, _body: &Value, call: &ScriptedCall) -> Response {
        if let Some(custom) = self.custom.filter(|custom| (custom.takes)(call)) {
            return events(&json!({
                "type": "custom_tool_call",
                "id": format!("ctc_{}", call.call_id),
                "call_id": call.call_id,
                "name": custom.name,
                "input": call.command,
                "status": "completed",
            }));
        }
        let arguments = (self.tool.arguments)(call);
        events(&json!({
            "type": "function_call",
            "id": format!("fc_{}", call.call_id),
            "call_id": call.call_id,
            "name": self.tool.name,
            "arguments": arguments.to_string(),
            "status": "completed",
        }))
    }

    fn text(&self, _request: &Request, _body: &Value, text: &str) -> Response {
        events(&message(text))
    }

    fn aside(&self, request: &Request, body: &Value) -> Response {
        self.text(request, body, r#"{"title":"gatehouse probe"}"#)
    }
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
fn events(item: &Value) -> Response {
    let usage = json!({ "input_tokens": 1, "input_tokens_details": null, "output_tokens": 1, "output_tokens_details": null, "total_tokens": 2 });
    Response::events([
        (Some("response.created"), json!({ "type": "response.created", "response": { "id": "resp_probe" } }).to_string()),
        (Some("response.output_item.done"), json!({ "type": "response.output_item.done", "output_index": 0, "item": item }).to_string()),
        (Some("response.completed"), json!({ "type": "response.completed", "response": { "id": "resp_probe", "usage": usage } }).to_string()),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::{post, test_call, ScriptedModel};
    use super::*;

    const EXEC: Tool = Tool {
        name: "exec_command",
        arguments: |call| json!({ "cmd": call.command, "sandbox_permissions": "require_escalated" }),
    };

    #[test]
    fn a_turn_gets_the_scripted_call_then_done_and_the_output_is_recorded() {
        let call = test_call("call_allow", "printf allow > a.txt");
        let model = ScriptedModel::start(
            Responses {
                tool: EXEC,
                custom: None,
            },
            vec![call],
        )
        .unwrap();
        assert!(model.base_url().ends_with("/v1"));
        let tools = json!([{ "type": "function", "name": "exec_command" }]);
        let first = post(
            &model,
            "/v1/responses",
            &json!({ "tools": tools, "input": [{ "type": "message", "role": "user", "content": [] }] }),
        );
        assert!(first.starts_with("HTTP/1.1 200 OK"));
        assert!(first.contains("event: response.output_item.done"));
        assert!(
            first.contains(r#"\"sandbox_permissions\":\"require_escalated\""#),
            "{first}"
        );
        assert!(model.served("call_allow"));
        let output = json!({ "type": "function_call_output", "call_id": "call_allow", "output": "Process exited with code 0" });
        let second = post(
            &model,
            "/v1/responses",
            &json!({ "tools": tools, "input": [output] }),
        );
        assert!(second.contains("done."));
        assert_eq!(
            model.output_for("call_allow").as_deref(),
            Some("Process exited with code 0")
        );
        let title = post(
            &model,
            "/v1/responses",
            &json!({ "tools": [], "input": [] }),
        );
        assert!(title.contains("gatehouse probe"));
        let elsewhere = post(&model, "/v1/other", &json!({}));
        assert!(elsewhere.starts_with("HTTP/1.1 404"), "{elsewhere}");
    }

    #[test]
    fn a_call_the_custom_tool_takes_is_a_custom_tool_call_and_its_output_is_recorded() {
        let patch = test_call(
            "call_patch",
            "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n",
        );
        let custom = CustomTool {
            name: "apply_patch",
            takes: |call| call.command.starts_with("*** Begin Patch"),
        };
        let model = ScriptedModel::start(
            Responses {
                tool: EXEC,
                custom: Some(custom),
            },
            vec![patch],
        )
        .unwrap();
        let tools = json!([{ "type": "function", "name": "exec_command" }, { "type": "custom", "name": "apply_patch" }]);
        let first = post(
            &model,
            "/v1/responses",
            &json!({ "tools": tools, "input": [{ "type": "message", "role": "user", "content": [] }] }),
        );
        assert!(first.contains(r#""type":"custom_tool_call""#), "{first}");
        assert!(first.contains(r#""name":"apply_patch""#), "{first}");
        assert!(
            first.contains(r#""input":"*** Begin Patch\n*** Add File: a.txt"#),
            "{first}"
        );
        let output = json!({ "type": "custom_tool_call_output", "call_id": "call_patch", "output": "Success." });
        post(
            &model,
            "/v1/responses",
            &json!({ "tools": tools, "input": [output] }),
        );
        assert_eq!(model.output_for("call_patch").as_deref(), Some("Success."));
    }
}
