//! Unit tests of the arbiter's state machine: every transition, at-most-once answers, and no
//! approval by accident. A property test drives random interleavings.

use proptest::prelude::*;

use super::*;
use crate::answer::QuestionResponse;
use crate::capability::{ActionFlag, CapabilityRule};
use crate::prompt::{PromptKind, Question, QuestionOption};

/// The core's toy agent, with `always` unverified for Bash and verified answers to questions.
fn toy_capabilities() -> AdapterCapabilities {
    let mut capabilities = crate::testing::toy_capabilities();
    capabilities.rules[0]
        .actions
        .push(ActionFlag::unverified(Action::Always, "never tested"));
    capabilities.rules.push(CapabilityRule {
        kind: PromptKind::Question,
        tool: None,
        actions: vec![ActionFlag::verified(Action::Answer, "tested")],
    });
    capabilities
}

fn arbiter() -> Arbiter {
    Arbiter::new([toy_capabilities()])
}

fn bash(command: &str) -> NewPrompt {
    NewPrompt {
        correlation: format!("Bash:{command}"),
        ..crate::testing::toy_bash(command)
    }
}

/// The toy agent's Bash call for `command`, in session `s1`, finished (as its hook observed).
fn bash_finished(command: &str) -> Observation {
    Observation::ToolFinished {
        adapter: "toy".into(),
        session: "s1".into(),
        correlation: format!("Bash:{command}"),
    }
}

fn write_file() -> NewPrompt {
    NewPrompt {
        tool: "Write".into(),
        correlation: "Write:notes.txt".into(),
        ..bash("unused")
    }
}

fn question(multi: bool) -> NewPrompt {
    let options = ["Red", "Blue", "Green"]
        .iter()
        .map(|label| QuestionOption {
            label: (*label).into(),
            description: String::new(),
        })
        .collect();
    NewPrompt {
        kind: PromptKind::Question,
        tool: "AskUserQuestion".into(),
        questions: vec![
            Question {
                id: "q1".into(),
                text: "Which color?".into(),
                header: "Color".into(),
                multi,
                options,
            },
            Question {
                id: "q2".into(),
                text: "Why?".into(),
                header: "Reason".into(),
                multi: false,
                options: vec![QuestionOption {
                    label: "Taste".into(),
                    description: String::new(),
                }],
            },
        ],
        ..bash("unused")
    }
}

/// An arbiter holding one pending Bash prompt for `ls`.
fn holding_ls() -> (Arbiter, Prompt) {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, bash("ls"));
    (arbiter, prompt)
}

/// An arbiter whose `ls` prompt was answered once from the CLI at `at`.
fn holding_ls_answered_once_at(at: u64) -> (Arbiter, Prompt) {
    let (mut arbiter, prompt) = holding_ls();
    arbiter
        .answer(prompt.id, Answer::Once, "cli", Timestamp(at))
        .unwrap();
    (arbiter, prompt)
}

/// How `arbiter` refuses an answer with no responses to `prompt`, from the CLI at 2.
fn refused_empty_answer(arbiter: &mut Arbiter, prompt: &Prompt) -> ArbiterError {
    arbiter
        .answer(
            prompt.id,
            Answer::Answer { responses: vec![] },
            "cli",
            Timestamp(2),
        )
        .unwrap_err()
}

/// Asserts that a later `once` for `prompt`, which has ended in `ended`, is refused as no
/// longer pending.
fn assert_a_late_once_is_refused(arbiter: &mut Arbiter, prompt: &Prompt, ended: PromptState) {
    let late = arbiter
        .answer(prompt.id, Answer::Once, "late", Timestamp(3))
        .unwrap_err();
    assert_eq!(
        late,
        ArbiterError::NotPending {
            id: prompt.id,
            state: ended
        }
    );
}

fn register(arbiter: &mut Arbiter, prompt: NewPrompt) -> Prompt {
    match arbiter.register(prompt, Timestamp(1)).expect("registers") {
        Event::Added { prompt } => prompt,
        other => panic!("expected Added, got {other:?}"),
    }
}

