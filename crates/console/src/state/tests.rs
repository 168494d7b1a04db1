//! The console's rules, driven key by key with a clock the tests hold.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gatehouse_core::{
    Action, AdapterCapabilities, Answer, DecisionId, Event, NewPrompt, Prompt, PromptKind,
    PromptState, Question, QuestionOption, QuestionResponse, Timestamp,
};

use super::*;

pub const FIRST: &str = "01a22a7c-7184-7520-bb65-4d44b4eba601";
pub const SECOND: &str = "01a22a7c-7184-7520-bb65-4d44b4eba602";
pub const THIRD: &str = "01a22a7c-7184-7520-bb65-4d44b4eba603";

pub fn id(text: &str) -> DecisionId {
    text.parse().unwrap()
}

pub fn permission(decision: &str, tool: &str, summary: &str, actions: Vec<Action>) -> Prompt {
    Prompt {
        id: id(decision),
        short_id: String::new(),
        prompt: NewPrompt {
            adapter: "claude".into(),
            session: "53b38252-9e2a-4e43-a58d-649c4916b5cd".into(),
            cwd: "/home/dev/project".into(),
            kind: PromptKind::Permission,
            tool: tool.into(),
            input: serde_json::json!({ "command": summary, "description": "a test command" }),
            summary: summary.into(),
            questions: vec![],
            correlation: String::new(),
            // The gateway says why for every read-only prompt.
            read_only_reason: actions.is_empty().then(|| {
                format!("Claude Code offers no verified action for permission prompts of {tool}")
            }),
            host: String::new(),
            extra: Default::default(),
        },
        origin: gatehouse_core::Origin::Local,
        actions,
        state: PromptState::Pending,
        created_at: Timestamp(1_796_008_400_000),
        held_since: Timestamp(1_796_008_400_000),
        cut: None,
        hold_ends_at: None,
        after_hold: None,
    }
}

/// The extras of an edit of `e.txt` in a tmux pane `%5` of the `default` server, in `window`
/// (empty when unknown): its diff (with an escape sequence) and Claude's "accept edits" for the
/// session.
pub fn edit_extras(window: &str) -> gatehouse_core::PromptExtra {
    gatehouse_core::PromptExtra {
        preview: Some(gatehouse_core::Preview {
            format: gatehouse_core::PreviewFormat::Diff,
            title: "e.txt (edit)".into(),
            text: "--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-alpha\n+beta\x1b[2J\n".into(),
            incomplete: None,
        }),
        suggestions: vec![gatehouse_core::Suggestion {
            id: "s1".into(),
            summary: "accept edits (every file edit, for the rest of the session)".into(),
            allows: Vec::new(),
            scopes: vec![gatehouse_core::AlwaysScope::Session],
            native: serde_json::json!({}),
        }],
        terminal: Some(gatehouse_core::TerminalLocation {
            tmux_socket: "/tmp/tmux-1000/default".into(),
            tmux_pane: "%5".into(),
            tmux_window: window.into(),
            pid: Some(17761),
        }),
    }
}

/// A prompt that may be answered once, denied or allowed always.
pub fn with_always(decision: &str, tool: &str, summary: &str) -> Prompt {
    permission(
        decision,
        tool,
        summary,
        vec![Action::Once, Action::Deny, Action::Always],
    )
}

pub fn bash(decision: &str, command: &str) -> Prompt {
    permission(decision, "Bash", command, vec![Action::Once, Action::Deny])
}

pub fn question(decision: &str) -> Prompt {
    let mut prompt = permission(
        decision,
        "AskUserQuestion",
        "Which toppings?",
        vec![Action::Answer],
    );
    prompt.prompt.kind = PromptKind::Question;
    prompt.prompt.input = serde_json::json!({});
    let option = |label: &str, description: &str| QuestionOption {
        label: label.into(),
        description: description.into(),
    };
    prompt.prompt.questions = vec![
        Question {
            id: "q1".into(),
            text: "Which toppings?".into(),
            header: "Toppings".into(),
            multi: true,
            options: vec![
                option("Cheese", "melted"),
                option("Olives", ""),
                option("Basil", "fresh"),
            ],
        },
        Question {
            id: "q2".into(),
            text: "Which crust?".into(),
            header: "Crust".into(),
            multi: false,
            options: vec![option("Thin", ""), option("Thick", "")],
        },
    ];
    prompt
}

