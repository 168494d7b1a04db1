//! Codex's file changes: the patch its `apply_patch` tool takes (the whole patch is the
//! PermissionRequest's `tool_input.command`), read into what it does to each file and shown as
//! the core's [`Preview`], a unified diff that every front end already draws (`list`, the
//! console, the web page's `[data-diff]`).
//!
//! The format, as Codex 0.171.0 describes it to the model (its lark grammar):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: PATH        then one or more `+line`
//! *** Delete File: PATH
//! *** Update File: PATH     then optionally `*** Move to: PATH`, then `@@`/`@@ text` headers and
//!                           `+line`, `-line`, ` line`, optionally ending with `*** End of File`
//! *** End Patch
//! ```
//!
//! Read strictly by that grammar: a patch with anything else in it is shown whole as the raw text
//! Codex sent, with the line gatehouse could not read named, rather than as a diff that leaves
//! something out. Paths are shown as written; a path that is absolute, or that climbs out with
//! `..`, and lands outside the session's folder is named in gatehouse's own words (the title and
//! the summary). The text is model written: front ends make every line visible (escapes,
//! bidirectional and zero-width characters), and the preview is bounded like Claude Code's
//! ([`MAX_PREVIEW_CHARS`]); `gatehouse show ID` prints the whole patch.

use std::path::{Component, Path, PathBuf};

use gatehouse_core::{Preview, PreviewFormat};

/// The longest preview text kept, in characters, as for Claude Code's edits.
pub const MAX_PREVIEW_CHARS: usize = 64 * 1024;

/// The most lines of a patch that are read into files; a longer patch (a hook may get 12 MiB of
/// `+`) is shown as raw text, cut at [`MAX_PREVIEW_CHARS`], so that reading it stays small.
pub const MAX_PATCH_LINES: usize = 200_000;

/// The most files the one-line summary names; the preview shows every file (within its bound).
pub const MAX_SUMMARY_FILES: usize = 10;

/// What an answer to a patch prompt does, in gatehouse's words, shown with every patch: after
/// "Yes, and don't ask again for these files" Codex still runs the hook for those files but
/// applies the patch without asking when the hook gives no verdict.
pub const WHAT_AN_ANSWER_DOES: &str = "once applies it now and deny blocks it, also where Codex would have applied it without asking (after \"don't ask again for these files\" in this session)";

/// What one part of a patch does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// A new file with these lines.
    Add { path: String, lines: Vec<String> },
    /// The file is deleted (its content is not in the patch).
    Delete { path: String },
    /// The file is changed, and perhaps moved.
    Update {
        path: String,
        move_to: Option<String>,
        changes: Vec<ChangeLine>,
    },
}

/// One line of an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeLine {
    /// `@@` or `@@ text`: where the next lines apply, verbatim.
    Header(String),
    /// `+line`, `-line` or ` line`, verbatim.
    Line(String),
    /// `*** End of File`: the lines before it end the file.
    EndOfFile,
}

