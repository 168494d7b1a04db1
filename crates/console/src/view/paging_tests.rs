//! The detail pane at 80x24, page by page as a person reads it: paging skips no line and stops at
//! the end, approving waits until every line was drawn, the answer form scrolls to the question
//! it is on, and the header, title and key bar say what works.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gatehouse_core::{Action, QuestionOption};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::render;
use crate::state::tests::{
    bash, connected, disconnected, numbered_lines, permission, question, settled, FIRST,
};
use crate::state::{ConsoleState, GatewayUpdate, Intent};

const WALL_NOW: gatehouse_core::Timestamp = gatehouse_core::Timestamp(1_796_008_412_000);

/// The screen as lines of text, trailing spaces cut.
fn screen(state: &ConsoleState, width: u16, height: u16, now: Instant) -> Vec<String> {
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
                .trim_end()
                .to_owned()
        })
        .collect()
}

fn press(state: &mut ConsoleState, code: KeyCode, now: Instant) -> Intent {
    state.handle_key(KeyEvent::new(code, KeyModifiers::NONE), now)
}

/// The lines of the detail pane's inside, borders cut.
fn detail_pane(screen: &[String]) -> Vec<String> {
    let top = screen
        .iter()
        .position(|line| line.starts_with("┌ Detail"))
        .expect("a detail pane");
    screen[top + 1..]
        .iter()
        .take_while(|line| !line.starts_with('└'))
        .map(|line| {
            line.trim_start_matches('│')
                .trim_end_matches('│')
                .to_owned()
        })
        .collect()
}

/// `echo line-01` to `echo line-30`: a command longer than a page at 80x24.
fn thirty_numbered_echoes() -> String {
    numbered_lines(30, |line| format!("echo line-{line:02}"))
}

/// Pages through `prompt` at 80x24, pressing `o` after every drawing; returns the pages drawn
/// before `o` sent and whether it ever did.
fn page_until_approved(prompt: gatehouse_core::Prompt) -> (Vec<Vec<String>>, bool) {
    let start = Instant::now();
    // Six more prompts below it, as in the review: the list takes its most and the detail pane
    // shows 8 lines.
    let mut prompts = vec![prompt];
    prompts.extend((2..=7).map(|index| {
        bash(
            &format!("01a22a7c-7184-7520-bb65-4d44b4eba60{index}"),
            "make",
        )
    }));
    let mut state = connected(prompts, start);
    let now = settled(start);
    let mut pages = Vec::new();
    for _ in 0..20 {
        pages.push(detail_pane(&screen(&state, 80, 24, now)));
        if matches!(press(&mut state, KeyCode::Char('o'), now), Intent::Send(_)) {
            return (pages, true);
        }
        press(&mut state, KeyCode::PageDown, now);
    }
    (pages, false)
}

#[test]
fn at_80_by_24_paging_draws_every_line_of_a_long_command_before_it_can_be_approved() {
    let command = thirty_numbered_echoes();
    let (pages, approved) = page_until_approved(bash(FIRST, &command));
    assert!(approved, "paged to the end, it may be approved: {pages:#?}");
    assert!(pages.len() > 2, "it takes pages to read: {pages:#?}");
    for line in 1..=30 {
        let wanted = format!("  echo line-{line:02}");
        assert!(
            pages
                .iter()
                .flatten()
                .any(|drawn| drawn.trim_end() == wanted),
            "{wanted} was drawn before approving: {pages:#?}"
        );
    }
    // The last page ends with the last line (the fixture's description) rather than with
    // empty lines.
    let last_page = pages.last().unwrap();
    assert_eq!(
        last_page.last().unwrap().trim_end(),
        "description: a test command"
    );
}

#[test]
fn paging_past_the_end_stays_on_the_last_page_and_paging_up_comes_back() {
    let command = thirty_numbered_echoes();
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, &command)], start);
    let now = settled(start);
    let first = detail_pane(&screen(&state, 80, 24, now));
    let mut last = Vec::new();
    for _ in 0..10 {
        press(&mut state, KeyCode::PageDown, now);
        last = detail_pane(&screen(&state, 80, 24, now));
    }
    assert_eq!(
        last.last().unwrap().trim_end(),
        "description: a test command",
        "{last:#?}"
    );
    assert!(last.iter().all(|line| !line.trim().is_empty()), "{last:#?}");
    assert!(state.detail_scroll <= 40, "{}", state.detail_scroll);
    for _ in 0..10 {
        press(&mut state, KeyCode::PageUp, now);
        let _ = screen(&state, 80, 24, now);
    }
    assert_eq!(detail_pane(&screen(&state, 80, 24, now)), first);
}

