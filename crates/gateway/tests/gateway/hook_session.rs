//! The hook's dealings with the gateway (`gatehouse_host_ipc::hook_session`), over in-memory
//! streams with paused time: a hold survives a gateway restart, budgets end calls to a stuck
//! gateway, and spooled observations are replayed.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_core::testing::toy_bash;
use gatehouse_core::{Answer, NewPrompt, Observation, Outcome, Timestamp};
use gatehouse_gateway::{serve_connection, Gateway, GatewayOptions};
use gatehouse_host_ipc::hook_session::{Connector, Held, HookError, HookSession, CALL_BUDGET};
use gatehouse_host_ipc::socket::SocketError;
use gatehouse_host_ipc::spool::Spool;
use gatehouse_host_ipc::{now, Client, ClientError, Role};
use tokio::io::DuplexStream;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::support;

fn gateway() -> Arc<Gateway> {
    support::toy_gateway()
}

fn bash(command: &str) -> NewPrompt {
    toy_bash(command)
}

/// Where the hook's connections go: the gateway that is up now, if any. A crash ends every
/// connection to it.
#[derive(Clone, Default)]
struct Switchboard(Arc<Mutex<Lines>>);

/// The gateway that is up, and the relays of the connections to it.
type Lines = (Option<Arc<Gateway>>, Vec<JoinHandle<()>>);

impl Switchboard {
    /// A switchboard with a new toy gateway up.
    fn with_a_gateway_up() -> (Switchboard, Arc<Gateway>) {
        let switchboard = Switchboard::default();
        let gateway = gateway();
        switchboard.up(&gateway);
        (switchboard, gateway)
    }

    fn up(&self, gateway: &Arc<Gateway>) {
        self.0.lock().unwrap().0 = Some(gateway.clone());
    }

    fn crash(&self) {
        let mut inner = self.0.lock().unwrap();
        inner.0 = None;
        inner.1.drain(..).for_each(|relay| relay.abort());
    }
}

impl Connector for Switchboard {
    type Stream = DuplexStream;

    async fn connect(&self) -> Result<Client<DuplexStream>, ClientError> {
        let near = {
            let mut inner = self.0.lock().unwrap();
            let Some(gateway) = inner.0.clone() else {
                let source = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
                return Err(ClientError::Socket(SocketError::Connect {
                    path: "/test.sock".into(),
                    source,
                }));
            };
            // The hook's stream reaches the gateway through a relay that a crash cuts, as the
            // kernel closes a dead gateway's socket.
            let (near, mut relay_near) = tokio::io::duplex(1 << 16);
            let (mut relay_far, far) = tokio::io::duplex(1 << 16);
            tokio::spawn(serve_connection(gateway, far));
            inner.1.push(tokio::spawn(async move {
                let _ = tokio::io::copy_bidirectional(&mut relay_near, &mut relay_far).await;
            }));
            near
        };
        Client::over(near, Role::Hook, "test-hook").await
    }
}

/// A gateway that accepts but never says hello back.
struct Stuck;

impl Connector for Stuck {
    type Stream = DuplexStream;

    async fn connect(&self) -> Result<Client<DuplexStream>, ClientError> {
        std::future::pending().await
    }
}

/// A gateway that says hello back, then reads every request and never answers one (nor says
/// it registered a prompt).
struct TakesNoHolds;

impl Connector for TakesNoHolds {
    type Stream = DuplexStream;

    async fn connect(&self) -> Result<Client<DuplexStream>, ClientError> {
        use gatehouse_host_ipc::framing::{encode_frame, FrameReader};
        use gatehouse_host_ipc::protocol::{HelloResult, Response};
        use tokio::io::AsyncWriteExt;
        let (near, far) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            let (read_half, mut write_half) = tokio::io::split(far);
            let mut frames = FrameReader::new(read_half);
            let Ok(Some(hello)) = frames.next_frame().await else {
                return;
            };
            let hello: serde_json::Value = serde_json::from_slice(&hello).unwrap();
            let result = HelloResult {
                protocol: gatehouse_host_ipc::PROTOCOL_VERSION,
                server: "takes no holds".into(),
                adapters: Vec::new(),
            };
            let reply =
                Response::success(hello["id"].clone(), serde_json::to_value(result).unwrap());
            let _ = write_half.write_all(&encode_frame(&reply)).await;
            while let Ok(Some(_ignored)) = frames.next_frame().await {}
        });
        Client::over(near, Role::Hook, "test-hook").await
    }
}

