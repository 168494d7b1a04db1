//! The bottom of the console: the keys that apply now, drawn from the selected prompt's own
//! actions and never split within a key, and the notice line (or the deny message being typed).

use std::time::Instant;

use gatehouse_core::text::visible;
use gatehouse_core::Action;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};

use crate::output;
use crate::state::{always_scope, scope_words, ConsoleState, Mode, Selection, Tone};

/// The key hints as lines of `width`, broken only between keys (at ` · `), so that no key is
/// split; when they take two lines, the keys that move and quit keep a line of their own rather
/// than leave one of them alone.
pub(super) fn key_lines(hints: &str, width: u16) -> Vec<Line<'static>> {
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

pub(super) fn notice_line(state: &ConsoleState) -> Line<'static> {
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
