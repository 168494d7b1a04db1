//! The server and client tested together over in-memory duplex streams: no sockets, no agent.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::testing::toy_bash;
use gatehouse_core::{Action, Answer, DecisionId, NewPrompt, Outcome, PromptKind, PromptState};
use gatehouse_gateway::{serve_connection, serve_connection_with, Roles};
use gatehouse_gateway::{Gateway, GatewayOptions};
use gatehouse_host_ipc::protocol::{
    notification, HoldResult, RegisteredParams, SnapshotParams, StatusResult,
};
use gatehouse_host_ipc::{Client, Role};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use crate::support::{self, client};

fn toy_gateway(receipt_timeout: Duration) -> Arc<Gateway> {
    support::toy_gateway_with(GatewayOptions {
        receipt_timeout,
        ..GatewayOptions::default()
    })
}

fn raw_connection(gateway: &Arc<Gateway>) -> DuplexStream {
    support::connection(gateway, Roles::Any)
}

fn bash(command: &str, tool: &str) -> NewPrompt {
    NewPrompt {
        tool: tool.into(),
        ..toy_bash(command)
    }
}

/// A hook's hold under way: its connection and its outcome, once it has one.
type Holding = tokio::task::JoinHandle<(
    Client<DuplexStream>,
    Result<HoldResult, gatehouse_host_ipc::ClientError>,
)>;

/// Starts a hook that holds a prompt, and returns the prompt's id and the hook's pending outcome.
async fn hold(gateway: &Arc<Gateway>, prompt: NewPrompt, wait: Duration) -> (DecisionId, Holding) {
    let mut events = client(gateway, Role::Frontend).await;
    events.subscribe().await.unwrap();
    let gateway = gateway.clone();
    let hook = tokio::spawn(async move {
        let mut hook = client(&gateway, Role::Hook).await;
        let result = hook.hold(prompt, wait).await;
        (hook, result)
    });
    (added_id(&mut events).await, hook)
}

/// The id of the prompt in the next `event` (an `added` one) that `events` gets.
async fn added_id(events: &mut Client<DuplexStream>) -> DecisionId {
    let added = events.next_notification().await.unwrap();
    added.params["prompt"]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// [`hold`]s the toy agent's Bash prompt for `command` for a minute.
async fn hold_bash(gateway: &Arc<Gateway>, command: &str) -> (DecisionId, Holding) {
    hold(gateway, bash(command, "Bash"), Duration::from_secs(60)).await
}

/// A toy gateway whose receipts are due within `receipt_seconds`, a hook that [`hold_bash`]es
/// `command` there, and a front end to answer it.
async fn holding_with_a_frontend(
    command: &str,
    receipt_seconds: u64,
) -> (Arc<Gateway>, DecisionId, Holding, Client<DuplexStream>) {
    let gateway = toy_gateway(Duration::from_secs(receipt_seconds));
    let (id, hook) = hold_bash(&gateway, command).await;
    let frontend = client(&gateway, Role::Frontend).await;
    (gateway, id, hook, frontend)
}

/// A hook observes that the toy agent's `make` finished; what the gateway withdrew for it.
async fn make_finished(gateway: &Arc<Gateway>) -> Vec<DecisionId> {
    let mut observer = client(gateway, Role::Hook).await;
    let finished = gatehouse_core::Observation::ToolFinished {
        adapter: "toy".into(),
        session: "s1".into(),
        correlation: "make".into(),
    };
    observer.observe(finished).await.unwrap().withdrawn
}

#[tokio::test]
async fn hello_reports_the_adapters_and_their_flags() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let client = client(&gateway, Role::Frontend).await;
    let adapters = &client.hello().adapters;
    assert_eq!(adapters.len(), 1);
    assert_eq!(
        adapters[0].offered(PromptKind::Permission, "Bash"),
        vec![Action::Once, Action::Deny]
    );
}

#[tokio::test]
async fn calls_before_hello_and_from_the_wrong_role_are_refused() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut stream = BufReader::new(raw_connection(&gateway));
    stream
        .get_mut()
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list\"}\n")
        .await
        .unwrap();
    let mut line = String::new();
    stream.read_line(&mut line).await.unwrap();
    assert!(line.contains("\"hello_required\""), "{line}");

    let mut hook = client(&gateway, Role::Hook).await;
    assert_eq!(
        hook.list().await.unwrap_err().rpc_name(),
        Some("wrong_role")
    );
    let mut frontend = client(&gateway, Role::Frontend).await;
    let observation = gatehouse_core::Observation::TurnEnded {
        adapter: "toy".into(),
        session: "s".into(),
    };
    assert_eq!(
        frontend.observe(observation).await.unwrap_err().rpc_name(),
        Some("wrong_role")
    );
}

