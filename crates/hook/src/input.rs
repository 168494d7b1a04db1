//! Reading the agent's event: bounded in bytes and in JSON values before the adapter parses it,
//! then completed with what is the hook's to say for every agent: the machine it runs on, and
//! the tmux pane (and its window) its agent runs in.

use std::io::Read;
use std::sync::mpsc;
use std::time::Duration;

use gatehouse_core::{Adapter, CancellationCheck, HookEvent};

use crate::{terminal, HookFailure};

/// The most stdin that is read; an event larger than this is not held. A hold message carries
/// the tool input once, beside a summary of bounded length and a fixed-size correlation key, so
/// an event of this size fits in one frame with room to spare. An input that grows past the
/// frame limit when encoded again (numbers such as `1e5` become `100000.0`) is refused by the
/// client before it is sent, and that refusal is final.
pub const MAX_EVENT_BYTES: u64 = (gatehouse_host_ipc::framing::MAX_FRAME_BYTES / 4 * 3) as u64;

/// The most JSON values an event may hold; one with more is not held.
pub const MAX_EVENT_VALUES: usize = gatehouse_core::json_shape::MAX_EVENT_VALUES;

/// How long the agent may take to write its event: it writes it at once. A hook whose stdin
/// stays open and quiet longer lets go, rather than wait as long as the agent lets it.
pub const INPUT_DEADLINE: Duration = Duration::from_secs(30);

/// At most `MAX_EVENT_BYTES` and one more of `input`, read to its end within `deadline` (on a
/// thread of its own, which a read that never ends leaves behind as the hook goes on).
pub fn read_within(
    input: impl Read + Send + 'static,
    deadline: Duration,
) -> Result<Vec<u8>, HookFailure> {
    let (read, was_read) = mpsc::channel();
    std::thread::Builder::new()
        .name("hook-stdin".into())
        .spawn(move || {
            let mut bytes = Vec::new();
            let result = input
                .take(MAX_EVENT_BYTES + 1)
                .read_to_end(&mut bytes)
                .map(|_| bytes);
            let _ = read.send(result);
        })
        .map_err(HookFailure::CannotRead)?;
    match was_read.recv_timeout(deadline) {
        Ok(result) => result.map_err(HookFailure::CannotRead),
        Err(_) => Err(HookFailure::InputTooSlow(deadline)),
    }
}

/// An event read and parsed, ready to be handed to the gateway.
pub struct ReadEvent {
    /// What the adapter made of it, with the host and terminal filled in.
    pub event: HookEvent,
    /// What tells that the agent ended the call by itself while the hook holds it, if anything.
    pub cancellation: Option<CancellationCheck>,
}

/// Reads the event from `input` and parses it with `adapter`. `event_name` is the event's name
/// for agents whose input does not name it.
pub fn read_event(
    adapter: &dyn Adapter,
    event_name: Option<&str>,
    input: impl Read,
) -> Result<ReadEvent, HookFailure> {
    let mut stdin = Vec::new();
    input
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut stdin)
        .map_err(HookFailure::CannotRead)?;
    if stdin.len() as u64 > MAX_EVENT_BYTES {
        return Err(HookFailure::EventTooLarge(MAX_EVENT_BYTES));
    }
    // Parsed, a JSON value takes tens of bytes however short its text: counted first.
    if gatehouse_core::json_shape::values_at_most(&stdin) > MAX_EVENT_VALUES {
        return Err(HookFailure::TooManyValues(MAX_EVENT_VALUES));
    }
    let mut event = adapter
        .parse_hook_event(&stdin, event_name)
        .map_err(HookFailure::NotAnEvent)?;
    let cancellation = match &event {
        HookEvent::Prompt { .. } => adapter.cancellation_check(&stdin),
        _ => None,
    };
    // The host and the terminal are the hook's to say, for every agent: every prompt names the
    // machine it is on, and the tmux pane its agent runs in when the environment tells (an
    // adapter may have said more, such as the agent's pid).
    if let HookEvent::Prompt { prompt, .. } = &mut event {
        prompt.host = gatehouse_host_ipc::host::own_host_name().to_owned();
        if prompt.extra.terminal.is_none() {
            let variable = |name: &str| std::env::var(name).ok();
            prompt.extra.terminal = gatehouse_core::TerminalLocation::from_values(
                variable("TMUX").as_deref(),
                variable("TMUX_PANE").as_deref(),
                None,
            );
        }
        if let Some(terminal) = &mut prompt.extra.terminal {
            terminal::name_tmux_window(terminal);
        }
    }
    Ok(ReadEvent {
        event,
        cancellation,
    })
}
