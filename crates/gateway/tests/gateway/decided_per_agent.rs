//! What is offered for a held prompt is decided by the gateway alone, for the agent its hook
//! reported (`hook.hold`'s `agent`), through the [`CapabilitySource`] the binary hands it: the
//! unlock rule as the probe record says now, per prompt, with no refresh to wait for. A prompt
//! the hook wanted answerable but the gateway finds read-only is listed read-only with the
//! source's reason, and its hook is let go at once; its leaving never withdraws it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::testing::toy_bash;
use gatehouse_core::{
    Action, ActionFlag, AdapterCapabilities, Answer, CapabilityRule, NewPrompt, Outcome,
    PromptKind, PromptState, RunningAgent,
};
use gatehouse_gateway::{CapabilitySource, Gateway, GatewayOptions};
use gatehouse_host_ipc::protocol::HoldResult;
use gatehouse_host_ipc::{Client, ClientError, Role};
use tokio::io::DuplexStream;

use crate::support::{client, listed};

const PROBED: &str = "1.0.102";

/// The toy agent's flags: `bash` once and deny verified with `evidence`, else unverified with it.
fn flags(verified: bool, evidence: &str) -> AdapterCapabilities {
    let flag = |action| ActionFlag {
        action,
        verified,
        evidence: evidence.into(),
    };
    AdapterCapabilities {
        adapter: "toy".into(),
        name: "Toy Agent".into(),
        rules: vec![CapabilityRule {
            kind: PromptKind::Permission,
            tool: None,
            actions: vec![flag(Action::Once), flag(Action::Deny)],
        }],
    }
}

/// A probe record, as a switch: passed for [`PROBED`] or not yet.
#[derive(Default)]
struct Record {
    passed: AtomicBool,
}

impl CapabilitySource for Record {
    fn for_agent(&self, adapter: &str, agent: &RunningAgent) -> Option<AdapterCapabilities> {
        if adapter != "toy" {
            return None;
        }
        let version = match agent.version() {
            Ok(version) => version.to_owned(),
            Err(problem) => return Some(flags(false, &problem)),
        };
        Some(if !self.passed.load(Ordering::SeqCst) {
            flags(false, "no probe has checked this toy agent")
        } else if version == PROBED {
            flags(true, "by probe")
        } else {
            flags(
                false,
                &format!("the probe passed for {PROBED}, but {version} is in use"),
            )
        })
    }
}

/// A gateway whose registered flags (what a refresh would have found) are read-only, deciding
/// per prompt with `record`.
fn gateway_with(record: Arc<Record>) -> Arc<Gateway> {
    let gateway = Gateway::new(
        vec![flags(false, "not refreshed since the probe")],
        GatewayOptions::default(),
    );
    gateway.decide_capabilities_with(record);
    gateway
}

fn bash(command: &str) -> NewPrompt {
    NewPrompt {
        tool: "bash".into(),
        ..toy_bash(command)
    }
}

/// A gateway whose probe record has passed for [`PROBED`].
fn probed_gateway() -> Arc<Gateway> {
    gateway_with(Arc::new(Record {
        passed: AtomicBool::new(true),
    }))
}

/// Holds `bash("make")` for a minute on `hook`, watched if read-only, run by `agent`.
async fn hold_make(
    hook: &mut Client<DuplexStream>,
    agent: Option<RunningAgent>,
) -> Result<HoldResult, ClientError> {
    hook.hold_for(bash("make"), Duration::from_secs(60), None, true, agent)
        .await
}

/// On a probed gateway, a hook holds `bash("make")` run by `agent`, and the gateway only
/// watches it (it offers nothing); the gateway and the hook, still connected.
async fn hold_watched(agent: Option<RunningAgent>) -> (Arc<Gateway>, Client<DuplexStream>) {
    let gateway = probed_gateway();
    let mut hook = client(&gateway, Role::Hook).await;
    let held = hold_make(&mut hook, agent).await.unwrap();
    assert!(matches!(held.outcome, Outcome::Watched), "{held:?}");
    (gateway, hook)
}

fn running(version: &str) -> Option<RunningAgent> {
    Some(RunningAgent {
        executable: Some("/usr/bin/toy".into()),
        version: Some(version.into()),
        problem: None,
    })
}

#[tokio::test]
async fn a_passing_probe_counts_for_the_very_next_prompt_with_no_refresh() {
    let record = Arc::new(Record::default());
    let gateway = gateway_with(record.clone());
    record.passed.store(true, Ordering::SeqCst);
    let hook_gateway = gateway.clone();
    let hook = tokio::spawn(async move {
        let mut hook = client(&hook_gateway, Role::Hook).await;
        hold_make(&mut hook, running(PROBED)).await
    });
    let prompt = listed(&gateway, 1).await.remove(0);
    assert_eq!(
        prompt.actions,
        vec![Action::Once, Action::Deny],
        "{prompt:?}"
    );
    let mut frontend = client(&gateway, Role::Frontend).await;
    let answered = frontend
        .answer(&prompt.id.to_string(), Answer::Once)
        .await
        .unwrap();
    assert_eq!(answered.state, PromptState::Resolved);
    let outcome = hook.await.unwrap().unwrap().outcome;
    assert!(matches!(outcome, Outcome::Verdict { .. }), "{outcome:?}");
    assert!(
        gateway.adapters()[0]
            .offered(PromptKind::Permission, "bash")
            .is_empty(),
        "the registered flags were never refreshed"
    );
}

