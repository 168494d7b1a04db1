//! Unit tests of the arbiter's state machine: every transition, at-most-once answers, and no
//! approval by accident. A property test drives random interleavings.

use proptest::prelude::*;

use super::*;
use crate::capability::{ActionFlag, CapabilityRule};
use crate::prompt::{PromptKind, Question, QuestionOption};

fn toy_capabilities() -> AdapterCapabilities {
    AdapterCapabilities {
        adapter: "toy".into(),
        name: "Toy Agent".into(),
        rules: vec![
            CapabilityRule {
                kind: PromptKind::Permission,
                tool: Some("Bash".into()),
                actions: vec![
                    ActionFlag::verified(Action::Once, "tested"),
                    ActionFlag::verified(Action::Deny, "tested"),
                    ActionFlag::unverified(Action::Always, "never tested"),
                ],
            },
            CapabilityRule {
                kind: PromptKind::Question,
                tool: None,
                actions: vec![ActionFlag::verified(Action::Answer, "tested")],
            },
        ],
    }
}

fn arbiter() -> Arbiter {
    Arbiter::new([toy_capabilities()])
}

fn bash(command: &str) -> NewPrompt {
    NewPrompt {
        adapter: "toy".into(),
        session: "s1".into(),
        cwd: "/project".into(),
        kind: PromptKind::Permission,
        tool: "Bash".into(),
        input: serde_json::json!({ "command": command }),
        summary: command.into(),
        questions: Vec::new(),
        correlation: format!("Bash:{command}"),
        read_only_reason: None,
    }
}

fn write_file() -> NewPrompt {
    NewPrompt { tool: "Write".into(), correlation: "Write:notes.txt".into(), ..bash("unused") }
}

fn question(multi: bool) -> NewPrompt {
    let options = ["Red", "Blue", "Green"]
        .iter()
        .map(|label| QuestionOption { label: (*label).into(), description: String::new() })
        .collect();
    NewPrompt {
        kind: PromptKind::Question,
        tool: "AskUserQuestion".into(),
        questions: vec![
            Question { id: "q1".into(), text: "Which color?".into(), header: "Color".into(), multi, options },
            Question {
                id: "q2".into(),
                text: "Why?".into(),
                header: "Reason".into(),
                multi: false,
                options: vec![QuestionOption { label: "Taste".into(), description: String::new() }],
            },
        ],
        ..bash("unused")
    }
}

fn register(arbiter: &mut Arbiter, prompt: NewPrompt) -> Prompt {
    match arbiter.register(prompt, Timestamp(1)).expect("registers") {
        Event::Added { prompt } => prompt,
        other => panic!("expected Added, got {other:?}"),
    }
}

fn pick(question: &str, labels: &[&str]) -> QuestionResponse {
    QuestionResponse { question: question.into(), picks: labels.iter().map(|label| (*label).into()).collect(), text: None }
}

fn state(event: &Event) -> PromptState {
    match event {
        Event::Changed { state, .. } => *state,
        Event::Added { .. } => PromptState::Pending,
    }
}

#[test]
fn registering_gives_fresh_ids_and_offers_verified_actions_only() {
    let mut arbiter = arbiter();
    let first = register(&mut arbiter, bash("ls"));
    let second = register(&mut arbiter, bash("ls"));
    assert_ne!(first.id, second.id, "the same text must still get two ids");
    assert_eq!(first.actions, vec![Action::Once, Action::Deny]);
    assert_eq!(first.state, PromptState::Pending);
    assert_eq!(arbiter.pending().iter().map(|prompt| prompt.id).collect::<Vec<_>>(), vec![first.id, second.id]);
}

#[test]
fn an_unknown_adapter_is_refused() {
    let error = arbiter().register(NewPrompt { adapter: "nobody".into(), ..bash("ls") }, Timestamp(1)).unwrap_err();
    assert_eq!(error.name(), "unknown_adapter");
}

#[test]
fn a_tool_without_verified_actions_is_read_only_and_refuses_answers() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, write_file());
    assert!(prompt.is_read_only());
    let error = arbiter.answer(prompt.id, Answer::Once, "cli", Timestamp(2)).unwrap_err();
    assert_eq!(error.name(), "read_only");
    assert!(error.to_string().contains("terminal"), "{error}");
    assert_eq!(arbiter.state_of(prompt.id), Some(PromptState::Pending));
}

