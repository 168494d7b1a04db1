//! The parser against the events captured from OpenCode 1.18.33, and against hostile ones.

use gatehouse_core::{Action, AdapterCapabilities};
use serde_json::{json, Value};

use super::*;
use crate::tests::{captured, from_plugin};

fn in_tmux() -> HookEnvironment {
    crate::tests::in_tmux("/tmp/tmux-1000/default,18779,0", "%0", "18849")
}

use gatehouse_harness::events::testing::{assert_permission_prompt, prompt_of};

fn verified() -> AdapterCapabilities {
    crate::AGENT.capabilities_for(&[gatehouse_harness::record::Unlock::Verified {
        version: "1.18.33".into(),
        evidence: "probe".into(),
    }])
}

#[test]
fn a_bash_permission_is_held_with_its_command_patterns_and_terminal() {
    let stdin = from_plugin(captured!("opencode-1.18.33", "permission.asked"));
    let (prompt, hold) = prompt_of(
        parse(
            &crate::OPENCODE,
            &stdin,
            Some("permission.asked"),
            &in_tmux(),
        )
        .unwrap(),
    );
    assert_eq!(hold, HoldMode::WhileActionable);
    let session = "ses_dce1c2680ffe4Zn4GyJNIXmcWE";
    assert_permission_prompt(
        &prompt,
        "opencode",
        session,
        "bash",
        "printf approved > proof.txt",
    );
    assert_eq!(prompt.input["always"], json!(["printf *"]));
    assert_eq!(prompt.read_only_reason, None);
    assert_eq!(
        prompt.correlation,
        request_correlation("per_231e3ebcd001DDV59Lb7r2I5ZQ")
    );
    let terminal = prompt.extra.terminal.clone().unwrap();
    assert_eq!(terminal.tmux_pane, "%0");
    assert_eq!(terminal.pid, Some(18849));
    // OpenCode would approve `printf *`, but gatehouse offers no always for bash, and says why.
    assert!(prompt.extra.suggestions.is_empty());
    let preview = prompt.extra.preview.as_ref().unwrap();
    assert!(
        preview.text.contains(&format!(
            "always: not offered, because {}.",
            crate::OPENCODE.bash_always_withheld
        )),
        "{}",
        preview.text
    );
    // Verified, it is answerable with once and deny.
    assert_eq!(
        verified().deliverable(&prompt),
        [Action::Once, Action::Deny]
    );
    // The bare event (the SSE form) reads the same, without the folder.
    let bare = parse(
        &crate::OPENCODE,
        captured!("opencode-1.18.33", "permission.asked.sse-event").as_bytes(),
        None,
        &in_tmux(),
    )
    .unwrap();
    assert_eq!(prompt_of(bare).0.summary, "printf approved > proof.txt");
}

#[test]
fn another_permission_is_only_watched_with_the_reason() {
    let mut event: Value =
        serde_json::from_str(captured!("opencode-1.18.33", "permission.asked")).unwrap();
    event["properties"]["permission"] = "edit".into();
    event["properties"]["metadata"] = json!({ "filepath": "/etc/passwd" });
    event["properties"]["patterns"] = json!(["/etc/passwd"]);
    let stdin = from_plugin(&event.to_string());
    let (prompt, hold) = prompt_of(
        parse(
            &crate::OPENCODE,
            &stdin,
            Some("permission.asked"),
            &in_tmux(),
        )
        .unwrap(),
    );
    assert_eq!(hold, HoldMode::RegisterOnly);
    assert_eq!(prompt.summary, "/etc/passwd");
    assert!(prompt
        .read_only_reason
        .as_deref()
        .unwrap()
        .contains("only bash prompts"));
    assert!(verified().deliverable(&prompt).is_empty());
}

#[test]
fn a_question_is_held_with_its_options() {
    let stdin = from_plugin(captured!("opencode-1.18.33", "question.asked"));
    let (prompt, hold) =
        prompt_of(parse(&crate::OPENCODE, &stdin, Some("question.asked"), &in_tmux()).unwrap());
    assert_eq!(hold, HoldMode::WhileActionable);
    assert_eq!(prompt.kind, PromptKind::Question);
    assert_eq!(prompt.tool, "question");
    assert_eq!(prompt.summary, "Which color?");
    let question = &prompt.questions[0];
    assert_eq!(
        (question.id.as_str(), question.header.as_str()),
        ("q1", "Color")
    );
    assert_eq!(question.options[1].label, "Blue");
    assert!(!question.multi);
    assert_eq!(verified().deliverable(&prompt), [Action::Answer]);
}

