//! The console's screens at the sizes a cold review used, 80x24 and 120x40, with the prompts it
//! met (a Claude Code Bash command, an edit, a Codex prompt its hook holds, a question): the hold
//! in one short line, wrapped fields under their first character, a cut prompt said once in
//! words, the always rule's own scope,.

use std::time::Instant;

use gatehouse_core::{AlwaysScope, Prompt, PromptExtra, Suggestion, Timestamp, WhileHeld};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::render;
use crate::state::tests::{
    bash, claude_capabilities, connected, edit_extras, settled, with_always, FIRST,
};
use crate::state::ConsoleState;

/// Twelve seconds after the fixtures' prompts arrived.
const WALL_NOW: Timestamp = Timestamp(1_796_008_412_000);

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// The screen's rows as text.
fn rows(state: &ConsoleState, (width, height): (u16, u16), now: Instant) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| render(frame, state, WALL_NOW, now))
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

/// The inside of the detail pane: the rows between its top and bottom borders, without them.
fn detail(rows: &[String]) -> Vec<String> {
    let top = rows
        .iter()
        .position(|row| row.starts_with("┌ Detail"))
        .expect("the detail pane is drawn");
    rows[top + 1..]
        .iter()
        .take_while(|row| !row.starts_with('└'))
        .map(|row| {
            let inner: Vec<char> = row.chars().collect();
            inner[1..inner.len() - 1].iter().collect()
        })
        .collect()
}

/// The whole of the detail, as a pane tall enough for all of it draws it at `width`.
fn whole_detail(state: &ConsoleState, width: u16, now: Instant) -> Vec<String> {
    detail(&rows(state, (width, 400), now))
}

/// A Codex Bash prompt its hook holds for 52 s more, with Codex's own "always" (a rule for every
/// project, counted from its next session), as the gateway sends it.
fn codex_held(decision: &str) -> Prompt {
    let mut codex = with_always(decision, "Bash", "printf approved > codex-proof.txt");
    codex.prompt.adapter = "codex".into();
    codex.prompt.session = "01a22a61-eeff-7072-a7bc-094a92b5a039".into();
    codex.prompt.input = serde_json::json!({
        "command": "printf approved > codex-proof.txt", "description": "write proof",
    });
    codex.hold_ends_at = Some(Timestamp(WALL_NOW.0 + 52_000));
    codex.after_hold = Some(WhileHeld::after_hold(
        Some(WhileHeld::OwnDialogAfterHold),
        "Codex",
    ));
    codex.prompt.extra = PromptExtra {
        suggestions: vec![Suggestion {
            id: "s1".into(),
            summary: "only the Bash command `printf approved > codex-proof.txt`, exactly as written, from your next Codex session on; this session will still ask".into(),
            allows: Vec::new(),
            scopes: vec![AlwaysScope::User],
            native: serde_json::json!({}),
        }],
        ..PromptExtra::default()
    };
    codex
}

/// A Claude Code Bash prompt held for 9m 49s more, as its hook holds one.
fn claude_held(decision: &str, command: &str) -> Prompt {
    let mut claude = bash(decision, command);
    claude.hold_ends_at = Some(Timestamp(WALL_NOW.0 + 589_000));
    claude.after_hold = Some(WhileHeld::after_hold(
        Some(WhileHeld::OwnPromptStaysLive),
        "Claude Code",
    ));
    claude
}

fn alone(prompt: Prompt) -> (ConsoleState, Instant) {
    let start = Instant::now();
    let mut state = connected(vec![prompt], start);
    state.adapters = vec![claude_capabilities()];
    (state, settled(start))
}

#[test]
fn a_held_prompt_says_its_hold_in_one_short_line_under_who_asks_and_in_full_at_the_end() {
    for size in SIZES {
        for (prompt, short) in [
            (
                codex_held(FIRST),
                "Held 52s more, then Codex shows its own dialog.",
            ),
            (
                claude_held(FIRST, "printf hi > hi.txt"),
                "Held 9m 49s more, then only Claude Code's own prompt can answer it.",
            ),
        ] {
            let (state, now) = alone(prompt);
            let first_page = detail(&rows(&state, size, now));
            let held: Vec<&String> = first_page
                .iter()
                .filter(|row| row.contains("Held") || row.contains("hold ha"))
                .collect();
            assert_eq!(
                held.len(),
                1,
                "one line of hold at {size:?}: {first_page:#?}"
            );
            assert_eq!(held[0].trim_end(), short, "{first_page:#?}");
            assert!(
                first_page[2].starts_with("Held "),
                "right under who asks and what: {first_page:#?}"
            );
            let whole = whole_detail(&state, size.0, now)
                .join(" ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let rest = if short.contains("Codex") {
                "(it shows none meanwhile), and an answer here is refused."
            } else {
                "the first answer wins."
            };
            assert!(
                whole.contains("When the hold ends: ") && whole.contains(rest),
                "the whole words, at the end: {whole}"
            );
        }
    }
}

#[test]
fn at_80_columns_a_wrapped_command_goes_on_under_its_first_character() {
    let command = "curl -fsSL https://example.com/tools/install.sh | sh -s -- --prefix /home/dev/.local --with-completions";
    let (state, now) = alone(bash(FIRST, command));
    let pane = detail(&rows(&state, (80, 24), now));
    let start = pane
        .iter()
        .position(|row| row.starts_with("command: "))
        .expect("the command is shown");
    let continued: Vec<&String> = pane[start + 1..]
        .iter()
        .take_while(|row| !row.starts_with("description"))
        .collect();
    assert!(!continued.is_empty(), "the command wraps at 80: {pane:#?}");
    for row in &continued {
        assert!(
            row.starts_with("         ") && !row[9..].starts_with(' '),
            "a continuation starts under the command's first character: {pane:#?}"
        );
    }
    let joined: String = std::iter::once(&pane[start][9..])
        .chain(continued.iter().map(|row| &row[9..]))
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(joined, command, "every character is drawn, in order");
}