fn pick(question: &str, labels: &[&str]) -> QuestionResponse {
    QuestionResponse {
        question: question.into(),
        picks: labels.iter().map(|label| (*label).into()).collect(),
        text: None,
    }
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
    assert_eq!(
        arbiter
            .pending()
            .iter()
            .map(|prompt| prompt.id)
            .collect::<Vec<_>>(),
        vec![first.id, second.id]
    );
}

#[test]
fn an_unknown_adapter_is_refused() {
    let error = arbiter()
        .register(
            NewPrompt {
                adapter: "nobody".into(),
                ..bash("ls")
            },
            Timestamp(1),
        )
        .unwrap_err();
    assert_eq!(error.name(), "unknown_adapter");
}

#[test]
fn a_tool_without_verified_actions_is_read_only_and_refuses_answers() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, write_file());
    assert!(prompt.is_read_only());
    let error = arbiter
        .answer(prompt.id, Answer::Once, "cli", Timestamp(2))
        .unwrap_err();
    assert_eq!(error.name(), "read_only");
    assert!(error.to_string().contains("terminal"), "{error}");
    assert_eq!(arbiter.state_of(prompt.id), Some(PromptState::Pending));
}

#[test]
fn an_adapter_may_make_one_prompt_read_only() {
    let mut arbiter = arbiter();
    let unsafe_question = NewPrompt {
        read_only_reason: Some("two questions share a text".into()),
        ..question(false)
    };
    let prompt = register(&mut arbiter, unsafe_question);
    assert!(prompt.is_read_only());
    let error = refused_empty_answer(&mut arbiter, &prompt);
    assert_eq!(
        error,
        ArbiterError::ReadOnly {
            id: prompt.id,
            reason: "two questions share a text".into()
        }
    );
}

#[test]
fn once_resolves_then_a_receipt_delivers() {
    let (mut arbiter, prompt) = holding_ls();
    let (verdict, event) = arbiter
        .answer(prompt.id, Answer::Once, "cli", Timestamp(2))
        .unwrap();
    assert!(verdict.allows());
    assert_eq!(state(&event), PromptState::Resolved);
    assert!(
        arbiter.pending().is_empty(),
        "a resolved prompt is no longer listed"
    );
    assert_eq!(
        state(&arbiter.confirm_delivery(prompt.id, Timestamp(3)).unwrap()),
        PromptState::Delivered
    );
    assert_eq!(arbiter.state_of(prompt.id), Some(PromptState::Delivered));
}

#[test]
fn a_resolved_prompt_without_receipt_becomes_unconfirmed() {
    let (mut arbiter, prompt) = holding_ls();
    arbiter
        .answer(
            prompt.id,
            Answer::Deny { message: None },
            "cli",
            Timestamp(2),
        )
        .unwrap();
    assert_eq!(
        state(&arbiter.mark_unconfirmed(prompt.id, Timestamp(3)).unwrap()),
        PromptState::Unconfirmed
    );
    let late_receipt = arbiter
        .confirm_delivery(prompt.id, Timestamp(4))
        .unwrap_err();
    assert_eq!(late_receipt.name(), "no_verdict_awaiting_receipt");
}

#[test]
fn the_first_answer_wins_and_a_second_is_refused() {
    let mut arbiter = arbiter();
    let prompt = register(&mut arbiter, bash("rm -rf build"));
    let (verdict, _) = arbiter
        .answer(
            prompt.id,
            Answer::Deny {
                message: Some("no".into()),
            },
            "a",
            Timestamp(2),
        )
        .unwrap();
    assert!(!verdict.allows());
    assert_a_late_once_is_refused(&mut arbiter, &prompt, PromptState::Resolved);
}

