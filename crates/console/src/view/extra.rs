//! The detail pane's lines for what an adapter added to a prompt: the preview (a diff in colour,
//! a plan, a new file's content), the agent's own suggestions that `always` picks from, and where
//! the agent runs. Agent text, made visible line by line.

use gatehouse_core::text::visible;
use gatehouse_core::{AlwaysScope, PreviewFormat, PromptExtra};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::wrap::hanging;
use crate::state::always_scope as always_scope_of;

/// How far the continuation of a wrapped line of a multi-line text is indented: deeper than the
/// text's own lines (at two), so that a wrap never reads as a line of its own.
pub const CONTINUATION_INDENT: usize = 4;

/// The preview of what a prompt changes (a diff in colour, a plan, a new file's content), first
/// of the detail with the input, each line's continuation indented under its text.
pub fn preview_lines(extra: &PromptExtra, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let Some(preview) = &extra.preview else {
        return lines;
    };
    lines.push(Line::raw(format!("{}:", visible(&preview.title))));
    if let Some(reason) = &preview.incomplete {
        lines.push(Line::styled(
            format!("  (incomplete: {})", visible(reason)),
            Style::default().fg(Color::Yellow),
        ));
    }
    for line in preview.text.lines() {
        let style = match (preview.format, line.chars().next()) {
            (PreviewFormat::Diff, Some('+')) if !line.starts_with("+++") => {
                Style::default().fg(Color::Green)
            }
            (PreviewFormat::Diff, Some('-')) if !line.starts_with("---") => {
                Style::default().fg(Color::Red)
            }
            (PreviewFormat::Diff, Some('@')) => Style::default().fg(Color::Cyan),
            _ => Style::default(),
        };
        lines.extend(hanging(
            Span::styled("  ", style),
            &visible(line),
            style,
            CONTINUATION_INDENT,
            width,
        ));
    }
    lines.push(Line::raw(""));
    lines
}

/// Where the agent runs and the agent's own suggestions that `always` picks from, after what
/// the prompt asks. `always_scope` says for how long `A` keeps the first one; without it (an
/// ended prompt) the suggestions are not shown. The others are named by the command that keeps
/// them, with `shown_id` for the prompt.
pub fn context_lines(
    extra: &PromptExtra,
    always_scope: Option<&str>,
    shown_id: &str,
    width: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let (Some(first), Some(always_scope)) = (extra.suggestions.first(), always_scope) {
        lines.extend(hanging(
            Span::raw(format!("Always (A, {always_scope}): ")),
            &visible(&first.describe()),
            Style::default(),
            2,
            width,
        ));
        for other in &extra.suggestions[1..] {
            // The other suggestions' ids are handles for the command line: said as the command.
            lines.extend(hanging(
                Span::raw("  also suggested: "),
                &format!(
                    "{} (`gatehouse answer {shown_id} always --suggestion {}{}`)",
                    visible(&other.describe()),
                    visible(&other.id),
                    match always_scope_of(other) {
                        AlwaysScope::Session => String::new(),
                        scope => format!(" --scope {}", scope.as_str()),
                    }
                ),
                Style::default(),
                CONTINUATION_INDENT,
                width,
            ));
        }
    }
    if let Some(terminal) = &extra.terminal {
        lines.push(Line::raw(format!(
            "Terminal: {}",
            visible(&terminal.describe())
        )));
    }
    lines
}
