//! A hostile peer on the hooks socket (what `gatehouse remote` hands to another machine), over
//! in-memory duplex streams: large prompts never blind the front ends, what a connection and the
//! hooks socket may hold is bounded, large prompts never push a decision out of the audit log,
//! and the gateway, not the peer, says which host a prompt comes from.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::testing::{toy_bash, toy_capabilities};
use gatehouse_core::{Answer, NewPrompt, Outcome};
use gatehouse_gateway::audit::{read_all, read_decisions, AuditLog};
use gatehouse_gateway::{Gateway, GatewayOptions, Limits, Roles};
use gatehouse_host_ipc::protocol::HoldResult;
use gatehouse_host_ipc::{Client, ClientError, Role};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use crate::support::{self, connection};

const LOCAL_HOST: &str = "laptop";
const MIB: usize = 1024 * 1024;

fn options(limits: Limits) -> GatewayOptions {
    GatewayOptions {
        local_host: LOCAL_HOST.into(),
        limits,
        ..GatewayOptions::default()
    }
}

fn gateway() -> Arc<Gateway> {
    gateway_within(Limits::default())
}

/// A toy gateway for `LOCAL_HOST` that holds prompts within `limits`.
fn gateway_within(limits: Limits) -> Arc<Gateway> {
    support::toy_gateway_with(options(limits))
}

/// A prompt whose command is `bytes` long, claiming to come from this very machine.
fn bash(command: &str, bytes: usize) -> NewPrompt {
    let padded = format!(
        "{command} {}",
        "#".repeat(bytes.saturating_sub(command.len() + 1))
    );
    NewPrompt {
        input: json!({ "command": padded }),
        summary: command.into(),
        host: LOCAL_HOST.into(),
        ..toy_bash(command)
    }
}

async fn frontend(gateway: &Arc<Gateway>) -> Client<DuplexStream> {
    Client::over(connection(gateway, Roles::Any), Role::Frontend, "test")
        .await
        .unwrap()
}

/// A hook on the hooks socket that holds `prompt`; its outcome comes later.
fn remote_hold(
    gateway: &Arc<Gateway>,
    prompt: NewPrompt,
) -> tokio::task::JoinHandle<Result<HoldResult, ClientError>> {
    let stream = connection(gateway, Roles::HooksOnly);
    tokio::spawn(async move {
        let mut hook = Client::over_from_host(stream, Role::Hook, "peer", Some(LOCAL_HOST)).await?;
        hook.hold(prompt, Duration::from_secs(600)).await
    })
}

async fn wait_for_pending(gateway: &Arc<Gateway>, count: usize) {
    wait_until_pending(
        gateway,
        |pending| pending >= count,
        "the prompts are registered",
    )
    .await
}

/// Waits (within a minute) until at most `count` prompts are pending.
async fn wait_for_pending_at_most(gateway: &Arc<Gateway>, count: usize) {
    wait_until_pending(gateway, |pending| pending <= count, "the prompts end").await
}

/// Waits (within a minute) until the number of pending prompts is `enough`; `expect` says what
/// failed when it never is.
async fn wait_until_pending(gateway: &Arc<Gateway>, enough: impl Fn(usize) -> bool, expect: &str) {
    tokio::time::timeout(Duration::from_secs(60), async {
        while !enough(gateway.pending_count()) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect(expect);
}

/// A raw connection: frames written and read as lines.
struct Raw {
    lines: BufReader<DuplexStream>,
}

impl Raw {
    /// A hook's connection to the hooks' socket of `gateway`, its hello answered.
    async fn hook_peer(gateway: &Arc<Gateway>) -> Raw {
        let mut peer = Raw::open(gateway, Roles::HooksOnly, &[hello_hook()]).await;
        peer.reply(0).await;
        peer
    }

    async fn open(gateway: &Arc<Gateway>, roles: Roles, first: &[Value]) -> Raw {
        let mut raw = Raw {
            lines: BufReader::new(connection(gateway, roles)),
        };
        for frame in first {
            raw.send(frame).await;
        }
        raw
    }

    async fn send(&mut self, frame: &Value) {
        let mut bytes = serde_json::to_vec(frame).unwrap();
        bytes.push(b'\n');
        self.lines.get_mut().write_all(&bytes).await.unwrap();
    }

    /// The next frame, or `None` once the gateway closed the connection.
    async fn next(&mut self) -> Option<Value> {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(60), self.lines.read_line(&mut line))
            .await
            .expect("the gateway answers");
        match read {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(serde_json::from_str(&line).unwrap()),
        }
    }

    /// The reply to request `id`, skipping notifications.
    async fn reply(&mut self, id: u64) -> Value {
        loop {
            let frame = self.next().await.expect("a reply");
            if frame["id"] == json!(id) {
                return frame;
            }
        }
    }
}

fn hello_hook() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "hello",
           "params": {"protocol": gatehouse_host_ipc::PROTOCOL_VERSION, "role": "hook", "host": LOCAL_HOST}})
}

