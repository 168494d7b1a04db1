//! The detail pane's lines for what an adapter added to a prompt: where the agent runs, the
//! agent's own suggestions that `always` picks from, and the preview (a diff in colour, a plan,
//! a new file's content). Agent text, made visible line by line.

use gatehouse_core::text::visible;
use gatehouse_core::{PreviewFormat, PromptExtra};
use ratatui::style::{Color, Style};
use ratatui::text::Line;

pub fn lines(extra: &PromptExtra) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(terminal) = &extra.terminal {
        lines.push(Line::raw(format!(
            "Terminal: {}",
            visible(&terminal.describe())
        )));
    }
    if let Some(first) = extra.suggestions.first() {
        lines.push(Line::raw(format!(
            "Always (A, for this session): {}",
            visible(&first.describe())
        )));
        for other in &extra.suggestions[1..] {
            lines.push(Line::raw(format!(
                "  also suggested ({}): {}",
                visible(&other.id),
                visible(&other.describe())
            )));
        }
    }
    if let Some(preview) = &extra.preview {
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
            lines.push(Line::styled(format!("  {}", visible(line)), style));
        }
    }
    if !lines.is_empty() {
        lines.push(Line::raw(""));
    }
    lines
}
