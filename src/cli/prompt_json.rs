//! Prompts as `list --json` and `watch --json` print them: wire `Prompt`s, with one form for the
//! input of a cut copy. The gateway sends a large prompt cut, its `input` replaced by a string
//! that holds the start of the input's JSON; a script reading `input` would find the tool's
//! fields in a whole prompt and a string in a cut one. So a cut copy's excerpt moves to
//! `input_excerpt` and `input` is `null` ([`INPUT_HELP`] says so in `--help`).

use gatehouse_core::{Event, Prompt};
use serde_json::Value;

/// For `--help`: the form of `input`, whole and cut.
pub const INPUT_HELP: &str = "`input` is the tool's input as the agent sent it. For a prompt \
listed cut (it has `cut`: {\"full_bytes\": N}) whose input is too large to list, `input` is null \
and `input_excerpt` is a string, the first 8 KiB of the input's JSON; `gatehouse show ID --json` \
has the whole input.";

/// `prompt` as JSON, its cut input (if any) as [`INPUT_HELP`] says.
pub fn prompt_json(prompt: &Prompt) -> serde_json::Result<Value> {
    let mut value = serde_json::to_value(prompt)?;
    if prompt.cut.is_some() {
        move_excerpt(&mut value);
    }
    Ok(value)
}

/// Every prompt of `prompts`, as [`prompt_json`] gives it.
pub fn prompts_json(prompts: &[Prompt]) -> serde_json::Result<Value> {
    prompts.iter().map(prompt_json).collect()
}

/// `event` as JSON, with the prompt it carries (if any) as [`prompt_json`] gives it.
pub fn event_json(event: &Event) -> serde_json::Result<Value> {
    let mut value = serde_json::to_value(event)?;
    let carries_a_cut_prompt = match event {
        Event::Added { prompt } => prompt.cut.is_some(),
        _ => false,
    };
    if carries_a_cut_prompt {
        if let Some(prompt) = value.get_mut("prompt") {
            move_excerpt(prompt);
        }
    }
    Ok(value)
}

/// In a cut prompt's JSON, a string `input` is the gateway's excerpt of the input's JSON: it
/// goes to `input_excerpt`, and `input` becomes null. An input the gateway left whole stays.
fn move_excerpt(prompt: &mut Value) {
    let Some(fields) = prompt.as_object_mut() else {
        return;
    };
    if let Some(Value::String(_)) = fields.get("input") {
        let excerpt = fields.insert("input".into(), Value::Null);
        if let Some(excerpt) = excerpt {
            fields.insert("input_excerpt".into(), excerpt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(input: Value, cut: bool) -> Prompt {
        let mut prompt: Prompt = serde_json::from_value(serde_json::json!({
            "id": "01a22a7c-7184-7520-bb65-4d44b4eba60b",
            "short_id": "a3f7",
            "adapter": "claude", "session": "s", "cwd": "/p", "kind": "permission",
            "tool": "Bash", "input": input, "summary": "x", "correlation": "c",
            "actions": ["once", "deny"], "state": "pending",
            "created_at": "2026-11-30T03:28:57.753Z", "held_since": "2026-11-30T03:28:57.751Z"
        }))
        .expect("a prompt");
        if cut {
            prompt.cut = Some(gatehouse_core::CutNote {
                full_bytes: 9_000_000,
                digest: None,
            });
        }
        prompt
    }

    #[test]
    fn a_cut_input_is_null_with_its_excerpt_beside_and_a_whole_one_stays() {
        let whole = prompt_json(&prompt(serde_json::json!({"command": "ls"}), false)).unwrap();
        assert_eq!(whole["input"]["command"], "ls");
        assert!(whole.get("input_excerpt").is_none());

        let cut = prompt_json(&prompt("{\"command\":\"ls ...".into(), true)).unwrap();
        assert!(cut["input"].is_null());
        assert_eq!(cut["input_excerpt"], "{\"command\":\"ls ...");

        // A cut prompt whose input was small enough to send whole keeps it.
        let kept = prompt_json(&prompt(serde_json::json!({"command": "ls"}), true)).unwrap();
        assert_eq!(kept["input"]["command"], "ls");
        assert!(kept.get("input_excerpt").is_none());

        // A string input of a whole prompt is the tool's own.
        let own = prompt_json(&prompt("ls".into(), false)).unwrap();
        assert_eq!(own["input"], "ls");

        let added = event_json(&Event::Added {
            prompt: prompt("{\"command\":\"ls ...".into(), true),
        })
        .unwrap();
        assert!(added["prompt"]["input"].is_null());
        assert_eq!(added["prompt"]["input_excerpt"], "{\"command\":\"ls ...");
    }
}
