//! A prompt a hook holds says when the hold ends and what happens then (`hold_ends_at`,
//! `after_hold`), set by the gateway from the wait the hook asked for in `hook.hold` and the
//! adapter's [`WhileHeld`]; a watched prompt, which no hook holds, says neither.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::testing::toy_bash;
use gatehouse_core::{Event, NewPrompt, Prompt, WhileHeld};
use gatehouse_gateway::Gateway;
use gatehouse_host_ipc::protocol::notification;
use gatehouse_host_ipc::{now, Client, Role};
use tokio::io::DuplexStream;

use crate::support::{client, listed, toy_gateway};

/// A toy gateway whose adapter says that, when a hold ends, `while_held` happens.
fn toy_gateway_whose_hold_ends_with(while_held: WhileHeld) -> Arc<Gateway> {
    let gateway = toy_gateway();
    gateway.describe_holds_with(BTreeMap::from([("toy".to_owned(), while_held)]));
    gateway
}

/// Holds `prompt` for `wait` on a hook connection of its own, left running.
fn hold_in_the_background(gateway: &Arc<Gateway>, prompt: NewPrompt, wait: Duration) {
    let gateway = gateway.clone();
    tokio::spawn(async move {
        let mut hook = client(&gateway, Role::Hook).await;
        let _ = hook.hold_with(prompt, wait, None, true).await;
        // Keep the connection (and so the hold) until the test ends.
        std::future::pending::<()>().await;
    });
}

/// The prompt the next `added` event of `subscriber` carries.
async fn next_added(subscriber: &mut Client<DuplexStream>) -> Prompt {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(30), subscriber.next_notification())
            .await
            .expect("an event within 30 s")
            .unwrap();
        if frame.method != notification::EVENT {
            continue;
        }
        if let Ok(Event::Added { prompt }) = serde_json::from_value(frame.params) {
            return prompt;
        }
    }
}

#[tokio::test]
async fn a_held_prompt_ends_its_hold_when_the_hooks_wait_ends_and_says_what_happens_then() {
    let gateway = toy_gateway_whose_hold_ends_with(WhileHeld::OwnDialogAfterHold);
    let mut subscriber = client(&gateway, Role::Frontend).await;
    subscriber.subscribe().await.unwrap();
    let before = now();
    hold_in_the_background(&gateway, toy_bash("make"), Duration::from_secs(40));
    let added = next_added(&mut subscriber).await;
    let listed = listed(&gateway, 1).await.remove(0);
    for prompt in [&added, &listed] {
        let ends_at = prompt
            .hold_ends_at
            .expect("a held prompt says when its hold ends");
        assert_eq!(
            ends_at.millis_since(prompt.created_at),
            40_000,
            "the hook's wait, from registration: {prompt:?}"
        );
        assert!(ends_at.millis_since(before) >= 40_000, "{prompt:?}");
        assert_eq!(
            prompt.after_hold.as_deref(),
            Some("then Toy Agent shows its own dialog (it shows none meanwhile), and an answer here is refused"),
        );
    }
    let json = serde_json::to_value(&listed).unwrap();
    assert!(
        json["hold_ends_at"]
            .as_str()
            .is_some_and(|text| text.ends_with('Z')),
        "an RFC 3339 timestamp like created_at: {json}"
    );
}

#[tokio::test]
async fn an_adapter_that_did_not_say_gets_words_true_of_every_agent() {
    let gateway = toy_gateway();
    hold_in_the_background(&gateway, toy_bash("make"), Duration::from_secs(600));
    let prompt = listed(&gateway, 1).await.remove(0);
    assert_eq!(
        prompt.hold_ends_at.unwrap().millis_since(prompt.created_at),
        600_000
    );
    assert_eq!(
        prompt.after_hold.as_deref(),
        Some("then Toy Agent's own prompt decides, and an answer here is refused")
    );
}

#[tokio::test]
async fn a_watched_prompt_has_no_hold_to_end() {
    let gateway = toy_gateway_whose_hold_ends_with(WhileHeld::OwnPromptStaysLive);
    // Held with nothing offered (a tool the toy agent has no flags for): only watched.
    hold_in_the_background(
        &gateway,
        NewPrompt {
            tool: "Write".into(),
            ..toy_bash("notes.txt")
        },
        Duration::from_secs(40),
    );
    // Registered for watching from the start.
    let mut hook = client(&gateway, Role::Hook).await;
    hook.register(toy_bash("ls"), Duration::from_secs(60))
        .await
        .unwrap();
    let prompts = listed(&gateway, 2).await;
    assert_eq!(prompts.len(), 2, "{prompts:?}");
    for prompt in prompts {
        assert!(prompt.is_read_only(), "{prompt:?}");
        assert_eq!(prompt.hold_ends_at, None, "{prompt:?}");
        assert_eq!(prompt.after_hold, None, "{prompt:?}");
        let json = serde_json::to_value(&prompt).unwrap();
        assert!(json.get("hold_ends_at").is_none(), "{json}");
    }
}
