//! `A` (always, for the session, by the agent's first suggestion) and `t` (go to the agent's
//! tmux pane, only in the console's own tmux server).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gatehouse_core::{AlwaysScope, Answer, Suggestion, TerminalLocation};

use super::tests::{connected, with_always, FIRST};
use super::*;

fn with_extras() -> gatehouse_core::Prompt {
    let mut prompt = with_always(FIRST, "Bash", "npm test");
    prompt.prompt.extra.suggestions = vec![Suggestion {
        id: "s1".into(),
        summary: "allow exactly `npm test`".into(),
        allows: Vec::new(),
        scopes: Vec::new(),
        native: serde_json::json!({}),
    }];
    prompt.prompt.extra.terminal = Some(TerminalLocation {
        tmux_socket: "/tmp/tmux-1000/default".into(),
        tmux_pane: "%5".into(),
        tmux_window: String::new(),
        pid: None,
    });
    prompt
}

fn press(state: &mut ConsoleState, character: char, now: Instant) -> Intent {
    state.handle_key(
        KeyEvent::new(KeyCode::Char(character), KeyModifiers::SHIFT),
        now,
    )
}

/// Presses `A` on the settled console showing `prompt`, and says what it sends.
fn shift_a_sends(prompt: gatehouse_core::Prompt) -> GatewayRequest {
    let start = Instant::now();
    let mut state = connected(vec![prompt], start);
    let now = start + SETTLE_TIME * 2;
    let Intent::Send(command) = press(&mut state, 'A', now) else {
        panic!("{:?}", state.notice)
    };
    command.request
}

#[test]
fn shift_a_allows_always_for_the_session_by_the_first_suggestion() {
    assert_eq!(
        shift_a_sends(with_extras()),
        GatewayRequest::Answer(Answer::Always {
            suggestion: Some("s1".into()),
            scope: AlwaysScope::Session
        })
    );
}

#[test]
fn shift_a_uses_the_suggestions_own_scope_when_it_cannot_be_kept_for_the_session() {
    let mut prompt = with_extras();
    prompt.prompt.extra.suggestions[0].scopes = vec![AlwaysScope::User];
    assert_eq!(
        shift_a_sends(prompt),
        GatewayRequest::Answer(Answer::Always {
            suggestion: Some("s1".into()),
            scope: AlwaysScope::User
        })
    );
}

#[test]
fn t_switches_only_within_the_consoles_own_tmux_server() {
    let start = Instant::now();
    let mut state = connected(vec![with_extras()], start);
    let now = start + SETTLE_TIME * 2;
    assert_eq!(press(&mut state, 't', now), Intent::Nothing);
    assert!(
        state
            .notice
            .as_ref()
            .is_some_and(|notice| notice.text.contains("tmux default %5")),
        "{:?}",
        state.notice
    );
    state.own_tmux_socket = Some("/tmp/tmux-1000/default".into());
    assert_eq!(
        press(&mut state, 't', now),
        Intent::SwitchPane {
            socket: "/tmp/tmux-1000/default".into(),
            pane: "%5".into()
        }
    );
}
