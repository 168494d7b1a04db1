//! The subscription client against a scripted gateway over an in-memory duplex (no sockets):
//! it answers `hello` and `subscribe`, sends its script of notifications, and hangs up.

use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_core::{DecisionId, Event, PromptState, Timestamp};
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, DuplexStream};

use super::*;
use crate::framing::{encode_frame, FrameReader};
use crate::protocol::{notification, Notification, Request, Response, Role};
use crate::socket::SocketError;

fn withdrawn_event() -> Event {
    Event::Changed {
        id: DecisionId::new_v7(),
        state: PromptState::Withdrawn,
        at: Timestamp::from_unix_millis(1_000),
        by: None,
        action: None,
        reason: Some("the terminal answered".into()),
    }
}

/// A gateway that answers `hello` and `subscribe` on `stream`, then sends `script`, then closes
/// the connection.
async fn scripted_gateway(stream: DuplexStream, script: Vec<Notification>) {
    let (read_half, mut writer) = tokio::io::split(stream);
    let mut reader = FrameReader::new(read_half);
    for reply in [
        json!({ "protocol": crate::PROTOCOL_VERSION, "server": "scripted 1", "adapters": [] }),
        json!({ "snapshot": [] }),
    ] {
        let frame = reader.next_frame().await.unwrap().expect("a request");
        let request: Request = serde_json::from_slice(&frame).unwrap();
        let response = Response::success(request.id.unwrap_or(Value::Null), reply);
        writer.write_all(&encode_frame(&response)).await.unwrap();
    }
    for notification in script {
        writer
            .write_all(&encode_frame(&notification))
            .await
            .unwrap();
    }
    writer.shutdown().await.unwrap();
}

/// A client connected to a scripted gateway that sends `script`.
async fn client_of_a_gateway_that_sends(
    script: Vec<Notification>,
) -> Result<Client<DuplexStream>, ClientError> {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    tokio::spawn(scripted_gateway(theirs, script));
    Client::over(ours, Role::Frontend, "test").await
}

fn no_gateway() -> ClientError {
    ClientError::Socket(SocketError::Connect {
        path: "/nowhere/gatehouse.sock".into(),
        source: std::io::ErrorKind::NotFound.into(),
    })
}

#[tokio::test]
async fn a_subscription_reads_events_and_catch_up_snapshots_and_skips_what_is_not_for_it() {
    let event = withdrawn_event();
    let script = vec![
        Notification::new(
            notification::REGISTERED,
            json!({ "id": DecisionId::new_v7(), "actions": [] }),
        ),
        Notification::new("from.a.newer.gateway", json!({})),
        Notification::new(notification::EVENT, &event),
        Notification::new(
            notification::SNAPSHOT,
            json!({ "prompts": [], "reason": "you fell behind" }),
        ),
    ];
    let client = client_of_a_gateway_that_sends(script).await.unwrap();
    let (mut subscription, snapshot) = Subscription::start(client).await.unwrap();
    assert!(snapshot.is_empty());
    assert_eq!(subscription.hello().server, "scripted 1");
    match subscription.next().await.unwrap() {
        FeedItem::Event(received) => assert_eq!(*received, event),
        other => panic!("expected the event, got {other:?}"),
    }
    match subscription.next().await.unwrap() {
        FeedItem::Snapshot(snapshot) => assert_eq!(snapshot.reason, "you fell behind"),
        other => panic!("expected the catch-up snapshot, got {other:?}"),
    }
    assert!(matches!(
        subscription.next().await,
        Err(ClientError::Closed)
    ));
}

#[tokio::test]
async fn an_unreadable_event_ends_the_subscription_with_a_typed_error() {
    let script = vec![Notification::new(
        notification::EVENT,
        json!({ "type": "added" }),
    )];
    let client = client_of_a_gateway_that_sends(script).await.unwrap();
    let (mut subscription, _) = Subscription::start(client).await.unwrap();
    assert!(matches!(
        subscription.next().await,
        Err(ClientError::BadReply(_))
    ));
}

#[test]
fn the_pause_doubles_up_to_the_longest() {
    let backoff = Backoff {
        first: Duration::from_millis(250),
        longest: Duration::from_secs(4),
    };
    let pauses: Vec<u128> = (1..=7)
        .map(|attempt| backoff.pause(attempt).as_millis())
        .collect();
    assert_eq!(pauses, [250, 500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    assert_eq!(backoff.pause(u32::MAX), backoff.longest);
    assert_eq!(backoff.pause(0), backoff.first);
}

/// What `follow` reported, in a form a test can compare.
#[derive(Debug, PartialEq)]
enum Seen {
    Connected,
    Event,
    Snapshot,
    Disconnected {
        closed: bool,
        retry_in_ms: u128,
        attempt: u32,
    },
}

fn seen(update: &FollowUpdate) -> Seen {
    match update {
        FollowUpdate::Connected { .. } => Seen::Connected,
        FollowUpdate::Item(FeedItem::Event(_)) => Seen::Event,
        FollowUpdate::Item(FeedItem::Snapshot(_)) => Seen::Snapshot,
        FollowUpdate::Disconnected {
            error,
            retry_in,
            attempt,
        } => Seen::Disconnected {
            closed: matches!(error, ClientError::Closed),
            retry_in_ms: retry_in.as_millis(),
            attempt: *attempt,
        },
    }
}

#[tokio::test(start_paused = true)]
async fn follow_reconnects_with_a_growing_pause_that_starts_again_after_a_success() {
    // Attempts 1 and 2 find no gateway, 3 connects and gets an event and a catch-up snapshot
    // before the gateway hangs up, 4 finds none again.
    let attempts = Arc::new(Mutex::new(0u32));
    let connect = {
        let attempts = attempts.clone();
        move || {
            let attempts = attempts.clone();
            async move {
                let attempt = {
                    let mut attempts = attempts.lock().unwrap();
                    *attempts += 1;
                    *attempts
                };
                if attempt == 3 {
                    client_of_a_gateway_that_sends(vec![
                        Notification::new(notification::EVENT, withdrawn_event()),
                        Notification::new(
                            notification::SNAPSHOT,
                            json!({ "prompts": [], "reason": "behind" }),
                        ),
                    ])
                    .await
                } else {
                    Err(no_gateway())
                }
            }
        }
    };
    let backoff = Backoff {
        first: Duration::from_millis(100),
        longest: Duration::from_secs(1),
    };
    let mut reports = Vec::new();
    follow(connect, backoff, |update| {
        reports.push(seen(&update));
        if reports.len() == 7 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .await;
    let refused = |retry_in_ms, attempt| Seen::Disconnected {
        closed: false,
        retry_in_ms,
        attempt,
    };
    assert_eq!(
        reports,
        [
            refused(100, 1),
            refused(200, 2),
            Seen::Connected,
            Seen::Event,
            Seen::Snapshot,
            Seen::Disconnected {
                closed: true,
                retry_in_ms: 100,
                attempt: 1
            },
            refused(200, 2),
        ]
    );
    assert_eq!(*attempts.lock().unwrap(), 4);
}

#[tokio::test(start_paused = true)]
async fn follow_stops_at_once_when_the_caller_is_done() {
    let mut connects = 0;
    let mut reports = 0;
    follow(
        || {
            connects += 1;
            client_of_a_gateway_that_sends(vec![Notification::new(
                notification::EVENT,
                withdrawn_event(),
            )])
        },
        Backoff {
            first: Duration::from_millis(100),
            longest: Duration::from_secs(1),
        },
        |_| {
            reports += 1;
            ControlFlow::Break(())
        },
    )
    .await;
    assert_eq!((connects, reports), (1, 1));
}
