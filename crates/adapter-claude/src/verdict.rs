//! Verdicts in Claude Code's words: the JSON a PermissionRequest hook prints on stdout.

use gatehouse_core::{Answer, NewPrompt, Verdict};
use serde_json::{json, Value};

use crate::questions;

/// What Claude Code tells the model when the person denies without a message of their own.
pub const DEFAULT_DENY_MESSAGE: &str =
    "The person denied this from gatehouse. Do not retry it; ask them what to do instead.";

/// The hook's stdout for a verdict on `prompt`.
pub fn render(prompt: &NewPrompt, verdict: &Verdict) -> String {
    let decision = match &verdict.0 {
        Answer::Once => json!({ "behavior": "allow" }),
        Answer::Deny { message } => {
            let message = message
                .as_deref()
                .map(str::trim)
                .filter(|message| !message.is_empty())
                .unwrap_or(DEFAULT_DENY_MESSAGE);
            json!({ "behavior": "deny", "message": message })
        }
        Answer::Answer { responses } => {
            // The original input, verbatim, plus the answers.
            let mut updated_input = match &prompt.input {
                Value::Object(map) => map.clone(),
                _ => serde_json::Map::new(),
            };
            let answers = questions::answers_by_text(&prompt.questions, responses);
            updated_input.insert("answers".into(), Value::Object(answers));
            json!({ "behavior": "allow", "updatedInput": updated_input })
        }
    };
    json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
        .to_string()
}
