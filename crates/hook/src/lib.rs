//! `gatehouse hook AGENT`: what an agent runs for each hook event. It reads the event
//! ([`input`]), hands it to the gateway and prints the verdict, if any, in the agent's own
//! format ([`deliver`]).
//!
//! Architecture invariant: nothing here ever prints an approval that did not come from the
//! gateway as a verdict, and stdout carries one thing at most ([`output::print_once`]).
//! Whenever the hook cannot do its job (no gateway, input that is not an event, an error on the
//! wire) it ends with a [`HookFailure`], which the binary says in one line on stderr before it
//! exits 0, so that the agent behaves exactly as if gatehouse were not installed.
//!
//! One exception, the adapter's to declare ([`gatehouse_core::WithoutVerdict`]): an agent that
//! reads silence as an approval (Gemini CLI with gatehouse's allow policy) gets the adapter's
//! "no verdict" output instead of nothing, on every path that printed no verdict, panics and
//! signals included ([`without_verdict`]).
//!
//! A verdict is delivered only within the hook's deadline on its own [`clock`], which counts
//! the time the hook is stopped, starved or asleep: past it the agent may have given up on its
//! hook (its own timeout), so a verdict that comes later is not printed, and one printed later is
//! not confirmed ([`deliver`]).
//!
//! If the gateway goes away while a prompt is held, the hook keeps waiting and registers the
//! prompt again when a gateway is back; an observation that finds no gateway is spooled
//! ([`blocking`], with the budgets of [`gatehouse_host_ipc::hook_session`]).
//!
//! Everything goes over one blocking socket at a time ([`blocking`]), with no async runtime:
//! an observation and a prompt only registered need one connection and one answer, and a held
//! prompt waits on its connection, reconnecting when its gateway goes away.
//!
//! API boundary: [`command`] is the hook as a command, for both executables that run it
//! (`gatehouse hook` and `gatehouse-hook`), which bring the adapter registry; [`handle`] runs one
//! hook on the process's stdin and the gateway's socket, given the adapter, the settings and the
//! spool. [`input::read_event`] and [`deliver::deliver`] are the same steps over any bytes and
//! any socket, for tests and benchmarks in-process.

pub mod blocking;
pub mod clock;
pub mod command;
pub mod deliver;
pub mod input;
pub mod output;
pub mod settings;
mod terminal;
pub mod without_verdict;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::{Action, Adapter, HookEvent, ParseError};
use gatehouse_host_ipc::hook_session::HookError;
use gatehouse_host_ipc::socket::SocketError;
use gatehouse_host_ipc::spool::Spool;
use gatehouse_host_ipc::ClientError;
use thiserror::Error;

