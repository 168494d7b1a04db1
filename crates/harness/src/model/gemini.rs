//! Gemini's dialect, as Gemini CLI 0.61.0 speaks it with `GOOGLE_GEMINI_BASE_URL` set:
//! `POST /v1beta/models/<router model>:generateContent` (it picks a model for the turn and reads
//! the reply's text as JSON; any reply will do: an aside) and `POST
//! /v1beta/models/<model>:streamGenerateContent?alt=sse`, answered with `data: {json}\n\n` lines of
//! `{"candidates": [{"content": {"role": "model", "parts": [...]}, "finishReason": "STOP"}]}`.
//! After a `functionCall` part (whose `id` is the scripted call's), the next request ends with a
//! user content holding the `functionResponse` parts (recorded whole, under the `id` Gemini CLI
//! echoes; `{"response": {"output": ...}}` when the command ran). A turn ends with the text
//! `Done.`.

use serde_json::{json, Value};

use super::{ScriptedCall, Tool, Turn};
use crate::http::{Request, Response};

/// Gemini's API with `tool` as the scripted calls' function.
pub struct Gemini {
    pub tool: Tool,
}

impl super::Dialect for Gemini {
    fn base_path(&self) -> &'static str {
        ""
    }

    fn serves(&self, request: &Request) -> bool {
        let route = request.route();
        route.ends_with(":generateContent") || route.ends_with(":streamGenerateContent")
    }

    fn read(&self, request: &Request, body: &Value) -> Turn {
        if request.route().ends_with(":generateContent") {
            return Turn::Aside;
        }
        let last_parts = body["contents"]
            .as_array()
            .and_then(|contents| contents.last())
            .and_then(|content| content["parts"].as_array())
            .cloned()
            .unwrap_or_default();
        let results: Vec<(String, Value)> = last_parts
            .iter()
            .filter_map(|part| part.get("functionResponse"))
            .map(|response| {
                let id = response["id"].as_str().or(response["name"].as_str());
                (id.unwrap_or_default().to_owned(), response.clone())
            })
            .collect();
        if results.is_empty() {
            Turn::Ask
        } else {
            Turn::Results(results)
        }
    }

    fn call(&self, _request: &Request, _body: &Value, call: &ScriptedCall) -> Response {
        let part = json!({ "functionCall": { "id": call.call_id, "name": self.tool.name, "args": (self.tool.arguments)(call) } });
        Response::events([(None, reply(part).to_string())])
    }

    fn text(&self, _request: &Request, _body: &Value, text: &str) -> Response {
        Response::events([(None, reply(json!({ "text": text })).to_string())])
    }

    /// The router's question: which model for this turn.
    fn aside(&self, _request: &Request, _body: &Value) -> Response {
        let choice = json!({ "reasoning": "a simple request", "model_choice": "flash" });
        Response::json(
            "200 OK",
            reply(json!({ "text": choice.to_string() })).to_string(),
        )
    }

    fn done_text(&self) -> &'static str {
        "Done."
    }
}

fn reply(part: Value) -> Value {
    json!({
        "candidates": [{ "content": { "role": "model", "parts": [part] }, "finishReason": "STOP", "index": 0 }],
        "usageMetadata": { "promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15 },
    })
}

#[cfg(test)]
mod tests {
    use super::super::{post, test_call, ScriptedModel};
    use super::*;

    const SHELL: Tool = Tool::command_and_description("run_shell_command");

    #[test]
    fn every_turn_asks_for_the_command_and_function_responses_are_recorded() {
        let call = test_call("run", "printf x > x.txt");
        let model = ScriptedModel::repeating(Gemini { tool: SHELL }, call).unwrap();
        let stream = "/v1beta/models/flash:streamGenerateContent?alt=sse";
        let user = json!({ "role": "user", "parts": [{ "text": "go" }] });
        for _ in 0..2 {
            let turn = post(&model, stream, &json!({ "contents": [user] }));
            assert!(turn.contains("run_shell_command"), "{turn}");
            assert!(turn.contains(r#""id":"run""#), "{turn}");
        }
        let response = json!({ "role": "user", "parts": [{ "functionResponse": { "name": "run_shell_command", "response": { "output": "" } } }] });
        let done = post(&model, stream, &json!({ "contents": [user, response] }));
        assert!(done.contains("Done."), "{done}");
        let outputs = model.outputs();
        assert_eq!(outputs.len(), 1);
        assert!(outputs[0]["response"].get("output").is_some());
        let echoed = json!({ "role": "user", "parts": [{ "functionResponse": { "id": "run", "name": "run_shell_command", "response": { "output": "ran" } } }] });
        post(&model, stream, &json!({ "contents": [user, echoed] }));
        assert!(model
            .output_for("run")
            .is_some_and(|output| output.contains("ran")));
        let router = post(&model, "/v1beta/models/x:generateContent", &json!({}));
        assert!(router.contains("model_choice"), "{router}");
    }
}