#[tokio::test]
async fn a_different_protocol_version_is_refused() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut stream = BufReader::new(raw_connection(&gateway));
    let hello = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"protocol\":99,\"role\":\"frontend\"}}\n";
    stream.get_mut().write_all(hello.as_bytes()).await.unwrap();
    let mut line = String::new();
    stream.read_line(&mut line).await.unwrap();
    assert!(
        line.contains("\"version_mismatch\"") && line.contains("-32006"),
        "{line}"
    );
}

#[tokio::test]
async fn garbage_gets_errors_and_the_connection_stays_usable() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut stream = BufReader::new(raw_connection(&gateway));
    let inputs = [
        ("not json\n", "parse_error"),
        ("[1,2]\n", "invalid_request"),
        ("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"list\"}\n", "invalid_request"),
        ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hello\",\"params\":{\"role\":7}}\n", "invalid_params"),
        ("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"hello\",\"params\":{\"protocol\":4,\"role\":\"frontend\"}}\n", "\"result\""),
        ("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"frobnicate\"}\n", "method_not_found"),
        ("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"answer\",\"params\":{\"id\":\"nope\"}}\n", "invalid_params"),
        ("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"list\"}\n", "\"result\":[]"),
    ];
    for (input, expected) in inputs {
        stream.get_mut().write_all(input.as_bytes()).await.unwrap();
        let mut line = String::new();
        stream.read_line(&mut line).await.unwrap();
        assert!(line.contains(expected), "{input} gave {line}");
    }
}

#[tokio::test]
async fn a_frame_that_is_too_large_gets_an_error_and_a_closed_connection() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let (mut near, far) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve_connection(gateway.clone(), far));
    let writer = tokio::spawn(async move {
        let chunk = vec![b'x'; 1 << 16];
        for _ in 0..(gatehouse_host_ipc::framing::MAX_FRAME_BYTES / chunk.len() + 2) {
            if near.write_all(&chunk).await.is_err() {
                break;
            }
        }
        near
    });
    let near = writer.await.unwrap();
    let mut reader = BufReader::new(near);
    let mut line = String::new();
    reader.read_line(&mut line).await.unwrap();
    assert!(line.contains("frame_too_large"), "{line}");
    line.clear();
    assert_eq!(
        reader.read_line(&mut line).await.unwrap(),
        0,
        "the connection is closed"
    );
}

#[tokio::test]
async fn once_reaches_the_waiting_hook_and_a_receipt_delivers_it() {
    let (_gateway, id, hook, mut frontend) = holding_with_a_frontend("ls", 5).await;
    let listed = frontend.list().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].actions, vec![Action::Once, Action::Deny]);
    assert_eq!(
        frontend.answer(id, Answer::Once).await.unwrap().state,
        PromptState::Resolved
    );
    let second = frontend
        .answer(id, Answer::Deny { message: None })
        .await
        .unwrap_err();
    assert_eq!(second.rpc_name(), Some("not_pending"));

    let (mut hook, result) = hook.await.unwrap();
    let result = result.unwrap();
    assert_eq!(result.id, id);
    assert!(matches!(result.outcome, Outcome::Verdict { ref verdict } if verdict.allows()));
    let registered = hook.next_notification().await.unwrap();
    assert_eq!(registered.method, notification::REGISTERED);
    let registered: RegisteredParams = serde_json::from_value(registered.params).unwrap();
    assert_eq!(registered.id, id);
    assert_eq!(
        hook.confirm_delivery(id).await.unwrap().state,
        PromptState::Delivered
    );
    assert!(frontend.list().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_hook_that_goes_away_withdraws_its_prompt() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut watcher = client(&gateway, Role::Frontend).await;
    watcher.subscribe().await.unwrap();
    let mut hook = client(&gateway, Role::Hook).await;
    let holding = tokio::spawn(async move {
        let _ = tokio::time::timeout(
            Duration::from_millis(200),
            hook.hold(bash("ls", "Bash"), Duration::from_secs(60)),
        )
        .await;
        drop(hook);
    });
    let id = added_id(&mut watcher).await;
    holding.await.unwrap();
    let changed = watcher.next_notification().await.unwrap();
    assert_eq!(changed.params["state"], "withdrawn", "{:?}", changed.params);
    let mut frontend = client(&gateway, Role::Frontend).await;
    assert_eq!(
        frontend
            .answer(id, Answer::Once)
            .await
            .unwrap_err()
            .rpc_name(),
        Some("not_pending")
    );
}

