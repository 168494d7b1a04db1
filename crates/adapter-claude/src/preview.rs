//! What an edit or a plan would do, as a [`Preview`] on the prompt: a unified diff for Edit and
//! MultiEdit (of the file on disk when it is small and the edit applies to it, else of the old
//! and new strings), a diff against the file on disk for Write when it exists and is small (else
//! the new content), and the plan's markdown for ExitPlanMode. Paths are shown relative to the
//! session's folder. Pure: the caller reads the file, if any ([`crate::on_disk`]), and passes it in.
//!
//! Bounded, since the input is model written and the hook computes this before it reaches any
//! gateway: the file after the edits is sized before it is built (a `replace_all` of `a` by
//! 4 KB over a file of `a`s would be gigabytes), the edits' work is counted
//! ([`MAX_EDIT_WORK_BYTES`]), each side of a diff is at most [`MAX_DIFF_SIDE_BYTES`] and
//! [`MAX_DIFF_SIDE_LINES`], every diff of one preview shares one deadline ([`DEADLINE`]), and the
//! text kept is at most [`MAX_PREVIEW_CHARS`]. When a bound is hit the preview still comes at
//! once, and [`Preview::incomplete`] says what is missing.

use std::borrow::Cow;
use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_core::{Preview, PreviewFormat};
use serde_json::Value;
use similar::{Algorithm, TextDiff};

use crate::on_disk::FileOnDisk;

/// The longest preview text kept, in characters; a longer one is cut with a note.
pub const MAX_PREVIEW_CHARS: usize = 64 * 1024;

/// The most bytes of one side of a diff (the file before or after, an old or new string).
pub const MAX_DIFF_SIDE_BYTES: usize = 512 * 1024;

/// The most lines of one side of a diff.
pub const MAX_DIFF_SIDE_LINES: usize = 10_000;

/// The most bytes that applying an edit list to the file may scan and build, all edits together.
pub const MAX_EDIT_WORK_BYTES: usize = 16 * 1024 * 1024;

/// How long one preview may take to compute; past it, the diffs are coarse and the remaining
/// edits are left out.
pub const DEADLINE: Duration = Duration::from_millis(200);

/// The longest path shown in a title, in characters (longer than any path a system accepts).
const MAX_TITLE_PATH_CHARS: usize = 4096;

/// The file an edit tool names, if any.
pub fn edited_file(tool: &str, input: &Value) -> Option<String> {
    match tool {
        "Write" | "Edit" | "MultiEdit" => input.get("file_path")?.as_str().map(str::to_owned),
        _ => None,
    }
}

/// The preview of a call of `tool` with `input` in `cwd`, given the file it edits as found on
/// disk, computed within [`DEADLINE`].
pub fn preview(tool: &str, input: &Value, cwd: &str, on_disk: &FileOnDisk) -> Option<Preview> {
    preview_within(tool, input, cwd, on_disk, Instant::now() + DEADLINE)
}

/// [`preview`] with the deadline given.
pub fn preview_within(
    tool: &str,
    input: &Value,
    cwd: &str,
    on_disk: &FileOnDisk,
    deadline: Instant,
) -> Option<Preview> {
    let text = |name: &str| input.get(name).and_then(Value::as_str);
    let path = shown_path(text("file_path").unwrap_or_default(), cwd);
    let mut budget = Budget {
        deadline,
        work_left: MAX_EDIT_WORK_BYTES,
        notes: Vec::new(),
    };
    let (format, title, body): (PreviewFormat, String, Cow<'_, str>) = match tool {
        "Write" => {
            let content = text("content")?;
            match on_disk {
                FileOnDisk::Text(before) => {
                    let (format, body) = overwrite(before, content, &path, &mut budget);
                    (format, format!("{path} (overwrite)"), body)
                }
                FileOnDisk::NotShown(reason) => {
                    budget.note(format!("{reason}, so this is the new content, not a diff"));
                    (
                        PreviewFormat::Text,
                        format!("{path} (overwrite)"),
                        content.into(),
                    )
                }
                FileOnDisk::Absent => (
                    PreviewFormat::Text,
                    format!("{path} (new file)"),
                    content.into(),
                ),
            }
        }
        "Edit" => {
            let edit = Replacement::from_value(input)?;
            let body = edits_diff(&[edit], on_disk, &path, &mut budget);
            (PreviewFormat::Diff, format!("{path} (edit)"), body.into())
        }
        "MultiEdit" => {
            let edits = input
                .get("edits")?
                .as_array()?
                .iter()
                .map(Replacement::from_value)
                .collect::<Option<Vec<_>>>()?;
            let body = edits_diff(&edits, on_disk, &path, &mut budget);
            let title = format!("{path} ({} edits)", edits.len());
            (PreviewFormat::Diff, title, body.into())
        }
        "ExitPlanMode" => (
            PreviewFormat::Markdown,
            "the plan".into(),
            text("plan")?.into(),
        ),
        _ => return None,
    };
    let text = match cut(&body, MAX_PREVIEW_CHARS) {
        Some(kept) => {
            budget.note(format!("cut at {MAX_PREVIEW_CHARS} characters"));
            format!("{kept}\n… (cut: the rest is longer than {MAX_PREVIEW_CHARS} characters)\n")
        }
        None => body.into_owned(),
    };
    Some(Preview {
        format,
        title,
        text,
        incomplete: (!budget.notes.is_empty()).then(|| budget.notes.join("; ")),
    })
}

