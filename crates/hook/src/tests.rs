//! The hook's steps in-process: a toy agent's event read with the hook's bounds, held by a real
//! gateway on a Unix socket, answered there, and printed only as the hook's own adapter offers
//! it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_core::testing::{toy_bash, toy_capabilities, TOY};
use gatehouse_core::{
    Action, Adapter, AdapterCapabilities, Answer, HoldMode, HookEvent, NewPrompt, ParseError,
    PromptState, Verdict,
};

use crate::deliver::{deliver, Holding};
use crate::input::{read_event, MAX_EVENT_BYTES};
use crate::testing::GatewayOnSocket;
use crate::HookFailure;

/// A toy agent: its event is `{"command": "..."}`, held until an outcome; its verdict is printed
/// as `toy:ACTION`; it delivers `delivers` only.
struct ToyAgent {
    delivers: Vec<Action>,
}

impl Adapter for ToyAgent {
    fn id(&self) -> &'static str {
        TOY
    }

    fn name(&self) -> &'static str {
        "Toy Agent"
    }

    fn capabilities(&self) -> AdapterCapabilities {
        toy_capabilities()
    }

    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        let event: serde_json::Value = serde_json::from_slice(stdin)
            .map_err(|error| ParseError::NotJson(error.to_string()))?;
        let command = event["command"].as_str().unwrap_or_default();
        Ok(HookEvent::Prompt {
            prompt: toy_bash(command),
            hold: HoldMode::UntilOutcome,
        })
    }

    fn render_verdict(&self, _prompt: &NewPrompt, verdict: &Verdict) -> String {
        format!("toy:{}", verdict.0.action())
    }

    fn deliverable_actions(&self, _prompt: &NewPrompt) -> Vec<Action> {
        self.delivers.clone()
    }
}

/// What the hook printed, in order.
#[derive(Clone, Default)]
struct Printed(Arc<Mutex<Vec<String>>>);

impl Printed {
    fn print(&self) -> impl Fn(&str) -> std::io::Result<bool> + '_ {
        |text| {
            self.0.lock().unwrap().push(text.to_owned());
            Ok(true)
        }
    }

    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// Runs the toy agent's hook on `{"command": "make"}` against a gateway on a socket while a
