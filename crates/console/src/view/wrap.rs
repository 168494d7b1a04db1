//! Lines cut to the detail pane's width by the console itself rather than by ratatui, so that a
//! long field's continuation lines start under its first character (a wrapped command reads as
//! one command, not as a second line of it that starts at the pane's edge).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The fewest columns of text a continuation line keeps: a deeper indent than that leaves is
/// given up, so that a narrow pane still shows text rather than only indent.
const TEXT_AT_LEAST: usize = 12;

/// `text` (one line, already made visible) as lines of at most `width` columns: the first after
/// `lead` (such as a bold `command: `), the others after `indent` spaces. It breaks after a space
/// where one lies within the line, else within the word; no character is dropped, so the lines
/// read together are the text.
pub fn hanging(
    lead: Span<'static>,
    text: &str,
    style: Style,
    indent: usize,
    width: usize,
) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent + TEXT_AT_LEAST > width {
        0
    } else {
        indent
    };
    let mut lines = Vec::new();
    let mut lead = Some(lead);
    let mut room = width.saturating_sub(lead.as_ref().map_or(0, Span::width));
    if room == 0 {
        lines.push(Line::from(lead.take().into_iter().collect::<Vec<_>>()));
        room = width - indent;
    }
    let mut rest = text;
    loop {
        let (piece, after) = split_at_width(rest, room);
        let start = lead.take().unwrap_or_else(|| Span::raw(" ".repeat(indent)));
        lines.push(Line::from(vec![
            start,
            Span::styled(piece.to_owned(), style),
        ]));
        if after.is_empty() {
            return lines;
        }
        rest = after;
        room = width - indent;
    }
}

/// `text` (one line, already made visible) in at most `width` columns: whole when it fits, else
/// cut with `…` as its last column, so that a cut always shows.
pub fn fit(text: &str, width: usize) -> String {
    if Span::raw(text).width() <= width {
        return text.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let (kept, _) = split_at_columns(text, width.saturating_sub(1));
    format!("{kept}{}", gatehouse_core::text::ELLIPSIS)
}

/// `text` cut after the last character that fits `room` columns.
fn split_at_columns(text: &str, room: usize) -> (&str, &str) {
    let mut used = 0;
    for (index, character) in text.char_indices() {
        used += Span::raw(&text[index..index + character.len_utf8()]).width();
        if used > room {
            return text.split_at(index);
        }
    }
    (text, "")
}

/// `text` cut in two where the first part is as long as fits `room` columns: after the last space
/// that fits, when there is one, else at the last character that fits (at least one character,
/// so that every call makes progress).
fn split_at_width(text: &str, room: usize) -> (&str, &str) {
    let mut used = 0;
    let mut last_break = None;
    let mut previous_was_space = false;
    for (index, character) in text.char_indices() {
        if previous_was_space && character != ' ' {
            last_break = Some(index);
        }
        let character_width = Span::raw(&text[index..index + character.len_utf8()]).width();
        if used + character_width > room {
            let cut = match last_break {
                Some(at) if at > 0 => at,
                _ if index == 0 => character.len_utf8(),
                _ => index,
            };
            return text.split_at(cut);
        }
        previous_was_space = character == ' ';
        used += character_width;
    }
    (text, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn continuation_lines_start_under_the_first_character_and_keep_every_character() {
        let text = "curl -s https://example.com/install.sh | sh -s -- --prefix /usr/local";
        let lines = hanging(Span::raw("command: "), text, Style::default(), 9, 40);
        assert_eq!(
            drawn(&lines),
            [
                "command: curl -s ",
                "         https://example.com/install.sh ",
                "         | sh -s -- --prefix /usr/local",
            ]
        );
        let joined: String = lines
            .iter()
            .map(|line| line.to_string()[9..].to_owned())
            .collect();
        assert_eq!(joined, text);
        assert!(lines.iter().all(|line| line.width() <= 40));
    }

    #[test]
    fn a_word_longer_than_the_line_is_cut_and_spaces_that_do_not_fit_go_on() {
        let lines = hanging(Span::raw("k: "), "abcdefghij    z", Style::default(), 3, 15);
        assert_eq!(drawn(&lines), ["k: abcdefghij  ", "     z"]);
        let lines = hanging(Span::raw("k: "), &"x".repeat(30), Style::default(), 3, 15);
        assert_eq!(
            drawn(&lines),
            ["k: xxxxxxxxxxxx", "   xxxxxxxxxxxx", "   xxxxxx"]
        );
    }

    #[test]
    fn a_cell_cut_to_its_width_ends_in_an_ellipsis_and_one_that_fits_is_whole() {
        assert_eq!(
            fit("/home/dev/project/notes.txt", 24),
            "/home/dev/project/notes…"
        );
        assert_eq!(fit("Which color?", 24), "Which color?");
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(fit("abcd", 3), "ab…");
        // Wide characters count two columns each.
        assert_eq!(fit("日本語のテキスト", 7), "日本語…");
        assert_eq!(fit("anything", 0), "");
    }

    #[test]
    fn a_pane_too_narrow_for_the_indent_starts_continuations_at_its_edge() {
        let lines = hanging(
            Span::raw("description: "),
            "one two three",
            Style::default(),
            13,
            16,
        );
        assert_eq!(drawn(&lines), ["description: one", " two three"]);
    }
}
