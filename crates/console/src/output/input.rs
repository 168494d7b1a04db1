//! What will run, under a prompt in `list`: every field of the tool's input that its summary
//! does not already show whole, made visible line by line, within a bound. Whether the person
//! saw the whole input in `list` decides whether `answer` may approve it without `--seen`.

use gatehouse_core::text::visible;
use gatehouse_core::{Prompt, PromptKind};
use serde_json::Value;

/// The most input lines shown under a prompt.
pub const INPUT_LINES: usize = 40;
/// The most input characters shown under a prompt.
pub const INPUT_CHARACTERS: usize = 4_000;

/// Fields that a whole preview (an edit's diff, a plan) already shows.
const SHOWN_BY_A_PREVIEW: &[&str] = &["content", "old_string", "new_string", "edits", "plan"];

/// The input lines under a prompt, and whether they (with the summary and preview) show all of
/// it.
pub struct InputBlock {
    pub lines: Vec<String>,
    pub whole: bool,
}

/// The input of `prompt` as `list` shows it under the prompt's row.
pub fn input_block(prompt: &Prompt, summary_width: usize, preview_lines: usize) -> InputBlock {
    let content = &prompt.prompt;
    if prompt.cut.is_some() {
        return InputBlock {
            lines: Vec::new(),
            whole: false,
        };
    }
    if content.kind == PromptKind::Question {
        return InputBlock {
            lines: Vec::new(),
            whole: true,
        };
    }
    let preview_whole = content.extra.preview.as_ref().is_some_and(|preview| {
        preview.incomplete.is_none() && preview.text.lines().count() <= preview_lines
    });
    let preview_short = content
        .extra
        .preview
        .as_ref()
        .is_none_or(|preview| preview.text.lines().count() <= preview_lines);
    if summary_shows_whole(&content.input, &content.summary, summary_width) {
        return InputBlock {
            lines: Vec::new(),
            whole: preview_short,
        };
    }
    let mut writer = BoundedLines::default();
    match &content.input {
        Value::Object(fields) => {
            for (name, value) in fields {
                if preview_whole && SHOWN_BY_A_PREVIEW.contains(&name.as_str()) {
                    continue;
                }
                writer.field(name, value);
            }
        }
        other => writer.field("input", other),
    }
    InputBlock {
        whole: !writer.cut && preview_short,
        lines: writer.lines,
    }
}

/// Whether the summary alone shows what will run: a lone `command` (with at most its
/// `description`, which does not run) that is the summary, on one line that fits.
fn summary_shows_whole(input: &Value, summary: &str, summary_width: usize) -> bool {
    let Value::Object(fields) = input else {
        return false;
    };
    let only_command = fields
        .keys()
        .all(|name| name == "command" || name == "description");
    let command = fields.get("command").and_then(Value::as_str);
    only_command
        && command == Some(summary)
        && visible(summary).chars().count() <= summary_width
        && !summary.contains('\n')
}

/// Lines written up to [`INPUT_LINES`] and [`INPUT_CHARACTERS`]; past them, `cut` is set.
#[derive(Default)]
struct BoundedLines {
    lines: Vec<String>,
    characters: usize,
    cut: bool,
}

impl BoundedLines {
    fn push(&mut self, line: String) {
        let length = line.chars().count();
        if self.cut
            || self.lines.len() >= INPUT_LINES
            || self.characters + length > INPUT_CHARACTERS
        {
            self.cut = true;
            return;
        }
        self.characters += length;
        self.lines.push(line);
    }

    fn field(&mut self, name: &str, value: &Value) {
        for line in field_lines(name, value) {
            self.push(line);
        }
    }
}

/// The lines of one input field: `name: value` when it is one line of text or JSON; else
/// `name: (N lines)` and each line of the value beneath it after a `|`, so that blank lines and
/// where each line starts show. A newline that ends the text ends its last line and is not a
/// line of its own (`a\nb\n` is 2 lines). Every line is made visible.
pub fn field_lines(name: &str, value: &Value) -> Vec<String> {
    let name = visible(name);
    let text = match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    let ends_with_newline = text.ends_with('\n');
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let lines: Vec<&str> = body.split('\n').collect();
    if lines.len() == 1 && !ends_with_newline {
        return vec![format!("{name}: {}", visible(&text))];
    }
    let mut out = vec![format!("{name}: ({})", count_of_lines(lines.len()))];
    out.extend(lines.iter().map(|line| format!("  | {}", visible(line))));
    out
}

/// `1 line`, `8 lines`.
pub fn count_of_lines(count: usize) -> String {
    if count == 1 {
        "1 line".into()
    } else {
        format!("{count} lines")
    }
}
