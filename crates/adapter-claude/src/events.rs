//! Claude Code's hook events, as its command hooks receive them on stdin, and what each means
//! for gatehouse: a PermissionRequest is a prompt to hold; PostToolUse, Stop and SessionEnd are
//! observations that settle prompts answered in the terminal; everything else is ignored.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, HookEvent, NewPrompt, ParseError, PromptKind, TerminalLocation};
use gatehouse_harness::events::{ClaudeShapePayload, Settling};
use serde_json::Value;

use crate::on_disk::FileOnDisk;
use crate::{preview, questions, suggestions, ADAPTER_ID};

/// The longest summary kept, in characters.
const SUMMARY_CHARS: usize = 300;

/// What the hook knows beyond its stdin, handed in so that parsing stays pure: where Claude Code
/// runs, and a reader for the file an edit changes (bounded: see [`crate::on_disk`]).
pub struct Surroundings<'a> {
    pub terminal: Option<TerminalLocation>,
    pub read_file: &'a dyn Fn(&str) -> FileOnDisk,
}

impl Surroundings<'_> {
    /// Nothing known: no terminal, no file on disk.
    pub fn none() -> Surroundings<'static> {
        Surroundings {
            terminal: None,
            read_file: &|_| FileOnDisk::Absent,
        }
    }
}

/// Reads one hook event, knowing nothing beyond it.
pub fn parse(stdin: &[u8]) -> Result<HookEvent, ParseError> {
    parse_in(stdin, &Surroundings::none())
}

/// Reads one hook event in `surroundings`.
pub fn parse_in(stdin: &[u8], surroundings: &Surroundings<'_>) -> Result<HookEvent, ParseError> {
    // Straight into the fields read, with no copy as a whole `Value` first: the event may be
    // as large as the hook's stdin, and the fields not read are skipped without being kept.
    let mut event: ClaudeShapePayload =
        serde_json::from_slice(stdin).map_err(|error| match error.classify() {
            serde_json::error::Category::Data => ParseError::NotAnEvent(error.to_string()),
            _ => ParseError::NotJson(error.to_string()),
        })?;
    if event.hook_event_name != "PermissionRequest" {
        return SETTLING.observe(event);
    }
    // Taken, not copied: the input may be as large as the hook's stdin.
    let (tool, input) = event.take_tool_call()?;
    let prompt = prompt(&event, tool, input, surroundings);
    Ok(HookEvent::Prompt {
        prompt,
        hold: HoldMode::UntilOutcome,
    })
}

/// PostToolUse, Stop and SessionEnd settle prompts answered in the terminal.
const SETTLING: Settling = Settling::claude_code(ADAPTER_ID, correlation);

fn prompt(
    event: &ClaudeShapePayload,
    tool: String,
    input: Value,
    surroundings: &Surroundings<'_>,
) -> NewPrompt {
    let on_disk = preview::edited_file(&tool, &input)
        .map_or(FileOnDisk::Absent, |path| (surroundings.read_file)(&path));
    let extra = gatehouse_core::PromptExtra {
        preview: preview::preview(&tool, &input, &event.cwd, &on_disk),
        suggestions: suggestions::from_event(event.permission_suggestions.as_ref()),
        terminal: surroundings.terminal.clone(),
    };
    let mut prompt = NewPrompt {
        adapter: ADAPTER_ID.into(),
        session: event.session_id.clone(),
        cwd: event.cwd.clone(),
        kind: PromptKind::Permission,
        summary: summary(&tool, &input),
        correlation: correlation(&tool, &input),
        tool,
        input,
        questions: Vec::new(),
        read_only_reason: None,
        host: String::new(),
        extra,
    };
    match prompt.tool.as_str() {
        "AskUserQuestion" => {
            prompt.kind = PromptKind::Question;
            match questions::from_input(&prompt.input) {
                Ok(questions) => prompt.questions = questions,
                Err(reason) => prompt.read_only_reason = Some(reason),
            }
        }
        "ExitPlanMode" => prompt.kind = PromptKind::Plan,
        _ => {}
    }
    prompt
}

/// One line for people: the command, the file, the address, the question, or the input, with
/// control and invisible characters shown as escapes (`gatehouse_core::text::one_line`).
fn summary(tool: &str, input: &Value) -> String {
    // Borrowed, not copied: a field may be as large as the hook's stdin.
    let field = |name: &str| {
        input
            .get(name)
            .and_then(Value::as_str)
            .map(std::borrow::Cow::Borrowed)
    };
    let text = match tool {
        "Bash" => field("command"),
        "Write" | "Edit" | "MultiEdit" | "Read" | "NotebookEdit" => {
            field("file_path").or_else(|| field("notebook_path"))
        }
        "WebFetch" => field("url"),
        "WebSearch" => field("query"),
        "ExitPlanMode" => field("plan"),
        "AskUserQuestion" => input
            .get("questions")
            .and_then(Value::as_array)
            .map(|questions| {
                questions
                    .iter()
                    .filter_map(|question| question.get("question").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(" / ")
                    .into()
            }),
        _ => None,
    }
    .unwrap_or_else(|| json_start(input, SUMMARY_CHARS * 4).into());
    gatehouse_core::text::one_line(&text, SUMMARY_CHARS)
}

/// The first `max_bytes` (or a little less) of `value` as JSON, without writing the rest: the
/// input may be as large as the hook's stdin, and the summary keeps a few hundred characters.
fn json_start(value: &Value, max_bytes: usize) -> String {
    struct Bounded {
        bytes: Vec<u8>,
        max_bytes: usize,
    }
    impl std::io::Write for Bounded {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let room = self.max_bytes - self.bytes.len();
            if room == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            let taken = bytes.len().min(room);
            self.bytes.extend_from_slice(&bytes[..taken]);
            Ok(taken)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Bounded {
        bytes: Vec::new(),
        max_bytes,
    };
    // Stops with an error once full; what was written is the start wanted.
    let _ = serde_json::to_writer(&mut out, value);
    // A cut may split a character at the end; it becomes U+FFFD, past the summary's length.
    String::from_utf8_lossy(&out.bytes).into_owned()
}

/// The key that recognises the same tool call across events: PermissionRequest carries no
/// `tool_use_id`, so it is a digest of the tool and its input. For AskUserQuestion only the
/// questions count, since PostToolUse adds the answers to the input. For ExitPlanMode only the
/// tool counts: Claude Code fills the PermissionRequest's input from the plan file (the model's
/// own input is dropped, often `{}`), so a PostToolUse need not carry the same input, and a
/// session shows one plan dialog at a time; its PostToolUse means the plan was approved in
/// Claude Code's terminal (a rejected plan runs no tool, and the turn's end settles it).
pub fn correlation(tool: &str, input: &Value) -> String {
    let relevant = match (tool, input.get("questions")) {
        ("AskUserQuestion", Some(questions)) => questions,
        ("ExitPlanMode", _) => &Value::Null,
        _ => input,
    };
    correlation_key(tool, relevant)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod properties;