/// Claude Code with the toy agent's flags: `once` and `deny`, verified, for its Bash prompts.
pub fn claude_capabilities() -> AdapterCapabilities {
    AdapterCapabilities {
        adapter: "claude".into(),
        name: "Claude Code".into(),
        ..gatehouse_core::testing::toy_capabilities()
    }
}

/// A console connected at `start` with `prompts` pending, past the settle time of that arrival.
pub fn connected(prompts: Vec<Prompt>, start: Instant) -> ConsoleState {
    let mut state = ConsoleState::default();
    let update = GatewayUpdate::Connected {
        server: "gatehouse 0.1.0".into(),
        adapters: vec![claude_capabilities()],
        snapshot: prompts,
    };
    state.apply_update(update, start);
    state
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Presses each of `codes` in turn at `now`, whatever each one does.
pub fn press(state: &mut ConsoleState, codes: &[KeyCode], now: Instant) {
    for code in codes {
        state.handle_key(key(*code), now);
    }
}

/// What the open answer form has chosen among the options of question `index`.
fn chosen(state: &ConsoleState, index: usize) -> Vec<bool> {
    let Mode::Answering(form) = &state.mode else {
        panic!("the form is open")
    };
    form.drafts[index].chosen.clone()
}

/// A person presses the key `character` at `now`.
pub fn press_key(state: &mut ConsoleState, character: char, now: Instant) -> Intent {
    state.handle_key(key(KeyCode::Char(character)), now)
}

fn type_text(state: &mut ConsoleState, text: &str, now: Instant) {
    for character in text.chars() {
        assert_eq!(
            state.handle_key(key(KeyCode::Char(character)), now),
            Intent::Nothing
        );
    }
}

/// When the state tests' prompts are withdrawn: ten seconds after they arrived.
const WITHDRAWN_AT: Timestamp = Timestamp(1_796_008_410_000);

pub fn withdrawn(decision: &str) -> GatewayUpdate {
    withdrawn_at(decision, WITHDRAWN_AT)
}

/// A console with `rm -rf build` (FIRST) selected above `make` (SECOND), connected at `start`.
pub fn rm_above_make(start: Instant) -> ConsoleState {
    connected(
        vec![bash(FIRST, "rm -rf build"), bash(SECOND, "make")],
        start,
    )
}

/// [`rm_above_make`] once `rm -rf build` was withdrawn at `at` (arriving just settled).
pub fn rm_gone_above_make(start: Instant, at: Timestamp) -> ConsoleState {
    let mut state = rm_above_make(start);
    state.apply_update(withdrawn_at(FIRST, at), settled(start));
    state
}

/// Prompt `decision` was answered in the terminal at `at`.
pub fn withdrawn_at(decision: &str, at: Timestamp) -> GatewayUpdate {
    GatewayUpdate::Event(Box::new(Event::Changed {
        id: id(decision),
        state: PromptState::Withdrawn,
        at,
        by: None,
        action: None,
        reason: Some("answered in the terminal".into()),
    }))
}

/// The gateway went away for `reason`; the console tries again in `retry_in`, for the
/// `attempt`th time.
pub fn disconnected(reason: &str, retry_in: Duration, attempt: u32) -> GatewayUpdate {
    GatewayUpdate::Disconnected {
        reason: reason.into(),
        retry_in,
        attempt,
    }
}

pub fn added(prompt: Prompt) -> GatewayUpdate {
    GatewayUpdate::Event(Box::new(Event::Added { prompt }))
}

/// Just past the settle time of what arrived at `start`: keys count again.
pub fn settled(start: Instant) -> Instant {
    start + SETTLE_TIME + Duration::from_millis(1)
}

/// Asserts that `shown` (a line, a table, a drawn screen) holds no character that would act on
/// a terminal: escape, bell, carriage return, CSI, delete, or a right-to-left override.
pub fn assert_inert(shown: &str) {
    for forbidden in ['\x1b', '\x07', '\r', '\u{202e}', '\u{9b}', '\u{7f}'] {
        assert!(
            !shown.contains(forbidden),
            "{forbidden:?} reached what is shown:\n{shown}"
        );
    }
}

/// `count` lines, each made by `line` from its number (1 up), joined by newlines.
pub fn numbered_lines(count: usize, line: impl Fn(usize) -> String) -> String {
    (1..=count).map(line).collect::<Vec<_>>().join("\n")
}

pub fn sent(intent: Intent) -> GatewayCommand {
    match intent {
        Intent::Send(command) => command,
        other => panic!("expected a command, got {other:?}"),
    }
}

/// The notice shown says `words` (among others).
fn assert_notice_says(state: &ConsoleState, words: &str) {
    let notice = notice(state);
    assert!(notice.contains(words), "{notice}");
}

pub fn notice(state: &ConsoleState) -> String {
    state
        .notice
        .as_ref()
        .map(|notice| notice.text.clone())
        .unwrap_or_default()
}

#[test]
fn once_names_the_decision_id_of_the_selected_prompt() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make"), bash(SECOND, "make clean")], start);
    state.handle_key(key(KeyCode::Down), settled(start));
    let command = sent(press_key(&mut state, 'o', settled(start)));
    assert_eq!(
        command,
        GatewayCommand {
            id: id(SECOND),
            request: GatewayRequest::Answer(Answer::Once),
            summary: "make clean".into()
        }
    );
    assert_eq!(
        press_key(&mut state, 'o', settled(start)),
        Intent::Nothing,
        "one answer at a time"
    );
    assert_notice_says(&state, "already on its way");
}

