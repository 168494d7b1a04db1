//! The blocking calls against a real gateway on a Unix socket (served by a runtime of its own on
//! another thread), and against fake servers that say nothing, flood, lie about ids, or never
//! accept: each call ends within its budget, spools what found no gateway, and replays it.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_core::testing::toy_bash;
use gatehouse_core::{NewPrompt, Observation, Outcome};
use gatehouse_host_ipc::client::MAX_QUEUED_NOTIFICATION_BYTES;
use gatehouse_host_ipc::hook_session::{HookError, CALL_BUDGET};
use gatehouse_host_ipc::spool::Spool;
use gatehouse_host_ipc::{now, ClientError, Role};

use super::{hold, observe, register, Gateway, Held, HoldTerms};
use crate::testing::{GatewayOnSocket, GENEROUS};
use crate::HookFailure;

/// This machine, with no spool, at `socket`.
fn at(socket: &Path) -> Gateway<'_> {
    Gateway {
        socket,
        host: "here",
        spool: None,
    }
}

fn finished(prompt: &NewPrompt) -> Observation {
    Observation::ToolFinished {
        adapter: prompt.adapter.clone(),
        session: prompt.session.clone(),
        correlation: prompt.correlation.clone(),
    }
}

#[test]
fn an_observation_reaches_the_gateway_and_ends_the_prompt_it_settles() {
    let gateway = GatewayOnSocket::start();
    let prompt = toy_bash("make");
    let mut hook = gateway.client(Role::Hook);
    let held = gateway.runtime.spawn({
        let prompt = prompt.clone();
        async move { hook.hold(prompt, Duration::from_secs(600)).await }
    });
    let started = Instant::now();
    while gateway.list().is_empty() {
        assert!(started.elapsed() < GENEROUS, "the prompt is held");
        std::thread::sleep(Duration::from_millis(10));
    }
    observe(gateway.at(), finished(&prompt), now()).unwrap();
    let outcome = gateway.runtime.block_on(held).unwrap().unwrap().outcome;
    assert!(
        matches!(outcome, Outcome::Withdrawn { .. }),
        "the tool ran: {outcome:?}"
    );
}

#[test]
fn a_prompt_registered_for_watching_is_listed_read_only_and_the_call_returns() {
    let gateway = GatewayOnSocket::start();
    let prompt = NewPrompt {
        read_only_reason: Some("only watched".into()),
        ..toy_bash("ls")
    };
    register(gateway.at(), prompt, Duration::from_secs(600)).unwrap();
    let listed = gateway.list();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].prompt.summary, "ls");
    assert!(listed[0].actions.is_empty(), "read-only");
}

#[test]
fn an_observation_that_finds_no_gateway_is_spooled_and_replayed_by_the_next_hook() {
    let folder = tempfile::tempdir().unwrap();
    let spool = Spool::new(folder.path().join("state/spool.jsonl"));
    let absent = folder.path().join("absent.sock");
    let spooled = Gateway {
        spool: Some(&spool),
        ..at(&absent)
    };
    let refused = observe(spooled, finished(&toy_bash("a")), now());
    assert!(
        matches!(refused, Err(HookError::Unreachable(ClientError::Socket(_)))),
        "{refused:?}"
    );
    assert!(folder.path().join("state/spool.jsonl").exists(), "spooled");

    let gateway = GatewayOnSocket::start();
    let spooled = Gateway {
        spool: Some(&spool),
        ..gateway.at()
    };
    observe(spooled, finished(&toy_bash("b")), now()).unwrap();
    assert!(
        spool.take(now()).is_empty(),
        "the spooled observation was replayed, and taken once"
    );
}

/// A server of this user at `socket` that accepts each connection and answers each line with
/// `reply(line)` (nothing when it is empty), for as long as `connections` last.
fn fake_server(
    socket: &Path,
    connections: usize,
    reply: impl Fn(&str) -> Vec<u8> + Send + 'static,
) -> std::thread::JoinHandle<()> {
    let listener = UnixListener::bind(socket).unwrap();
    std::thread::spawn(move || {
        for _ in 0..connections {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut writer = stream.try_clone().unwrap();
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                let answer = reply(&line);
                if !answer.is_empty() && writer.write_all(&answer).is_err() {
                    break;
                }
            }
        }
    })
}

/// The id of the request `line`, for a fake server's reply.
fn id_of(line: &str) -> u64 {
    let request: serde_json::Value = serde_json::from_str(line).unwrap();
    request["id"].as_u64().unwrap()
}

fn reply_to(line: &str, result: &str) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{result}}}\n",
        id_of(line)
    )
    .into_bytes()
}

