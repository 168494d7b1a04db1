//! What a peer of the hooks socket may hold open while it sends, over in-memory duplex streams
//! with small limits: a frame must end within its pace, a connection holding no prompt that
//! says nothing is closed (one whose hook waits for its verdict is not), unfinished frames count
//! against the socket's budget, and the socket and each peer process take at most so many
//! connections, while the person's own socket is never held back.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::testing::toy_bash;
use gatehouse_core::{Answer, Outcome};
use gatehouse_gateway::{serve_connection_from, Gateway, GatewayOptions, Limits, Roles};
use gatehouse_host_ipc::framing::FramePace;
use gatehouse_host_ipc::{Client, Role};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use crate::support::{self, connection};

/// A toy gateway whose hooks socket is held to `limits`' small pace, idle time and budget.
fn gateway_within(limits: Limits) -> Arc<Gateway> {
    support::toy_gateway_with(GatewayOptions {
        limits,
        ..GatewayOptions::default()
    })
}

/// Limits with a pace of half a second per frame and half a second of silence allowed.
fn quick() -> Limits {
    Limits {
        hooks_socket_frame_pace: FramePace {
            first: Duration::from_millis(500),
            per_mib: Duration::from_millis(500),
        },
        hooks_socket_idle: Duration::from_millis(500),
        ..Limits::default()
    }
}

/// A connection to the hooks socket from the process `peer`.
fn from_peer(gateway: &Arc<Gateway>, peer: Option<u32>) -> BufReader<DuplexStream> {
    let (near, far) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve_connection_from(
        gateway.clone(),
        far,
        Roles::HooksOnly,
        peer,
    ));
    BufReader::new(near)
}

fn hello() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "hello",
           "params": {"protocol": gatehouse_host_ipc::PROTOCOL_VERSION, "role": "hook"}})
}

async fn send(lines: &mut BufReader<DuplexStream>, bytes: &[u8]) {
    lines.get_mut().write_all(bytes).await.unwrap();
}

async fn send_frame(lines: &mut BufReader<DuplexStream>, frame: &Value) {
    let mut bytes = serde_json::to_vec(frame).unwrap();
    bytes.push(b'\n');
    send(lines, &bytes).await;
}

/// Every frame the gateway sends until it closes the connection (within a minute).
async fn until_closed(lines: &mut BufReader<DuplexStream>) -> Vec<Value> {
    let mut frames = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let mut line = String::new();
            match lines.read_line(&mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => frames.push(serde_json::from_str(&line).unwrap()),
            }
        }
    })
    .await
    .expect("the gateway closes the connection");
    frames
}

/// The next frame the gateway sends (within a minute); `None` once it closed the connection.
async fn next(lines: &mut BufReader<DuplexStream>) -> Option<Value> {
    let mut line = String::new();
    let read = tokio::time::timeout(Duration::from_secs(60), lines.read_line(&mut line))
        .await
        .expect("the gateway answers");
    match read {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(serde_json::from_str(&line).unwrap()),
    }
}

fn error_name(frame: &Value) -> &str {
    frame["error"]["data"]["name"].as_str().unwrap_or_default()
}

fn hold(id: u64, command: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "hook.hold",
           "params": {"prompt": toy_bash(command), "wait_ms": 600_000}})
}

#[tokio::test]
async fn a_frame_that_stops_coming_is_cut_off_and_its_connection_closed() {
    let gateway = gateway_within(quick());
    let mut peer = from_peer(&gateway, Some(1));
    send_frame(&mut peer, &hello()).await;
    assert!(next(&mut peer).await.unwrap()["result"].is_object());
    send(
        &mut peer,
        br#"{"jsonrpc": "2.0", "id": 1, "method": "hook.hold", "params": {"#,
    )
    .await;
    let frames = until_closed(&mut peer).await;
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(error_name(&frames[0]), "over_limit");
    let message = frames[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("did not end within"), "{message}");
}