#[test]
fn release_withdraw_and_expire_end_a_prompt_without_a_verdict() {
    type Ending = fn(&mut Arbiter, DecisionId) -> Result<Event, ArbiterError>;
    let endings: [(Ending, PromptState); 3] = [
        (
            |arbiter, id| arbiter.release(id, "cli", Timestamp(2)),
            PromptState::Released,
        ),
        (
            |arbiter, id| arbiter.withdraw(id, "hook went away", Timestamp(2)),
            PromptState::Withdrawn,
        ),
        (
            |arbiter, id| arbiter.expire(id, Timestamp(2)),
            PromptState::Expired,
        ),
    ];
    for (end, expected) in endings {
        let (mut arbiter, prompt) = holding_ls();
        assert_eq!(state(&end(&mut arbiter, prompt.id).unwrap()), expected);
        assert_a_late_once_is_refused(&mut arbiter, &prompt, expected);
        assert_eq!(
            end(&mut arbiter, prompt.id).unwrap_err().name(),
            "not_pending",
            "an ending happens once"
        );
    }
}

#[test]
fn endings_do_not_touch_a_resolved_prompt() {
    let (mut arbiter, prompt) = holding_ls_answered_once_at(2);
    assert_eq!(
        arbiter.expire(prompt.id, Timestamp(3)).unwrap_err().name(),
        "not_pending"
    );
    assert_eq!(
        arbiter
            .withdraw(prompt.id, "gone", Timestamp(3))
            .unwrap_err()
            .name(),
        "not_pending"
    );
    assert_eq!(
        arbiter
            .release(prompt.id, "cli", Timestamp(3))
            .unwrap_err()
            .name(),
        "not_pending"
    );
    assert_eq!(arbiter.state_of(prompt.id), Some(PromptState::Resolved));
}

#[test]
fn an_unknown_id_is_not_found() {
    let mut arbiter = arbiter();
    let stranger = DecisionId::new_v7();
    assert_eq!(
        arbiter
            .answer(stranger, Answer::Once, "cli", Timestamp(2))
            .unwrap_err(),
        ArbiterError::NotFound { id: stranger }
    );
    assert_eq!(
        arbiter
            .release(stranger, "cli", Timestamp(2))
            .unwrap_err()
            .name(),
        "not_found"
    );
}

#[test]
fn an_action_that_is_not_offered_is_refused() {
    let (mut arbiter, prompt) = holding_ls();
    let error = refused_empty_answer(&mut arbiter, &prompt);
    assert_eq!(error.name(), "action_not_offered");
    assert!(error.to_string().contains("once, deny"), "{error}");
    let question = register(&mut arbiter, question(false));
    assert_eq!(
        arbiter
            .answer(question.id, Answer::Once, "cli", Timestamp(2))
            .unwrap_err()
            .name(),
        "action_not_offered"
    );
}

#[test]
fn question_answers_are_checked_before_they_are_accepted() {
    let cases: Vec<(bool, Vec<QuestionResponse>, &str)> = vec![
        (false, vec![pick("q1", &["Red"])], "`q2`"),
        (
            false,
            vec![pick("q1", &["Purple"]), pick("q2", &["Taste"])],
            "not an option",
        ),
        (
            false,
            vec![pick("q1", &["Red", "Blue"]), pick("q2", &["Taste"])],
            "takes one choice",
        ),
        (
            false,
            vec![
                pick("q1", &["Red"]),
                pick("q1", &["Red"]),
                pick("q2", &["Taste"]),
            ],
            "twice",
        ),
        (
            false,
            vec![pick("q9", &["Red"]), pick("q2", &["Taste"])],
            "no question `q9`",
        ),
        (
            false,
            vec![pick("q1", &[]), pick("q2", &["Taste"])],
            "neither",
        ),
        (
            false,
            vec![
                QuestionResponse {
                    question: "q1".into(),
                    picks: vec![],
                    text: Some("  ".into()),
                },
                pick("q2", &["Taste"]),
            ],
            "neither",
        ),
    ];
    for (multi, responses, expected) in cases {
        let mut arbiter = arbiter();
        let prompt = register(&mut arbiter, question(multi));
        let error = arbiter
            .answer(
                prompt.id,
                Answer::Answer {
                    responses: responses.clone(),
                },
                "cli",
                Timestamp(2),
            )
            .unwrap_err();
        assert_eq!(error.name(), "invalid_answer", "{responses:?}");
        assert!(
            error.to_string().contains(expected),
            "{error} should mention {expected}"
        );
        assert_eq!(
            arbiter.state_of(prompt.id),
            Some(PromptState::Pending),
            "a bad answer changes nothing"
        );
    }
}

