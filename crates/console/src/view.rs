//! Drawing the console with ratatui: a header with the connection's health, the list of pending
//! prompts, a detail pane with everything the selected prompt says, the keys that apply, and a
//! notice line. Reads the state; changes nothing.
//!
//! Every text that came from an agent, the gateway or a key goes through `gatehouse_core::text`
//! before it reaches the screen, so control, bidirectional and zero-width characters show as
//! escapes (`\e`, `\r`, `\u{202e}`) rather than acting on the terminal or vanishing.

use std::time::Instant;

use gatehouse_core::text::{truncate, visible, visible_lines};
use gatehouse_core::{Action, Prompt, PromptKind, Timestamp};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, HighlightSpacing, Paragraph, Row as TableRow, Table, TableState, Wrap,
};
use ratatui::Frame;

use super::answer_form::AnswerForm;
use super::state::{
    always_scope, scope_words, ConnectionState, ConsoleState, Mode, Row, Selection, Tone,
};
use crate::output;
use detail_pane::AnswerFocus;

/// The widest project folder shown in the list; longer ones keep their end.
const FOLDER_WIDTH: usize = 28;
/// The tool column's width.
const TOOL_WIDTH: usize = 16;
/// The age column's width (`59m`, `23h`).
const AGE_WIDTH: usize = 4;
/// The fewest characters of the summary the list keeps, however narrow the terminal.
const SUMMARY_AT_LEAST: usize = 24;

