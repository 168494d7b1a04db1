//! Verdicts for agents whose hook can allow a call once or deny it, and nothing else: what a
//! verdict comes to ([`once_or_deny`]), and its rendering in the shape of Claude Code's
//! `PermissionRequest` hooks, which Codex and Qwen Code read too: `{"hookSpecificOutput":
//! {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}`, or a deny with its
//! `message`. Only `once` allows; anything no probe proves for such an agent (an answer to
//! questions, `always`) comes to a deny, so that a verdict that should never have been offered
//! never allows by accident.

use gatehouse_core::answer::deny_message;
use gatehouse_core::{Answer, Verdict};
use serde_json::json;

/// What a verdict comes to for an agent whose hook can allow once or deny.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnceOrDeny {
    /// Run the call, this once.
    Allow,
    /// Do not run it; the message for the model.
    Deny(String),
}

/// What `verdict` comes to; `agent` (such as `Qwen Code`) names the agent in the deny messages
/// of verdicts it never offers.
pub fn once_or_deny(verdict: &Verdict, agent: &str) -> OnceOrDeny {
    match &verdict.0 {
        Answer::Once => OnceOrDeny::Allow,
        Answer::Deny { message } => OnceOrDeny::Deny(deny_message(message).to_owned()),
        Answer::Answer { .. } => {
            OnceOrDeny::Deny(format!("gatehouse cannot answer questions for {agent}."))
        }
        Answer::Always { .. } => {
            OnceOrDeny::Deny(format!("gatehouse cannot allow {agent} calls from now on."))
        }
    }
}

/// The hook's stdout for `verdict` in Claude Code's `PermissionRequest` shape; `agent` as in
/// [`once_or_deny`].
pub fn permission_request_decision(verdict: &Verdict, agent: &str) -> String {
    let decision = match once_or_deny(verdict, agent) {
        OnceOrDeny::Allow => json!({ "behavior": "allow" }),
        OnceOrDeny::Deny(message) => json!({ "behavior": "deny", "message": message }),
    };
    json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
        .to_string()
}

/// What adapters' tests share about verdicts (the kit's feature `testing`).
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use gatehouse_core::answer::DEFAULT_DENY_MESSAGE;
    use gatehouse_core::{Action, AdapterCapabilities, Answer, PromptKind, Verdict};

    /// Asserts that `flags` offer once and deny for permission prompts of `tool`, and nothing
    /// for those of each of `others`.
    pub fn assert_once_and_deny_only(flags: &AdapterCapabilities, tool: &str, others: &[&str]) {
        assert_eq!(
            flags.offered(PromptKind::Permission, tool),
            vec![Action::Once, Action::Deny],
            "{tool}"
        );
        for other in others {
            let offered = flags.offered(PromptKind::Permission, other);
            assert!(offered.is_empty(), "{other}: {offered:?}");
        }
    }

    /// Asserts that `render` (an agent's rendering, naming it `agent`) prints `allow` for
    /// `once`, and `deny(message)` for everything else: the person's deny message, the default
    /// one for a deny without (or with a blank) message, and a deny naming the agent for an
    /// answer to questions and for `always`, which such an agent never offers.
    pub fn assert_once_or_deny(
        render: impl Fn(&Verdict) -> String,
        agent: &str,
        allow: &str,
        deny: impl Fn(&str) -> String,
    ) {
        let render = |answer| render(&Verdict(answer));
        assert_eq!(render(Answer::Once), allow);
        let denied = |message: Option<&str>| Answer::Deny {
            message: message.map(str::to_owned),
        };
        assert_eq!(
            render(denied(Some("use make clean"))),
            deny("use make clean")
        );
        assert_eq!(render(denied(Some("  "))), deny(DEFAULT_DENY_MESSAGE));
        assert_eq!(render(denied(None)), deny(DEFAULT_DENY_MESSAGE));
        assert_eq!(
            render(Answer::Answer { responses: vec![] }),
            deny(&format!("gatehouse cannot answer questions for {agent}."))
        );
        let always = Answer::Always {
            suggestion: None,
            scope: Default::default(),
        };
        assert_eq!(
            render(always),
            deny(&format!(
                "gatehouse cannot allow {agent} calls from now on."
            ))
        );
    }

    /// [`assert_once_or_deny`] for a rendering in Claude Code's `PermissionRequest` shape.
    pub fn assert_permission_request_decisions(render: impl Fn(&Verdict) -> String, agent: &str) {
        let decision = |decision: &str| {
            format!(
                r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{decision}}}}}"#
            )
        };
        assert_once_or_deny(
            render,
            agent,
            &decision(r#"{"behavior":"allow"}"#),
            |message| {
                decision(&serde_json::json!({ "behavior": "deny", "message": message }).to_string())
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_allows_deny_carries_its_message_and_nothing_else_allows() {
        assert_eq!(
            permission_request_decision(&Verdict(Answer::Once), "Agent"),
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#
        );
        assert_eq!(
            permission_request_decision(
                &Verdict(Answer::Deny {
                    message: Some("use make clean".into())
                }),
                "Agent"
            ),
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"use make clean"}}}"#
        );
        testing::assert_permission_request_decisions(
            |verdict| permission_request_decision(verdict, "Agent"),
            "Agent",
        );
    }
}
