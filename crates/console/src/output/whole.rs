//! One prompt whole, for `gatehouse show`: every field, the whole input as indented JSON and the
//! whole preview, each line made visible. Nothing is cut.

use std::fmt::Write;

use gatehouse_core::text::visible;
use gatehouse_core::{Prompt, Timestamp};

/// Every field of `prompt`, one a line, with its input and preview whole; `now` tells how long
/// its hold has left.
pub fn whole_prompt(prompt: &Prompt, now: Timestamp) -> String {
    let content = &prompt.prompt;
    let mut out = String::new();
    let mut field = |name: &str, value: &str| {
        let _ = writeln!(out, "{name:<9} {}", visible(value));
    };
    field(
        "id:",
        &format!("{} ({})", super::shown_id(prompt), prompt.id),
    );
    field("agent:", &content.adapter);
    field("host:", &super::host(prompt));
    field("folder:", &content.cwd);
    field("session:", &content.session);
    field("kind:", content.kind.as_str());
    field("tool:", &content.tool);
    field("state:", prompt.state.as_str());
    let actions = super::joined_names(&prompt.actions, gatehouse_core::Action::as_str, ",");
    field("actions:", &actions);
    field("summary:", &content.summary);
    if let Some(reason) = &content.read_only_reason {
        field("read-only:", reason);
    }
    if let Some(note) = super::hold_note(prompt, now) {
        // Already made visible.
        let _ = writeln!(out, "{:<9} {note}", "held:");
    }
    // Field by field, each text line by line, so a command's last line is a line of its own.
    let _ = writeln!(out, "input:");
    let fields: Vec<(String, &serde_json::Value)> = match &content.input {
        serde_json::Value::Object(fields) => fields.iter().map(|(k, v)| (k.clone(), v)).collect(),
        other => vec![("input".to_owned(), other)],
    };
    for (name, value) in fields {
        for line in super::input::field_lines(&name, value) {
            let _ = writeln!(out, "  {line}");
        }
    }
    for question in &content.questions {
        let kind = super::how_many_to_choose(question);
        let _ = writeln!(
            out,
            "question {} ({kind}): {}",
            visible(&question.id),
            visible(&question.text)
        );
        for option in &question.options {
            let _ = writeln!(
                out,
                "  - {}: {}",
                visible(&option.label),
                visible(&option.description)
            );
        }
    }
    if let Some(terminal) = &content.extra.terminal {
        let _ = writeln!(out, "terminal: {}", visible(&terminal.describe()));
    }
    for suggestion in &content.extra.suggestions {
        let _ = writeln!(
            out,
            "always {}: {}",
            visible(&suggestion.id),
            visible(&suggestion.describe())
        );
    }
    if let Some(preview) = &content.extra.preview {
        let _ = writeln!(out, "preview: {}", visible(&preview.title));
        for line in preview.text.lines() {
            let _ = writeln!(out, "  {}", visible(line));
        }
    }
    out
}