/// The line of a patch that gatehouse could not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line_number}: {why}")]
pub struct NotUnderstood {
    /// Counted from 1.
    pub line_number: usize,
    pub why: &'static str,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// Reads a patch by Codex's grammar; a final newline is optional (Codex's PermissionRequest
/// drops it).
pub fn parse(text: &str) -> Result<Vec<FileChange>, NotUnderstood> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.bytes().filter(|byte| *byte == b'\n').count() >= MAX_PATCH_LINES {
        return Err(NotUnderstood {
            line_number: MAX_PATCH_LINES + 1,
            why: "the patch is longer than gatehouse reads (200,000 lines)",
        });
    }
    let lines: Vec<&str> = body.split('\n').collect();
    let fail = |index: usize, why: &'static str| NotUnderstood {
        line_number: index + 1,
        why,
    };
    if lines.first() != Some(&BEGIN) {
        return Err(fail(0, "a patch starts with `*** Begin Patch`"));
    }
    let last = lines.len() - 1;
    if last == 0 || lines[last] != END {
        return Err(fail(last, "a patch ends with `*** End Patch`"));
    }
    let mut changes = Vec::new();
    let mut index = 1;
    while index < last {
        let line = lines[index];
        if let Some(path) = line.strip_prefix(ADD) {
            let path = file_name(path).ok_or_else(|| fail(index, "a file name is empty"))?;
            index += 1;
            let mut added = Vec::new();
            while index < last && lines[index].starts_with('+') {
                added.push(lines[index][1..].to_owned());
                index += 1;
            }
            if added.is_empty() {
                return Err(fail(index, "an added file has no `+` line"));
            }
            changes.push(FileChange::Add { path, lines: added });
        } else if let Some(path) = line.strip_prefix(DELETE) {
            let path = file_name(path).ok_or_else(|| fail(index, "a file name is empty"))?;
            changes.push(FileChange::Delete { path });
            index += 1;
        } else if let Some(path) = line.strip_prefix(UPDATE) {
            let path = file_name(path).ok_or_else(|| fail(index, "a file name is empty"))?;
            index += 1;
            let mut move_to = None;
            if let Some(to) = lines[index].strip_prefix(MOVE) {
                move_to = Some(file_name(to).ok_or_else(|| fail(index, "a file name is empty"))?);
                index += 1;
            }
            let mut update = Vec::new();
            while index < last {
                let line = lines[index];
                if line == "@@" || line.starts_with("@@ ") {
                    update.push(ChangeLine::Header(line.to_owned()));
                } else if line.starts_with(['+', '-', ' ']) {
                    update.push(ChangeLine::Line(line.to_owned()));
                } else if line == END_OF_FILE {
                    update.push(ChangeLine::EndOfFile);
                    index += 1;
                    break;
                } else {
                    break;
                }
                index += 1;
            }
            changes.push(FileChange::Update {
                path,
                move_to,
                changes: update,
            });
        } else {
            return Err(fail(
                index,
                "expected `*** Add File: `, `*** Delete File: `, `*** Update File: ` or `*** End Patch`",
            ));
        }
    }
    if changes.is_empty() {
        return Err(fail(last, "a patch changes at least one file"));
    }
    Ok(changes)
}

fn file_name(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

/// A patch as people see it: the one-line summary, and the preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchView {
    pub summary: String,
    pub preview: Preview,
    /// The paths (as written) that land outside the session's folder.
    pub outside: Vec<String>,
}

/// The summary and preview of `patch`, for a session in `cwd`.
pub fn view(patch: &str, cwd: &str) -> PatchView {
    match parse(patch) {
        Ok(changes) => parsed_view(&changes, cwd),
        Err(problem) => raw_view(patch, &problem),
    }
}