async fn until(mut condition: impl FnMut() -> bool) {
    while !condition() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_hold_comes_back_with_its_snapshot_when_a_new_gateway_is_up_and_is_answered_there() {
    let (switchboard, first) = Switchboard::with_a_gateway_up();
    let session = HookSession::new(switchboard.clone(), None, |_| {});
    let held_since = Timestamp(now().unix_millis() - 5_000);
    let deadline = Instant::now() + Duration::from_secs(600);
    let holding = tokio::spawn(async move {
        session
            .hold(bash("make"), held_since, deadline, false)
            .await
    });
    until(|| first.pending_count() == 1).await;

    switchboard.crash();
    let second = gateway();
    switchboard.up(&second);
    until(|| second.pending_count() == 1).await;
    let again = second.pending().remove(0);
    assert_eq!(
        again.held_since, held_since,
        "registered again with the time the agent first asked"
    );
    assert_eq!(again.prompt.input, bash("make").input);
    second
        .answer(&again.short_id, Answer::Once, None, "test")
        .unwrap();

    let Held::Verdict { verdict, .. } = holding.await.unwrap().unwrap() else {
        panic!("the answer on the new gateway reaches the hook");
    };
    assert!(verdict.allows());
}

#[tokio::test(start_paused = true)]
async fn a_hold_whose_gateway_never_comes_back_ends_at_its_deadline_with_no_verdict() {
    let (switchboard, only) = Switchboard::with_a_gateway_up();
    let session = HookSession::new(switchboard.clone(), None, |_| {});
    let started = Instant::now();
    let deadline = started + Duration::from_secs(60);
    let holding =
        tokio::spawn(async move { session.hold(bash("make"), now(), deadline, false).await });
    until(|| only.pending_count() == 1).await;
    switchboard.crash();
    assert!(matches!(holding.await.unwrap(), Ok(Held::NoVerdict)));
    assert!(
        started.elapsed() <= Duration::from_secs(60),
        "it gives up by its deadline"
    );
}

#[tokio::test(start_paused = true)]
async fn a_gateway_that_never_says_hello_costs_the_hook_one_call_budget() {
    let session = HookSession::new(Stuck, None, |_| {});
    let started = Instant::now();
    let refused = session
        .register(bash("ls"), Duration::from_secs(60))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, HookError::TooSlow(budget) if budget == CALL_BUDGET),
        "{refused}"
    );
    assert_eq!(started.elapsed(), CALL_BUDGET);
}

#[tokio::test(start_paused = true)]
async fn a_gateway_that_says_hello_but_never_takes_the_hold_costs_an_answering_hook_one_call_budget(
) {
    // A hook whose agent reads silence as an approval: one call budget, then TooSlow (its
    // adapter's "no verdict" output follows).
    let session =
        HookSession::new(TakesNoHolds, None, |_| {}).expecting_registration_within(CALL_BUDGET);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(170);
    let refused = session
        .hold(bash("ls"), now(), deadline, false)
        .await
        .err()
        .expect("no verdict from a gateway that takes no holds");
    assert!(
        matches!(refused, HookError::TooSlow(budget) if budget == CALL_BUDGET),
        "{refused}"
    );
    assert_eq!(started.elapsed(), CALL_BUDGET);

    // Any other hook keeps waiting, as before: the person may still answer at a slow gateway.
    let session = HookSession::new(TakesNoHolds, None, |_| {});
    let started = Instant::now();
    let deadline = started + Duration::from_secs(30);
    let waited = session.hold(bash("ls"), now(), deadline, false).await;
    assert!(waited.is_err() || matches!(waited, Ok(Held::NoVerdict)));
    assert!(
        started.elapsed() >= Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );

    // A gateway that takes the hold answers as before, with the budget set.
    let (switchboard, gateway) = Switchboard::with_a_gateway_up();
    let session =
        HookSession::new(switchboard, None, |_| {}).expecting_registration_within(CALL_BUDGET);
    let deadline = Instant::now() + Duration::from_secs(600);
    let holding =
        tokio::spawn(async move { session.hold(bash("make"), now(), deadline, false).await });
    until(|| gateway.pending_count() == 1).await;
    tokio::time::sleep(CALL_BUDGET * 5).await;
    let pending = gateway.pending().remove(0);
    gateway
        .answer(&pending.short_id, Answer::Once, None, "test")
        .unwrap();
    let Ok(Held::Verdict { verdict, .. }) = holding.await.unwrap() else {
        panic!("a registered hold waits past the budget for its answer");
    };
    assert!(verdict.allows());
}