#[test]
fn a_gateway_that_never_answers_costs_the_call_budget_and_the_observation_is_spooled() {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("silent.sock");
    let server = fake_server(&socket, 1, |_| Vec::new());
    let spool = Spool::new(folder.path().join("spool.jsonl"));
    let started = Instant::now();
    let spooled = Gateway {
        spool: Some(&spool),
        ..at(&socket)
    };
    let refused = observe(spooled, finished(&toy_bash("a")), now());
    let took = started.elapsed();
    assert!(matches!(refused, Err(HookError::TooSlow(_))), "{refused:?}");
    assert!(took >= CALL_BUDGET - Duration::from_millis(100), "{took:?}");
    assert!(took < CALL_BUDGET + GENEROUS, "{took:?}");
    assert_eq!(spool.take(now()).len(), 1, "spooled");
    drop(server);
}

#[test]
fn a_gateway_whose_backlog_is_full_costs_the_call_budget_to_connect() {
    use std::os::fd::AsRawFd;
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("stopped.sock");
    // A listener that never accepts, with room for one connection waiting: a stopped gateway.
    let listener = UnixListener::bind(&socket).unwrap();
    // SAFETY: listen on a socket this test owns; a backlog of 0 lets one connection wait.
    assert_eq!(unsafe { libc::listen(listener.as_raw_fd(), 0) }, 0);
    let _waiting = UnixStream::connect(&socket).unwrap();
    let started = Instant::now();
    let refused = observe(at(&socket), finished(&toy_bash("a")), now());
    let took = started.elapsed();
    assert!(matches!(refused, Err(HookError::TooSlow(_))), "{refused:?}");
    assert!(took < CALL_BUDGET + GENEROUS, "{took:?}");
}

#[test]
fn notifications_before_a_reply_are_skipped() {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("chatty.sock");
    let server = fake_server(&socket, 1, |line| {
        let mut answer =
            b"{\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":{\"lots\":[1,2,3]}}\n".to_vec();
        let result = if line.contains("\"hello\"") {
            r#"{"protocol":4,"server":"fake","adapters":[{"adapter":"x","name":"X","rules":[]}]}"#
        } else {
            r#"{"withdrawn":[]}"#
        };
        answer.extend(reply_to(line, result));
        answer
    });
    observe(at(&socket), finished(&toy_bash("a")), now()).unwrap();
    drop(server);
}

/// A case of a gateway's bad reply: its name, the reply to a request line, and what the call says.
type BadReply = (&'static str, fn(&str) -> Vec<u8>, &'static str);

#[test]
fn a_reply_to_another_request_an_error_or_a_frame_past_the_limit_ends_the_call() {
    let folder = tempfile::tempdir().unwrap();
    let cases: [BadReply; 3] = [
        (
            "another id",
            |_| b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n".to_vec(),
            "a response to request 7 while waiting for 1",
        ),
        (
            "an error",
            |line| {
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":-32000,\"message\":\"refused here\"}}}}\n",
                    id_of(line)
                )
                .into_bytes()
            },
            "refused here",
        ),
        (
            "a frame past the limit",
            |_| vec![b' '; gatehouse_host_ipc::framing::MAX_FRAME_BYTES + 2],
            "longer than the limit",
        ),
    ];
    for (case, reply, expected) in cases {
        let socket = folder
            .path()
            .join(format!("{}.sock", case.replace(' ', "-")));
        let server = fake_server(&socket, 1, reply);
        let refused = observe(at(&socket), finished(&toy_bash("a")), now());
        let said = match refused {
            Err(HookError::Wire(error)) => error.to_string(),
            other => panic!("{case}: {other:?}"),
        };
        assert!(said.contains(expected), "{case}: {said}");
        drop(server);
    }
}

/// A hold of `prompt` for up to `wait`.
fn terms(prompt: NewPrompt, wait: Duration, registration_budget: Option<Duration>) -> HoldTerms {
    HoldTerms {
        prompt,
        held_since: now(),
        deadline: Instant::now() + wait,
        watch_if_read_only: false,
        agent: None,
        registration_budget,
    }
}

#[test]
fn a_held_prompt_is_answered_and_the_receipt_confirms_it() {
    let gateway = GatewayOnSocket::start();
    let answering = gateway.answer_each_prompt(gatehouse_core::Answer::Once);
    let held = hold(
        gateway.at(),
        &terms(toy_bash("make"), Duration::from_secs(600), None),
        None,
        |_| {},
    )
    .unwrap();
    let Held::Verdict { verdict, .. } = &held else {
        panic!("a verdict")
    };
    assert_eq!(verdict.0.action(), gatehouse_core::Action::Once);
    held.confirm().unwrap();
    let state = gateway.runtime.block_on(answering).unwrap();
    assert_eq!(state, gatehouse_core::PromptState::Delivered);
}