#[tokio::test]
async fn another_version_is_listed_read_only_with_the_true_reason_and_stays_after_its_hook_left() {
    let (gateway, hook) = hold_watched(running("1.0.103")).await;
    drop(hook);
    // The hook is gone; give the gateway every chance to (wrongly) withdraw the prompt.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let prompts = listed(&gateway, 1).await;
    assert_eq!(
        prompts.len(),
        1,
        "a watched prompt stays listed: {prompts:?}"
    );
    let prompt = &prompts[0];
    assert_eq!(prompt.state, PromptState::Pending);
    assert!(prompt.actions.is_empty());
    let reason = prompt
        .prompt
        .read_only_reason
        .as_deref()
        .unwrap_or_default();
    assert!(
        reason.contains("the probe passed for 1.0.102, but 1.0.103 is in use"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_version_the_hook_cannot_tell_is_read_only_and_says_why() {
    let agent = RunningAgent {
        executable: None,
        version: None,
        problem: Some("no toy among the hook's ancestors".into()),
    };
    let (gateway, _hook) = hold_watched(Some(agent)).await;
    let prompt = listed(&gateway, 1).await.remove(0);
    let reason = prompt.prompt.read_only_reason.unwrap_or_default();
    assert!(
        reason.contains("no toy among the hook's ancestors"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_hook_that_reports_no_agent_gets_the_registered_flags() {
    let (gateway, _hook) = hold_watched(None).await;
    let prompt = listed(&gateway, 1).await.remove(0);
    assert!(prompt.actions.is_empty());
    assert!(prompt
        .prompt
        .read_only_reason
        .unwrap_or_default()
        .contains("not refreshed since the probe"));
}

#[tokio::test]
async fn a_held_prompt_whose_hook_leaves_is_withdrawn_with_a_reason_that_says_so() {
    let gateway = probed_gateway();
    let hook_gateway = gateway.clone();
    let hook = tokio::spawn(async move {
        let mut hook = client(&hook_gateway, Role::Hook).await;
        hold_make(&mut hook, running(PROBED)).await
    });
    let mut events = client(&gateway, Role::Frontend).await;
    events.subscribe().await.unwrap();
    assert_eq!(listed(&gateway, 1).await.len(), 1);
    hook.abort();
    let changed = tokio::time::timeout(Duration::from_secs(30), events.next_notification())
        .await
        .expect("the prompt ends")
        .unwrap();
    assert_eq!(changed.params["state"], "withdrawn", "{changed:?}");
    assert_eq!(
        changed.params["reason"],
        gatehouse_gateway::HOOK_LEFT_REASON
    );
    assert!(listed(&gateway, 0).await.is_empty());
}

#[tokio::test]
async fn a_verdict_the_hook_refuses_ends_unconfirmed_saying_why_and_only_its_own_hook_may_say_so() {
    let gateway = probed_gateway();
    let mut events = client(&gateway, Role::Frontend).await;
    events.subscribe().await.unwrap();
    let hook_gateway = gateway.clone();
    let hook = tokio::spawn(async move {
        let mut hook = client(&hook_gateway, Role::Hook).await;
        let held = hold_make(&mut hook, running(PROBED)).await;
        (hook, held)
    });
    let prompt = listed(&gateway, 1).await.remove(0);
    let mut frontend = client(&gateway, Role::Frontend).await;
    frontend
        .answer(&prompt.id.to_string(), Answer::Once)
        .await
        .unwrap();
    let (mut hook, held) = hook.await.unwrap();
    assert!(matches!(held.unwrap().outcome, Outcome::Verdict { .. }));
    // Another hook connection cannot speak for this prompt.
    let mut stranger = client(&gateway, Role::Hook).await;
    let refused = stranger.refuse_delivery(prompt.id).await.unwrap_err();
    assert!(refused.to_string().contains("holds no prompt"), "{refused}");
    let state = hook.refuse_delivery(prompt.id).await.unwrap();
    assert_eq!(state.state, PromptState::Unconfirmed);
    let reason = loop {
        let event = tokio::time::timeout(Duration::from_secs(30), events.next_notification())
            .await
            .expect("the prompt's events")
            .unwrap();
        if event.params["state"] == "unconfirmed" {
            break event.params["reason"].clone();
        }
    };
    assert_eq!(reason, gatehouse_gateway::HOOK_REFUSED_REASON);
}