/// The widest cell of the actions column (`once,deny,always`, `read-only`), at least its
/// header's width.
fn table_rows_can_width(rows: &[Row<'_>]) -> usize {
    rows.iter()
        .map(|row| match row {
            Row::Vanished(_) => 4,
            Row::Pending(prompt) if prompt.is_read_only() => 9,
            Row::Pending(prompt) => prompt
                .actions
                .iter()
                .map(|action| action.as_str().len() + 1)
                .sum::<usize>()
                .saturating_sub(1),
        })
        .max()
        .unwrap_or(0)
        .max(3)
}

/// The most of a summary drawn in the list: more than any screen is wide, and a bound on the
/// work of making a long one visible.
const LIST_SUMMARY_CHARS: usize = 400;

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
    render_list(frame, state, &rows, wall_now, list_area);
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

/// The key hints as lines of `width`, broken only between keys (at ` · `), so that no key is
/// split; when they take two lines, the keys that move and quit keep a line of their own rather
/// than leave one of them alone.
fn key_lines(hints: &str, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width).max(1);
    let pack = |text: &str| {
        let mut lines: Vec<String> = Vec::new();
        for key in text.split(" · ") {
            match lines.last_mut() {
                Some(line) if line.chars().count() + 3 + key.chars().count() <= width => {
                    line.push_str(" · ");
                    line.push_str(key);
                }
                _ => lines.push(key.to_owned()),
            }
        }
        lines
    };
    let mut lines = pack(hints);
    if lines.len() > 1 {
        if let Some(actions) = hints.strip_suffix(&format!(" · {MOVEMENT_KEYS}")) {
            let actions = pack(actions);
            if actions.len() == 1 && MOVEMENT_KEYS.chars().count() <= width {
                lines = vec![actions[0].clone(), MOVEMENT_KEYS.to_owned()];
            }
        }
    }
    lines.into_iter().map(Line::raw).collect()
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

fn render_list(
    frame: &mut Frame,
    state: &ConsoleState,
    rows: &[Row<'_>],
    wall_now: Timestamp,
    area: Rect,
) {
    // `claude@devbox` for prompts from other hosts: as wide as the widest, within reason.
    let agent_width = rows
        .iter()
        .map(|row| output::agent(row.prompt()).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(8, 24);
    // Every column fits a narrow terminal (80 columns): the actions column is as wide as its
    // widest cell, and the folder gives way so that the summary keeps at least SUMMARY_AT_LEAST.
    let can_width = table_rows_can_width(rows);
    let inner = usize::from(area.width.saturating_sub(2 + 2));
    let fixed = agent_width + TOOL_WIDTH + AGE_WIDTH + can_width + 5;
    let folder_width = inner
        .saturating_sub(fixed + SUMMARY_AT_LEAST)
        .clamp(6, FOLDER_WIDTH);
    // What is left for the summary: the other columns and the five spaces between the six.
    let summary_width = inner.saturating_sub(fixed + folder_width);
    let widths = [
        Constraint::Length(agent_width as u16),
        Constraint::Length(folder_width as u16),
        Constraint::Length(TOOL_WIDTH as u16),
        Constraint::Length(AGE_WIDTH as u16),
        Constraint::Length(can_width as u16),
        Constraint::Fill(1),
    ];
    let header = TableRow::new(["AGENT", "FOLDER", "TOOL", "AGE", "CAN", "SUMMARY"])
        .style(Style::default().add_modifier(Modifier::BOLD));
    let table_rows = rows.iter().map(|row| {
        let prompt = row.prompt();
        let can = match row {
            Row::Vanished(vanished) if vanished.has_verdict() => "DONE".to_owned(),
            Row::Vanished(_) => "GONE".to_owned(),
            Row::Pending(prompt) => output::offered_actions(prompt),
        };
        // An ended prompt waits no more: it has no age.
        let age = match row {
            Row::Vanished(_) => String::new(),
            Row::Pending(prompt) => output::age(wall_now.millis_since(prompt.held_since)),
        };
        // Every cell that does not fit its column ends in `…`.
        let cells = vec![
            Cell::from(wrap::fit(&output::agent(prompt), agent_width)),
            Cell::from(keep_end(&visible(&prompt.prompt.cwd), folder_width)),
            Cell::from(wrap::fit(&visible(&prompt.prompt.tool), TOOL_WIDTH)),
            Cell::from(wrap::fit(&age, AGE_WIDTH)),
            Cell::from(can),
            Cell::from(wrap::fit(
                &truncate(&prompt.prompt.summary, LIST_SUMMARY_CHARS),
                summary_width,
            )),
        ];
        let style = match row {
            Row::Vanished(_) => Style::default()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::CROSSED_OUT),
            Row::Pending(prompt) if prompt.is_read_only() => Style::default().fg(Color::Yellow),
            Row::Pending(_) => Style::default(),
        };
        TableRow::new(cells).style(style)
    });

    let title = if rows.is_empty() {
        " Prompts ".to_owned()
    } else {
        format!(" Prompts ({} pending, newest last) ", state.prompts.len())
    };
    let table = Table::new(table_rows, widths)
        .header(header)
        .block(Block::default().borders(Borders::ALL).title(title))
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ")
        .highlight_spacing(HighlightSpacing::Always);
    let mut table_state = TableState::default().with_selected(state.selected_row_index());
    frame.render_stateful_widget(table, area, &mut table_state);
}

/// Everything the selected prompt says, in full, in lines of `width`; with the answer form open,
/// where its cursor is. In the order of reading: how it stands (answered, gone, read-only), who
/// asks and where, how long it is held, then at once what it asks (the diff, the input, the
/// questions), and after it the agent's suggestions, its terminal and the hold's words in full.
fn detail_lines(
    state: &ConsoleState,
    wall_now: Timestamp,
    width: usize,
) -> (Vec<Line<'static>>, Option<AnswerFocus>) {
    let Some(prompt) = state.selected_prompt() else {
        return (empty_detail(state), None);
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
    if let Some(note) = output::cut_in_words(prompt) {
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
        lines.extend(hold_ends_lines(prompt, hold.is_some(), width));
        lines.extend(read_only_lines(state, prompt, pending, width));
        return (lines, focus);
    }
    let extra = &prompt.prompt.extra;
    lines.extend(extra::preview_lines(extra, width));
    lines.extend(input_lines(prompt, width));
    let always_scope = extra
        .suggestions
        .first()
        .map_or("", |first| scope_words(always_scope(first)));
    let context = extra::context_lines(extra, always_scope, width);
    if !context.is_empty() {
        lines.push(Line::raw(""));
        lines.extend(context);
    }
    lines.extend(hold_ends_lines(prompt, hold.is_some(), width));
    lines.extend(read_only_lines(state, prompt, pending, width));
    (lines, None)
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

/// The questions and their options; with the form open, what is chosen and where the cursor is.
fn question_lines(
    prompt: &Prompt,
    form: Option<&AnswerForm>,
) -> (Vec<Line<'static>>, Option<AnswerFocus>) {
    let mut lines = Vec::new();
    let mut focus = None;
    for (question_index, question) in prompt.prompt.questions.iter().enumerate() {
        let focused = form.is_some_and(|form| form.question_index == question_index);
        let start = lines.len();
        let choose = crate::output::how_many_to_choose(question);
        // The agent's own header names the question (its id is for scripts); a question
        // without one is named by its text alone.
        let header = if question.header.is_empty() {
            String::new()
        } else {
            format!("{}: ", visible(&question.header))
        };
        let heading = format!(
            "{}{header}{} ({choose})",
            if focused { "▸ " } else { "" },
            visible(&question.text)
        );
        lines.push(Line::raw(heading).bold());
        let draft = form.and_then(|form| form.drafts.get(question_index));
        for (option_index, option) in question.options.iter().enumerate() {
            let cursor = if focused && form.is_some_and(|form| form.row == option_index) {
                "> "
            } else {
                "  "
            };
            let mark = match (draft, question.multi) {
                (None, _) => "-".to_owned(),
                (Some(draft), true) => if draft.chosen[option_index] {
                    "[x]"
                } else {
                    "[ ]"
                }
                .to_owned(),
                (Some(draft), false) => if draft.chosen[option_index] {
                    "(•)"
                } else {
                    "( )"
                }
                .to_owned(),
            };
            let description = if option.description.is_empty() {
                String::new()
            } else {
                format!(": {}", visible(&option.description))
            };
            lines.push(Line::raw(format!(
                "  {cursor}{mark} {}{description}",
                visible(&option.label)
            )));
        }
        if let Some(draft) = draft {
            let on_text_row =
                focused && form.is_some_and(|form| form.row == question.options.len());
            let cursor = if on_text_row { "> " } else { "  " };
            let caret = if on_text_row { "_" } else { "" };
            lines.push(Line::raw(format!(
                "  {cursor}Other (type your own): {}{caret}",
                visible(&draft.text)
            )));
        }
        if let Some(form) = form.filter(|_| focused) {
            focus = Some(AnswerFocus {
                question: question_index,
                row: form.row,
                block: start..lines.len(),
                cursor: {
                    let row = (start + 1 + form.row).min(lines.len().saturating_sub(1));
                    row..row + 1
                },
            });
        }
    }
    (lines, focus)
}

/// The keys that move, scroll and quit: the end of every key bar while browsing.
const MOVEMENT_KEYS: &str = "↑↓ move · PgUp/PgDn scroll · q quit";

/// The keys that apply now, drawn from the selected prompt's own actions.
pub fn key_hints(state: &ConsoleState, now: Instant) -> String {
    match &state.mode {
        Mode::DenyMessage { .. } => return "type a message for the agent (optional) · Enter deny · Esc cancel".into(),
        Mode::Answering(_) => return "↑↓ option · Tab/←→ question · Space choose · type on the Other row · Enter pick/send · Esc cancel".into(),
        Mode::Browsing => {}
    }
    let movement = MOVEMENT_KEYS;
    match &state.selection {
        Selection::Nothing => movement.into(),
        Selection::Vanished(vanished) if vanished.has_verdict() => {
            format!("answered: no action keys · {movement}")
        }
        Selection::Vanished(_) => format!("gone: no action keys · {movement}"),
        Selection::Pending(_) => {
            let actions = state.available_actions();
            if actions.is_empty() {
                format!("read-only: answer it in the agent's terminal · {movement}")
            } else if state.is_settling(now) {
                format!("the list just changed: look again before acting · {movement}")
            } else {
                // A prompt the gateway sent cut is approved with `gatehouse show`.
                let whole = state
                    .selected_pending_prompt()
                    .is_none_or(output::detail_shows_whole);
                let mut keys: Vec<String> = actions
                    .iter()
                    .filter(|action| whole || !matches!(action, Action::Once | Action::Always))
                    .map(|action| match action {
                        Action::Once => "o allow once".to_owned(),
                        Action::Deny => "d deny".to_owned(),
                        Action::Answer => "a answer".to_owned(),
                        Action::Always => always_key(state),
                    })
                    .collect();
                if let Some(prompt) = state.selected_pending_prompt().filter(|_| !whole) {
                    if actions.contains(&Action::Once) || actions.contains(&Action::Always) {
                        keys.insert(
                            0,
                            format!(
                                "too long to approve here: gatehouse show {}",
                                output::shown_id(prompt)
                            ),
                        );
                    }
                }
                keys.push("r release to terminal".into());
                if state.can_switch_to_pane() {
                    keys.push("t go to its pane".into());
                }
                format!("{} · {movement}", keys.join(" · "))
            }
        }
    }
}

/// The hint of `A`: for how long, or where, it keeps the agent's first suggestion.
fn always_key(state: &ConsoleState) -> String {
    let scope = state
        .selected_pending_prompt()
        .and_then(|prompt| prompt.prompt.extra.suggestions.first())
        .map_or(gatehouse_core::AlwaysScope::Session, always_scope);
    let words = scope_words(scope);
    format!("A always ({})", words.strip_prefix("for ").unwrap_or(words))
}

fn notice_line(state: &ConsoleState) -> Line<'static> {
    if let Mode::DenyMessage { message, .. } = &state.mode {
        return Line::from(vec![
            Span::raw("Deny message (optional): ").bold(),
            Span::raw(format!("{}_", visible(message))),
        ]);
    }
    let Some(notice) = &state.notice else {
        return Line::raw("");
    };
    let color = match notice.tone {
        Tone::Info => Color::Reset,
        Tone::Success => Color::Green,
        Tone::Warning => Color::Yellow,
        Tone::Error => Color::Red,
    };
    Line::styled(
        visible(&notice.text).into_owned(),
        Style::default().fg(color),
    )
}

/// The end of a path that fits `width` characters, with `…` where the start was cut.
fn keep_end(text: &str, width: usize) -> String {
    let length = text.chars().count();
    if length <= width {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(length - (width - 1)).collect();
    format!("…{kept}")
}

mod detail_pane;
mod extra;
mod wrap;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod paging_tests;

#[cfg(test)]
mod layout_tests;
