//! What an edit or a plan would do, as a [`Preview`] on the prompt: a unified diff for Edit and
//! MultiEdit (of the file on disk when it is small and the edit applies to it, else of the old
//! and new strings), a diff against the file on disk for Write when it exists and is small (else
//! the new content), and the plan's markdown for ExitPlanMode. Paths are shown relative to the
//! session's folder. Pure: the caller reads the file, if any, and passes its text in.

use std::path::Path;

use gatehouse_core::{Preview, PreviewFormat};
use serde_json::Value;
use similar::TextDiff;

/// The largest file on disk that is diffed against, in bytes.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The longest preview text kept, in characters; a longer one is cut with a note.
pub const MAX_PREVIEW_CHARS: usize = 64 * 1024;

/// The file an edit tool names, if any.
pub fn edited_file(tool: &str, input: &Value) -> Option<String> {
    match tool {
        "Write" | "Edit" | "MultiEdit" => input.get("file_path")?.as_str().map(str::to_owned),
        _ => None,
    }
}

/// The preview of a call of `tool` with `input` in `cwd`; `on_disk` is the current text of the
/// file it edits, when it exists, is small and is text.
pub fn preview(tool: &str, input: &Value, cwd: &str, on_disk: Option<&str>) -> Option<Preview> {
    let text = |name: &str| input.get(name).and_then(Value::as_str);
    let shown_path = || relative(text("file_path").unwrap_or_default(), cwd);
    let (format, title, body) = match tool {
        "Write" => {
            let content = text("content")?;
            match on_disk {
                Some(before) => (
                    PreviewFormat::Diff,
                    format!("{} (overwrite)", shown_path()),
                    diff(before, content, &shown_path()),
                ),
                None => (
                    PreviewFormat::Text,
                    format!("{} (new file)", shown_path()),
                    content.to_owned(),
                ),
            }
        }
        "Edit" => {
            let edit = Replacement::from_value(input)?;
            (
                PreviewFormat::Diff,
                format!("{} (edit)", shown_path()),
                edits_diff(&[edit], on_disk, &shown_path()),
            )
        }
        "MultiEdit" => {
            let edits = input
                .get("edits")?
                .as_array()?
                .iter()
                .map(Replacement::from_value)
                .collect::<Option<Vec<_>>>()?;
            (
                PreviewFormat::Diff,
                format!("{} ({} edits)", shown_path(), edits.len()),
                edits_diff(&edits, on_disk, &shown_path()),
            )
        }
        "ExitPlanMode" => (
            PreviewFormat::Markdown,
            "the plan".into(),
            text("plan")?.to_owned(),
        ),
        _ => return None,
    };
    Some(Preview {
        format,
        title,
        text: cut(body),
    })
}

/// One `old_string` → `new_string` replacement.
struct Replacement<'a> {
    old: &'a str,
    new: &'a str,
    all: bool,
}

impl<'a> Replacement<'a> {
    fn from_value(value: &'a Value) -> Option<Self> {
        Some(Replacement {
            old: value.get("old_string")?.as_str()?,
            new: value.get("new_string")?.as_str()?,
            all: value
                .get("replace_all")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// The diff of `edits` applied to the file when each applies; else of the strings alone.
fn edits_diff(edits: &[Replacement<'_>], on_disk: Option<&str>, path: &str) -> String {
    if let Some(before) = on_disk {
        let mut after = before.to_owned();
        let applies = edits.iter().all(|edit| {
            if edit.old.is_empty() || !after.contains(edit.old) {
                return false;
            }
            after = if edit.all {
                after.replace(edit.old, edit.new)
            } else {
                after.replacen(edit.old, edit.new, 1)
            };
            true
        });
        if applies {
            return diff(before, &after, path);
        }
    }
    edits
        .iter()
        .map(|edit| diff(&with_newline(edit.old), &with_newline(edit.new), path))
        .collect::<Vec<_>>()
        .join("")
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}

/// A unified diff with three lines of context, headed `a/PATH` and `b/PATH`.
pub fn diff(before: &str, after: &str, path: &str) -> String {
    TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(false)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// `path` relative to `cwd` when it lies inside it, else as it is.
pub fn relative(path: &str, cwd: &str) -> String {
    if cwd.is_empty() {
        return path.to_owned();
    }
    match Path::new(path).strip_prefix(cwd) {
        Ok(inside) if !inside.as_os_str().is_empty() => inside.display().to_string(),
        _ => path.to_owned(),
    }
}

fn cut(text: String) -> String {
    if text.chars().count() <= MAX_PREVIEW_CHARS {
        return text;
    }
    let kept: String = text.chars().take(MAX_PREVIEW_CHARS).collect();
    format!("{kept}\n… (cut: the rest is longer than {MAX_PREVIEW_CHARS} characters)\n")
}

#[cfg(test)]
mod tests;
