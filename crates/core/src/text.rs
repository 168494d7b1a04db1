//! Text made safe and short for display: the one place where agent and gateway text is prepared
//! for a terminal, a table cell or a notice.
//!
//! Text from an agent (a Bash command, a file path, a question) can carry characters that a
//! terminal interprets instead of showing: ESC starts sequences that hide text (`\x1b[8m`), set
//! the window title or move the cursor; CR returns to the start of the line and lets later text
//! overwrite earlier text; bidirectional overrides and isolates reorder what is shown
//! ("Trojan Source"); zero-width characters hide inside words. A person deciding on a prompt must
//! see every character, so none of these is dropped: each is shown as a visible escape.
//!
//! - ESC is `\e`; CR, LF and tab are `\r`, `\n` and `\t`.
//! - Every other control character (C0, DEL, C1) and every character of
//!   [`is_hidden_or_reordering`] is `\u{hex}`, as in Rust: `\u{7}`, `\u{9b}`, `\u{202e}`.
//! - A backslash stays as it is, so ordinary commands read as they were written.
//!
//! [`visible`] escapes; [`truncate`] escapes and cuts to a number of characters with `…`;
//! [`one_line`] escapes, collapses runs of spaces and cuts. Escapes are never cut in half.
//! Nothing here changes the data itself: JSON output carries the exact text.

use std::borrow::Cow;
use std::fmt::Write;

/// The character that ends a text that was cut.
pub const ELLIPSIS: char = '…';

/// Characters that are not control characters but that a terminal or a person's eye does not show
/// as themselves: they reorder text (bidirectional embeddings, overrides, isolates and marks),
/// take no space (zero-width spaces, joiners, the word joiner, invisible operators, the byte
/// order mark, soft hyphen, tag characters, variation selectors), show as blank space (Hangul
/// fillers, the Braille blank) or break lines outside the terminal's notion of a line (U+2028,
/// U+2029). Every default-ignorable code point of Unicode is among them.
pub fn is_hidden_or_reordering(character: char) -> bool {
    matches!(
        character,
        '\u{00ad}'                       // soft hyphen
        | '\u{034f}'                     // combining grapheme joiner
        | '\u{061c}'                     // Arabic letter mark
        | '\u{115f}'..='\u{1160}'        // Hangul fillers, shown as blank space
        | '\u{17b4}'..='\u{17b5}'        // Khmer inherent vowels
        | '\u{180b}'..='\u{180f}'        // Mongolian variation selectors, vowel separator
        | '\u{200b}'..='\u{200f}'        // zero-width space, non-joiner, joiner; LRM, RLM
        | '\u{2028}'..='\u{2029}'        // line and paragraph separators
        | '\u{202a}'..='\u{202e}'        // bidirectional embeddings and overrides
        | '\u{2060}'..='\u{206f}'        // word joiner, invisible operators, isolates, deprecated
        | '\u{2800}'                     // Braille pattern blank, shown as blank space
        | '\u{3164}'                     // Hangul filler
        | '\u{fe00}'..='\u{fe0f}'        // variation selectors
        | '\u{feff}'                     // zero-width no-break space, byte order mark
        | '\u{ffa0}'                     // halfwidth Hangul filler
        | '\u{fff0}'..='\u{fffb}'        // unassigned specials, interlinear annotation
        | '\u{1bca0}'..='\u{1bca3}'      // shorthand format controls
        | '\u{1d173}'..='\u{1d17a}'      // musical symbol format controls
        | '\u{e0000}'..='\u{e0fff}' // tags, variation selectors supplement, the rest reserved
    )
}

/// Whether a character is shown as an escape rather than as itself.
pub fn needs_escape(character: char) -> bool {
    character.is_control() || is_hidden_or_reordering(character)
}

/// Appends a character as it is shown: itself, or its escape. Returns how many characters it
/// appended.
fn push_visible_char(out: &mut String, character: char) -> usize {
    if !needs_escape(character) {
        out.push(character);
        return 1;
    }
    let before = out.len();
    match character {
        '\u{1b}' => out.push_str("\\e"),
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        other => {
            let _ = write!(out, "\\u{{{:x}}}", other as u32);
        }
    }
    // Escapes are ASCII: one byte per character.
    out.len() - before
}

/// The text with every control, hidden or reordering character shown as an escape (see the
/// module documentation). Borrowed when there is nothing to escape.
pub fn visible(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(needs_escape) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for character in text[first..].chars() {
        push_visible_char(&mut out, character);
    }
    Cow::Owned(out)
}

/// Each line of a text (split at LF; a final LF ends the last line rather than starting an empty
/// one) made [`visible`]. A CR stays visible as `\r`, even before an LF.
pub fn visible_lines(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines = if text.is_empty() {
        None
    } else {
        Some(body.split('\n'))
    };
    lines.into_iter().flatten().map(visible)
}

/// The text made [`visible`], cut to at most `max_chars` characters, ending with `…` when cut.
/// An escape is kept whole or left out, never cut in half.
pub fn truncate(text: &str, max_chars: usize) -> String {
    let mut shortener = Shortener::new(max_chars);
    for character in text.chars() {
        if !shortener.push(character) {
            break;
        }
    }
    shortener.finish()
}

/// The text made [`visible`] on one line: LF, CR and tab show as escapes, runs of spaces become
/// one space, spaces at either end go, and the result is cut to `max_chars` like [`truncate`].
/// Only the space character (U+0020) is collapsed, so nothing that is not a space disappears.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let mut shortener = Shortener::new(max_chars);
    let mut space_pending = false;
    for character in text.chars() {
        if character == ' ' {
            space_pending = true;
            continue;
        }
        if space_pending && shortener.has_text() && !shortener.push(' ') {
            break;
        }
        space_pending = false;
        if !shortener.push(character) {
            break;
        }
    }
    shortener.finish()
}

/// Builds a visible text up to a number of characters, remembering where to cut if more comes.
struct Shortener {
    out: String,
    max_chars: usize,
    chars: usize,
    /// The length in bytes of the longest prefix that leaves room for the ellipsis.
    cut_at: usize,
    cut: bool,
}

impl Shortener {
    fn new(max_chars: usize) -> Self {
        Shortener {
            out: String::new(),
            max_chars,
            chars: 0,
            cut_at: 0,
            cut: false,
        }
    }

    fn has_text(&self) -> bool {
        !self.out.is_empty()
    }

    /// Adds a character (escaped if it must be); false once the text is full and was cut.
    fn push(&mut self, character: char) -> bool {
        let before = self.out.len();
        let added = push_visible_char(&mut self.out, character);
        if self.chars + added > self.max_chars {
            self.out.truncate(before);
            self.cut = true;
            return false;
        }
        self.chars += added;
        if self.chars < self.max_chars {
            self.cut_at = self.out.len();
        }
        true
    }

    fn finish(mut self) -> String {
        if self.cut {
            self.out.truncate(self.cut_at);
            if self.max_chars > 0 {
                self.out.push(ELLIPSIS);
            }
        }
        self.out
    }
}

#[cfg(test)]
mod tests;
