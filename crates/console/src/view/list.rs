//! The list of prompts: one row each, oldest first, with the selected prompt that has gone kept in
//! its place. Every column fits an 80-column terminal, and every cell cut to its column ends in
//! `…` (a folder keeps its end, so it starts with one).

use gatehouse_core::text::{truncate, visible};
use gatehouse_core::Timestamp;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{
    Block, Borders, Cell, HighlightSpacing, Row as TableRow, Table, TableState,
};
use ratatui::Frame;

use super::wrap;
use crate::output;
use crate::state::{ConsoleState, Row};

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

pub(super) fn render(
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

/// The end of a path that fits `width` characters, with `…` where the start was cut.
fn keep_end(text: &str, width: usize) -> String {
    let length = text.chars().count();
    if length <= width {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(length - (width - 1)).collect();
    format!("…{kept}")
}