fn hold_request(id: u64, prompt: &NewPrompt) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "hook.hold",
           "params": {"prompt": prompt, "wait_ms": 600_000}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nine_megabyte_prompts_never_blind_list_subscribe_or_the_event_feed() {
    let gateway = gateway();
    let mut watcher = frontend(&gateway).await;
    watcher.subscribe().await.unwrap();
    let _first = remote_hold(&gateway, bash("first", 9 * MIB));
    let _second = remote_hold(&gateway, bash("second", 9 * MIB));
    wait_for_pending(&gateway, 2).await;

    let mut front = frontend(&gateway).await;
    let listed = front.list().await.expect("list fits one frame");
    assert_eq!(listed.len(), 2);
    for prompt in &listed {
        let cut = prompt.cut.as_ref().expect("a large prompt is listed cut");
        assert!(cut.full_bytes > 9 * MIB as u64, "{cut:?}");
        assert!(
            cut.digest.is_none(),
            "front ends learn the digest from prompt.get only"
        );
        let listed_bytes = serde_json::to_vec(prompt).unwrap().len();
        assert!(listed_bytes < 64 * 1024, "{listed_bytes} bytes listed");
    }
    let snapshot = frontend(&gateway)
        .await
        .subscribe()
        .await
        .expect("fits one frame");
    assert_eq!(snapshot.len(), 2);
    assert!(snapshot.iter().all(|prompt| prompt.cut.is_some()));
    for _ in 0..2 {
        let event = watcher
            .next_notification()
            .await
            .expect("an event within a frame");
        let cut = &event.params["prompt"]["cut"];
        assert!(cut.is_object(), "{cut}");
        assert!(cut.get("digest").is_none(), "never the digest: {cut}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_prompt_is_fetched_whole_and_approved_only_by_naming_what_was_seen() {
    let gateway = gateway();
    let big = bash("make deploy", MIB);
    let hook = remote_hold(&gateway, big.clone());
    wait_for_pending(&gateway, 1).await;
    let mut front = frontend(&gateway).await;
    let listed = front.list().await.unwrap().remove(0);
    assert!(listed.cut.is_some());

    let refused = front
        .answer(&listed.short_id, Answer::Once)
        .await
        .expect_err("an approval of what was never shown whole is refused");
    assert_eq!(refused.rpc_name(), Some("not_seen_in_full"), "{refused}");
    let wrong = front
        .answer_seen(&listed.short_id, Answer::Once, Some("0".repeat(64)))
        .await
        .expect_err("a digest of something else is refused");
    assert_eq!(wrong.rpc_name(), Some("not_seen_in_full"), "{wrong}");
    let short = front
        .answer_seen(&listed.short_id, Answer::Once, Some("abc".into()))
        .await
        .expect_err("too short a prefix names nothing");
    assert_eq!(short.rpc_name(), Some("not_seen_in_full"), "{short}");
    assert_eq!(gateway.pending_count(), 1, "nothing was approved");

    let whole = front
        .prompt_get(&listed.short_id)
        .await
        .expect("fetched in full");
    assert!(whole.prompt.cut.is_none());
    assert_eq!(
        whole.prompt.prompt.input, big.input,
        "the whole input, not an excerpt"
    );
    assert!(whole.digest.starts_with("sha256:"), "{}", whole.digest);
    let prefix = &whole.digest["sha256:".len().."sha256:".len() + 16];
    front
        .answer_seen(&listed.short_id, Answer::Once, Some(prefix.to_owned()))
        .await
        .expect("approved once the person saw it whole");
    let outcome = hook.await.unwrap().unwrap().outcome;
    assert!(matches!(outcome, Outcome::Verdict { .. }), "{outcome:?}");

    // Denying needs no proof: it approves nothing.
    let _denied = remote_hold(&gateway, bash("rm -rf /", MIB));
    wait_for_pending(&gateway, 1).await;
    let listed = front.list().await.unwrap().remove(0);
    front
        .answer(&listed.short_id, Answer::Deny { message: None })
        .await
        .expect("a cut prompt can be denied unseen");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_holds_at_most_its_limit_and_is_told_so() {
    let gateway = gateway_within(Limits {
        connection_prompts: 3,
        connection_bytes: 5 * MIB / 2,
        ..Limits::default()
    });
    let mut peer = Raw::hook_peer(&gateway).await;
    // Thirty prompts of a mebibyte on one connection: two fit its bytes, the rest are refused.
    for id in 1..=30 {
        peer.send(&hold_request(id, &bash(&format!("p{id}"), MIB)))
            .await;
    }
    let mut refused = 0;
    let mut registered = 0;
    while refused + registered < 30 {
        let frame = peer.next().await.expect("the connection stays up");
        if frame["method"] == "hook.registered" {
            registered += 1;
        } else if frame["error"]["data"]["name"] == "over_limit" {
            let message = frame["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("the agent's own terminal decides"),
                "{message}"
            );
            refused += 1;
        } else {
            panic!("unexpected frame {frame}");
        }
    }
    assert_eq!((registered, refused), (2, 28));
    assert_eq!(gateway.pending_count(), 2);

    // Small prompts: at most three on one connection.
    let mut small = Raw::hook_peer(&gateway).await;
    for id in 1..=4 {
        small
            .send(&hold_request(id, &bash(&format!("s{id}"), 100)))
            .await;
    }
    assert_eq!(small.reply(4).await["error"]["data"]["name"], "over_limit");
    assert_eq!(gateway.pending_count(), 5);

    // What a connection held is free again once its prompts end.
    drop(peer);
    wait_for_pending_at_most(&gateway, 3).await;
    let mut again = Raw::hook_peer(&gateway).await;
    again.send(&hold_request(1, &bash("again", MIB))).await;
    assert_eq!(again.next().await.unwrap()["method"], "hook.registered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hooks_socket_as_a_whole_holds_at_most_its_limit_but_local_hooks_are_not_counted() {
    let gateway = gateway_within(Limits {
        hooks_socket_prompts: 4,
        hooks_socket_bytes: 3 * MIB,
        ..Limits::default()
    });
    // Many connections, each within its own limit: together they reach the socket's.
    let mut peers = Vec::new();
    for id in 1..=5 {
        let mut peer = Raw::hook_peer(&gateway).await;
        peer.send(&hold_request(1, &bash(&format!("big{id}"), MIB)))
            .await;
        peers.push(peer);
    }
    let mut refused = 0;
    for peer in &mut peers {
        let frame = peer.next().await.unwrap();
        if frame["error"]["data"]["name"] == "over_limit" {
            refused += 1;
        }
    }
    assert_eq!(refused, 3, "two mebibytes fit three, and no more");
    let mut small = Vec::new();
    for id in 1..=3 {
        let mut peer = Raw::hook_peer(&gateway).await;
        peer.send(&hold_request(1, &bash(&format!("small{id}"), 100)))
            .await;
        small.push(peer.next().await.unwrap());
        peers.push(peer);
    }
    let names: Vec<&Value> = small
        .iter()
        .map(|frame| &frame["error"]["data"]["name"])
        .collect();
    assert_eq!(
        names,
        [&Value::Null, &Value::Null, &json!("over_limit")],
        "four prompts at most"
    );

    // The person's own hooks on the gateway's own socket are not held back by the peer.
    let local = tokio::spawn({
        let stream = connection(&gateway, Roles::Any);
        async move {
            let mut hook = Client::over(stream, Role::Hook, "local").await?;
            hook.hold(bash("cargo test", MIB), Duration::from_secs(600))
                .await
        }
    });
    wait_for_pending(&gateway, 5).await;
    local.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_prompts_never_push_a_decision_out_of_the_audit_log() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("audit.jsonl");
    let log = AuditLog::open(&path, 4 * MIB as u64).unwrap();
    let gateway = Gateway::with_audit_log(
        vec![toy_capabilities()],
        options(Limits::default()),
        Some(log),
    );
    let local = tokio::spawn({
        let stream = connection(&gateway, Roles::Any);
        async move {
            let mut hook = Client::over(stream, Role::Hook, "local").await?;
            hook.hold(bash("git push", 100), Duration::from_secs(600))
                .await
        }
    });
    wait_for_pending(&gateway, 1).await;
    let mut front = frontend(&gateway).await;
    let approved = front.list().await.unwrap().remove(0);
    front
        .answer(&approved.short_id, Answer::Once)
        .await
        .unwrap();
    local.await.unwrap().unwrap();
    let small = remote_hold(&gateway, bash("ls", 100));
    wait_for_pending(&gateway, 1).await;
    let released = front.list().await.unwrap().remove(0);
    front.release(released.id).await.unwrap();
    small.await.unwrap().unwrap();

    // Then a peer sends prompts far larger than the log's whole size, one after another.
    for round in 0..5 {
        let hook = remote_hold(&gateway, bash(&format!("flood{round}"), 10 * MIB));
        wait_for_pending(&gateway, 1).await;
        let id = front.list().await.unwrap().remove(0).id;
        front.release(id).await.unwrap();
        hook.await.unwrap().unwrap();
    }

    let records = read_all(&path).unwrap();
    let decided = records.iter().any(|record| {
        matches!(&record.event, gatehouse_core::Event::Changed { id, state: gatehouse_core::PromptState::Resolved, .. } if *id == approved.id)
    });
    assert!(decided, "the approval is still in the log");
    let decisions = read_decisions(&path).unwrap();
    let approval = decisions
        .iter()
        .find(|record| record.event.id() == approved.id)
        .expect("the decisions file keeps the approval");
    assert_eq!(approval.answer, Some(Answer::Once));
    assert!(approval.prompt.summary.starts_with("git push"));
    assert_eq!(decisions.len(), 7, "one approval and six releases");
    let small_release = decisions
        .iter()
        .find(|record| record.event.id() == released.id)
        .expect("a release of a small prompt is kept too");
    assert_eq!(small_release.prompt.summary, "ls");

    // Each large prompt is recorded as a bounded excerpt with the digest of the whole.
    for record in &records {
        let line = serde_json::to_vec(record).unwrap().len();
        assert!(line < 64 * 1024, "a record of {line} bytes");
        if let gatehouse_core::Event::Added { prompt } = &record.event {
            if prompt.prompt.summary.starts_with("flood") {
                let cut = prompt.cut.as_ref().expect("recorded cut");
                let digest = cut.digest.as_deref().expect("with the digest of the whole");
                let whole = bash(prompt.prompt.correlation.as_str(), 10 * MIB);
                let whole = NewPrompt {
                    host: "unnamed link".into(),
                    ..whole
                };
                let expected =
                    gatehouse_gateway::view::digest(&serde_json::to_vec(&whole).unwrap());
                assert_eq!(digest, expected);
            }
        }
    }
}

#[tokio::test]
async fn the_gateway_stamps_each_prompt_with_the_host_of_its_connection() {
    let gateway = gateway();
    // A peer on the hooks socket that names this very machine, in its hello and its prompt.
    let _claims_local = remote_hold(&gateway, bash("claims local", 10));
    wait_for_pending(&gateway, 1).await;
    // One through a link whose relay named its host.
    let link = json!({"jsonrpc": "2.0", "method": "link.host", "params": {"host": "devbox"}});
    let mut linked = Raw::open(&gateway, Roles::HooksOnly, &[link, hello_hook()]).await;
    linked.reply(0).await;
    linked.send(&hold_request(1, &bash("linked", 10))).await;
    // A link named like this machine is still not this machine.
    let named_local =
        json!({"jsonrpc": "2.0", "method": "link.host", "params": {"host": LOCAL_HOST}});
    let mut mimic = Raw::open(&gateway, Roles::HooksOnly, &[named_local, hello_hook()]).await;
    mimic.reply(0).await;
    mimic.send(&hold_request(1, &bash("mimic", 10))).await;
    // A local hook that claims another machine is local all the same.
    let local = tokio::spawn({
        let stream = connection(&gateway, Roles::Any);
        let mut prompt = bash("local", 10);
        prompt.host = "devbox".into();
        async move {
            let mut hook =
                Client::over_from_host(stream, Role::Hook, "local", Some("devbox")).await?;
            hook.hold(prompt, Duration::from_secs(600)).await
        }
    });
    wait_for_pending(&gateway, 4).await;

    let mut front = frontend(&gateway).await;
    let hosts: Vec<(String, String)> = front
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|prompt| (prompt.prompt.correlation, prompt.prompt.host))
        .collect();
    let host_of = |command: &str| {
        hosts
            .iter()
            .find(|(correlation, _)| correlation == command)
            .map(|(_, host)| host.clone())
            .unwrap()
    };
    assert_eq!(host_of("claims local"), "unnamed link");
    assert_eq!(host_of("linked"), "devbox");
    assert_eq!(host_of("mimic"), "laptop (not this machine)");
    assert_eq!(host_of("local"), LOCAL_HOST);
    let status = front.status().await.unwrap();
    let counted: Vec<&str> = status
        .hosts
        .iter()
        .map(|entry| entry.host.as_str())
        .collect();
    assert!(
        counted.contains(&"devbox") && counted.contains(&LOCAL_HOST),
        "{counted:?}"
    );
    local.abort();
}

#[tokio::test]
async fn a_link_is_named_only_by_the_first_frame_and_only_on_the_hooks_socket() {
    let gateway = gateway();
    let link =
        |host: &str| json!({"jsonrpc": "2.0", "method": "link.host", "params": {"host": host}});
    // The relay named the link; the peer behind it tries to rename it.
    let mut renamed = Raw::open(
        &gateway,
        Roles::HooksOnly,
        &[link("devbox"), hello_hook(), link(LOCAL_HOST)],
    )
    .await;
    renamed.reply(0).await;
    let refusal = renamed.next().await.expect("a refusal");
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("first frame"),
        "{refusal}"
    );
    assert!(
        renamed.next().await.is_none(),
        "and the connection is closed"
    );
    // On the gateway's own socket nobody names a link.
    let mut own = Raw::open(&gateway, Roles::Any, &[link("devbox")]).await;
    assert!(own.next().await.unwrap()["error"].is_object());
    assert!(own.next().await.is_none());
}

/// A front end's raw view of the pending prompts, as `list --json` prints them.
async fn listed_json(gateway: &Arc<Gateway>) -> Vec<Value> {
    let mut front = Raw::open(
        gateway,
        Roles::Any,
        &[
            json!({"jsonrpc": "2.0", "id": 0, "method": "hello",
                   "params": {"protocol": gatehouse_host_ipc::PROTOCOL_VERSION, "role": "frontend"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "list"}),
        ],
    )
    .await;
    front.reply(1).await["result"]
        .as_array()
        .expect("a list")
        .clone()
}

#[tokio::test]
async fn every_prompt_says_where_it_came_from_by_its_socket_and_a_link_cannot_choose_a_name_that_looks_local(
) {
    let gateway = gateway();
    let link =
        |host: &str| json!({"jsonrpc": "2.0", "method": "link.host", "params": {"host": host}});
    let mut peers = Vec::new();
    for (command, name) in [
        ("disguised", "laptop (local)"),
        ("shouting", "LAPTOP."),
        ("escaping", "dev\u{1b}[2Jbox\u{202e}"),
        ("plain", "build-01.example.com"),
    ] {
        let mut peer = Raw::open(&gateway, Roles::HooksOnly, &[link(name), hello_hook()]).await;
        peer.reply(0).await;
        peer.send(&hold_request(1, &bash(command, 10))).await;
        peers.push(peer);
    }
    // A local hook that claims another machine, and a prompt that claims to be local.
    let local = tokio::spawn({
        let stream = connection(&gateway, Roles::Any);
        let mut prompt = bash("local", 10);
        prompt.host = "devbox".into();
        async move {
            let mut hook =
                Client::over_from_host(stream, Role::Hook, "local", Some("devbox")).await?;
            hook.hold(prompt, Duration::from_secs(600)).await
        }
    });
    let mut claims = Raw::hook_peer(&gateway).await;
    let mut claimed = hold_request(1, &bash("claims", 10));
    claimed["params"]["prompt"]["origin"] = json!("local");
    claims.send(&claimed).await;
    wait_for_pending(&gateway, 6).await;

    let prompts = listed_json(&gateway).await;
    let of = |command: &str| {
        prompts
            .iter()
            .find(|prompt| prompt["summary"] == command)
            .unwrap_or_else(|| panic!("{command} is listed: {prompts:?}"))
            .clone()
    };
    assert_eq!(of("local")["origin"], "local");
    assert_eq!(of("local")["host"], LOCAL_HOST);
    for command in ["disguised", "shouting", "escaping", "plain", "claims"] {
        assert_eq!(of(command)["origin"], "remote", "{command}");
    }
    assert_eq!(of("plain")["host"], "build-01.example.com");
    assert_eq!(of("claims")["host"], "unnamed link");
    // Only the gateway's own words have spaces: every character outside a host name's is escaped.
    assert_eq!(of("disguised")["host"], "laptop\\u{20}\\u{28}local\\u{29}");
    assert_eq!(of("escaping")["host"], "dev\\u{1b}\\u{5b}2Jbox\\u{202e}");
    assert_eq!(of("shouting")["host"], "LAPTOP. (not this machine)");
    local.abort();
}

#[tokio::test]
async fn a_receipt_for_a_prompt_another_connection_holds_is_refused_and_changes_nothing() {
    let gateway = gateway();
    let holder = tokio::spawn({
        let stream = connection(&gateway, Roles::HooksOnly);
        async move {
            let mut hook = Client::over(stream, Role::Hook, "holder").await.unwrap();
            let held = hook
                .hold(bash("make", 10), Duration::from_secs(600))
                .await
                .unwrap();
            (hook, held)
        }
    });
    wait_for_pending(&gateway, 1).await;
    let mut front = frontend(&gateway).await;
    let id = front.list().await.unwrap().remove(0).id;
    front.answer(&id.to_string(), Answer::Once).await.unwrap();
    let (mut hook, held) = holder.await.unwrap();
    assert!(matches!(held.outcome, Outcome::Verdict { .. }));

    for roles in [Roles::HooksOnly, Roles::Any] {
        let mut other = Client::over(connection(&gateway, roles), Role::Hook, "other")
            .await
            .unwrap();
        let refused = other
            .confirm_delivery(id)
            .await
            .expect_err("only the connection that holds the prompt confirms it");
        assert_eq!(refused.rpc_name(), Some("not_found"), "{refused}");
    }
    let confirmed = hook
        .confirm_delivery(id)
        .await
        .expect("the holder's receipt is still awaited");
    assert_eq!(confirmed.state, gatehouse_core::PromptState::Delivered);
}

#[tokio::test]
async fn a_hook_learns_from_hello_only_the_gateways_name_and_protocol() {
    let gateway = gateway();
    for roles in [Roles::HooksOnly, Roles::Any] {
        let mut hook = Raw::open(&gateway, roles, &[hello_hook()]).await;
        let hello = hook.reply(0).await;
        let result = hello["result"].as_object().expect("a result");
        let mut fields: Vec<&str> = result.keys().map(String::as_str).collect();
        fields.sort_unstable();
        assert_eq!(fields, ["protocol", "server"], "{hello}");
    }
    // A front end on the person's own socket is told the adapters' flags as before.
    let front = frontend(&gateway).await;
    assert_eq!(front.hello().adapters.len(), 1);
}