#[test]
fn a_key_right_after_a_prompt_appears_under_the_cursor_is_ignored_and_asked_again() {
    let start = Instant::now();
    let mut state = connected(vec![], start);
    let arrival = settled(start);
    state.apply_update(added(bash(FIRST, "rm -rf build")), arrival);
    assert_eq!(
        state.selected_id(),
        Some(id(FIRST)),
        "the first prompt is selected as it arrives"
    );
    assert_eq!(
        press_key(&mut state, 'o', arrival + Duration::from_millis(100)),
        Intent::Nothing
    );
    assert_notice_says(&state, "just changed");
    // The refused key started the wait again.
    assert_eq!(
        press_key(&mut state, 'o', settled(arrival)),
        Intent::Nothing
    );
    let last_press = settled(arrival);
    assert_eq!(
        sent(press_key(&mut state, 'o', settled(last_press))).id,
        id(FIRST)
    );
}

#[test]
fn a_prompt_vanishing_above_the_cursor_makes_keys_wait_but_one_arriving_below_does_not() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "ls"), bash(SECOND, "make")], start);
    state.handle_key(key(KeyCode::Down), settled(start));
    let arrival = settled(start);
    state.apply_update(added(bash(THIRD, "make install")), arrival);
    assert_eq!(
        sent(press_key(&mut state, 'o', arrival)).id,
        id(SECOND),
        "a row below the cursor changes nothing read"
    );

    let mut state = connected(vec![bash(FIRST, "ls"), bash(SECOND, "make")], start);
    state.handle_key(key(KeyCode::Down), settled(start));
    let vanishing = settled(start);
    state.apply_update(withdrawn(FIRST), vanishing);
    assert_eq!(
        state.selected_id(),
        Some(id(SECOND)),
        "the cursor stays on the same prompt"
    );
    assert_eq!(
        press_key(&mut state, 'd', vanishing + Duration::from_millis(700)),
        Intent::Nothing
    );
    assert_eq!(state.mode, Mode::Browsing, "deny was not started");
    assert_notice_says(&state, "just changed");
}

#[test]
fn a_snapshot_that_reorders_the_rows_above_the_cursor_makes_keys_wait() {
    let start = Instant::now();
    let mut state = connected(vec![bash(SECOND, "make"), bash(THIRD, "make test")], start);
    state.handle_key(key(KeyCode::Down), settled(start));
    let now = settled(start);
    state.apply_update(
        GatewayUpdate::Snapshot {
            prompts: vec![
                bash(FIRST, "ls"),
                bash(SECOND, "make"),
                bash(THIRD, "make test"),
            ],
        },
        now,
    );
    assert_eq!(state.selected_id(), Some(id(THIRD)));
    assert!(state.is_settling(now));
    assert_eq!(press_key(&mut state, 'o', now), Intent::Nothing);
}