#[tokio::test(start_paused = true)]
async fn an_observation_that_finds_no_gateway_is_spooled_and_replayed_by_the_next_hook() {
    let folder = tempfile::tempdir().unwrap();
    let spool_path = folder.path().join("spool.jsonl");
    let switchboard = Switchboard::default();
    let finished = Observation::ToolFinished {
        adapter: "toy".into(),
        session: "s1".into(),
        correlation: "make".into(),
    };

    // The person answered in the terminal while no gateway ran.
    let held_since = now();
    let lonely = HookSession::new(
        switchboard.clone(),
        Some(Spool::new(spool_path.clone())),
        |_| {},
    );
    let refused = lonely
        .observe(finished.clone(), Timestamp(held_since.unix_millis() + 1))
        .await
        .unwrap_err();
    assert!(matches!(refused, HookError::Unreachable(_)), "{refused}");
    let spooled = std::fs::read_to_string(&spool_path).unwrap();
    assert_eq!(spooled.lines().count(), 1, "spooled: {spooled}");

    // A gateway is back, and the prompt's hook registers it again as held since before that.
    let back = gateway();
    switchboard.up(&back);
    let gatehouse_gateway::HeldPrompt {
        prompt, outcome, ..
    } = back
        .hold(
            bash("make"),
            Duration::from_secs(600),
            Some(held_since),
            false,
            None,
            gatehouse_gateway::Owner {
                connection: 0,
                hooks_socket: false,
            },
        )
        .unwrap();
    assert_eq!(back.pending_count(), 1, "{prompt:?}");
    let next = HookSession::new(switchboard, Some(Spool::new(spool_path.clone())), |_| {});
    let other = Observation::TurnEnded {
        adapter: "toy".into(),
        session: "another".into(),
    };
    next.observe(other, now()).await.unwrap();
    assert!(
        matches!(outcome.await.unwrap(), Outcome::Withdrawn { .. }),
        "the replayed finish settled it"
    );
    assert_eq!(back.pending_count(), 0);
    assert!(
        Spool::new(spool_path).take(now()).is_empty(),
        "replayed once, and gone"
    );
}

#[tokio::test(start_paused = true)]
async fn a_hold_refused_over_a_limit_is_final_and_never_retried() {
    let switchboard = Switchboard::default();
    let limits = gatehouse_gateway::Limits {
        prompt_bytes: 64,
        ..gatehouse_gateway::Limits::default()
    };
    let capabilities = gateway().adapters();
    let strict = Gateway::new(
        capabilities,
        GatewayOptions {
            limits,
            ..GatewayOptions::default()
        },
    );
    switchboard.up(&strict);
    let session = HookSession::new(switchboard.clone(), None, |_| {});
    let deadline = Instant::now() + Duration::from_secs(600);
    let started = Instant::now();
    let refused = session.hold(bash("make"), now(), deadline, false).await;
    let Err(HookError::Wire(ClientError::Rpc(error))) = refused else {
        panic!("a refusal, not {:?}", refused.map(|_| ()).err());
    };
    assert_eq!(error.name(), "over_limit", "{error}");
    assert!(started.elapsed() < CALL_BUDGET, "at once, with no retry");
    assert_eq!(
        switchboard.0.lock().unwrap().1.len(),
        1,
        "one connection, never another"
    );
    assert_eq!(strict.pending_count(), 0);
}
