//! The lines under a prompt in `list` and `watch` for what its adapter added: where the agent
//! runs, the agent's own suggestions that `always` picks from, and the preview (an edit's diff, a
//! plan). All of it is agent text, made visible line by line.

use std::fmt::Write;

use gatehouse_core::text::visible;
use gatehouse_core::{AlwaysScope, PreviewFormat, PromptExtra};

/// The most preview lines shown under a prompt; `list --json` has them all.
pub const PREVIEW_LINES: usize = 40;

/// Appends the lines for `extra` to `out`, indented under the prompt.
pub fn lines(out: &mut String, extra: &PromptExtra) {
    if let Some(terminal) = &extra.terminal {
        let _ = writeln!(out, "    terminal: {}", visible(&terminal.describe()));
    }
    for suggestion in &extra.suggestions {
        let scopes = if suggestion.scopes.is_empty() {
            "session, project or user".to_owned()
        } else {
            super::joined_names(&suggestion.scopes, AlwaysScope::as_str, ", ")
        };
        let _ = writeln!(
            out,
            "    always {}: {} ({scopes})",
            visible(&suggestion.id),
            visible(&suggestion.describe())
        );
    }
    if let Some(preview) = &extra.preview {
        let what = match preview.format {
            PreviewFormat::Diff => "diff",
            PreviewFormat::Markdown => "plan",
            PreviewFormat::Text => "content",
        };
        let title = match preview.format {
            PreviewFormat::Markdown => super::plan_title(&preview.text),
            PreviewFormat::Diff | PreviewFormat::Text => visible(&preview.title).into_owned(),
        };
        let _ = writeln!(out, "    {what}: {title}");
        if let Some(reason) = &preview.incomplete {
            let _ = writeln!(out, "    (incomplete: {})", visible(reason));
        }
        let all: Vec<&str> = preview.text.lines().collect();
        for line in all.iter().take(PREVIEW_LINES) {
            let _ = writeln!(out, "      {}", visible(line));
        }
        if all.len() > PREVIEW_LINES {
            let _ = writeln!(
                out,
                "      … {} more lines (`gatehouse show ID` has them all)",
                all.len() - PREVIEW_LINES
            );
        }
    }
}