#[test]
fn valid_question_answers_are_accepted() {
    let mut arbiter = arbiter();
    let multi = register(&mut arbiter, question(true));
    let responses = vec![
        QuestionResponse {
            question: "q1".into(),
            picks: vec!["Red".into(), "Green".into()],
            text: Some("and teal".into()),
        },
        QuestionResponse {
            question: "q2".into(),
            picks: vec![],
            text: Some("I like it".into()),
        },
    ];
    let (verdict, _) = arbiter
        .answer(
            multi.id,
            Answer::Answer {
                responses: responses.clone(),
            },
            "cli",
            Timestamp(2),
        )
        .unwrap();
    assert_eq!(verdict, Verdict(Answer::Answer { responses }));
}

#[test]
fn a_finished_tool_withdraws_the_oldest_matching_prompt_of_its_session_only() {
    let mut arbiter = arbiter();
    let first = register(&mut arbiter, bash("ls"));
    let second = register(&mut arbiter, bash("ls"));
    let other_session = register(
        &mut arbiter,
        NewPrompt {
            session: "s2".into(),
            ..bash("ls")
        },
    );
    let finished = bash_finished("ls");
    let events = arbiter.observe(&finished, Timestamp(2));
    assert_eq!(
        events.iter().map(Event::id).collect::<Vec<_>>(),
        vec![first.id]
    );
    assert_eq!(arbiter.state_of(first.id), Some(PromptState::Withdrawn));
    assert_eq!(arbiter.state_of(second.id), Some(PromptState::Pending));
    assert_eq!(
        arbiter.state_of(other_session.id),
        Some(PromptState::Pending)
    );
}

#[test]
fn the_finish_of_a_call_allowed_from_the_gateway_leaves_its_pending_twin_alone() {
    let mut arbiter = arbiter();
    let allowed = register(&mut arbiter, bash("make"));
    let twin = register(&mut arbiter, bash("make"));
    arbiter
        .answer(allowed.id, Answer::Once, "cli", Timestamp(2))
        .unwrap();
    let finished = bash_finished("make");
    assert!(
        arbiter.observe(&finished, Timestamp(3)).is_empty(),
        "that finish belongs to the allowed call"
    );
    assert_eq!(arbiter.state_of(twin.id), Some(PromptState::Pending));
    assert_eq!(
        arbiter.observe(&finished, Timestamp(4)).len(),
        1,
        "the twin's own finish settles it"
    );
}

#[test]
fn a_session_end_withdraws_everything_of_that_session() {
    let mut arbiter = arbiter();
    let first = register(&mut arbiter, bash("ls"));
    let second = register(&mut arbiter, write_file());
    let other = register(
        &mut arbiter,
        NewPrompt {
            session: "s2".into(),
            ..bash("ls")
        },
    );
    let ended = Observation::SessionEnded {
        adapter: "toy".into(),
        session: "s1".into(),
    };
    assert_eq!(arbiter.observe(&ended, Timestamp(2)).len(), 2);
    assert_eq!(arbiter.state_of(first.id), Some(PromptState::Withdrawn));
    assert_eq!(arbiter.state_of(second.id), Some(PromptState::Withdrawn));
    assert_eq!(arbiter.state_of(other.id), Some(PromptState::Pending));
}

#[test]
fn a_prompt_registered_again_is_withdrawn_at_once_if_the_terminal_settled_it_meanwhile() {
    let mut arbiter = arbiter();
    // The gateway was down from 10 to 20; the person allowed the command in the terminal at 15,
    // and the hook's spool replays that observation when a gateway is back.
    let finished = bash_finished("ls");
    assert!(arbiter
        .observe_at(&finished, Timestamp(15), Timestamp(20))
        .is_empty());
    let events = arbiter
        .register_held_since(bash("ls"), Timestamp(10), Timestamp(21))
        .unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(state(&events[1]), PromptState::Withdrawn);
    assert_eq!(
        arbiter
            .answer(events[0].id(), Answer::Once, "cli", Timestamp(22))
            .unwrap_err()
            .name(),
        "not_pending"
    );
}