#[tokio::test]
async fn a_connection_that_holds_no_prompt_and_says_nothing_is_closed_but_a_waiting_hook_stays() {
    let gateway = gateway_within(quick());
    let mut silent = from_peer(&gateway, Some(1));
    let frames = until_closed(&mut silent).await;
    assert!(
        frames[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nothing came"),
        "{frames:?}"
    );
    // Blank lines are not news either.
    let mut blank = from_peer(&gateway, Some(1));
    send_frame(&mut blank, &hello()).await;
    for _ in 0..3 {
        send(&mut blank, b"\n").await;
    }
    let frames = until_closed(&mut blank).await;
    assert!(frames[0]["result"].is_object(), "{frames:?}");
    assert_eq!(error_name(&frames[1]), "over_limit");

    // A hook waiting for its verdict says nothing for longer, and is still answered.
    let mut waiting = from_peer(&gateway, Some(2));
    send_frame(&mut waiting, &hello()).await;
    send_frame(&mut waiting, &hold(1, "make")).await;
    assert!(next(&mut waiting).await.unwrap()["result"].is_object());
    assert_eq!(
        next(&mut waiting).await.unwrap()["method"],
        "hook.registered"
    );
    let mut front = support::client(&gateway, Role::Frontend).await;
    // Several times the idle time, waited on a condition that never comes true.
    let quiet = tokio::time::timeout(Duration::from_secs(2), next(&mut waiting)).await;
    assert!(
        quiet.is_err(),
        "the waiting hook's connection stays: {quiet:?}"
    );
    let prompt = front.list().await.unwrap().remove(0);
    front.answer(&prompt.short_id, Answer::Once).await.unwrap();
    let outcome = next(&mut waiting).await.expect("the verdict");
    assert_eq!(outcome["result"]["outcome"], "verdict", "{outcome}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfinished_frames_count_against_the_sockets_budget_and_a_frame_past_it_is_refused() {
    const KIB: usize = 1024;
    let gateway = gateway_within(Limits {
        hooks_socket_unfinished_bytes: 256 * KIB,
        hooks_socket_idle: Duration::from_secs(600),
        ..Limits::default()
    });
    // One peer holds 200 KiB of a frame it never ends.
    let mut holding = from_peer(&gateway, Some(1));
    send(&mut holding, &vec![b' '; 200 * KIB]).await;
    // Another's hold of some 150 KiB is read to its end, dropped and refused; its connection
    // goes on.
    let mut refused = from_peer(&gateway, Some(2));
    send_frame(&mut refused, &hello()).await;
    assert!(next(&mut refused).await.unwrap()["result"].is_object());
    send_frame(&mut refused, &hold(1, &"x".repeat(50 * KIB))).await;
    let refusal = next(&mut refused).await.unwrap();
    assert_eq!(error_name(&refusal), "over_limit", "{refusal}");
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 262144 bytes together"),
        "{refusal}"
    );
    assert_eq!(gateway.pending_count(), 0);
    // Once the first lets go, the same hold is taken.
    drop(holding);
    tokio::time::timeout(Duration::from_secs(60), async {
        while gateway.hooks_socket_frames().used() > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the closed connection's bytes are given back");
    send_frame(&mut refused, &hold(2, &"x".repeat(50 * KIB))).await;
    let registered = next(&mut refused).await.unwrap();
    assert_eq!(registered["method"], "hook.registered", "{registered}");
    assert_eq!(gateway.pending_count(), 1);
}

#[tokio::test]
async fn the_hooks_socket_takes_so_many_connections_and_one_peer_half_of_them_but_the_own_socket_is_never_held_back(
) {
    let gateway = gateway_within(Limits {
        hooks_socket_connections: 4,
        hooks_socket_connections_per_peer: 2,
        hooks_socket_idle: Duration::from_secs(600),
        ..Limits::default()
    });
    let mut open = Vec::new();
    for peer in [1, 1, 2, 2] {
        let mut connection = from_peer(&gateway, Some(peer));
        send_frame(&mut connection, &hello()).await;
        assert!(next(&mut connection).await.unwrap()["result"].is_object());
        open.push(connection);
    }
    let mut third_of_one = from_peer(&gateway, Some(3));
    let frames = until_closed(&mut third_of_one).await;
    assert_eq!(error_name(&frames[0]), "over_limit", "{frames:?}");
    assert!(
        frames[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("as many as it takes"),
        "{frames:?}"
    );
    // Within the socket's limit, one peer still gets only its share.
    drop(open.pop());
    drop(open.pop());
    tokio::time::timeout(Duration::from_secs(60), async {
        while gateway.connection_count() > 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the gateway sees two connections close");
    let mut third = from_peer(&gateway, Some(1));
    let frames = until_closed(&mut third).await;
    assert!(
        frames[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("process 1 has 2 connections"),
        "{frames:?}"
    );
    // A hook on the person's own socket is served however full the hooks socket is.
    let mut local = Client::over(connection(&gateway, Roles::Any), Role::Hook, "local")
        .await
        .expect("the own socket takes it");
    let local_hold = tokio::spawn(async move {
        local
            .hold(toy_bash("cargo test"), Duration::from_secs(600))
            .await
    });
    let mut front = support::client(&gateway, Role::Frontend).await;
    let prompt = support::listed(&gateway, 1).await.remove(0);
    front
        .answer(&prompt.short_id, Answer::Deny { message: None })
        .await
        .unwrap();
    let outcome = local_hold.await.unwrap().unwrap().outcome;
    assert!(matches!(outcome, Outcome::Verdict { .. }), "{outcome:?}");
}

#[test]
fn the_hooks_socket_takes_at_most_a_quarter_of_the_descriptors_and_one_peer_half_of_that() {
    let small = Limits::default().within_open_files(256);
    assert_eq!(
        (
            small.hooks_socket_connections,
            small.hooks_socket_connections_per_peer
        ),
        (64, 32)
    );
    let large = Limits::default().within_open_files(1 << 20);
    assert_eq!(
        (
            large.hooks_socket_connections,
            large.hooks_socket_connections_per_peer
        ),
        (
            Limits::default().hooks_socket_connections,
            Limits::default().hooks_socket_connections_per_peer
        )
    );
}