#[tokio::test]
async fn release_and_observation_end_the_hold_without_a_verdict() {
    let (gateway, id, hook, mut frontend) = holding_with_a_frontend("ls", 5).await;
    assert_eq!(
        frontend.release(id).await.unwrap().state,
        PromptState::Released
    );
    assert_eq!(hook.await.unwrap().1.unwrap().outcome, Outcome::Released);

    let (id, hook) = hold_bash(&gateway, "make").await;
    assert_eq!(make_finished(&gateway).await, vec![id]);
    assert!(matches!(
        hook.await.unwrap().1.unwrap().outcome,
        Outcome::Withdrawn { .. }
    ));
}

#[tokio::test]
async fn a_read_only_prompt_refuses_answers() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let (id, hook) = hold(
        &gateway,
        bash("notes.txt", "Write"),
        Duration::from_secs(60),
    )
    .await;
    let mut frontend = client(&gateway, Role::Frontend).await;
    assert_eq!(frontend.list().await.unwrap()[0].actions, vec![]);
    let error = frontend.answer(id, Answer::Once).await.unwrap_err();
    assert_eq!(error.rpc_name(), Some("read_only"));
    hook.abort();
}

#[tokio::test(start_paused = true)]
async fn the_deadline_expires_a_prompt_without_a_verdict() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let (id, hook) = hold(&gateway, bash("ls", "Bash"), Duration::from_secs(30)).await;
    let (_, result) = hook.await.unwrap();
    assert_eq!(result.unwrap().outcome, Outcome::Expired);
    let mut frontend = client(&gateway, Role::Frontend).await;
    let late = frontend.answer(id, Answer::Once).await.unwrap_err();
    assert_eq!(late.rpc_name(), Some("not_pending"));
    assert!(late.to_string().contains("expired"), "{late}");
}

#[tokio::test(start_paused = true)]
async fn a_verdict_without_receipt_becomes_unconfirmed() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut watcher = client(&gateway, Role::Frontend).await;
    watcher.subscribe().await.unwrap();
    let (id, hook) = hold_bash(&gateway, "ls").await;
    let mut frontend = client(&gateway, Role::Frontend).await;
    frontend
        .answer(
            id,
            Answer::Deny {
                message: Some("no".into()),
            },
        )
        .await
        .unwrap();
    let (hook, _) = hook.await.unwrap();
    drop(hook);
    let mut states = Vec::new();
    while states.last().map(String::as_str) != Some("unconfirmed") {
        let event = watcher.next_notification().await.unwrap();
        if let Some(state) = event.params["state"].as_str() {
            states.push(state.to_owned());
        }
    }
    assert_eq!(states, ["resolved", "unconfirmed"]);
}

#[tokio::test]
async fn a_subscriber_that_stops_reading_never_stalls_the_gateway_and_catches_up_by_snapshot() {
    let small_buffer = GatewayOptions {
        event_buffer: 64,
        ..GatewayOptions::default()
    };
    let gateway = Gateway::new(toy_gateway(Duration::from_secs(5)).adapters(), small_buffer);
    let mut slow = client(&gateway, Role::Frontend).await;
    slow.subscribe().await.unwrap();
    // Far more events than the subscriber's buffers hold, while it reads nothing. Each call
    // returns at once: publishing never waits for a subscriber.
    let mut outcomes = Vec::new();
    for index in 0..6_000 {
        let outcome = gateway
            .hold(
                bash(&format!("p{index}"), "Bash"),
                Duration::from_secs(60),
                None,
                false,
                None,
                gatehouse_gateway::Owner {
                    connection: u64::MAX - index,
                    hooks_socket: false,
                },
            )
            .unwrap()
            .outcome;
        outcomes.push(outcome);
    }
    let mut frontend = client(&gateway, Role::Frontend).await;
    assert_eq!(
        frontend.list().await.unwrap().len(),
        6_000,
        "the gateway still answers while a subscriber is stuck"
    );
    let mut saw_snapshot = false;
    for _ in 0..10_000 {
        let notification = tokio::time::timeout(Duration::from_secs(10), slow.next_notification())
            .await
            .unwrap()
            .unwrap();
        if notification.method == notification::SNAPSHOT {
            let snapshot: SnapshotParams = serde_json::from_value(notification.params).unwrap();
            assert_eq!(snapshot.prompts.len(), 6_000);
            saw_snapshot = true;
            break;
        }
    }
    assert!(
        saw_snapshot,
        "a subscriber that fell behind is sent a fresh snapshot"
    );
}