#[test]
fn an_observation_older_than_the_prompt_settles_nothing() {
    let mut arbiter = arbiter();
    let earlier_ls = bash_finished("ls");
    arbiter.observe_at(&earlier_ls, Timestamp(5), Timestamp(6));
    let events = arbiter
        .register_held_since(bash("ls"), Timestamp(10), Timestamp(11))
        .unwrap();
    assert_eq!(
        events.len(),
        1,
        "an ls that finished before this one was asked is another call"
    );
    let prompt = events[0].id();
    assert!(
        arbiter
            .observe_at(&earlier_ls, Timestamp(7), Timestamp(12))
            .is_empty(),
        "a late replay of the old call"
    );
    assert_eq!(arbiter.state_of(prompt), Some(PromptState::Pending));
    assert_eq!(
        arbiter.observe(&earlier_ls, Timestamp(13)).len(),
        1,
        "a call that finishes now settles it"
    );
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
    /// The gateway crashes. `lose_last_verdict`: the last verdict it accepted never reached its
    /// hook. Every hook still waiting registers its prompt again with a fresh arbiter.
    Restart {
        lose_last_verdict: bool,
    },
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
        any::<bool>().prop_map(|lose_last_verdict| Step::Restart { lose_last_verdict }),
    ]
}

/// A hook as the property test models it: the prompt it holds, its current decision id, and
/// what it has learnt.
struct ModelHook {
    prompt: NewPrompt,
    held_since: Timestamp,
    id: DecisionId,
    /// Still waiting for an outcome (it registers again after a restart).
    waiting: bool,
    verdicts: Vec<Verdict>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Whatever happens in whatever order, across gateway restarts, each hook receives at most one
    /// verdict, a verdict that allows exists only where an explicit `once` was accepted for that
    /// hook's current decision id, and a verdict lost in a crash is never applied later.
    #[test]
    fn at_most_one_verdict_and_never_allow_by_accident(steps in proptest::collection::vec(step(), 1..60)) {
        let mut arbiter = arbiter();
        let mut hooks: Vec<ModelHook> = Vec::new();
        let mut last_accepted: Option<usize> = None;
        for (tick, step) in steps.into_iter().enumerate() {
            let now = Timestamp(tick as u64 + 1);
            let index_of = |index: usize| if hooks.is_empty() { None } else { Some(index % hooks.len()) };
            match step {
                Step::Register(read_only) => {
                    let prompt = if read_only { write_file() } else { bash("ls") };
                    let id = arbiter.register(prompt.clone(), now).unwrap().id();
                    hooks.push(ModelHook { prompt, held_since: now, id, waiting: true, verdicts: Vec::new() });
                }
                Step::AnswerOnce(index) | Step::AnswerDeny(index) => {
                    let Some(index) = index_of(index) else { continue };
                    let once = matches!(step, Step::AnswerOnce(_));
                    let answer = if once { Answer::Once } else { Answer::Deny { message: None } };
                    if let Ok((verdict, _)) = arbiter.answer(hooks[index].id, answer, "p", now) {
                        prop_assert!(hooks[index].waiting, "a verdict for a hook that is no longer waiting");
                        prop_assert_eq!(verdict.allows(), once, "allow only from an explicit once");
                        hooks[index].verdicts.push(verdict);
                        hooks[index].waiting = false;
                        last_accepted = Some(index);
                    }
                }
                Step::Release(index) | Step::Withdraw(index) | Step::Expire(index) => {
                    let Some(index) = index_of(index) else { continue };
                    let id = hooks[index].id;
                    let ended = match step {
                        Step::Release(_) => arbiter.release(id, "p", now),
                        Step::Withdraw(_) => arbiter.withdraw(id, "gone", now),
                        _ => arbiter.expire(id, now),
                    };
                    if ended.is_ok() {
                        hooks[index].waiting = false;
                    }
                }
                Step::Receipt(index) => { if let Some(index) = index_of(index) { let _ = arbiter.confirm_delivery(hooks[index].id, now); } }
                Step::NoReceipt(index) => { if let Some(index) = index_of(index) { let _ = arbiter.mark_unconfirmed(hooks[index].id, now); } }
                Step::SessionEnd => {
                    let ended = Observation::SessionEnded { adapter: "toy".into(), session: "s1".into() };
                    for event in arbiter.observe(&ended, now) {
                        if let Some(hook) = hooks.iter_mut().find(|hook| hook.id == event.id()) {
                            hook.waiting = false;
                        }
                    }
                }
                Step::Restart { lose_last_verdict } => {
                    if let (true, Some(index)) = (lose_last_verdict, last_accepted) {
                        // The verdict died with the gateway: the hook never got it and waits on.
                        hooks[index].verdicts.pop();
                        hooks[index].waiting = true;
                    }
                    last_accepted = None;
                    arbiter = Arbiter::new([toy_capabilities()]);
                    for hook in hooks.iter_mut().filter(|hook| hook.waiting) {
                        let events = arbiter.register_held_since(hook.prompt.clone(), hook.held_since, now).unwrap();
                        hook.id = events[0].id();
                    }
                }
            }
        }
        for hook in &hooks {
            prop_assert!(hook.verdicts.len() <= 1, "a hook got {} verdicts", hook.verdicts.len());
        }
    }
}