/// Why a hook delivered nothing. None of these approves anything: the agent decides.
#[derive(Debug, Error)]
pub enum HookFailure {
    #[error("cannot read the hook event: {0}")]
    CannotRead(std::io::Error),
    #[error("the agent did not finish writing the hook event within {0:?}")]
    InputTooSlow(Duration),
    #[error("the hook event is larger than {0} bytes")]
    EventTooLarge(u64),
    #[error("the hook event holds more than {0} JSON values")]
    TooManyValues(usize),
    #[error("{0}")]
    NotAnEvent(ParseError),
    #[error("{0}")]
    Settings(String),
    #[error("no gateway is running on {}", .0.display())]
    NoGateway(PathBuf),
    #[error(transparent)]
    Gateway(#[from] HookError),
    #[error("the agent ended the call (the person cancelled it there); the prompt is withdrawn")]
    CancelledByAgent,
    #[error("the gateway sent `{action}` for a {kind} prompt of {tool}, which gatehouse does not offer for it; nothing was delivered")]
    NotOffered {
        action: Action,
        kind: &'static str,
        tool: String,
    },
    #[error("cannot write the verdict to the agent: {0}")]
    CannotWrite(std::io::Error),
    #[error("the hook's deadline passed as the verdict came; the agent decides")]
    DeadlinePassed,
    #[error("the hook ran only {:.1} s after its hold should have ended (it was stopped, starved or asleep as it started): its agent may have given up on it by now, so nothing was held and the agent's own dialog decides", .0.as_secs_f64())]
    PausedBeforeHolding(Duration),
    #[error("the verdict came {:.1} s after the hook's deadline (the hook was stopped, starved or asleep): the agent may have given up on its hook by now, so it was not delivered and the agent's own dialog decides", .0.as_secs_f64())]
    PausedPastDeadline(Duration),
    #[error("the verdict was printed {:.1} s after the hook's deadline (the hook was stopped, starved or asleep meanwhile): the agent may have given up on its hook, so its delivery is not confirmed", .0.as_secs_f64())]
    PrintedPastDeadline(Duration),
}

pub use settings::HookSettings;

/// Runs one hook: reads the event on stdin with `adapter`, asks `settings` (given the event:
/// an observation needs no wait) where the gateway is, hands the event to it, and prints the
/// verdict, if any. `spool` keeps observations that find no gateway.
pub fn handle(
    adapter: &dyn Adapter,
    event_name: Option<&str>,
    settings: impl FnOnce(&HookEvent) -> Result<HookSettings, String>,
    spool: Option<Spool>,
) -> Result<(), HookFailure> {
    // Descriptor 0 itself, not `std::io::stdin()`, whose buffer the hook would never use.
    // SAFETY: descriptor 0 is open for the whole run (Rust's start, or `command::main`, opens
    // `/dev/null` on it when it was closed) and nothing closes it.
    let stdin = unsafe { std::os::fd::BorrowedFd::borrow_raw(0) };
    let stdin = input::read_within(stdin, input::INPUT_DEADLINE)?;
    let read = input::read_event(adapter, event_name, &stdin)?;
    drop(stdin);
    if read.event == HookEvent::Ignore {
        return Ok(());
    }
    let HookSettings { socket, wait } = settings(&read.event).map_err(HookFailure::Settings)?;
    let gateway = blocking::Gateway {
        socket: &socket,
        host: gatehouse_host_ipc::host::own_host_name(),
        spool: spool.as_ref(),
    };
    let (holding, wait) = holding_for(adapter, event_name, wait);
    // The agent's own timer started as it ran the hook: the wait counts from then.
    let hold_until = || clock::Deadline::after_the_process_started(wait);
    deliver::deliver(
        adapter,
        read,
        gateway,
        holding,
        hold_until,
        &output::print_once,
    )
    .map_err(|failure| named_socket(failure, &socket))
}

/// How `adapter`'s hook for `event_name` holds a prompt, and for how long of `wait`. An agent
/// that reads silence as an approval gets its answer before its hook timeout, whatever the
/// configured wait, and at once from a gateway that says hello but never takes the hold (the
/// person could not answer a prompt that is not listed).
pub fn holding_for(
    adapter: &dyn Adapter,
    event_name: Option<&str>,
    wait: Duration,
) -> (deliver::Holding, Duration) {
    let holding = deliver::Holding {
        registration_budget: None,
        notice: output::say,
    };
    match without_verdict::without_verdict_of(adapter, event_name) {
        Some(without_verdict) => (
            deliver::Holding {
                registration_budget: Some(gatehouse_host_ipc::hook_session::CALL_BUDGET),
                ..holding
            },
            wait.min(without_verdict.hold_at_most()),
        ),
        None => (holding, wait),
    }
}

/// A connection refused on `socket` said as what it means: no gateway runs there. Another
/// user's server, or one whose user cannot be told, keeps its own words.
fn named_socket(failure: HookFailure, socket: &Path) -> HookFailure {
    match failure {
        HookFailure::Gateway(HookError::Unreachable(ClientError::Socket(
            SocketError::Connect { .. },
        ))) => HookFailure::NoGateway(socket.to_owned()),
        other => other,
    }
}
