//! The detail pane's scrolling: where the drawing starts (the person's scroll, kept within the
//! last page, moved to the question the answer form is on), and the record of what was drawn
//! that paging and the approving keys go by (see `DetailDrawn` in the state).

use std::ops::Range;

use gatehouse_core::{Action, DecisionId, Prompt, Timestamp};
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

use super::detail_lines;
use crate::output;
use crate::state::{ConsoleState, DetailDrawn};

/// Draws the detail pane and records what it showed (see [`DetailDrawn`]): the scroll is the
/// state's, kept within the last page and, with the answer form open, moved so that the
/// question with the cursor is on screen.
pub(super) fn render(frame: &mut Frame, state: &ConsoleState, wall_now: Timestamp, area: Rect) {
    let width = area.width.saturating_sub(2);
    let super::DetailLines {
        lines,
        focus,
        asked,
    } = detail_lines(state, wall_now, usize::from(width));
    let height = usize::from(area.height.saturating_sub(2));
    let wrapped_lines_before = |index: usize| {
        Paragraph::new(lines[..index].to_vec())
            .wrap(Wrap { trim: false })
            .line_count(width)
    };
    let focus = focus.map(|focus| AnswerFocus {
        block: wrapped_lines_before(focus.block.start)..wrapped_lines_before(focus.block.end),
        cursor: wrapped_lines_before(focus.cursor.start)..wrapped_lines_before(focus.cursor.end),
        ..focus
    });
    let asked = wrapped_lines_before(asked);
    let detail = Paragraph::new(lines).wrap(Wrap { trim: false });
    let total = detail.line_count(width);
    let mut scroll = usize::from(state.detail_scroll).min(total.saturating_sub(height));
    let mut answer_focus = None;
    if let Some(focus) = &focus {
        // The whole question when it fits, else at least the row with the cursor.
        let wanted = if focus.block.len() <= height {
            &focus.block
        } else {
            &focus.cursor
        };
        if wanted.end > scroll + height {
            scroll = wanted.end.saturating_sub(height);
        }
        if wanted.start < scroll {
            scroll = wanted.start;
        }
        let shown = wanted.start >= scroll && wanted.end <= scroll + height;
        answer_focus = Some((focus.question, focus.row, shown));
    }
    let selected = state.selected_prompt();
    record_drawn(
        state,
        selected.map(|prompt| prompt.id),
        width,
        height,
        total,
        asked,
        scroll,
        answer_focus,
    );
    let end_shown = scroll + height >= total;
    let all_seen = state
        .detail_drawn
        .borrow()
        .as_ref()
        .is_none_or(DetailDrawn::all_seen);
    let can_approve = selected.is_some_and(|prompt| approvable(state, prompt));
    let title = if end_shown && !all_seen && can_approve {
        // Lines that changed (a resize, a new wrap) start the reading over.
        " Detail: lines above were not all on screen, PgUp to read them ".to_owned()
    } else if end_shown {
        " Detail (PgUp/PgDn scroll) ".to_owned()
    } else if can_approve && !all_seen {
        " Detail: more below, PgDn to read it all before approving ".to_owned()
    } else {
        " Detail: more below, PgDn to read more ".to_owned()
    };
    let detail = detail
        .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
        .block(Block::default().borders(Borders::ALL).title(title));
    frame.render_widget(detail, area);
}

/// Notes in the state what this drawing showed of the selected prompt's detail, adding the
/// lines on screen to those seen before (which start over when the lines are not the same).
/// The lines from `asked` on are gatehouse's own closing words, counted as seen: only what the
/// prompt asks must have been on screen before it is approved.
#[allow(clippy::too_many_arguments)]
fn record_drawn(
    state: &ConsoleState,
    id: Option<DecisionId>,
    width: u16,
    height: usize,
    total: usize,
    asked: usize,
    scroll: usize,
    answer_focus: Option<(usize, usize, bool)>,
) {
    let mut drawn = state.detail_drawn.borrow_mut();
    let Some(id) = id else {
        *drawn = None;
        return;
    };
    let mut seen = match drawn.take() {
        Some(before) if before.id == id && before.width == width && before.total == total => {
            before.seen
        }
        _ => (0..total).map(|line| line >= asked).collect(),
    };
    seen[scroll.min(total)..(scroll + height).min(total)]
        .iter_mut()
        .for_each(|line| *line = true);
    *drawn = Some(DetailDrawn {
        id,
        width,
        height,
        total,
        scroll,
        seen,
        answer_focus,
    });
}

/// Whether `prompt` is one the approving keys could approve here: pending, offering them, and
/// whole in the console.
fn approvable(state: &ConsoleState, prompt: &Prompt) -> bool {
    state.selected_pending_prompt().is_some()
        && prompt
            .actions
            .iter()
            .any(|action| matches!(action, Action::Once | Action::Always))
        && output::detail_shows_whole(prompt)
}

/// Where, in the detail's lines, the question with the answer form's cursor is: its lines
/// from heading to last row, and the row with the cursor.
pub(super) struct AnswerFocus {
    pub question: usize,
    pub row: usize,
    pub block: Range<usize>,
    pub cursor: Range<usize>,
}