/// An id with chosen timestamp digits and (18-digit) random part, so tests can make ids that
/// share prefixes.
fn chosen_id(timestamp: u64, random: u128) -> DecisionId {
    let rand_a = (random >> 60) & 0xfff;
    let rand_b_low = random & ((1 << 60) - 1);
    DecisionId::from_u128(
        ((timestamp as u128) << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b_low,
    )
}

/// The 18 random digits of an id, as short ids use them.
fn random_digits(id: DecisionId) -> String {
    let full = id.to_string().replace('-', "");
    format!("{}{}", &full[13..16], &full[17..])
}

fn register_as(arbiter: &mut Arbiter, id: DecisionId, prompt: NewPrompt, now: u64) -> Prompt {
    match arbiter
        .register_with_id(id, prompt, None, Timestamp(now), Timestamp(now))
        .unwrap()
        .remove(0)
    {
        Event::Added { prompt } => prompt,
        other => panic!("expected Added, got {other:?}"),
    }
}

#[test]
fn a_stale_id_prefix_never_answers_another_prompt() {
    let mut arbiter = arbiter();
    // Made in the same minute: their full ids share the first eight digits (and more).
    let harmless = register_as(
        &mut arbiter,
        chosen_id(0x0190_aaaa_0000, 0x5555 << 60),
        bash("echo harmless"),
        1_000,
    );
    arbiter
        .release(harmless.id, "cli", Timestamp(2_000))
        .unwrap();
    let force_push = register_as(
        &mut arbiter,
        chosen_id(0x0190_aaaa_0001, 0x6666 << 60),
        bash("git push --force origin main"),
        3_000,
    );

    let stale_prefix = &harmless.id.to_string()[..8];
    let error = arbiter
        .resolve(stale_prefix, Timestamp(14_000))
        .unwrap_err();
    assert_eq!(error.name(), "ambiguous_id");
    assert!(
        error.to_string().contains("was released 12 s ago"),
        "{error}"
    );
    assert!(error.to_string().contains("is pending"), "{error}");

    let error = arbiter
        .resolve(&harmless.id.to_string(), Timestamp(14_000))
        .unwrap_err();
    assert_eq!(error.name(), "not_pending");
    assert!(
        error.to_string().contains("was released 12 s ago"),
        "{error}"
    );
    let error = arbiter
        .resolve(&harmless.short_id, Timestamp(14_000))
        .unwrap_err();
    assert_eq!(
        error.name(),
        "not_pending",
        "the short id of an ended prompt still names it, and only it"
    );

    assert_eq!(
        arbiter.resolve(&force_push.short_id, Timestamp(14_000)),
        Ok(force_push.id)
    );
    assert_eq!(
        arbiter.resolve(&force_push.id.to_string(), Timestamp(14_000)),
        Ok(force_push.id)
    );
    assert_eq!(
        arbiter.resolve(&force_push.id.to_string().to_uppercase(), Timestamp(14_000)),
        Ok(force_push.id)
    );
}

#[test]
fn typed_ids_that_name_nothing_or_are_not_ids_are_refused() {
    let mut arbiter = arbiter();
    register(&mut arbiter, bash("ls"));
    assert_eq!(
        arbiter.resolve("ffff", Timestamp(2)).unwrap_err().name(),
        "not_found"
    );
    for bad in ["", "abc", "zzzz", "0190;rm", &"a".repeat(40)] {
        assert_eq!(
            arbiter.resolve(bad, Timestamp(2)).unwrap_err().name(),
            "invalid_id",
            "{bad:?}"
        );
    }
}

#[test]
fn a_resolved_prompt_named_by_its_short_id_says_it_was_answered() {
    let (arbiter, prompt) = holding_ls_answered_once_at(2_000);
    let error = arbiter
        .resolve(&prompt.short_id, Timestamp(7_000))
        .unwrap_err();
    assert!(
        error.to_string().contains("was resolved 5 s ago"),
        "{error}"
    );
}

#[test]
fn short_ids_grow_to_stay_unique_among_every_known_id() {
    let mut arbiter = arbiter();
    let first = register_as(
        &mut arbiter,
        chosen_id(1, u128::from_str_radix("abcd10000000000000", 16).unwrap()),
        bash("a"),
        1,
    );
    assert_eq!(first.short_id, "abcd");
    arbiter.release(first.id, "cli", Timestamp(2)).unwrap();
    let second = register_as(
        &mut arbiter,
        chosen_id(2, u128::from_str_radix("abcd20000000000000", 16).unwrap()),
        bash("b"),
        3,
    );
    assert_eq!(
        second.short_id, "abcd2",
        "unique among finished prompts too"
    );
    assert_eq!(arbiter.pending()[0].short_id, "abcd2");
    assert_eq!(
        arbiter.resolve("abcd", Timestamp(4)).unwrap_err().name(),
        "ambiguous_id"
    );
}

#[test]
fn an_allowed_call_that_never_ran_does_not_swallow_the_next_identical_finish() {
    let mut arbiter = arbiter();
    let allowed = register(&mut arbiter, bash("make"));
    arbiter
        .answer(allowed.id, Answer::Once, "cli", Timestamp(2))
        .unwrap();
    // The terminal said No first: the agent ended the hook, and the verdict was never delivered.
    arbiter
        .mark_unconfirmed_because(
            allowed.id,
            "the hook went away before it confirmed delivery",
            Timestamp(3),
        )
        .unwrap();
    let next = register(&mut arbiter, bash("make"));
    let finished = bash_finished("make");
    let events = arbiter.observe(&finished, Timestamp(4));
    assert_eq!(
        events.iter().map(Event::id).collect::<Vec<_>>(),
        vec![next.id],
        "the finish is the next call's own"
    );
}

/// How a property-test step names a prompt.
#[derive(Debug, Clone, Copy)]
enum Naming {
    Full,
    FullPrefix(usize),
    RandomPrefix(usize),
    ShortId,
}

fn naming() -> impl Strategy<Value = Naming> {
    prop_oneof![
        Just(Naming::Full),
        (4..32usize).prop_map(Naming::FullPrefix),
        (4..=18usize).prop_map(Naming::RandomPrefix),
        Just(Naming::ShortId),
    ]
}

#[derive(Debug, Clone)]
enum IdStep {
    /// Register a prompt whose id has these (few) timestamp and random digits, so ids collide.
    Register {
        timestamp: u8,
        random: u8,
    },
    /// Answer `once` (`Some(true)`), `deny` (`Some(false)`) or release (`None`) a typed id.
    Act {
        prompt: usize,
        naming: Naming,
        answer_once: Option<bool>,
    },
    End {
        prompt: usize,
    },
}

fn id_step() -> impl Strategy<Value = IdStep> {
    prop_oneof![
        (any::<u8>(), any::<u8>())
            .prop_map(|(timestamp, random)| IdStep::Register { timestamp, random }),
        (0..16usize, naming(), proptest::option::of(any::<bool>())).prop_map(
            |(prompt, naming, answer_once)| IdStep::Act {
                prompt,
                naming,
                answer_once
            }
        ),
        (0..16usize).prop_map(|prompt| IdStep::End { prompt }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    /// Whatever prompts exist in whatever states, a typed id (a full id, a prefix of it, a prefix
    /// of its random part, or a short id shown earlier) answers or releases a prompt only when
    /// that prompt is pending and no other known id could be meant by the same text.
    #[test]
    fn a_typed_id_answers_only_the_one_pending_prompt_it_names(steps in proptest::collection::vec(id_step(), 1..60)) {
        let mut arbiter = arbiter();
        // Every prompt ever registered, with the short id it was shown with.
        let mut known: Vec<(DecisionId, String)> = Vec::new();
        for (tick, step) in steps.into_iter().enumerate() {
            let now = Timestamp(tick as u64 + 1);
            let typed = |prompt: usize, naming: Naming, known: &[(DecisionId, String)]| -> Option<(String, DecisionId)> {
                let (id, short_id) = known.get(prompt % known.len().max(1))?;
                let full: String = id.to_string().replace('-', "");
                let text = match naming {
                    Naming::Full => id.to_string(),
                    Naming::FullPrefix(length) => full[..length].to_owned(),
                    Naming::RandomPrefix(length) => random_digits(*id)[..length].to_owned(),
                    Naming::ShortId => short_id.clone(),
                };
                Some((text, *id))
            };
            match step {
                IdStep::Register { timestamp, random } => {
                    // Timestamps 0x0190_0000_00xx share ten digits; random parts share fourteen.
                    let id = chosen_id(0x0190_0000_0000 | u64::from(timestamp), u128::from(random));
                    if known.iter().any(|(other, _)| *other == id) { continue; }
                    let prompt = register_as(&mut arbiter, id, bash("ls"), tick as u64 + 1);
                    known.push((prompt.id, prompt.short_id));
                }
                IdStep::Act { prompt, naming, answer_once } if !known.is_empty() => {
                    let Some((text, meant)) = typed(prompt, naming, &known) else { continue };
                    let digits = text.replace('-', "").to_ascii_lowercase();
                    // Every known id the text could name, worked out apart from the arbiter.
                    let could_name: Vec<DecisionId> = known
                        .iter()
                        .map(|(id, _)| *id)
                        .filter(|id| {
                            let full = id.to_string().replace('-', "");
                            (digits.len() >= 20 && full.starts_with(&digits)) || random_digits(*id).starts_with(&digits)
                        })
                        .collect();
                    // The start of a full id (fewer than 20 digits) names the prompt it came from
                    // only by chance, as a random part.
                    prop_assert!(could_name.contains(&meant) || digits.len() < 20);
                    let resolved = arbiter.resolve(&text, now);
                    if let Ok(id) = resolved {
                        prop_assert_eq!(&could_name, &vec![id], "`{}` could name {:?} but resolved to {}", text, could_name, id);
                        prop_assert_eq!(arbiter.state_of(id), Some(PromptState::Pending));
                        if let Some(once) = answer_once {
                            let answer = if once { Answer::Once } else { Answer::Deny { message: None } };
                            let (verdict, _) = arbiter.answer(id, answer, "p", now).unwrap();
                            prop_assert_eq!(verdict.allows(), once);
                        } else {
                            arbiter.release(id, "p", now).unwrap();
                        }
                    } else {
                        let names_one_pending = could_name.len() == 1 && arbiter.state_of(could_name[0]) == Some(PromptState::Pending);
                        prop_assert!(!names_one_pending, "`{}` names {} alone, which is pending", text, could_name[0]);
                    }
                }
                IdStep::End { prompt } if !known.is_empty() => {
                    let _ = arbiter.withdraw(known[prompt % known.len()].0, "gone", now);
                }
                _ => {}
            }
        }
    }
}
