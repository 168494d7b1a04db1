//! Feeds arbitrary bytes to one server connection, as a peer on the socket could, and checks
//! that the connection ends cleanly and leaves no answerable prompt behind.

#![no_main]

use gatehouse_core::{Action, ActionFlag, AdapterCapabilities, CapabilityRule, PromptKind};
use gatehouse_gateway::serve_connection;
use gatehouse_gateway::{Gateway, GatewayOptions};
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fuzz_target!(|bytes: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let capabilities = AdapterCapabilities {
            adapter: "toy".into(),
            name: "Toy".into(),
            rules: vec![CapabilityRule { kind: PromptKind::Permission, tool: None, actions: vec![ActionFlag::verified(Action::Once, "fuzz")] }],
        };
        let gateway = Gateway::new(vec![capabilities], GatewayOptions::default());
        let (mut near, far) = tokio::io::duplex(1 << 20);
        let served = tokio::spawn(serve_connection(gateway.clone(), far));
        let _ = near.write_all(bytes).await;
        let _ = near.shutdown().await;
        let mut replies = Vec::new();
        let _ = near.read_to_end(&mut replies).await;
        served.await.unwrap();
        assert_eq!(gateway.pending_count(), 0);
    });
});