#[test]
fn a_gateway_that_never_says_it_registered_the_prompt_costs_the_registration_budget() {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("takes-no-holds.sock");
    // Says hello, then takes the hold and says nothing of it.
    let server = fake_server(&socket, 1, |line| {
        if line.contains("\"hello\"") {
            reply_to(line, r#"{"protocol":4,"server":"fake"}"#)
        } else {
            Vec::new()
        }
    });
    let started = Instant::now();
    let refused = hold(
        at(&socket),
        &terms(
            toy_bash("make"),
            Duration::from_secs(600),
            Some(CALL_BUDGET),
        ),
        None,
        |_| {},
    );
    let took = started.elapsed();
    assert!(
        matches!(refused, Err(HookFailure::Gateway(HookError::TooSlow(budget))) if budget == CALL_BUDGET),
        "{:?}",
        refused.err()
    );
    assert!(took < CALL_BUDGET + GENEROUS, "{took:?}");
    drop(server);
}

#[test]
fn a_hold_whose_agent_ended_the_call_lets_go_and_the_gateway_withdraws_the_prompt() {
    let gateway = GatewayOnSocket::start();
    let ended = Box::new(|| true);
    let started = Instant::now();
    let refused = hold(
        gateway.at(),
        &terms(toy_bash("make"), Duration::from_secs(600), None),
        Some(ended),
        |_| {},
    );
    assert!(
        matches!(refused, Err(HookFailure::CancelledByAgent)),
        "{:?}",
        refused.err()
    );
    assert!(started.elapsed() < GENEROUS);
    let started = Instant::now();
    while !gateway.list().is_empty() {
        assert!(started.elapsed() < GENEROUS, "the prompt is withdrawn");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_hold_whose_gateway_goes_away_ends_without_a_verdict_at_its_deadline() {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("goes-away.sock");
    // Takes the hold, says it registered it, then closes the connection and is gone.
    let listener = UnixListener::bind(&socket).unwrap();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut writer = stream.try_clone().unwrap();
        let mut lines = BufReader::new(stream).lines();
        let hello = lines.next().unwrap().unwrap();
        writer
            .write_all(&reply_to(&hello, r#"{"protocol":4,"server":"fake"}"#))
            .unwrap();
        let _hold = lines.next().unwrap().unwrap();
        writer.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"hook.registered\",\"params\":{\"id\":\"019a0000-0000-7000-8000-000000000001\",\"actions\":[]}}\n").unwrap();
    });
    // `notice` is a plain function: what it was told goes here.
    static NOTICED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let started = Instant::now();
    // Short enough that no reconnection is tried: gone, the hold ends with no verdict.
    let held = hold(
        at(&socket),
        &terms(toy_bash("make"), Duration::from_millis(500), None),
        None,
        |_| NOTICED.store(true, std::sync::atomic::Ordering::SeqCst),
    );
    server.join().unwrap();
    assert!(matches!(held, Ok(Held::NoVerdict)), "{:?}", held.err());
    assert!(
        NOTICED.load(std::sync::atomic::Ordering::SeqCst),
        "the person is told"
    );
    assert!(started.elapsed() < GENEROUS);
}

#[test]
fn a_gateway_that_floods_a_call_with_notifications_fails_it_within_the_bound() {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("flood.sock");
    // 1 MiB notifications, more of them than the bound, before any reply.
    let server = fake_server(&socket, 1, |_| {
        let padding = "x".repeat(1 << 20);
        let notification =
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":\"{padding}\"}}\n");
        notification
            .repeat(MAX_QUEUED_NOTIFICATION_BYTES / (1 << 20) + 2)
            .into_bytes()
    });
    let refused = observe(at(&socket), finished(&toy_bash("a")), now());
    let said = match refused {
        Err(HookError::Wire(error)) => error.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(said.contains("bytes of notifications"), "{said}");
    drop(server);
}

/// A hold the gateway refuses as over a limit (the hooks socket's budgets and caps) is final:
/// the hook ends at once, on the one connection it made, and never holds it again.
#[test]
fn a_hold_refused_over_a_limit_is_final_and_never_retried() {
    let folder = tempfile::tempdir().unwrap();
    let socket = folder.path().join("over-limit.sock");
    let holds = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = holds.clone();
    let server = fake_server(&socket, 2, move |line| {
        if line.contains("\"hello\"") {
            reply_to(line, r#"{"protocol":4,"server":"fake"}"#)
        } else {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":-32013,\"message\":\"over the hooks socket's budget\"}}}}\n",
                id_of(line)
            )
            .into_bytes()
        }
    });
    let started = Instant::now();
    let refused = hold(
        at(&socket),
        &terms(toy_bash("make"), Duration::from_secs(600), None),
        None,
        |_| {},
    );
    let took = started.elapsed();
    assert!(refused.is_err(), "a refusal, never a verdict");
    assert!(took < CALL_BUDGET, "at once, with no retry: {took:?}");
    assert_eq!(
        holds.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "held once, never again"
    );
    drop(server);
}