#[test]
fn a_long_codex_patch_shows_every_diff_line_before_it_can_be_approved() {
    let mut patch = bash(FIRST, "apply_patch");
    patch.prompt.adapter = "codex".into();
    patch.prompt.tool = "apply_patch".into();
    patch.prompt.input = serde_json::json!({});
    let diff = std::iter::once("--- a/src/lib.rs".to_owned())
        .chain(std::iter::once("+++ b/src/lib.rs".to_owned()))
        .chain(std::iter::once("@@ -1,20 +1,20 @@".to_owned()))
        .chain((1..=20).map(|line| format!("+let value_{line:02} = {line};")))
        .collect::<Vec<_>>()
        .join("\n");
    patch.prompt.extra.preview = Some(gatehouse_core::Preview {
        title: "Patch".into(),
        format: gatehouse_core::PreviewFormat::Diff,
        text: diff.clone(),
        incomplete: None,
    });
    let (pages, approved) = page_until_approved(patch);
    assert!(approved, "{pages:#?}");
    for line in diff.lines() {
        let wanted = format!("  {line}");
        assert!(
            pages
                .iter()
                .flatten()
                .any(|drawn| drawn.trim_end() == wanted),
            "{wanted} was drawn before approving: {pages:#?}"
        );
    }
}

/// The fixture's question with a longer second question: both do not fit the pane at 80x24.
fn two_long_questions() -> gatehouse_core::Prompt {
    let mut prompt = question(FIRST);
    let option = |label: &str| QuestionOption {
        label: label.into(),
        description: String::new(),
    };
    prompt.prompt.questions[1].options = ["Thin", "Thick", "Stuffed", "Pan", "Sourdough"]
        .into_iter()
        .map(option)
        .collect();
    prompt
}

#[test]
fn at_80_by_24_the_answer_form_scrolls_to_the_question_it_is_on() {
    let start = Instant::now();
    let mut state = connected(vec![two_long_questions()], start);
    let now = settled(start);
    press(&mut state, KeyCode::Char('a'), now);
    let drawn = detail_pane(&screen(&state, 80, 24, now)).join("\n");
    assert!(
        !drawn.contains("Sourdough"),
        "the second question is below: {drawn}"
    );
    press(&mut state, KeyCode::Char(' '), now);
    let _ = screen(&state, 80, 24, now);
    press(&mut state, KeyCode::Tab, now);
    let drawn = detail_pane(&screen(&state, 80, 24, now)).join("\n");
    for label in [
        "▸ Crust: Which crust?",
        "Thin",
        "Sourdough",
        "Other (type your own)",
    ] {
        assert!(drawn.contains(label), "{label} is on screen: {drawn}");
    }
    for key in [KeyCode::Down, KeyCode::Down, KeyCode::Down, KeyCode::Down] {
        press(&mut state, key, now);
        let _ = screen(&state, 80, 24, now);
    }
    press(&mut state, KeyCode::Char(' '), now);
    let _ = screen(&state, 80, 24, now);
    let Intent::Send(command) = press(&mut state, KeyCode::Enter, now) else {
        panic!("the answer is sent: {:?}", state.notice);
    };
    assert_eq!(command.id, state.selected_id().unwrap());
    let notice = state.notice.clone().unwrap().text;
    assert!(notice.contains("Cheese / Sourdough"), "{notice}");
}

#[test]
fn keys_that_pick_or_send_wait_until_the_focused_options_were_drawn() {
    let start = Instant::now();
    let mut state = connected(vec![two_long_questions()], start);
    let now = settled(start);
    press(&mut state, KeyCode::Char('a'), now);
    let _ = screen(&state, 80, 24, now);
    press(&mut state, KeyCode::Char(' '), now);
    let _ = screen(&state, 80, 24, now);
    // Tab and Space with no drawing between them: the second question was never on screen.
    press(&mut state, KeyCode::Tab, now);
    assert_eq!(press(&mut state, KeyCode::Char(' '), now), Intent::Nothing);
    assert_eq!(press(&mut state, KeyCode::Enter, now), Intent::Nothing);
    let notice = state.notice.clone().unwrap().text;
    assert!(notice.contains("not on screen"), "{notice}");
    let crate::state::Mode::Answering(form) = &state.mode else {
        panic!("the form stays open");
    };
    assert!(form.drafts[1].chosen.iter().all(|chosen| !chosen));
}

