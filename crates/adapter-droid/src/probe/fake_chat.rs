//! Droid's scripted model: the kit's chat-completions dialect ([`gatehouse_harness::model::chat`])
//! on loopback as a custom model of Droid's (`generic-chat-completion-api`), whose calls are its
//! `Execute` tool with `{command, summary, riskLevel, riskLevelReason}`. The probe and the
//! end-to-end tests run the real Droid against it with no account, no network and no tokens.
//!
//! Droid 0.225.2 adds messages of its own, of role `user`, that start with `<system-reminder>`
//! (a nudge to keep a to-do list, a note that the person steered the turn), also right after a
//! tool result. They are not the person's: [`DroidChat`] reads each request without the ones at
//! its end, so a tool result followed by one is a result, not a new turn.

use std::io;

use gatehouse_harness::http::{Request, Response};
use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::{Dialect, ScriptedCall, ScriptedModel, Tool, Turn};
use serde_json::{json, Value};

/// The risk the scripted calls are given: Droid asks about it in Auto (Off) and Auto (Low).
pub const RISK: &str = "medium";

/// Droid's `Execute` tool; the call's reason is its summary and the reason for its risk, which
/// Droid shows in its dialog ("Why this needs approval").
pub const EXECUTE: Tool = Tool {
    name: crate::events::ANSWERABLE_TOOL,
    arguments: |call| {
        json!({ "command": call.command, "summary": call.reason, "riskLevel": RISK,
            "riskLevelReason": call.reason })
    },
};

/// The text Droid's own messages to the model start with.
pub const SYSTEM_REMINDER: &str = "<system-reminder>";

/// The chat-completions dialect, reading each request without Droid's own messages at its end.
pub struct DroidChat(pub Chat);

impl DroidChat {
    /// `body` without the `<system-reminder>` messages of role `user` at the end of its
    /// `messages`.
    fn without_reminders(body: &Value) -> Value {
        let mut body = body.clone();
        if let Some(messages) = body["messages"].as_array_mut() {
            while messages.last().is_some_and(is_reminder) {
                messages.pop();
            }
        }
        body
    }
}

/// Whether `message` is Droid's own: of role `user`, its text starting with
/// [`SYSTEM_REMINDER`].
fn is_reminder(message: &Value) -> bool {
    let text = match &message["content"] {
        Value::String(text) => text.as_str(),
        Value::Array(parts) => parts
            .first()
            .and_then(|part| part["text"].as_str())
            .unwrap_or_default(),
        _ => "",
    };
    message["role"] == "user" && text.trim_start().starts_with(SYSTEM_REMINDER)
}

impl Dialect for DroidChat {
    fn base_path(&self) -> &'static str {
        self.0.base_path()
    }

    fn serves(&self, request: &Request) -> bool {
        self.0.serves(request)
    }

    fn read(&self, request: &Request, body: &Value) -> Turn {
        self.0.read(request, &Self::without_reminders(body))
    }

    fn call(&self, request: &Request, body: &Value, call: &ScriptedCall) -> Response {
        self.0.call(request, body, call)
    }

    fn text(&self, request: &Request, body: &Value, text: &str) -> Response {
        self.0.text(request, body, text)
    }
}

/// Starts the scripted model on a free loopback port with the calls to hand out, in order; its
/// [`ScriptedModel::base_url`] is the custom model's `baseUrl`.
pub fn start(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(DroidChat(Chat { tool: EXECUTE }), script)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(messages: Value) -> Turn {
        let tools = json!([{ "type": "function", "function": { "name": "Execute" } }]);
        let body = json!({ "stream": true, "tools": tools, "messages": messages });
        let request = Request {
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
        };
        DroidChat(Chat { tool: EXECUTE }).read(&request, &body)
    }

    #[test]
    fn droids_reminders_after_a_tool_result_leave_it_a_result_and_a_persons_message_a_turn() {
        let reminder = json!({ "role": "user", "content": "<system-reminder>TodoWrite has not been called.</system-reminder>" });
        let result = json!({ "role": "tool", "tool_call_id": "call_a", "content": "Error: no" });
        let person = json!({ "role": "user", "content": "please write a.txt" });
        assert_eq!(
            turn(json!([person, result, reminder, reminder])),
            Turn::Results(vec![("call_a".into(), json!("Error: no"))])
        );
        assert_eq!(turn(json!([result, person, reminder])), Turn::Ask);
        assert_eq!(turn(json!([person])), Turn::Ask);
        let parts = json!({ "role": "user", "content": [{ "type": "text", "text": "<system-reminder>x" }] });
        assert_eq!(
            turn(json!([person, result, parts])),
            Turn::Results(vec![("call_a".into(), json!("Error: no"))])
        );
        // Nothing but reminders is no turn of the person's.
        assert_eq!(turn(json!([reminder])), Turn::Aside);
    }

    #[test]
    fn a_scripted_call_is_droids_execute_with_its_risk_and_reason() {
        let call = ScriptedCall {
            call_id: "call_x".into(),
            command: "printf x > x.txt".into(),
            reason: "write x.txt".into(),
        };
        assert_eq!(
            (EXECUTE.arguments)(&call),
            json!({ "command": "printf x > x.txt", "summary": "write x.txt", "riskLevel": "medium",
                "riskLevelReason": "write x.txt" })
        );
    }
}