#[tokio::test]
async fn a_connection_keeps_the_role_it_said_hello_with() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut hook = client(&gateway, Role::Hook).await;
    let params = gatehouse_host_ipc::protocol::HelloParams {
        protocol: gatehouse_host_ipc::PROTOCOL_VERSION,
        role: Role::Frontend,
        client: None,
        host: None,
    };
    let again: Result<serde_json::Value, _> = hook.call("hello", &params).await;
    assert_eq!(again.unwrap_err().rpc_name(), Some("invalid_request"));
    let refused = hook.list().await.unwrap_err();
    assert_eq!(refused.rpc_name(), Some("wrong_role"));
    assert!(
        refused.to_string().contains("said hello as hook"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_watched_prompt_is_read_only_even_where_the_adapter_offers_actions() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut hook = client(&gateway, Role::Hook).await;
    let registered = hook
        .register(bash("ls", "Bash"), Duration::from_secs(60))
        .await
        .unwrap();
    assert!(registered.actions.is_empty());
    let mut frontend = client(&gateway, Role::Frontend).await;
    assert_eq!(
        frontend
            .answer(registered.id, Answer::Once)
            .await
            .unwrap_err()
            .rpc_name(),
        Some("read_only")
    );
}

#[tokio::test]
async fn subscribing_twice_does_not_send_events_twice() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut watcher = client(&gateway, Role::Frontend).await;
    watcher.subscribe().await.unwrap();
    watcher.subscribe().await.unwrap();
    let mut hook = client(&gateway, Role::Hook).await;
    let first = hook
        .register(bash("one", "Bash"), Duration::from_secs(60))
        .await
        .unwrap();
    let second = hook
        .register(bash("two", "Bash"), Duration::from_secs(60))
        .await
        .unwrap();
    let ids: Vec<String> = [
        watcher.next_notification().await.unwrap(),
        watcher.next_notification().await.unwrap(),
    ]
    .iter()
    .map(|event| event.params["prompt"]["id"].as_str().unwrap().to_owned())
    .collect();
    assert_eq!(ids, [first.id.to_string(), second.id.to_string()]);
}

#[tokio::test]
async fn a_hold_that_may_be_watched_returns_at_once_when_nothing_is_offered() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let mut hook = client(&gateway, Role::Hook).await;
    let watched = hook
        .hold_with(
            bash("notes.txt", "Write"),
            Duration::from_secs(60),
            None,
            true,
        )
        .await
        .unwrap();
    assert_eq!(watched.outcome, Outcome::Watched);
    let mut frontend = client(&gateway, Role::Frontend).await;
    let listed = frontend.list().await.unwrap();
    assert_eq!(
        (listed.len(), listed[0].actions.is_empty()),
        (1, true),
        "it stays listed, read-only"
    );

    let (id, holding) = {
        let gateway = gateway.clone();
        let mut watcher = client(&gateway, Role::Frontend).await;
        watcher.subscribe().await.unwrap();
        let holding = tokio::spawn(async move {
            let mut hook = client(&gateway, Role::Hook).await;
            hook.hold_with(bash("ls", "Bash"), Duration::from_secs(60), None, true)
                .await
        });
        (added_id(&mut watcher).await, holding)
    };
    frontend.answer(id, Answer::Once).await.unwrap();
    assert!(
        matches!(
            holding.await.unwrap().unwrap().outcome,
            Outcome::Verdict { .. }
        ),
        "an actionable prompt is held"
    );
}

#[tokio::test]
async fn new_capability_flags_apply_to_new_prompts_only() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let (held, _holding) = hold_bash(&gateway, "a").await;
    let mut read_only = gateway.adapters();
    read_only[0].rules.clear();
    assert!(gateway.replace_adapters(read_only.clone()));
    assert!(
        !gateway.replace_adapters(read_only),
        "the same flags again change nothing"
    );
    let mut hook = client(&gateway, Role::Hook).await;
    let later = hook
        .hold_with(bash("b", "Bash"), Duration::from_secs(60), None, true)
        .await
        .unwrap();
    assert_eq!(
        later.outcome,
        Outcome::Watched,
        "nothing is offered for a new prompt any more"
    );
    let mut frontend = client(&gateway, Role::Frontend).await;
    let listed = frontend.list().await.unwrap();
    let earlier = listed.iter().find(|prompt| prompt.id == held).unwrap();
    assert_eq!(
        earlier.actions,
        vec![Action::Once, Action::Deny],
        "a registered prompt keeps what it was offered"
    );
}