#[test]
fn an_adapter_may_make_one_prompt_read_only() {
    let mut arbiter = arbiter();
    let unsafe_question = NewPrompt { read_only_reason: Some("two questions share a text".into()), ..question(false) };
    let prompt = register(&mut arbiter, unsafe_question);
    assert!(prompt.is_read_only());
    let error = arbiter.answer(prompt.id, Answer::Answer { responses: vec![] }, "cli", Timestamp(2)).unwrap_err();
    assert_eq!(error, ArbiterError::ReadOnly { id: prompt.id, reason: "two questions share a text".into() });
}

#[test]
fn once_resolves_then_a_receipt_delivers() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, bash("ls"));
    let (verdict, event) = arbiter.answer(prompt.id, Answer::Once, "cli", Timestamp(2)).unwrap();
    assert!(verdict.allows());
    assert_eq!(state(&event), PromptState::Resolved);
    assert!(arbiter.pending().is_empty(), "a resolved prompt is no longer listed");
    assert_eq!(state(&arbiter.confirm_delivery(prompt.id, Timestamp(3)).unwrap()), PromptState::Delivered);
    assert_eq!(arbiter.state_of(prompt.id), Some(PromptState::Delivered));
}

#[test]
fn a_resolved_prompt_without_receipt_becomes_unconfirmed() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, bash("ls"));
    arbiter.answer(prompt.id, Answer::Deny { message: None }, "cli", Timestamp(2)).unwrap();
    assert_eq!(state(&arbiter.mark_unconfirmed(prompt.id, Timestamp(3)).unwrap()), PromptState::Unconfirmed);
    let late_receipt = arbiter.confirm_delivery(prompt.id, Timestamp(4)).unwrap_err();
    assert_eq!(late_receipt.name(), "no_verdict_awaiting_receipt");
}

#[test]
fn the_first_answer_wins_and_a_second_is_refused() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, bash("rm -rf build"));
    let (verdict, _) = arbiter.answer(prompt.id, Answer::Deny { message: Some("no".into()) }, "a", Timestamp(2)).unwrap();
    assert!(!verdict.allows());
    let error = arbiter.answer(prompt.id, Answer::Once, "b", Timestamp(3)).unwrap_err();
    assert_eq!(error, ArbiterError::NotPending { id: prompt.id, state: PromptState::Resolved });
}

#[test]
fn release_withdraw_and_expire_end_a_prompt_without_a_verdict() {
    type Ending = fn(&mut Arbiter, DecisionId) -> Result<Event, ArbiterError>;
    let endings: [(Ending, PromptState); 3] = [
        (|arbiter, id| arbiter.release(id, "cli", Timestamp(2)), PromptState::Released),
        (|arbiter, id| arbiter.withdraw(id, "hook went away", Timestamp(2)), PromptState::Withdrawn),
        (|arbiter, id| arbiter.expire(id, Timestamp(2)), PromptState::Expired),
    ];
    for (end, expected) in endings {
        let mut arbiter = arbiter();
        let prompt = register(&mut arbiter, bash("ls"));
        assert_eq!(state(&end(&mut arbiter, prompt.id).unwrap()), expected);
        let late = arbiter.answer(prompt.id, Answer::Once, "cli", Timestamp(3)).unwrap_err();
        assert_eq!(late, ArbiterError::NotPending { id: prompt.id, state: expected });
        assert_eq!(end(&mut arbiter, prompt.id).unwrap_err().name(), "not_pending", "an ending happens once");
    }
}

#[test]
fn endings_do_not_touch_a_resolved_prompt() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, bash("ls"));
    arbiter.answer(prompt.id, Answer::Once, "cli", Timestamp(2)).unwrap();
    assert_eq!(arbiter.expire(prompt.id, Timestamp(3)).unwrap_err().name(), "not_pending");
    assert_eq!(arbiter.withdraw(prompt.id, "gone", Timestamp(3)).unwrap_err().name(), "not_pending");
    assert_eq!(arbiter.release(prompt.id, "cli", Timestamp(3)).unwrap_err().name(), "not_pending");
    assert_eq!(arbiter.state_of(prompt.id), Some(PromptState::Resolved));
}