#[test]
fn answers_settle_their_request_and_rejects_the_session() {
    let replied = parse(
        &crate::OPENCODE,
        captured!("opencode-1.18.33", "permission.replied").as_bytes(),
        None,
        &in_tmux(),
    )
    .unwrap();
    assert_eq!(
        replied,
        HookEvent::Observe(Observation::ToolFinished {
            adapter: "opencode".into(),
            session: "ses_dce1c2680ffe4Zn4GyJNIXmcWE".into(),
            correlation: request_correlation("per_231e3ebcd001DDV59Lb7r2I5ZQ"),
        })
    );
    let mut rejected: Value =
        serde_json::from_str(captured!("opencode-1.18.33", "permission.replied")).unwrap();
    rejected["properties"]["reply"] = "reject".into();
    assert_eq!(
        parse(
            &crate::OPENCODE,
            rejected.to_string().as_bytes(),
            None,
            &in_tmux()
        )
        .unwrap(),
        HookEvent::Observe(Observation::TurnEnded {
            adapter: "opencode".into(),
            session: "ses_dce1c2680ffe4Zn4GyJNIXmcWE".into(),
        })
    );
    let answered = parse(
        &crate::OPENCODE,
        &from_plugin(captured!("opencode-1.18.33", "question.replied")),
        Some("question.replied"),
        &in_tmux(),
    )
    .unwrap();
    assert!(
        matches!(answered, HookEvent::Observe(Observation::ToolFinished { correlation, .. }) if correlation == request_correlation("que_231e6003c001JQLBDaC8fpB5xa"))
    );
    let dismissed = parse(
        &crate::OPENCODE,
        captured!("opencode-1.18.33", "question.rejected").as_bytes(),
        None,
        &in_tmux(),
    )
    .unwrap();
    assert!(matches!(
        dismissed,
        HookEvent::Observe(Observation::TurnEnded { .. })
    ));
    let other = parse(
        &crate::OPENCODE,
        captured!("opencode-1.18.33", "tool.execute.before-bash").as_bytes(),
        Some("session.idle"),
        &in_tmux(),
    )
    .unwrap();
    assert_eq!(other, HookEvent::Ignore);
}

#[test]
fn malformed_events_are_errors_never_prompts() {
    assert!(matches!(
        parse(
            &crate::OPENCODE,
            b"not json",
            Some("permission.asked"),
            &in_tmux()
        ),
        Err(ParseError::NotJson(_))
    ));
    for bad in [
        json!({ "type": "permission.asked" }),
        json!({ "type": "permission.asked", "properties": { "id": "per_1", "sessionID": "s" } }),
        json!({ "type": "question.asked", "properties": { "id": "que_1", "sessionID": "s", "questions": [] } }),
        json!({ "type": "permission.replied", "properties": { "sessionID": "s", "reply": "once" } }),
        json!({ "properties": {} }),
    ] {
        assert!(
            matches!(
                parse(
                    &crate::OPENCODE,
                    bad.to_string().as_bytes(),
                    None,
                    &in_tmux()
                ),
                Err(ParseError::NotAnEvent(_))
            ),
            "{bad}"
        );
    }
}

/// Hostile text stays the agent's, whole, for front ends to make visible; an `always` list that
/// cannot be shown in full offers no `always`, for a permission other than bash too.
#[test]
fn hostile_commands_are_kept_whole_and_unshowable_patterns_offer_no_always() {
    let hostile = "printf ok \u{202e}txt.exe\u{1b}[2J > x; rm -rf ~ `whoami`";
    let mut event: Value =
        serde_json::from_str(captured!("opencode-1.18.33", "permission.asked")).unwrap();
    event["properties"]["metadata"]["command"] = hostile.into();
    event["properties"]["always"] = json!(["printf *", 7]);
    let (prompt, _) = prompt_of(
        parse(
            &crate::OPENCODE,
            &from_plugin(&event.to_string()),
            None,
            &in_tmux(),
        )
        .unwrap(),
    );
    assert_eq!(prompt.summary, hostile);
    assert!(prompt.extra.suggestions.is_empty());
    assert_eq!(
        verified().deliverable(&prompt),
        [Action::Once, Action::Deny]
    );
    let preview = prompt.extra.preview.unwrap();
    assert!(
        preview.text.contains("always: not offered"),
        "{}",
        preview.text
    );
    assert!(
        preview.text.contains(hostile),
        "the whole command is in the preview"
    );

    let many: Vec<String> = (0..1000).map(|n| format!("cmd{n} *")).collect();
    event["properties"]["permission"] = "edit".into();
    for (always, why) in [
        (json!(many), "more than gatehouse shows"),
        (json!(["src/*", 7]), "not text"),
    ] {
        event["properties"]["always"] = always;
        let (prompt, _) = prompt_of(
            parse(
                &crate::OPENCODE,
                &from_plugin(&event.to_string()),
                None,
                &in_tmux(),
            )
            .unwrap(),
        );
        assert!(prompt.extra.suggestions.is_empty());
        assert!(!verified().deliverable(&prompt).contains(&Action::Always));
        let preview = prompt.extra.preview.unwrap();
        assert!(preview.text.contains(why), "{}", preview.text);
    }
}
