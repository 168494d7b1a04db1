//! What the gateway's tests share: a gateway for the core's toy agent and connections to it over
//! in-memory duplex streams.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::testing::toy_capabilities;
use gatehouse_gateway::{serve_connection_with, Gateway, GatewayOptions, Roles};
use gatehouse_host_ipc::{Client, Role};
use tokio::io::DuplexStream;

/// A gateway that knows the toy agent (Bash `once` and `deny`, verified), with `options`.
pub fn toy_gateway_with(options: GatewayOptions) -> Arc<Gateway> {
    Gateway::new(vec![toy_capabilities()], options)
}

/// A toy gateway with the default options.
pub fn toy_gateway() -> Arc<Gateway> {
    toy_gateway_with(GatewayOptions::default())
}

/// A connection to `gateway` that may take `roles`, served on a task of its own.
pub fn connection(gateway: &Arc<Gateway>, roles: Roles) -> DuplexStream {
    let (near, far) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve_connection_with(gateway.clone(), far, roles));
    near
}

/// A client that said hello to `gateway` as `role`.
pub async fn client(gateway: &Arc<Gateway>, role: Role) -> Client<DuplexStream> {
    Client::over(connection(gateway, Roles::Any), role, "test")
        .await
        .expect("hello succeeds")
}

/// Waits (with a deadline) until `gateway` lists `count` prompts, and returns what it lists then.
pub async fn listed(gateway: &Arc<Gateway>, count: usize) -> Vec<gatehouse_core::Prompt> {
    let mut frontend = client(gateway, Role::Frontend).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let prompts = frontend.list().await.unwrap();
        if prompts.len() == count || tokio::time::Instant::now() > deadline {
            return prompts;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