#[test]
fn a_vanished_prompt_stays_selected_and_refuses_every_action() {
    let start = Instant::now();
    let mut state = rm_gone_above_make(start, WITHDRAWN_AT);
    let Selection::Vanished(vanished) = &state.selection else {
        panic!("the selection is marked gone: {:?}", state.selection)
    };
    assert_eq!(
        (vanished.prompt.id, vanished.state),
        (id(FIRST), Some(PromptState::Withdrawn))
    );
    assert_eq!(vanished.reason, "withdrawn, answered in the terminal");
    let long_after = settled(settled(start));
    for action_key in ['o', 'd', 'a', 'r'] {
        assert_eq!(
            state.handle_key(key(KeyCode::Char(action_key)), long_after),
            Intent::Nothing
        );
        assert!(
            notice(&state).contains("has gone"),
            "{action_key}: {}",
            notice(&state)
        );
        assert_eq!(state.mode, Mode::Browsing);
    }
    assert!(state.available_actions().is_empty());
    state.handle_key(key(KeyCode::Down), long_after);
    assert_eq!(
        state.selection,
        Selection::Pending(id(SECOND)),
        "moving on forgets the gone prompt"
    );
    assert_eq!(state.rows().len(), 1);
}

#[test]
fn a_deny_message_for_a_prompt_that_went_meanwhile_is_not_sent_and_typing_stays_in_the_editor() {
    let start = Instant::now();
    let mut state = rm_above_make(start);
    press_key(&mut state, 'd', settled(start));
    type_text(&mut state, "no", settled(start));
    state.apply_update(withdrawn(FIRST), settled(start));
    type_text(&mut state, " jo", settled(start));
    assert_eq!(
        state.mode,
        Mode::DenyMessage {
            id: id(FIRST),
            message: "no jo".into()
        },
        "keys still land in the message"
    );
    assert_eq!(
        state.handle_key(key(KeyCode::Enter), settled(start)),
        Intent::Nothing
    );
    assert_notice_says(&state, "has gone");
    assert_eq!(state.prompts.len(), 1);
}

#[test]
fn a_read_only_prompt_has_no_actions_and_no_key_sends_anything() {
    let start = Instant::now();
    let mut write = permission(FIRST, "Write", "/home/dev/project/notes.txt", vec![]);
    write.prompt.input =
        serde_json::json!({ "file_path": "/home/dev/project/notes.txt", "content": "hello\n" });
    let mut state = connected(vec![write.clone()], start);
    assert!(state.available_actions().is_empty());
    for action_key in [
        KeyCode::Char('o'),
        KeyCode::Char('d'),
        KeyCode::Char('a'),
        KeyCode::Enter,
        KeyCode::Char('r'),
    ] {
        assert_eq!(
            state.handle_key(key(action_key), settled(start)),
            Intent::Nothing
        );
        assert_eq!(state.mode, Mode::Browsing);
        assert_notice_says(&state, "answer it in the agent's terminal");
    }
    assert_eq!(
        state.read_only_reason(&write),
        "Claude Code offers no verified action for permission prompts of Write"
    );
    write.prompt.read_only_reason = Some("the adapter's own reason".into());
    assert_eq!(state.read_only_reason(&write), "the adapter's own reason");
    // The console says where to answer; the gateway's closing advice is not said twice.
    write.prompt.read_only_reason = Some(
        "it is only watched: no hook waits to deliver an answer; answer it in the agent's terminal"
            .into(),
    );
    assert_eq!(
        state.read_only_reason(&write),
        "it is only watched: no hook waits to deliver an answer"
    );
}

#[test]
fn only_the_actions_a_prompt_offers_have_an_effect() {
    let start = Instant::now();
    let mut state = connected(
        vec![permission(FIRST, "Bash", "make", vec![Action::Deny])],
        start,
    );
    assert_eq!(press_key(&mut state, 'o', settled(start)), Intent::Nothing);
    assert_notice_says(&state, "does not offer allow once");
    press_key(&mut state, 'd', settled(start));
    assert!(matches!(state.mode, Mode::DenyMessage { .. }));
}

