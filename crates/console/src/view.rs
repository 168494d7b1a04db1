//! Drawing the console with ratatui: a header with the connection's health, the list of pending
//! prompts (`list.rs`), a detail pane with everything the selected prompt says (its questions in
//! `questions.rs`), the keys that apply and a notice line (`bar.rs`). Reads the state; changes
//! nothing.
//!
//! Every text that came from an agent, the gateway or a key goes through `gatehouse_core::text`
//! before it reaches the screen, so control, bidirectional and zero-width characters show as
//! escapes (`\e`, `\r`, `\u{202e}`) rather than acting on the terminal or vanishing.

use std::time::Instant;

use gatehouse_core::text::{visible, visible_lines};
use gatehouse_core::{Prompt, PromptKind, Timestamp};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::state::{always_scope, scope_words, ConnectionState, ConsoleState, Mode, Selection};
use crate::output;
use detail_pane::AnswerFocus;

pub fn render(frame: &mut Frame, state: &ConsoleState, wall_now: Timestamp, now: Instant) {
    let rows = state.rows();
    let area = frame.area();
    // The header wraps (up to three lines) rather than cut the gateway's advice.
    let header = Paragraph::new(header_line(state, now)).wrap(Wrap { trim: false });
    let header_height = (header.line_count(area.width) as u16).clamp(1, 3);
    let list_height = (rows.len() as u16 + 3).clamp(4, (area.height * 2 / 5).max(4));
    let [header_area, list_area, detail_area, keys_area, notice_area] = Layout::vertical([
        Constraint::Length(header_height),
        Constraint::Length(list_height),
        Constraint::Min(3),
        Constraint::Length(2),
        Constraint::Length(2),
    ])
    .areas(area);
    frame.render_widget(header, header_area);
    list::render(frame, state, &rows, wall_now, list_area);
    detail_pane::render(frame, state, wall_now, detail_area);
    frame.render_widget(
        Paragraph::new(key_lines(&key_hints(state, now), keys_area.width))
            .style(Style::default().add_modifier(Modifier::BOLD)),
        keys_area,
    );
    frame.render_widget(
        Paragraph::new(notice_line(state)).wrap(Wrap { trim: false }),
        notice_area,
    );
}

fn header_line(state: &ConsoleState, now: Instant) -> Line<'static> {
    let title = Span::styled(
        " gatehouse console ",
        Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED),
    );
    let health = match &state.connection {
        ConnectionState::Connecting => Span::raw(" connecting to the gateway…"),
        ConnectionState::Connected { server } => {
            let count = state.prompts.len();
            Span::raw(format!(
                " connected to {} · {count} pending prompt{}",
                visible(server),
                if count == 1 { "" } else { "s" }
            ))
        }
        ConnectionState::Gone {
            reason,
            retry_at,
            attempt,
        } => {
            let wait = retry_at.saturating_duration_since(now);
            let when = if wait.is_zero() {
                "reconnecting now".to_owned()
            } else {
                format!("reconnecting in {:.1}s", wait.as_secs_f32())
            };
            Span::styled(
                format!(
                    " THE GATEWAY IS GONE: {} · {when} (attempt {attempt})",
                    visible(reason)
                ),
                Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            )
        }
    };
    Line::from(vec![title, health])
}