#[test]
fn an_unknown_id_is_not_found() {
    let mut arbiter = arbiter();
    let stranger = DecisionId::new_v7();
    assert_eq!(arbiter.answer(stranger, Answer::Once, "cli", Timestamp(2)).unwrap_err(), ArbiterError::NotFound { id: stranger });
    assert_eq!(arbiter.release(stranger, "cli", Timestamp(2)).unwrap_err().name(), "not_found");
}

#[test]
fn an_action_that_is_not_offered_is_refused() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, bash("ls"));
    let error = arbiter.answer(prompt.id, Answer::Answer { responses: vec![] }, "cli", Timestamp(2)).unwrap_err();
    assert_eq!(error.name(), "action_not_offered");
    assert!(error.to_string().contains("once, deny"), "{error}");
    let question = register(&mut arbiter, question(false));
    assert_eq!(arbiter.answer(question.id, Answer::Once, "cli", Timestamp(2)).unwrap_err().name(), "action_not_offered");
}

#[test]
fn question_answers_are_checked_before_they_are_accepted() {
    let cases: Vec<(bool, Vec<QuestionResponse>, &str)> = vec![
        (false, vec![pick("q1", &["Red"])], "`q2`"),
        (false, vec![pick("q1", &["Purple"]), pick("q2", &["Taste"])], "not an option"),
        (false, vec![pick("q1", &["Red", "Blue"]), pick("q2", &["Taste"])], "takes one choice"),
        (false, vec![pick("q1", &["Red"]), pick("q1", &["Red"]), pick("q2", &["Taste"])], "twice"),
        (false, vec![pick("q9", &["Red"]), pick("q2", &["Taste"])], "no question `q9`"),
        (false, vec![pick("q1", &[]), pick("q2", &["Taste"])], "neither"),
        (
            false,
            vec![QuestionResponse { question: "q1".into(), picks: vec![], text: Some("  ".into()) }, pick("q2", &["Taste"])],
            "neither",
        ),
    ];
    for (multi, responses, expected) in cases {
        let mut arbiter = arbiter();
        let prompt = register(&mut arbiter, question(multi));
        let error = arbiter.answer(prompt.id, Answer::Answer { responses: responses.clone() }, "cli", Timestamp(2)).unwrap_err();
        assert_eq!(error.name(), "invalid_answer", "{responses:?}");
        assert!(error.to_string().contains(expected), "{error} should mention {expected}");
        assert_eq!(arbiter.state_of(prompt.id), Some(PromptState::Pending), "a bad answer changes nothing");
    }
}

#[test]
fn valid_question_answers_are_accepted() {
    let mut arbiter = arbiter();
    let multi = register(&mut arbiter, question(true));
    let responses = vec![
        QuestionResponse { question: "q1".into(), picks: vec!["Red".into(), "Green".into()], text: Some("and teal".into()) },
        QuestionResponse { question: "q2".into(), picks: vec![], text: Some("I like it".into()) },
    ];
    let (verdict, _) = arbiter.answer(multi.id, Answer::Answer { responses: responses.clone() }, "cli", Timestamp(2)).unwrap();
    assert_eq!(verdict, Verdict(Answer::Answer { responses }));
}

#[test]
fn a_finished_tool_withdraws_the_oldest_matching_prompt_of_its_session_only() {
    let mut arbiter = arbiter();
    let first = register(&mut arbiter, bash("ls"));
    let second = register(&mut arbiter, bash("ls"));
    let other_session = register(&mut arbiter, NewPrompt { session: "s2".into(), ..bash("ls") });
    let finished = Observation::ToolFinished { adapter: "toy".into(), session: "s1".into(), correlation: "Bash:ls".into() };
    let events = arbiter.observe(&finished, Timestamp(2));
    assert_eq!(events.iter().map(Event::id).collect::<Vec<_>>(), vec![first.id]);
    assert_eq!(arbiter.state_of(first.id), Some(PromptState::Withdrawn));
    assert_eq!(arbiter.state_of(second.id), Some(PromptState::Pending));
    assert_eq!(arbiter.state_of(other_session.id), Some(PromptState::Pending));
}