#[test]
fn deny_takes_an_optional_typed_message() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make clean"), bash(SECOND, "make")], start);
    press_key(&mut state, 'd', settled(start));
    type_text(&mut state, "use make distcleanx", settled(start));
    state.handle_key(key(KeyCode::Backspace), settled(start));
    let command = sent(state.handle_key(key(KeyCode::Enter), settled(start)));
    assert_eq!(command.id, id(FIRST));
    assert_eq!(
        command.request,
        GatewayRequest::Answer(Answer::Deny {
            message: Some("use make distclean".into())
        })
    );

    state.handle_key(key(KeyCode::Down), settled(start));
    press_key(&mut state, 'd', settled(start));
    type_text(&mut state, "  ", settled(start));
    assert_eq!(
        sent(state.handle_key(key(KeyCode::Enter), settled(start))).request,
        GatewayRequest::Answer(Answer::Deny { message: None })
    );
}

#[test]
fn escape_cancels_a_deny_without_sending() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make clean")], start);
    press_key(&mut state, 'd', settled(start));
    type_text(&mut state, "q", settled(start));
    assert_eq!(
        state.handle_key(key(KeyCode::Esc), settled(start)),
        Intent::Nothing,
        "q while typing is text, Esc cancels"
    );
    assert_eq!(state.mode, Mode::Browsing);
    assert_notice_says(&state, "nothing was sent");
}

#[test]
fn multi_select_options_toggle_and_a_single_choice_takes_one() {
    let start = Instant::now();
    let mut state = connected(vec![question(FIRST)], start);
    let now = settled(start);
    press_key(&mut state, 'a', now);
    press(
        &mut state,
        &[
            KeyCode::Char(' '),
            KeyCode::Down,
            KeyCode::Char(' '),
            KeyCode::Down,
            KeyCode::Char(' '),
            KeyCode::Up,
            KeyCode::Char(' '),
        ],
        now,
    );
    assert_eq!(
        chosen(&state, 0),
        [true, false, true],
        "Olives was toggled on and off again"
    );
    assert_eq!(state.handle_key(key(KeyCode::Enter), now), Intent::Nothing);
    assert_notice_says(&state, "\"Which crust?\" has no answer yet");
    press(
        &mut state,
        &[
            KeyCode::Tab,
            KeyCode::Char(' '),
            KeyCode::Down,
            KeyCode::Char(' '),
        ],
        now,
    );
    assert_eq!(
        chosen(&state, 1),
        [false, true],
        "a single choice replaces the previous one"
    );
    let command = sent(state.handle_key(key(KeyCode::Enter), now));
    assert_eq!(command.id, id(FIRST));
    assert_eq!(
        command.request,
        GatewayRequest::Answer(Answer::Answer {
            responses: vec![
                QuestionResponse {
                    question: "q1".into(),
                    picks: vec!["Cheese".into(), "Basil".into()],
                    text: None
                },
                QuestionResponse {
                    question: "q2".into(),
                    picks: vec!["Thick".into()],
                    text: None
                },
            ]
        })
    );
    assert_eq!(state.mode, Mode::Browsing);
}

#[test]
fn enter_picks_the_option_under_the_cursor_as_the_agents_dialog_does() {
    let start = Instant::now();
    let mut state = connected(vec![question(FIRST)], start);
    let now = settled(start);
    state.handle_key(key(KeyCode::Enter), now);
    // The multi-select question has no answer yet: Enter picks Olives and moves on to the
    // crust, which has none either.
    press(&mut state, &[KeyCode::Down, KeyCode::Enter], now);
    assert_eq!(chosen(&state, 0), [false, true, false]);
    assert_notice_says(&state, "\"Which crust?\" has no answer yet");
    // On the single-choice question, Enter picks the option under the cursor and sends.
    press(&mut state, &[KeyCode::Down], now);
    let command = sent(state.handle_key(key(KeyCode::Enter), now));
    assert_eq!(
        command.request,
        GatewayRequest::Answer(Answer::Answer {
            responses: vec![
                QuestionResponse {
                    question: "q1".into(),
                    picks: vec!["Olives".into()],
                    text: None
                },
                QuestionResponse {
                    question: "q2".into(),
                    picks: vec!["Thick".into()],
                    text: None
                },
            ]
        })
    );
}