fn parsed_view(changes: &[FileChange], cwd: &str) -> PatchView {
    let mut outside = Vec::new();
    let mut seen_outside = std::collections::HashSet::new();
    let mut words = Vec::new();
    let mut text = BoundedText::default();
    for change in changes {
        for path in touched(change) {
            if lands_outside(path, cwd) && seen_outside.insert(path.as_str()) {
                outside.push(path.clone());
            }
        }
        words.push(describe(change));
        diff_of(change, &mut text);
    }
    let files = changes.len();
    let count = |n: usize| {
        if n == 1 {
            "1 file".to_owned()
        } else {
            format!("{n} files")
        }
    };
    let mut summary = format!(
        "apply_patch: {}",
        words
            .iter()
            .take(MAX_SUMMARY_FILES)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    if files > MAX_SUMMARY_FILES {
        let more = files - MAX_SUMMARY_FILES;
        summary.push_str(&format!(
            " and {more} more file{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    let outside_words = outside_words(&outside, cwd);
    if let Some(words) = &outside_words {
        summary.push_str(&format!("; {words}"));
    }
    let mut title = format!("Codex patch: {}", count(files));
    if let Some(words) = &outside_words {
        title.push_str(&format!("; {words}"));
    }
    title.push_str(&format!("; {WHAT_AN_ANSWER_DOES}"));
    PatchView {
        summary,
        preview: Preview {
            format: PreviewFormat::Diff,
            title,
            incomplete: text.incomplete(),
            text: text.text,
        },
        outside,
    }
}

fn raw_view(patch: &str, problem: &NotUnderstood) -> PatchView {
    let mut text = BoundedText::default();
    for line in patch.strip_suffix('\n').unwrap_or(patch).split('\n') {
        text.push(line);
    }
    let title = format!(
        "Codex patch, shown whole as Codex sent it: gatehouse could not read it ({problem}), so which files it changes is not known; {WHAT_AN_ANSWER_DOES}"
    );
    PatchView {
        summary: format!("apply_patch: a patch gatehouse could not read ({problem}); which files it changes is not known"),
        preview: Preview {
            format: PreviewFormat::Text,
            title,
            incomplete: text.incomplete(),
            text: text.text,
        },
        outside: Vec::new(),
    }
}

fn touched(change: &FileChange) -> Vec<&String> {
    match change {
        FileChange::Add { path, .. } | FileChange::Delete { path } => vec![path],
        FileChange::Update { path, move_to, .. } => {
            let mut paths = vec![path];
            paths.extend(move_to);
            paths
        }
    }
}

fn describe(change: &FileChange) -> String {
    match change {
        FileChange::Add { path, .. } => format!("add {path}"),
        FileChange::Delete { path } => format!("delete {path}"),
        FileChange::Update {
            path,
            move_to: Some(to),
            ..
        } => format!("update {path} and move it to {to}"),
        FileChange::Update { path, .. } => format!("update {path}"),
    }
}

fn outside_words(outside: &[String], cwd: &str) -> Option<String> {
    if outside.is_empty() {
        return None;
    }
    let folder = if cwd.is_empty() {
        "the session's folder (not known)".to_owned()
    } else {
        format!("the session's folder {cwd}")
    };
    let mut named = outside
        .iter()
        .take(MAX_SUMMARY_FILES)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if outside.len() > MAX_SUMMARY_FILES {
        named.push_str(&format!(
            " and {} more (`gatehouse show ID` prints the whole patch)",
            outside.len() - MAX_SUMMARY_FILES
        ));
    }
    Some(format!("OUTSIDE {folder}: {named}"))
}

fn diff_of(change: &FileChange, text: &mut BoundedText) {
    match change {
        FileChange::Add { path, lines } => {
            text.push("--- /dev/null");
            text.push(&format!("+++ b/{path}"));
            text.push(&format!("@@ -0,0 +1,{} @@ new file", lines.len()));
            for line in lines {
                text.push(&format!("+{line}"));
            }
        }
        FileChange::Delete { path } => {
            text.push(&format!("--- a/{path}"));
            text.push("+++ /dev/null");
            text.push("@@ the whole file is deleted (its content is not in the patch) @@");
        }
        FileChange::Update {
            path,
            move_to,
            changes,
        } => {
            text.push(&format!("--- a/{path}"));
            text.push(&format!("+++ b/{}", move_to.as_ref().unwrap_or(path)));
            if changes.is_empty() {
                text.push("@@ moved, content unchanged @@");
            } else if !matches!(changes.first(), Some(ChangeLine::Header(_))) {
                text.push("@@");
            }
            for change in changes {
                match change {
                    ChangeLine::Header(line) | ChangeLine::Line(line) => text.push(line),
                    ChangeLine::EndOfFile => text.push("\\ the lines above end the file"),
                }
            }
        }
    }
}

/// Whether `path`, as Codex resolves it in `cwd`, lands outside `cwd` (by its text: `..` and
/// absolute paths; a symbolic link inside the folder is not followed). Unknown `cwd`: outside.
pub fn lands_outside(path: &str, cwd: &str) -> bool {
    if cwd.is_empty() {
        return true;
    }
    let Some(folder) = normalized(Path::new(cwd)) else {
        return true;
    };
    let joined = Path::new(cwd).join(path);
    match normalized(&joined) {
        Some(target) => !target.starts_with(&folder),
        None => true,
    }
}

/// `path` with `.` and `..` worked out by text; `None` for a relative path or one that climbs
/// above the root.
fn normalized(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
            Component::Prefix(_) => return None,
        }
    }
    out.has_root().then_some(out)
}

/// Text of at most [`MAX_PREVIEW_CHARS`] characters, whole lines only, counting what was left out.
#[derive(Default)]
struct BoundedText {
    text: String,
    characters: usize,
    lines_left_out: usize,
}

impl BoundedText {
    fn push(&mut self, line: &str) {
        let length = line.chars().count() + 1;
        if self.lines_left_out > 0 || self.characters + length > MAX_PREVIEW_CHARS {
            self.lines_left_out += 1;
            return;
        }
        self.text.push_str(line);
        self.text.push('\n');
        self.characters += length;
    }

    fn incomplete(&self) -> Option<String> {
        (self.lines_left_out > 0).then(|| {
            format!(
                "the preview is cut at {} KiB: {} more lines are not shown; `gatehouse show ID` prints the whole patch",
                MAX_PREVIEW_CHARS / 1024,
                self.lines_left_out
            )
        })
    }
}

#[cfg(test)]
mod tests;
