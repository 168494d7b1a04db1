//! Property tests of the protocol decoder: whatever bytes a peer sends, in whatever pieces, the
//! server answers with well-formed JSON-RPC or closes the connection, never panics, and keeps
//! serving everyone else.

use std::time::Duration;

use gatehouse_gateway::serve_connection;
use gatehouse_host_ipc::framing::FrameReader;
use gatehouse_host_ipc::{Client, Role};
use proptest::prelude::*;

use crate::support::toy_gateway;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Bytes that look like protocol traffic often enough to reach deep paths: fragments of real
/// requests, JSON punctuation, newlines and noise.
fn traffic() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"protocol\":1,\"role\":\"frontend\"}}\n".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hello\",\"params\":{\"protocol\":1,\"role\":\"hook\"}}\n".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"list\"}\n".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"answer\",\"params\":{\"id\":\"01a22a7c-7184-7520-bb65-4d44b4eba60b\",\"action\":\"once\"}}\n".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"hook.hold\",\"params\":{\"prompt\":{\"adapter\":\"toy\",\"session\":\"s\",\"cwd\":\"/\",\"kind\":\"permission\",\"tool\":\"Bash\",\"input\":{},\"summary\":\"x\"},\"wait_ms\":5}}\n".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"subscribe\"}\n".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"hook.observe\",\"params\":{\"observation\":{\"type\":\"turn_ended\",\"adapter\":\"toy\",\"session\":\"s\"}}}\n".to_vec()),
        prop::collection::vec(prop::sample::select(b"{}[]\",:0123456789abcdeflnrstu\\\n \xff".to_vec()), 0..40),
        prop::collection::vec(any::<u8>(), 0..40),
    ];
    prop::collection::vec(fragment, 0..12).prop_map(|fragments| fragments.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_traffic_gets_well_formed_replies_and_the_gateway_keeps_serving(bytes in traffic(), split in 1usize..64) {
        runtime().block_on(async {
            let gateway = toy_gateway();
            let (mut near, far) = tokio::io::duplex(1 << 20);
            let served = tokio::spawn(serve_connection(gateway.clone(), far));
            for chunk in bytes.chunks(split) {
                near.write_all(chunk).await.unwrap();
            }
            near.shutdown().await.unwrap();
            let mut replies = Vec::new();
            tokio::time::timeout(Duration::from_secs(5), near.read_to_end(&mut replies)).await.expect("the server closes").unwrap();
            tokio::time::timeout(Duration::from_secs(5), served).await.expect("the connection task ends").unwrap();
            for line in replies.split(|byte| *byte == b'\n').filter(|line| !line.is_empty()) {
                let reply: serde_json::Value = serde_json::from_slice(line).expect("every reply is JSON");
                assert_eq!(reply["jsonrpc"], "2.0");
                assert!(reply.get("result").is_some() || reply.get("error").is_some() || reply.get("method").is_some(), "{reply}");
            }
            // A hook that went away with the connection never leaves an answerable prompt behind.
            assert_eq!(gateway.pending_count(), 0);
            let (near, far) = tokio::io::duplex(1 << 16);
            tokio::spawn(serve_connection(gateway.clone(), far));
            let mut client = Client::over(near, Role::Frontend, "after").await.expect("a new client is served");
            assert!(client.list().await.unwrap().is_empty());
        });
    }

    #[test]
    fn frames_are_the_lines_of_the_input_whatever_the_chunking(lines in prop::collection::vec("[a-z{}\":,0-9 ]{0,30}", 0..20), split in 1usize..16) {
        let input: Vec<u8> = lines.iter().flat_map(|line| line.bytes().chain([b'\n'])).collect();
        let expected: Vec<Vec<u8>> = lines.iter().filter(|line| !line.trim().is_empty()).map(|line| line.as_bytes().to_vec()).collect();
        let frames = runtime().block_on(async {
            let (mut near, far) = tokio::io::duplex(64);
            let writer = tokio::spawn(async move {
                for chunk in input.chunks(split) {
                    near.write_all(chunk).await.unwrap();
                }
            });
            let mut reader = FrameReader::new(far);
            let mut frames = Vec::new();
            while let Some(frame) = reader.next_frame().await.unwrap() {
                frames.push(frame);
            }
            writer.await.unwrap();
            frames
        });
        prop_assert_eq!(frames, expected);
    }
}