#[test]
fn the_answer_sent_and_its_outcome_name_the_chosen_labels_made_visible() {
    let mut prompt = question(FIRST);
    prompt.prompt.questions[0].options[0].label = "Chee\x1b[8mse".into();
    let start = Instant::now();
    let mut state = connected(vec![prompt], start);
    let now = settled(start);
    for key in [
        KeyCode::Char('a'),
        KeyCode::Char(' '),
        KeyCode::Down,
        KeyCode::Char(' '),
        KeyCode::Tab,
        KeyCode::Char(' '),
    ] {
        press(&mut state, key, now);
        let _ = screen(&state, 80, 24, now);
    }
    let Intent::Send(command) = press(&mut state, KeyCode::Enter, now) else {
        panic!("sent: {:?}", state.notice);
    };
    let sending = state.notice.clone().unwrap().text;
    assert!(sending.contains("Chee\\e[8mse, Olives / Thin"), "{sending}");
    state.apply_update(
        GatewayUpdate::CommandFinished {
            command,
            result: Ok(gatehouse_core::PromptState::Resolved),
        },
        now,
    );
    let done = state.notice.clone().unwrap().text;
    assert!(
        done.starts_with("Answered: Chee\\e[8mse, Olives / Thin"),
        "{done}"
    );
}

#[test]
fn at_80_by_24_the_header_keeps_the_gateways_advice_whole() {
    let start = Instant::now();
    let mut state = connected(vec![], start);
    let reason = "no gateway is running on /tmp/review-phase-two-0123456789/gatehouse.sock; start it with `gatehouse serve`";
    state.apply_update(disconnected(reason, Duration::from_millis(2_000), 3), start);
    let drawn = screen(&state, 80, 24, start);
    let joined = drawn.join("");
    let squeezed: String = joined.split_whitespace().collect();
    let wanted: String = reason.split_whitespace().collect();
    assert!(squeezed.contains(&wanted), "{drawn:#?}");
}

#[test]
fn at_80_by_24_the_key_bar_breaks_only_between_keys() {
    let start = Instant::now();
    for actions in [
        vec![Action::Once, Action::Deny],
        vec![Action::Once, Action::Deny, Action::Always],
    ] {
        let mut state = connected(vec![bash(FIRST, "make")], start);
        state.prompts[0].actions = actions;
        let drawn = screen(&state, 80, 24, settled(start));
        let bar = &drawn[20..22];
        for key in [
            "o allow once",
            "d deny",
            "r release to terminal",
            "PgUp/PgDn scroll",
            "q quit",
        ] {
            assert!(
                bar.iter().any(|line| line.contains(key)),
                "{key} whole: {bar:#?}"
            );
        }
        let quit_line = bar.iter().find(|line| line.contains("q quit")).unwrap();
        assert!(
            quit_line.contains("↑↓ move"),
            "q quit is not alone: {bar:#?}"
        );
    }
}

#[test]
fn a_long_prompt_that_cannot_be_approved_here_says_read_more_not_before_approving() {
    let start = Instant::now();
    let long = numbered_lines(30, |line| format!("line {line}"));
    let mut read_only = permission(FIRST, "Write", "notes.txt", vec![]);
    read_only.prompt.input = serde_json::json!({ "content": long });
    let state = connected(vec![read_only], start);
    let drawn = screen(&state, 80, 24, settled(start)).join("\n");
    assert!(drawn.contains("PgDn to read more"), "{drawn}");
    assert!(!drawn.contains("before approving"), "{drawn}");
}

#[test]
fn a_prompt_the_gateway_sent_cut_offers_gatehouse_show_not_o() {
    let start = Instant::now();
    let command = numbered_lines(41, |line| format!("echo step {line}"));
    let mut cut = bash(FIRST, &command);
    cut.cut = Some(gatehouse_core::CutNote {
        full_bytes: 2_000_000,
        digest: None,
    });
    let state = connected(vec![cut], start);
    let drawn = screen(&state, 80, 24, settled(start));
    let bar = drawn[20..22].join(" ");
    assert!(!bar.contains("o allow once"), "{bar}");
    assert!(bar.contains("gatehouse show"), "{bar}");
    assert!(bar.contains("d deny"), "{bar}");
    let title = drawn
        .iter()
        .find(|line| line.starts_with("┌ Detail"))
        .unwrap();
    assert!(!title.contains("before approving"), "{title}");
}

#[test]
fn after_a_resize_the_lines_are_read_again_before_approving() {
    let command = thirty_numbered_echoes();
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, &command)], start);
    let now = settled(start);
    for _ in 0..5 {
        let _ = screen(&state, 80, 24, now);
        press(&mut state, KeyCode::PageDown, now);
    }
    // At another width the lines may wrap differently: what was read at 80 columns does not count.
    let wider = screen(&state, 100, 24, now).join("\n");
    assert!(wider.contains("PgUp to read them"), "{wider}");
    assert_eq!(press(&mut state, KeyCode::Char('o'), now), Intent::Nothing);
    for _ in 0..5 {
        press(&mut state, KeyCode::PageUp, now);
        let _ = screen(&state, 100, 24, now);
    }
    for _ in 0..5 {
        press(&mut state, KeyCode::PageDown, now);
        let _ = screen(&state, 100, 24, now);
    }
    assert!(matches!(
        press(&mut state, KeyCode::Char('o'), now),
        Intent::Send(_)
    ));
}
