//! The client against a scripted gateway over an in-memory duplex: notifications that come while
//! a call waits are kept for later, up to a bound.

use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, DuplexStream};

use super::*;
use crate::framing::{encode_frame, FrameReader};
use crate::protocol::{Notification, Request, Response, Role};

/// A notification of about one MiB.
fn a_mebibyte_notification() -> Notification {
    Notification::new(
        "from.a.flooding.gateway",
        json!({ "pad": "x".repeat(1 << 20) }),
    )
}

/// A gateway that answers `hello`, then answers the next request only after `before_reply`
/// notifications of a MiB each (it stops when the client hangs up). Returns how many it sent.
async fn flooding_gateway(stream: DuplexStream, before_reply: usize) -> usize {
    let (read_half, mut writer) = tokio::io::split(stream);
    let mut reader = FrameReader::new(read_half);
    let mut sent = 0;
    for reply_after in [0, before_reply] {
        let frame = reader.next_frame().await.unwrap().expect("a request");
        let request: Request = serde_json::from_slice(&frame).unwrap();
        for _ in 0..reply_after {
            let flood = encode_frame(&a_mebibyte_notification());
            if writer.write_all(&flood).await.is_err() {
                return sent;
            }
            sent += 1;
        }
        let reply =
            json!({ "protocol": crate::PROTOCOL_VERSION, "server": "flood", "adapters": [] });
        let response = Response::success(request.id.unwrap_or(Value::Null), reply);
        if writer.write_all(&encode_frame(&response)).await.is_err() {
            return sent;
        }
    }
    sent
}

async fn client_and_gateway(
    before_reply: usize,
) -> (Client<DuplexStream>, tokio::task::JoinHandle<usize>) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let gateway = tokio::spawn(flooding_gateway(theirs, before_reply));
    let client = Client::over(ours, Role::Hook, "test").await.unwrap();
    (client, gateway)
}

#[tokio::test]
async fn notifications_that_come_during_a_call_are_kept_for_later_in_order() {
    let (mut client, _gateway) = client_and_gateway(3).await;
    let _: Value = client.call("status", &json!({})).await.unwrap();
    for _ in 0..3 {
        let notification = client.next_notification().await.unwrap();
        assert_eq!(notification.method, "from.a.flooding.gateway");
    }
    assert_eq!(client.queued_bytes, 0, "all taken");
}

#[tokio::test]
async fn a_gateway_that_floods_a_call_with_notifications_fails_it_within_the_bound() {
    let flood = 4 * MAX_QUEUED_NOTIFICATION_BYTES / (1 << 20);
    let (mut client, gateway) = client_and_gateway(flood).await;
    let refused = client.call::<_, Value>("status", &json!({})).await;
    assert!(
        matches!(&refused, Err(ClientError::BadReply(words)) if words.contains("notifications")),
        "{refused:?}"
    );
    assert!(client.queued_bytes <= MAX_QUEUED_NOTIFICATION_BYTES + (2 << 20));
    drop(client);
    let sent = gateway.await.unwrap();
    assert!(
        sent < flood,
        "the client stopped reading at the bound ({sent} of {flood} sent)"
    );
}