/// front end answers the prompt it holds with `answer`; returns the hook's result and the
/// prompt's final state.
fn hold_and_answer(
    agent: ToyAgent,
    answer: Answer,
    printed: &Printed,
) -> (Result<(), HookFailure>, PromptState) {
    let gateway = GatewayOnSocket::start();
    let answering = gateway.answer_each_prompt(answer);
    let read = read_event(&agent, None, br#"{"command": "make"}"#.as_slice()).unwrap();
    let print = printed.print();
    let holding = Holding {
        registration_budget: None,
        notice: |_| {},
    };
    let hold_until = || crate::clock::Deadline::after(Duration::from_secs(600));
    let result = deliver(&agent, read, gateway.at(), holding, hold_until, &print);
    let state = gateway.runtime.block_on(answering).unwrap();
    (result, state)
}

#[test]
fn an_answer_from_a_front_end_is_printed_once_in_the_agents_format_and_confirmed() {
    let printed = Printed::default();
    let agent = ToyAgent {
        delivers: vec![Action::Once, Action::Deny],
    };
    let (result, state) = hold_and_answer(agent, Answer::Once, &printed);
    result.unwrap();
    assert_eq!(printed.lines(), ["toy:once"]);
    assert_eq!(state, PromptState::Delivered);
}

#[test]
fn a_verdict_the_hooks_own_adapter_does_not_offer_is_never_printed() {
    // The gateway offers `once` (its record says so); this hook's adapter delivers `deny` only,
    // as a hook of another agent version would: nothing is printed, the gateway is told.
    let printed = Printed::default();
    let agent = ToyAgent {
        delivers: vec![Action::Deny],
    };
    let (result, state) = hold_and_answer(agent, Answer::Once, &printed);
    assert!(
        matches!(
            result,
            Err(HookFailure::NotOffered {
                action: Action::Once,
                ..
            })
        ),
        "{result:?}"
    );
    assert!(printed.lines().is_empty(), "{:?}", printed.lines());
    assert_ne!(state, PromptState::Delivered);
}

/// Why the toy agent's hook read nothing of `event`, if it did not.
fn refusal_of(event: &[u8]) -> Option<HookFailure> {
    let agent = ToyAgent {
        delivers: vec![Action::Deny],
    };
    read_event(&agent, None, event).err()
}

#[test]
fn an_event_one_byte_over_the_bound_is_refused_before_it_is_parsed() {
    let bound = MAX_EVENT_BYTES as usize;
    let over = refusal_of(&vec![b' '; bound + 1]);
    assert!(
        matches!(over, Some(HookFailure::EventTooLarge(_))),
        "{over:?}"
    );
    let at = refusal_of(&vec![b' '; bound]);
    assert!(
        matches!(at, Some(HookFailure::NotAnEvent(_))),
        "at the bound it reaches the parser: {at:?}"
    );
}

#[test]
fn an_event_of_many_tiny_values_is_refused_before_it_is_parsed() {
    let values = crate::input::MAX_EVENT_VALUES + 1;
    let refused = refusal_of(format!("[{}0]", "0,".repeat(values - 1)).as_bytes());
    assert!(
        matches!(refused, Some(HookFailure::TooManyValues(_))),
        "{refused:?}"
    );
}

#[test]
fn every_prompt_names_the_machine_the_hook_runs_on() {
    let agent = ToyAgent {
        delivers: vec![Action::Deny],
    };
    let read = read_event(&agent, None, br#"{"command": "ls"}"#.as_slice()).unwrap();
    let HookEvent::Prompt { prompt, .. } = read.event else {
        panic!("a prompt");
    };
    assert_eq!(prompt.host, gatehouse_host_ipc::host::own_host_name());
}

#[test]
fn a_stdin_that_never_ends_is_let_go_at_the_deadline() {
    // The agent keeps its end open and never writes.
    let (stdin, _agent) = std::io::pipe().unwrap();
    let started = std::time::Instant::now();
    let refused = crate::input::read_within(&stdin, Duration::from_millis(200)).err();
    assert!(
        matches!(refused, Some(HookFailure::InputTooSlow(_))),
        "{refused:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_stdin_that_trickles_is_let_go_at_the_deadline_of_the_whole_read() {
    use std::io::Write;
    // A byte every 20 ms, for ever: each read finds something, the whole never ends.
    let (stdin, mut agent) = std::io::pipe().unwrap();
    let trickle = std::thread::spawn(move || {
        while agent.write_all(b" ").is_ok() {
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let started = std::time::Instant::now();
    let refused = crate::input::read_within(&stdin, Duration::from_millis(300)).err();
    let took = started.elapsed();
    drop(stdin);
    trickle.join().unwrap();
    assert!(
        matches!(refused, Some(HookFailure::InputTooSlow(_))),
        "{refused:?}"
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

/// A file holding `bytes`, read from its start.
fn file_of(bytes: &[u8]) -> std::fs::File {
    use std::io::{Seek, Write};
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(bytes).unwrap();
    file.rewind().unwrap();
    file
}

#[test]
fn a_stdin_read_within_its_deadline_is_read_whole_up_to_the_bound() {
    let event = br#"{"command": "make"}"#.to_vec();
    let read = crate::input::read_within(file_of(&event), Duration::from_secs(30));
    assert_eq!(read.unwrap(), event);
    let oversized = vec![b' '; MAX_EVENT_BYTES as usize + 10];
    let read = crate::input::read_within(file_of(&oversized), Duration::from_secs(30));
    assert_eq!(
        read.unwrap().len() as u64,
        MAX_EVENT_BYTES + 1,
        "one byte over, no more"
    );
}

#[test]
fn a_stdin_written_in_many_blocks_through_a_pipe_is_read_whole() {
    use std::io::Write;
    let event: Vec<u8> = (0..1_000_000u32)
        .map(|index| b'a' + (index % 26) as u8)
        .collect();
    let (stdin, mut agent) = std::io::pipe().unwrap();
    let written = event.clone();
    let writer = std::thread::spawn(move || agent.write_all(&written).unwrap());
    let read = crate::input::read_within(&stdin, Duration::from_secs(30));
    writer.join().unwrap();
    assert!(read.unwrap() == event, "every byte, in order");
}
