//! A notice says what is true now: it goes with the prompt it was about, on the next answer, or
//! after [`NOTICE_LIFETIME`]; an answer sent from here that the gateway took moves the cursor on.

use std::time::{Duration, Instant};

use gatehouse_core::PromptState;

use super::notices::NOTICE_LIFETIME;
use super::tests::{
    bash, connected, id, notice, press_key, resolved_once_by, rm_above_make, sent, settled,
    withdrawn, FIRST, SECOND, THIRD,
};
use super::*;

#[test]
fn a_refusal_about_a_prompt_goes_when_that_prompt_does() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make"), bash(SECOND, "ls")], start);
    // Pressed at once: the list had just changed, the key was ignored.
    assert_eq!(press_key(&mut state, 'o', start), Intent::Nothing);
    state.tick(start);
    assert!(notice(&state).contains("was ignored"), "{}", notice(&state));
    state.apply_update(withdrawn(FIRST), settled(start));
    assert!(
        matches!(state.selection, Selection::Vanished(_)),
        "{:?}",
        state.selection
    );
    assert_eq!(
        notice(&state),
        "",
        "the refusal was about the prompt now gone"
    );
}

#[test]
fn a_notice_goes_after_its_lifetime_but_not_while_its_answer_is_on_its_way() {
    let start = Instant::now();
    let mut state = connected(vec![bash(FIRST, "make")], start);
    let pressed = settled(start);
    let command = sent(press_key(&mut state, 'o', pressed));
    state.tick(pressed);
    assert!(
        notice(&state).starts_with("Sending allow once"),
        "{}",
        notice(&state)
    );
    state.tick(pressed + NOTICE_LIFETIME * 2);
    assert!(
        notice(&state).starts_with("Sending allow once"),
        "still true while no reply came: {}",
        notice(&state)
    );
    let replied = pressed + NOTICE_LIFETIME * 2;
    state.apply_update(
        GatewayUpdate::CommandFinished {
            command,
            result: Ok(PromptState::Resolved),
        },
        replied,
    );
    state.tick(replied);
    assert_eq!(notice(&state), "Allowed once: make");
    state.tick(replied + NOTICE_LIFETIME - Duration::from_millis(1));
    assert_eq!(notice(&state), "Allowed once: make");
    state.tick(replied + NOTICE_LIFETIME);
    assert_eq!(notice(&state), "", "gone after {NOTICE_LIFETIME:?}");
}

#[test]
fn how_a_prompt_ended_goes_when_the_next_one_is_answered() {
    let start = Instant::now();
    let mut state = connected(
        vec![bash(FIRST, "make"), bash(SECOND, "ls"), bash(THIRD, "pwd")],
        start,
    );
    let command = sent(press_key(&mut state, 'o', settled(start)));
    let answered = settled(start);
    state.apply_update(resolved_once_by(FIRST, "gatehouse-console"), answered);
    state.apply_update(
        GatewayUpdate::CommandFinished {
            command,
            result: Ok(PromptState::Resolved),
        },
        answered,
    );
    // Its own later steps keep it.
    state.apply_update(resolved_once_by(FIRST, "gatehouse-console"), answered);
    assert_eq!(notice(&state), "Allowed once: make");
    state.apply_update(resolved_once_by(THIRD, "web: phone"), answered);
    assert_eq!(notice(&state), "", "another answer came since");
}

#[test]
fn a_reply_after_a_snapshot_dropped_the_answered_prompt_moves_the_cursor_on() {
    let start = Instant::now();
    let mut state = rm_above_make(start);
    let command = sent(press_key(&mut state, 'o', settled(start)));
    // A subscriber that fell behind gets a fresh list, which says nothing of how it ended.
    state.apply_update(
        GatewayUpdate::Snapshot {
            prompts: vec![bash(SECOND, "make")],
        },
        settled(start),
    );
    state.apply_update(
        GatewayUpdate::CommandFinished {
            command,
            result: Ok(PromptState::Resolved),
        },
        settled(start),
    );
    assert_eq!(
        state.selected_id(),
        Some(id(SECOND)),
        "on the next pending one"
    );
    assert_eq!(notice(&state), "Allowed once: rm -rf build");
}
