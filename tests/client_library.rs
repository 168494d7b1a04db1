//! The client library against a real `gatehouse serve`: a front end and a hook in one test.

use std::time::Duration;

use gatehouse_core::{Action, Answer, NewPrompt, Outcome, PromptKind};
use gatehouse_host_ipc::protocol::{notification, RegisteredParams};
use gatehouse_host_ipc::{Role, SocketClient};

use crate::common::Gateway;

fn bash_prompt(command: &str) -> NewPrompt {
    NewPrompt {
        adapter: "claude".into(),
        session: "library-test".into(),
        cwd: "/tmp".into(),
        kind: PromptKind::Permission,
        tool: "Bash".into(),
        input: serde_json::json!({ "command": command }),
        summary: command.into(),
        questions: vec![],
        correlation: format!("Bash:{command}"),
        read_only_reason: None,
        host: String::new(),
        extra: Default::default(),
    }
}

#[tokio::test]
async fn a_front_end_and_a_hook_meet_through_the_real_gateway() {
    let gateway = Gateway::start();
    let socket = gateway.socket();
    let mut frontend = SocketClient::connect(&socket, Role::Frontend, "library-test")
        .await
        .unwrap();
    assert!(frontend
        .hello()
        .adapters
        .iter()
        .any(|adapter| adapter.adapter == "claude"));
    frontend.subscribe().await.unwrap();

    let hook_socket = socket.clone();
    let hook = tokio::spawn(async move {
        let mut hook = SocketClient::connect(&hook_socket, Role::Hook, "library-hook")
            .await
            .unwrap();
        let result = hook
            .hold(bash_prompt("make test"), Duration::from_secs(30))
            .await
            .unwrap();
        let registered = hook.next_notification().await.unwrap();
        assert_eq!(registered.method, notification::REGISTERED);
        let registered: RegisteredParams = serde_json::from_value(registered.params).unwrap();
        assert_eq!(registered.actions, vec![Action::Once, Action::Deny]);
        hook.confirm_delivery(result.id).await.unwrap();
        result
    });

    let added = tokio::time::timeout(Duration::from_secs(10), frontend.next_notification())
        .await
        .unwrap()
        .unwrap();
    let id = added.params["prompt"]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    frontend
        .answer(
            id,
            Answer::Deny {
                message: Some("not now".into()),
            },
        )
        .await
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(10), hook)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(result.id, id);
    assert!(matches!(result.outcome, Outcome::Verdict { ref verdict } if !verdict.allows()));
    let status = frontend.status().await.unwrap();
    assert_eq!(status.pending, 0);
}