#[test]
fn a_session_end_withdraws_everything_of_that_session() {
    let mut arbiter = arbiter();
    let first = register(&mut arbiter, bash("ls"));
    let second = register(&mut arbiter, write_file());
    let other = register(&mut arbiter, NewPrompt { session: "s2".into(), ..bash("ls") });
    let ended = Observation::SessionEnded { adapter: "toy".into(), session: "s1".into() };
    assert_eq!(arbiter.observe(&ended, Timestamp(2)).len(), 2);
    assert_eq!(arbiter.state_of(first.id), Some(PromptState::Withdrawn));
    assert_eq!(arbiter.state_of(second.id), Some(PromptState::Withdrawn));
    assert_eq!(arbiter.state_of(other.id), Some(PromptState::Pending));
}

#[derive(Debug, Clone)]
enum Step {
    Register(bool),
    AnswerOnce(usize),
    AnswerDeny(usize),
    Release(usize),
    Withdraw(usize),
    Expire(usize),
    Receipt(usize),
    NoReceipt(usize),
    SessionEnd,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<bool>().prop_map(Step::Register),
        (0..8usize).prop_map(Step::AnswerOnce),
        (0..8usize).prop_map(Step::AnswerDeny),
        (0..8usize).prop_map(Step::Release),
        (0..8usize).prop_map(Step::Withdraw),
        (0..8usize).prop_map(Step::Expire),
        (0..8usize).prop_map(Step::Receipt),
        (0..8usize).prop_map(Step::NoReceipt),
        Just(Step::SessionEnd),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Whatever happens in whatever order, each prompt gets at most one verdict, and a verdict
    /// that allows exists only where an explicit `once` was accepted.
    #[test]
    fn at_most_one_verdict_and_never_allow_by_accident(steps in proptest::collection::vec(step(), 1..60)) {
        let mut arbiter = arbiter();
        let mut ids: Vec<DecisionId> = Vec::new();
        let mut verdicts: HashMap<DecisionId, Verdict> = HashMap::new();
        let mut explicit_once: HashSet<DecisionId> = HashSet::new();
        for (tick, step) in steps.into_iter().enumerate() {
            let now = Timestamp(tick as u64);
            let id_at = |index: usize| ids.get(index % ids.len().max(1)).copied();
            let answered = match step {
                Step::Register(read_only) => {
                    let prompt = if read_only { write_file() } else { bash("ls") };
                    ids.push(arbiter.register(prompt, now).unwrap().id());
                    None
                }
                Step::AnswerOnce(index) => id_at(index).map(|id| (id, true, arbiter.answer(id, Answer::Once, "p", now))),
                Step::AnswerDeny(index) => id_at(index).map(|id| (id, false, arbiter.answer(id, Answer::Deny { message: None }, "p", now))),
                Step::Release(index) => { if let Some(id) = id_at(index) { let _ = arbiter.release(id, "p", now); } None }
                Step::Withdraw(index) => { if let Some(id) = id_at(index) { let _ = arbiter.withdraw(id, "gone", now); } None }
                Step::Expire(index) => { if let Some(id) = id_at(index) { let _ = arbiter.expire(id, now); } None }
                Step::Receipt(index) => { if let Some(id) = id_at(index) { let _ = arbiter.confirm_delivery(id, now); } None }
                Step::NoReceipt(index) => { if let Some(id) = id_at(index) { let _ = arbiter.mark_unconfirmed(id, now); } None }
                Step::SessionEnd => {
                    arbiter.observe(&Observation::SessionEnded { adapter: "toy".into(), session: "s1".into() }, now);
                    None
                }
            };
            if let Some((id, was_once, Ok((verdict, _)))) = answered {
                prop_assert!(verdicts.insert(id, verdict.clone()).is_none(), "a second verdict for {}", id);
                if was_once { explicit_once.insert(id); }
                prop_assert_eq!(verdict.allows(), was_once);
            }
        }
        for (id, verdict) in &verdicts {
            prop_assert!(!verdict.allows() || explicit_once.contains(id));
        }
    }
}
