//! Verdicts in Claude Code's words: the JSON a PermissionRequest hook prints on stdout.
//!
//! Observed with Claude Code 2.1.332: `allow` runs the call; for a plan (ExitPlanMode) a bare
//! `allow` is ignored, and `allow` with `updatedInput` = the input echoed back approves it;
//! `allow` with `updatedPermissions: [<one of its own suggestions>]` also stops the next prompt
//! like it, kept where the suggestion's `destination` says.

use gatehouse_core::answer::deny_message;
use gatehouse_core::{Answer, NewPrompt, PromptKind, Verdict};
use serde_json::{json, Value};

use crate::{questions, suggestions};

/// What Claude Code tells the model when the person denies without a message of their own.
pub use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;

/// The hook's stdout for a verdict on `prompt`.
pub fn render(prompt: &NewPrompt, verdict: &Verdict) -> String {
    let decision = match &verdict.0 {
        Answer::Once => allow(prompt),
        Answer::Deny { message } => {
            json!({ "behavior": "deny", "message": deny_message(message) })
        }
        Answer::Answer { responses } => {
            // The original input, verbatim, plus the answers.
            let mut updated_input = input_object(prompt);
            let answers = questions::answers_by_text(&prompt.questions, responses);
            updated_input.insert("answers".into(), Value::Object(answers));
            json!({ "behavior": "allow", "updatedInput": updated_input })
        }
        Answer::Always { suggestion, scope } => {
            let mut decision = allow(prompt);
            let chosen = prompt
                .extra
                .suggestions
                .iter()
                .find(|candidate| Some(&candidate.id) == suggestion.as_ref());
            // The arbiter accepts only a suggestion of the prompt; without one this is `once`.
            if let Some(Value::Object(native)) = chosen.map(|chosen| &chosen.native) {
                let mut echoed = native.clone();
                echoed.insert(
                    "destination".into(),
                    suggestions::destination(*scope).into(),
                );
                decision["updatedPermissions"] = json!([echoed]);
            }
            decision
        }
    };
    json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
        .to_string()
}

/// `allow`; for a plan, with the input echoed back, which is what approves it.
fn allow(prompt: &NewPrompt) -> Value {
    if prompt.kind == PromptKind::Plan {
        json!({ "behavior": "allow", "updatedInput": input_object(prompt) })
    } else {
        json!({ "behavior": "allow" })
    }
}

fn input_object(prompt: &NewPrompt) -> serde_json::Map<String, Value> {
    match &prompt.input {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    }
}

#[cfg(test)]
mod tests;
