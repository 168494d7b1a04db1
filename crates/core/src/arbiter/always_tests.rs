//! `always`: offered only where verified and the prompt carries the agent's own suggestion; the
//! arbiter accepts only a suggestion of the prompt, in a scope the suggestion allows, and the
//! verdict names it.

use super::*;
use crate::answer::AlwaysScope;
use crate::capability::{ActionFlag, CapabilityRule};
use crate::extra::Suggestion;
use crate::prompt::PromptKind;

fn arbiter(always_verified: bool) -> Arbiter {
    let always = if always_verified {
        ActionFlag::verified(Action::Always, "probed")
    } else {
        ActionFlag::unverified(Action::Always, "not probed")
    };
    Arbiter::new([AdapterCapabilities {
        adapter: "toy".into(),
        name: "Toy Agent".into(),
        rules: vec![CapabilityRule {
            kind: PromptKind::Permission,
            tool: None,
            actions: vec![
                ActionFlag::verified(Action::Once, "tested"),
                ActionFlag::verified(Action::Deny, "tested"),
                always,
            ],
        }],
    }])
}

fn suggestion(id: &str, scopes: Vec<AlwaysScope>) -> Suggestion {
    Suggestion {
        id: id.into(),
        summary: format!("only the Toy command `{id}`, exactly as written"),
        allows: Vec::new(),
        scopes,
        native: serde_json::json!({ "rule": id }),
    }
}

fn prompt(suggestions: Vec<Suggestion>) -> NewPrompt {
    NewPrompt {
        adapter: "toy".into(),
        session: "s".into(),
        cwd: "/p".into(),
        kind: PromptKind::Permission,
        tool: "Bash".into(),
        input: serde_json::json!({ "command": "ls" }),
        summary: "ls".into(),
        questions: Vec::new(),
        correlation: "ls".into(),
        read_only_reason: None,
        host: String::new(),
        extra: crate::extra::PromptExtra {
            suggestions,
            ..Default::default()
        },
    }
}

fn register(arbiter: &mut Arbiter, new_prompt: NewPrompt) -> Prompt {
    match arbiter.register(new_prompt, Timestamp(1)).unwrap() {
        Event::Added { prompt } => prompt,
        other => panic!("{other:?}"),
    }
}

fn always(suggestion: Option<&str>, scope: AlwaysScope) -> Answer {
    Answer::Always {
        suggestion: suggestion.map(str::to_owned),
        scope,
    }
}

#[test]
fn always_is_offered_only_when_verified_and_suggested() {
    let mut unverified = arbiter(false);
    let offered = register(&mut unverified, prompt(vec![suggestion("s1", vec![])]));
    assert_eq!(offered.actions, vec![Action::Once, Action::Deny]);
    let refused = unverified
        .answer(
            offered.id,
            always(None, AlwaysScope::Session),
            "t",
            Timestamp(2),
        )
        .unwrap_err();
    assert_eq!(refused.name(), "action_not_offered");

    let mut verified = arbiter(true);
    let without = register(&mut verified, prompt(vec![]));
    assert_eq!(without.actions, vec![Action::Once, Action::Deny]);
    let with = register(&mut verified, prompt(vec![suggestion("s1", vec![])]));
    assert_eq!(
        with.actions,
        vec![Action::Once, Action::Deny, Action::Always]
    );
}

#[test]
fn the_suggestion_must_be_the_prompts_and_the_verdict_names_it() {
    let mut arbiter = arbiter(true);
    let two = register(
        &mut arbiter,
        prompt(vec![
            suggestion("s1", vec![]),
            suggestion("s2", vec![AlwaysScope::Session]),
        ]),
    );
    for (answer, problem) in [
        (
            always(Some("s9"), AlwaysScope::Session),
            "no suggestion `s9`",
        ),
        (always(None, AlwaysScope::Session), "several suggestions"),
        (always(Some("s2"), AlwaysScope::Project), "for session only"),
    ] {
        let refused = arbiter
            .answer(two.id, answer, "t", Timestamp(2))
            .unwrap_err();
        assert_eq!(refused.name(), "invalid_answer");
        assert!(refused.to_string().contains(problem), "{refused}");
    }
    let (verdict, _) = arbiter
        .answer(
            two.id,
            always(Some("s1"), AlwaysScope::User),
            "t",
            Timestamp(3),
        )
        .unwrap();
    assert_eq!(verdict.0, always(Some("s1"), AlwaysScope::User));
    assert!(verdict.allows());

    let one = register(&mut arbiter, prompt(vec![suggestion("s1", vec![])]));
    let (verdict, _) = arbiter
        .answer(
            one.id,
            always(None, AlwaysScope::Session),
            "t",
            Timestamp(4),
        )
        .unwrap();
    assert_eq!(verdict.0, always(Some("s1"), AlwaysScope::Session));
}