/// Everything the selected prompt says, in full, in lines of `width`; with the answer form open,
/// where its cursor is. In the order of reading: how it stands (answered, gone, read-only), who
/// asks and where, how long it is held, then at once what it asks (the diff, the input, the
/// questions), and after it the agent's suggestions, its terminal and the hold's words in full.
fn detail_lines(state: &ConsoleState, wall_now: Timestamp, width: usize) -> DetailLines {
    let Some(prompt) = state.selected_prompt() else {
        let lines = empty_detail(state);
        return DetailLines {
            asked: lines.len(),
            lines,
            focus: None,
        };
    };
    let mut lines = Vec::new();
    let pending = matches!(state.selection, Selection::Pending(_));
    match &state.selection {
        Selection::Vanished(vanished) if vanished.has_verdict() => lines.push(Line::styled(
            format!("ANSWERED: {}.", visible(&vanished.reason)),
            Style::default()
                .fg(Color::Green)
                .add_modifier(Modifier::BOLD),
        )),
        Selection::Vanished(vanished) => lines.push(Line::styled(
            format!(
                "GONE: {}. Nothing will be sent for this prompt.",
                visible(&vanished.reason)
            ),
            Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
        )),
        // Why comes after what it asks, so that the command stays right under who asks.
        _ if prompt.is_read_only() => lines.push(Line::styled(
            "READ-ONLY: answer it in the agent's terminal.",
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        )),
        _ => {}
    }
    let agent = state
        .adapter(&prompt.prompt.adapter)
        .map_or(visible(&prompt.prompt.adapter).into_owned(), |adapter| {
            format!("{} ({})", visible(&adapter.name), visible(&adapter.adapter))
        });
    let session: String = prompt.prompt.session.chars().take(8).collect();
    let from = output::remote_host(prompt)
        .map(|host| format!(" · from {host}"))
        .unwrap_or_default();
    lines.push(Line::raw(format!(
        "{agent}{from} · session {} · {}",
        visible(&session),
        visible(&prompt.prompt.cwd)
    )));
    // An ended prompt waits no more: the line above says how it ended.
    let waiting = if pending {
        format!(
            " · waiting {}",
            output::age(wall_now.millis_since(prompt.held_since))
        )
    } else {
        String::new()
    };
    lines.push(Line::raw(format!(
        "{} {}{waiting} · id {}",
        visible(&prompt.prompt.tool),
        prompt.prompt.kind.as_str(),
        output::shown_id(prompt)
    )));
    // Held by its hook: one short line with the time left (the whole words come last), only
    // while it is pending (a gone prompt says how it ended instead).
    let hold = output::short_hold_note(prompt, wall_now).filter(|_| pending);
    if let Some(note) = &hold {
        let urgent = prompt
            .hold_ends_at
            .is_some_and(|ends_at| ends_at.millis_since(wall_now) <= HOLD_URGENT_MILLIS);
        lines.push(Line::styled(
            format!("{note}."),
            Style::default()
                .fg(if urgent { Color::Red } else { Color::Cyan })
                .add_modifier(Modifier::BOLD),
        ));
    }
    // How to approve a cut prompt is advice for a pending one only.
    let cut_note = if pending {
        output::cut_in_words(prompt)
    } else {
        output::cut_shown_in_words(prompt)
    };
    if let Some(note) = cut_note {
        lines.extend(wrap::hanging(
            Span::styled("Cut: ", Style::default().fg(Color::Yellow).bold()),
            &note,
            Style::default().fg(Color::Yellow).bold(),
            5,
            width,
        ));
    }
    lines.push(Line::raw(""));
    if prompt.prompt.kind == PromptKind::Question && !prompt.prompt.questions.is_empty() {
        let form = match &state.mode {
            Mode::Answering(form) if form.id == prompt.id => Some(form),
            _ => None,
        };
        let (questions, focus) = question_lines(prompt, form);
        let offset = lines.len();
        lines.extend(questions);
        let focus = focus.map(|focus| AnswerFocus {
            block: focus.block.start + offset..focus.block.end + offset,
            cursor: focus.cursor.start + offset..focus.cursor.end + offset,
            ..focus
        });
        let asked = lines.len();
        lines.extend(hold_ends_lines(prompt, hold.is_some(), width));
        lines.extend(read_only_lines(state, prompt, pending, width));
        return DetailLines {
            lines,
            focus,
            asked,
        };
    }
    let extra = &prompt.prompt.extra;
    lines.extend(extra::preview_lines(extra, width));
    lines.extend(input_lines(prompt, width));
    // The agent's suggestions are for the A key: an ended prompt offers none.
    let always_scope = extra
        .suggestions
        .first()
        .map(|first| scope_words(always_scope(first)))
        .filter(|_| pending);
    let context = extra::context_lines(extra, always_scope, &output::shown_id(prompt), width);
    if !context.is_empty() {
        lines.push(Line::raw(""));
        lines.extend(context);
    }
    let asked = lines.len();
    lines.extend(hold_ends_lines(prompt, hold.is_some(), width));
    lines.extend(read_only_lines(state, prompt, pending, width));
    DetailLines {
        lines,
        focus: None,
        asked,
    }
}