/// What one preview may still spend, and what it had to leave out.
struct Budget {
    deadline: Instant,
    work_left: usize,
    /// Why the preview is incomplete, in gatehouse's words, each once.
    notes: Vec<String>,
}

impl Budget {
    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Takes `bytes` of work from the budget; false, taking nothing, when that is more than is
    /// left or the deadline has passed.
    fn spend(&mut self, bytes: usize) -> bool {
        if bytes > self.work_left || self.expired() {
            return false;
        }
        self.work_left -= bytes;
        true
    }

    fn expired(&self) -> bool {
        Instant::now() >= self.deadline
    }
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

/// A Write over the file on disk: a diff when both fit a diff's bounds, else the new content.
fn overwrite<'a>(
    before: &str,
    content: &'a str,
    path: &str,
    budget: &mut Budget,
) -> (PreviewFormat, Cow<'a, str>) {
    if bounded_side(before).1 || bounded_side(content).1 {
        budget.note(format!(
            "the file or the new content is longer than {MAX_DIFF_SIDE_LINES} lines or {} KiB, \
             so this is the new content, not a diff",
            MAX_DIFF_SIDE_BYTES / 1024
        ));
        return (PreviewFormat::Text, content.into());
    }
    (
        PreviewFormat::Diff,
        diff(before, content, path, budget).into(),
    )
}