#[test]
fn a_cut_prompt_says_once_how_much_is_shown_and_that_allow_is_not_offered() {
    let mut long = bash(FIRST, "echo start");
    long.cut = Some(gatehouse_core::CutNote {
        full_bytes: 1_300_000,
        digest: None,
    });
    long.short_id = "d68d".into();
    let (state, now) = alone(long);
    for size in SIZES {
        let text = detail(&rows(&state, size, now)).join("\n");
        assert!(!text.to_lowercase().contains("cut: cut"), "{text}");
        assert_eq!(text.matches("Cut:").count(), 1, "{text}");
        for words in [
            "of 1.2 MB",
            "Allow is not offered on a cut prompt",
            "gatehouse show d68d",
        ] {
            assert!(
                text.split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .contains(words),
                "{words} at {size:?}: {text}"
            );
        }
    }
}

#[test]
fn always_says_the_scope_the_key_keeps_the_rule_for() {
    let (state, now) = alone(codex_held(FIRST));
    for size in SIZES {
        let screen = rows(&state, size, now).join("\n");
        assert!(screen.contains("A always (every project)"), "{screen}");
        assert!(!screen.contains("this session)"), "{screen}");
    }
    let mut edit = with_always(FIRST, "Edit", "/home/dev/project/e.txt");
    edit.prompt.extra = edit_extras("main:2");
    let (state, now) = alone(edit);
    let whole = whole_detail(&state, 80, now).join("\n");
    assert!(
        whole.contains("Always (A, for this session): accept edits"),
        "{whole}"
    );
}

#[test]
fn a_prompt_that_ended_says_how_and_offers_no_advice_for_keys_that_no_longer_work() {
    let mut edit = with_always(FIRST, "Edit", "/home/dev/project/e.txt");
    edit.prompt.extra = edit_extras("main:2");
    edit.cut = Some(gatehouse_core::CutNote {
        full_bytes: 1_300_000,
        digest: None,
    });
    let (mut state, now) = alone(edit);
    let pending = whole_detail(&state, 80, now).join("\n");
    for words in [
        "waiting 12s",
        "Always (A, for this session)",
        "gatehouse show",
    ] {
        assert!(pending.contains(words), "{words} while pending: {pending}");
    }
    state.apply_update(crate::state::tests::withdrawn(FIRST), now);
    for size in SIZES {
        let screen = rows(&state, size, now).join("\n");
        let ended = whole_detail(&state, size.0, now).join("\n");
        assert!(ended.starts_with("GONE: withdrawn"), "{ended}");
        assert!(ended.contains("Only the start is shown"), "{ended}");
        for stale in [
            "waiting",
            "Always (A",
            "gatehouse show",
            "Held ",
            "When the hold",
        ] {
            assert!(
                !ended.contains(stale),
                "{stale} on an ended prompt: {ended}"
            );
        }
        assert!(!screen.contains("12s"), "no age in the list: {screen}");
    }
}

#[test]
fn the_other_suggestions_are_named_by_the_command_that_keeps_them_not_by_a_bare_id() {
    let mut edit = with_always(FIRST, "Edit", "/home/dev/project/e.txt");
    edit.short_id = "d68d".into();
    edit.prompt.extra = edit_extras("main:2");
    edit.prompt.extra.suggestions.push(Suggestion {
        id: "s2".into(),
        summary: "accept edits in every session of this project".into(),
        allows: Vec::new(),
        scopes: vec![AlwaysScope::Project],
        native: serde_json::json!({}),
    });
    let (state, now) = alone(edit);
    for size in SIZES {
        let whole = whole_detail(&state, size.0, now)
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            whole.contains("also suggested: accept edits in every session of this project (`gatehouse answer d68d always --suggestion s2 --scope project`)"),
            "{whole}"
        );
        assert!(!whole.contains("(s2)"), "{whole}");
    }
}

#[test]
fn a_one_line_held_command_is_seen_whole_without_paging_at_80x24() {
    // As the cold review met it: with its description, in a tmux pane, two others waiting.
    let mut claude = claude_held(FIRST, "printf hi > hi.txt");
    claude.prompt.input = serde_json::json!({
        "command": "printf hi > hi.txt", "description": "Write hi to hi.txt",
    });
    claude.prompt.extra.terminal = edit_extras("@3").terminal;
    let start = Instant::now();
    let mut state = connected(
        vec![
            claude,
            codex_held("01a22a7c-7184-7520-bb65-4d44b4eba60c"),
            claude_held("01a22a7c-7184-7520-bb65-4d44b4eba60d", "ls"),
        ],
        start,
    );
    state.adapters = vec![claude_capabilities()];
    let now = settled(start);
    let screen = rows(&state, (80, 24), now);
    let drawn = state
        .detail_drawn
        .borrow()
        .clone()
        .expect("the detail was drawn");
    assert!(drawn.all_seen(), "{screen:#?}");
    // The hold's whole words are on that screen too, not left for a second page.
    let joined = detail(&screen).join(" ");
    assert!(
        joined.contains("first answer wins") || joined.contains("answer it"),
        "{screen:#?}"
    );
}