/// The detail of the selected prompt, as [`detail_lines`] writes it.
struct DetailLines {
    lines: Vec<Line<'static>>,
    /// With the answer form open, where its cursor is.
    focus: Option<AnswerFocus>,
    /// How many of `lines` say what the prompt asks and what an answer would allow; those after
    /// them are gatehouse's own closing words (what happens when the hold ends, why it is
    /// read-only), which need not have been on screen for an approval.
    asked: usize,
}

/// Why a pending prompt is read-only, at the end of its detail (its first line says that it is
/// and where to answer it, so the gateway's closing "answer it in the terminal" is not repeated).
fn read_only_lines(
    state: &ConsoleState,
    prompt: &Prompt,
    pending: bool,
    width: usize,
) -> Vec<Line<'static>> {
    if !pending || !prompt.is_read_only() {
        return Vec::new();
    }
    let reason = state.read_only_reason(prompt);
    let mut lines = vec![Line::raw("")];
    lines.extend(wrap::hanging(
        Span::raw("Why read-only: "),
        &format!("{}.", visible(&reason)),
        Style::default(),
        2,
        width,
    ));
    lines
}

/// A hold that ends this close is drawn in red.
const HOLD_URGENT_MILLIS: u64 = 20_000;

/// The gateway's whole words for what happens when the hold ends, at the end of the detail (the
/// short line at its top has only their start); nothing when no hold is shown.
fn hold_ends_lines(prompt: &Prompt, held: bool, width: usize) -> Vec<Line<'static>> {
    if !held {
        return Vec::new();
    }
    let after = output::after_hold(prompt);
    let after = after.strip_prefix("then ").unwrap_or(&after);
    let mut lines = vec![Line::raw("")];
    lines.extend(wrap::hanging(
        Span::raw("When the hold ends: "),
        &format!("{after}."),
        Style::default(),
        2,
        width,
    ));
    lines
}

fn empty_detail(state: &ConsoleState) -> Vec<Line<'static>> {
    match state.connection {
        ConnectionState::Gone { .. } => vec![
            Line::raw(
                "The gateway is not running or cannot be reached. Start it with `gatehouse serve`;",
            ),
            Line::raw("the console reconnects on its own and shows what is pending then."),
        ],
        ConnectionState::Connecting => vec![Line::raw("Connecting to the gateway…")],
        ConnectionState::Connected { .. } => {
            vec![Line::raw(
                "No pending prompts. Prompts from every agent appear here as they ask.",
            )]
        }
    }
}

/// The tool's input, every field in full: text fields as text, others as JSON, each field's
/// continuation lines under its text. (JSON escapes C0 controls in strings, but not DEL, C1 or
/// bidirectional characters, so it is made visible too.)
fn input_lines(prompt: &Prompt, width: usize) -> Vec<Line<'static>> {
    let Some(fields) = prompt.prompt.input.as_object() else {
        let json = serde_json::to_string_pretty(&prompt.prompt.input).unwrap_or_default();
        return visible_lines(&json)
            .flat_map(|line| wrap::hanging(Span::raw(""), &line, Style::default(), 2, width))
            .collect();
    };
    let mut lines = Vec::new();
    for (name, value) in fields {
        let name = visible(name);
        let label = format!("{name}: ");
        let indent = Span::raw(label.as_str()).width();
        match value.as_str() {
            Some(text) if !text.contains('\n') => lines.extend(wrap::hanging(
                Span::raw(label).bold(),
                &visible(text),
                Style::default(),
                indent,
                width,
            )),
            Some(text) => {
                lines.push(Line::raw(format!("{name}:")).bold());
                for line in visible_lines(text) {
                    lines.extend(wrap::hanging(
                        Span::raw("  "),
                        &line,
                        Style::default(),
                        extra::CONTINUATION_INDENT,
                        width,
                    ));
                }
            }
            None => lines.extend(wrap::hanging(
                Span::raw(label).bold(),
                &visible(&value.to_string()),
                Style::default(),
                indent,
                width,
            )),
        }
    }
    lines
}

mod bar;
mod detail_pane;
mod extra;
mod list;
mod questions;
mod wrap;

pub use bar::key_hints;
use bar::{key_lines, notice_line};
use questions::question_lines;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod paging_tests;

#[cfg(test)]
mod layout_tests;