#[tokio::test]
async fn an_allow_whose_hook_goes_away_before_its_receipt_is_unconfirmed_and_claims_no_finish() {
    let (gateway, allowed, hook, mut frontend) = holding_with_a_frontend("make", 60).await;
    frontend.answer(allowed, Answer::Once).await.unwrap();
    // The terminal said No first: the agent ends the hook before it prints or confirms.
    let mut watcher = client(&gateway, Role::Frontend).await;
    watcher.subscribe().await.unwrap();
    let (hook, _) = hook.await.unwrap();
    drop(hook);
    let unconfirmed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let event = watcher.next_notification().await.unwrap();
            if event.params["id"] == allowed.to_string() && event.params["state"] == "unconfirmed" {
                return event;
            }
        }
    })
    .await
    .expect("the allow was marked unconfirmed when its hook went away, not after the 60 s receipt timeout");
    assert!(unconfirmed.params["reason"]
        .as_str()
        .unwrap()
        .contains("went away"));
    let (next, _next_hook) = hold_bash(&gateway, "make").await;
    let withdrawn = make_finished(&gateway).await;
    assert_eq!(
        withdrawn,
        vec![next],
        "the next identical call's finish is its own"
    );
}

async fn hook_from(gateway: &Arc<Gateway>, roles: Roles, host: &str) -> Client<DuplexStream> {
    let (near, far) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve_connection_with(gateway.clone(), far, roles));
    Client::over_from_host(near, Role::Hook, "test", Some(host))
        .await
        .expect("a hook may say hello on either socket")
}

#[tokio::test]
async fn status_counts_hook_connections_by_the_host_the_gateway_stamps_not_the_hello() {
    let gateway = Gateway::new(
        toy_gateway(Duration::from_secs(5)).adapters(),
        GatewayOptions {
            local_host: "laptop".into(),
            ..GatewayOptions::default()
        },
    );
    let mut frontend = client(&gateway, Role::Frontend).await;
    let first = hook_from(&gateway, Roles::Any, "devbox").await;
    let second = hook_from(&gateway, Roles::HooksOnly, "devbox").await;
    let third = hook_from(&gateway, Roles::Any, "laptop").await;
    let hosts = |status: StatusResult| {
        status
            .hosts
            .into_iter()
            .map(|entry| (entry.host, entry.connections))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        hosts(frontend.status().await.unwrap()),
        [("laptop".to_owned(), 2), ("unnamed link".to_owned(), 1)],
        "local hooks are this machine's, and one on the hooks socket is never local"
    );
    drop(first);
    drop(third);
    let mut remaining = Vec::new();
    for _ in 0..100 {
        remaining = hosts(frontend.status().await.unwrap());
        if remaining.len() == 1 {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(
        remaining,
        [("unnamed link".to_owned(), 1)],
        "closed connections leave the count"
    );
    assert_eq!(
        frontend.status().await.unwrap().started_by,
        "gatehouse serve"
    );
    drop(second);
}

#[tokio::test]
async fn the_hooks_socket_serves_hooks_and_nothing_a_front_end_could_use() {
    let gateway = toy_gateway(Duration::from_secs(5));
    let (near, far) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve_connection_with(
        gateway.clone(),
        far,
        Roles::HooksOnly,
    ));
    let refused = Client::over(near, Role::Frontend, "remote")
        .await
        .err()
        .expect("a front end may not say hello on the hooks socket");
    assert_eq!(refused.rpc_name(), Some("wrong_role"));

    let mut hook = hook_from(&gateway, Roles::HooksOnly, "devbox").await;
    assert_eq!(
        hook.status().await.unwrap_err().rpc_name(),
        Some("wrong_role")
    );
    assert_eq!(
        hook.list().await.unwrap_err().rpc_name(),
        Some("wrong_role")
    );
    let registered = hook
        .register(bash("echo from afar", "Bash"), Duration::from_secs(60))
        .await
        .expect("a hook registers its prompt on the hooks socket");
    let mut frontend = client(&gateway, Role::Frontend).await;
    let listed = frontend.list().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, registered.id);
}