/// The diff of `edits` applied to the file when each applies; else of the strings alone.
fn edits_diff(
    edits: &[Replacement<'_>],
    on_disk: &FileOnDisk,
    path: &str,
    budget: &mut Budget,
) -> String {
    let without_the_file =
        |reason: &str| format!("{reason}, so the edit is shown without the file around it");
    match on_disk {
        FileOnDisk::Text(before) => match apply(before, edits, budget) {
            // A diff of the file cut to its bounds could miss the edit: the strings show it.
            Applied::Text(after) if bounded_side(before).1 || bounded_side(&after).1 => {
                budget.note(without_the_file(&format!(
                    "the file is longer than {MAX_DIFF_SIDE_LINES} lines or {} KiB",
                    MAX_DIFF_SIDE_BYTES / 1024
                )));
            }
            Applied::Text(after) => return diff(before, &after, path, budget),
            Applied::DoesNotApply => {}
            Applied::TooLarge(reason) => budget.note(without_the_file(&reason)),
        },
        FileOnDisk::NotShown(reason) => budget.note(without_the_file(reason)),
        FileOnDisk::Absent => {}
    }
    strings_diff(edits, path, budget)
}

/// The file after a list of edits, or why there is none.
enum Applied {
    Text(String),
    /// An edit's `old_string` is empty or not in the file (Claude Code refuses such an edit).
    DoesNotApply,
    /// Applying it would pass a bound: the reason.
    TooLarge(String),
}

/// Applies `edits` to `before` in order, sizing each result before building it.
fn apply(before: &str, edits: &[Replacement<'_>], budget: &mut Budget) -> Applied {
    let too_much = || {
        Applied::TooLarge(format!(
            "applying the edits would take more than {} MiB of work or {} ms",
            MAX_EDIT_WORK_BYTES / (1024 * 1024),
            DEADLINE.as_millis()
        ))
    };
    let too_large = || {
        Applied::TooLarge(format!(
            "the file after the edits would be larger than {} KiB",
            MAX_DIFF_SIDE_BYTES / 1024
        ))
    };
    let mut after = before.to_owned();
    for edit in edits {
        if edit.old.is_empty() {
            return Applied::DoesNotApply;
        }
        if !budget.spend(after.len() + edit.old.len()) {
            return too_much();
        }
        let count = if edit.all {
            after.matches(edit.old).count()
        } else {
            usize::from(after.contains(edit.old))
        };
        if count == 0 {
            return Applied::DoesNotApply;
        }
        // `count` matches of `old` do not overlap, so they fit in `after`: no underflow.
        let size = count
            .checked_mul(edit.new.len())
            .and_then(|added| (after.len() - count * edit.old.len()).checked_add(added));
        match size {
            Some(size) if size <= MAX_DIFF_SIDE_BYTES => {
                if !budget.spend(size) {
                    return too_much();
                }
            }
            _ => return too_large(),
        }
        after = if edit.all {
            after.replace(edit.old, edit.new)
        } else {
            after.replacen(edit.old, edit.new, 1)
        };
    }
    Applied::Text(after)
}

/// The diff of each edit's old and new strings, one after the other, as far as the budget and
/// the preview's length allow.
fn strings_diff(edits: &[Replacement<'_>], path: &str, budget: &mut Budget) -> String {
    let mut out = String::new();
    for (shown, edit) in edits.iter().enumerate() {
        // The first edit is always shown: its sides are bounded, and past the deadline its
        // diff is coarse but comes at once.
        if shown > 0 && (out.len() > MAX_PREVIEW_CHARS * 4 || budget.expired()) {
            budget.note(format!(
                "only {shown} of the {} edits are shown",
                edits.len()
            ));
            break;
        }
        let old = with_newline(bounded(edit.old, budget));
        let new = with_newline(bounded(edit.new, budget));
        out.push_str(&diff_of_bounded(&old, &new, path, budget));
    }
    out
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}

/// A unified diff with three lines of context, headed `a/PATH` and `b/PATH`, of the sides
/// bounded to [`MAX_DIFF_SIDE_LINES`] and [`MAX_DIFF_SIDE_BYTES`].
fn diff(before: &str, after: &str, path: &str, budget: &mut Budget) -> String {
    let before = bounded(before, budget);
    let after = bounded(after, budget);
    diff_of_bounded(before, after, path, budget)
}

/// [`diff`] of sides already bounded, within the budget's deadline: past it, the diff is
/// coarser (correct, but with more lines changed than need be), and noted as such.
fn diff_of_bounded(before: &str, after: &str, path: &str, budget: &mut Budget) -> String {
    let text_diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(budget.deadline)
        .diff_lines(before, after);
    if budget.expired() {
        budget.note(format!(
            "the diff took longer than {} ms to compute, so it may show more lines changed than are",
            DEADLINE.as_millis()
        ));
    }
    text_diff
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(false)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// `text` up to the diff bounds, noting a cut.
fn bounded<'a>(text: &'a str, budget: &mut Budget) -> &'a str {
    let (kept, was_cut) = bounded_side(text);
    if was_cut {
        budget.note(format!(
            "the diff covers only the first {MAX_DIFF_SIDE_LINES} lines or {} KiB of each side",
            MAX_DIFF_SIDE_BYTES / 1024
        ));
    }
    kept
}

/// The longest prefix of `text` within [`MAX_DIFF_SIDE_BYTES`] (at a character boundary) and
/// [`MAX_DIFF_SIDE_LINES`], and whether that is less than all of it.
fn bounded_side(text: &str) -> (&str, bool) {
    let mut end = text.len().min(MAX_DIFF_SIDE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some((newline, _)) = text[..end].match_indices('\n').nth(MAX_DIFF_SIDE_LINES - 1) {
        end = newline + 1;
    }
    (&text[..end], end < text.len())
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

/// The path for a title: relative to `cwd`, and never longer than a system accepts.
fn shown_path(path: &str, cwd: &str) -> String {
    match cut(path, MAX_TITLE_PATH_CHARS) {
        Some(kept) => format!("{kept}…"),
        None => relative(path, cwd),
    }
}

/// The first `max_chars` characters of `text` when it has more; reads no further than that.
fn cut(text: &str, max_chars: usize) -> Option<&str> {
    let (end, _) = text.char_indices().nth(max_chars)?;
    Some(&text[..end])
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod bounds;