#[test]
fn free_text_is_typed_on_the_last_row_and_replaces_a_single_choice() {
    let start = Instant::now();
    let mut state = connected(vec![question(FIRST)], start);
    let now = settled(start);
    state.handle_key(key(KeyCode::Enter), now);
    press(&mut state, &[KeyCode::Down; 4], now);
    type_text(&mut state, "anchovies ", now);
    press(
        &mut state,
        &[
            KeyCode::Tab,
            KeyCode::Char(' '),
            KeyCode::Down,
            KeyCode::Down,
        ],
        now,
    );
    type_text(&mut state, "stuffedx", now);
    state.handle_key(key(KeyCode::Backspace), now);
    let command = sent(state.handle_key(key(KeyCode::Enter), now));
    assert_eq!(
        command.request,
        GatewayRequest::Answer(Answer::Answer {
            responses: vec![
                QuestionResponse {
                    question: "q1".into(),
                    picks: vec![],
                    text: Some("anchovies".into())
                },
                QuestionResponse {
                    question: "q2".into(),
                    picks: vec![],
                    text: Some("stuffed".into())
                },
            ]
        }),
        "typing clears the single choice made before"
    );
}

#[test]
fn nothing_is_sent_while_the_gateway_is_gone_and_its_prompts_are_marked_gone() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make")], start);
    state.apply_update(
        disconnected(
            "the gateway closed the connection",
            Duration::from_secs(1),
            1,
        ),
        settled(start),
    );
    assert!(matches!(
        state.connection,
        ConnectionState::Gone { attempt: 1, .. }
    ));
    assert!(state.prompts.is_empty());
    assert_eq!(
        press_key(&mut state, 'o', settled(settled(start))),
        Intent::Nothing
    );
    assert_notice_says(&state, "the gateway went away");

    let reconnected = settled(settled(start));
    state.apply_update(
        GatewayUpdate::Connected {
            server: "gatehouse 0.1.0".into(),
            adapters: vec![],
            snapshot: vec![bash(SECOND, "make again")],
        },
        reconnected,
    );
    assert!(matches!(
        state.connection,
        ConnectionState::Connected { .. }
    ));
    assert_eq!(
        state.rows().len(),
        2,
        "the fresh snapshot, with the gone prompt still under the cursor"
    );
    state.handle_key(key(KeyCode::Down), reconnected);
    assert_eq!(state.selected_id(), Some(id(SECOND)));
}

#[test]
fn the_gateway_reply_is_shown_in_words() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make")], start);
    let command = sent(press_key(&mut state, 'o', settled(start)));
    let refusal =
        "prompt 01a22a7c-7184-7520-bb65-4d44b4eba601 is no longer pending: it is withdrawn"
            .to_owned();
    state.apply_update(
        GatewayUpdate::CommandFinished {
            command: command.clone(),
            result: Err(refusal.clone()),
        },
        settled(start),
    );
    assert_eq!(
        notice(&state),
        format!("The gateway refused allow once: {refusal}")
    );
    assert_eq!(state.notice.as_ref().unwrap().tone, Tone::Error);
    assert!(state.awaiting_reply.is_empty());
    state.apply_update(
        GatewayUpdate::CommandFinished {
            command,
            result: Ok(PromptState::Resolved),
        },
        settled(start),
    );
    assert_eq!(notice(&state), "Allowed once: make");
}

/// The gateway resolved prompt `decision` with `once`, as answered by `by`.
pub fn resolved_once_by(decision: &str, by: &str) -> GatewayUpdate {
    GatewayUpdate::Event(Box::new(Event::Changed {
        id: id(decision),
        state: PromptState::Resolved,
        at: Timestamp(0),
        by: Some(by.into()),
        action: Some(Action::Once),
        reason: None,
    }))
}

#[test]
fn an_answer_sent_from_here_moves_the_cursor_to_the_next_pending_prompt_which_settles_first() {
    let start = Instant::now();
    let mut state = connected(
        vec![
            bash(FIRST, "make"),
            bash(SECOND, "rm -rf build"),
            bash(THIRD, "ls"),
        ],
        start,
    );
    state.handle_key(key(KeyCode::Down), settled(start));
    sent(press_key(&mut state, 'o', settled(start)));
    let answered = settled(settled(start));
    state.apply_update(resolved_once_by(SECOND, "gatehouse-console"), answered);
    assert_eq!(state.selected_id(), Some(id(THIRD)), "not the answered one");
    // A second press of the same key, a moment later, does not answer the prompt that moved
    // under the cursor, and neither does one pressed again and again.
    assert_eq!(press_key(&mut state, 'o', answered), Intent::Nothing);
    assert_notice_says(&state, "changed under the cursor");
    let mut pressed = answered;
    for _ in 0..10 {
        pressed += SETTLE_TIME / 2;
        assert_eq!(press_key(&mut state, 'o', pressed), Intent::Nothing);
    }
    let answered = pressed;
    // The last prompt answered moves the cursor back to the one before it.
    sent(press_key(&mut state, 'o', settled(answered)));
    state.apply_update(
        resolved_once_by(THIRD, "gatehouse-console"),
        settled(answered),
    );
    assert_eq!(state.selected_id(), Some(id(FIRST)));
}

#[test]
fn a_prompt_answered_elsewhere_stays_selected_as_answered_not_gone() {
    let start = Instant::now();
    let mut state = rm_above_make(start);
    state.apply_update(resolved_once_by(FIRST, "web: phone"), settled(start));
    let Selection::Vanished(vanished) = &state.selection else {
        panic!("it stays selected: {:?}", state.selection)
    };
    assert!(vanished.has_verdict());
    assert_eq!(
        press_key(&mut state, 'o', settled(settled(start))),
        Intent::Nothing
    );
    assert_notice_says(
        &state,
        "That prompt was answered (resolved: allow once by web: phone)",
    );
}

#[test]
fn the_vanished_selection_tells_the_whole_story_of_an_answer() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make")], start);
    let change = |state: PromptState, by: Option<&str>, action: Option<Action>| {
        GatewayUpdate::Event(Box::new(Event::Changed {
            id: id(FIRST),
            state,
            at: Timestamp(0),
            by: by.map(str::to_owned),
            action,
            reason: None,
        }))
    };
    state.apply_update(
        change(
            PromptState::Resolved,
            Some("gatehouse-console"),
            Some(Action::Once),
        ),
        settled(start),
    );
    state.apply_update(change(PromptState::Delivered, None, None), settled(start));
    let Selection::Vanished(vanished) = &state.selection else {
        panic!("gone")
    };
    assert_eq!(
        vanished.reason,
        "resolved: allow once by gatehouse-console, then delivered"
    );
}

#[test]
fn only_new_actionable_prompts_raise_alerts() {
    let start = Instant::now();
    let mut state = connected(vec![], start);
    let alerts = state.apply_update(added(bash(FIRST, "make")), start);
    assert_eq!(
        alerts,
        [Alert {
            title: "claude asks: Bash".into(),
            body: "make\n/home/dev/project".into()
        }]
    );
    assert!(state
        .apply_update(
            added(permission(SECOND, "Write", "notes.txt", vec![])),
            start
        )
        .is_empty());
}

#[test]
fn quitting_works_from_browsing_and_ctrl_c_from_anywhere() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make")], start);
    assert_eq!(press_key(&mut state, 'q', start), Intent::Quit);
    press_key(&mut state, 'd', settled(start));
    assert_eq!(
        state.handle_key(
            KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
            start
        ),
        Intent::Quit
    );
}

#[test]
fn alerts_and_notices_show_control_characters_as_escapes() {
    let start = Instant::now();
    let mut state = connected(vec![], start);
    let hostile = "make\x1b[8m\rrm -rf ~\u{202e}";
    let alerts = state.apply_update(added(bash(FIRST, hostile)), start);
    assert_eq!(
        alerts[0].body,
        "make\\e[8m\\rrm -rf ~\\u{202e}\n/home/dev/project"
    );
    assert_eq!(
        short("one\x1b]0;pwned\x07\r\nmore"),
        "one\\e]0;pwned\\u{7}\\r…"
    );
    assert_eq!(short(&"x".repeat(80)), format!("{}…", "x".repeat(59)));
    assert_eq!(short("fits"), "fits");
}
