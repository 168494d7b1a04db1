//! Reading the agent's event: bounded in bytes and in JSON values before the adapter parses it,
//! then completed with what is the hook's to say for every agent: the machine it runs on, and
//! the tmux pane (and its window) its agent runs in.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

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

/// At most `MAX_EVENT_BYTES` and one more of `input` (stdin, or any pipe or file), read to its
/// end within `deadline`: each read waits (`poll`) only for what is left of it, so an agent
/// that leaves stdin open and quiet costs the hook the deadline and no more. Read once, in
/// blocks, into the one buffer the event is parsed from.
pub fn read_within(input: impl AsFd, deadline: Duration) -> Result<Vec<u8>, HookFailure> {
    let fd = input.as_fd();
    let ends = Instant::now() + deadline;
    let limit = MAX_EVENT_BYTES as usize + 1;
    let mut bytes = Vec::new();
    while bytes.len() < limit {
        wait_readable(fd, ends).map_err(|error| match error.kind() {
            std::io::ErrorKind::TimedOut => HookFailure::InputTooSlow(deadline),
            _ => HookFailure::CannotRead(error),
        })?;
        let block = READ_BLOCK.min(limit - bytes.len());
        match read_appending(fd, &mut bytes, block) {
            Ok(0) => return Ok(bytes),
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock
                ) => {}
            Err(error) => return Err(HookFailure::CannotRead(error)),
        }
    }
    Ok(bytes)
}

/// Reads at most `at_most` bytes of `fd` onto the end of `bytes`, with one `read`, into the room
/// the vector has, made `at_most` bytes when it has none. The room is neither filled first nor
/// grown while some is left (a grown vector is copied whole, its unused room with it), so only
/// the pages written are ever touched. The count read, 0 at the end.
pub(crate) fn read_appending(
    fd: BorrowedFd<'_>,
    bytes: &mut Vec<u8>,
    at_most: usize,
) -> std::io::Result<usize> {
    if bytes.len() == bytes.capacity() {
        bytes.reserve(at_most);
    }
    let room = bytes.spare_capacity_mut();
    let room_left = room.len();
    let room = &mut room[..at_most.min(room_left)];
    // SAFETY: `room` is `at_most` bytes of the vector's own allocation, which `read` may fill.
    let read = unsafe { libc::read(fd.as_raw_fd(), room.as_mut_ptr().cast(), room.len()) };
    let Ok(read) = usize::try_from(read) else {
        return Err(std::io::Error::last_os_error());
    };
    // SAFETY: `read` bytes past the length were just written by the kernel.
    unsafe { bytes.set_len(bytes.len() + read) };
    Ok(read)
}

/// How much of the event is read at a time: most events are one block.
const READ_BLOCK: usize = 64 * 1024;

/// Waits until `fd` can be read (or is at its end) or `ends` passes (`TimedOut`).
fn wait_readable(fd: BorrowedFd<'_>, ends: Instant) -> std::io::Result<()> {
    loop {
        let left = ends.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        let mut poll = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // Rounded up, so that a wait never ends before the deadline.
        let milliseconds = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: one pollfd, owned here, for a descriptor borrowed for this call.
        match unsafe { libc::poll(&mut poll, 1, milliseconds) } {
            0 => {}
            ready if ready > 0 => {
                if poll.revents & libc::POLLNVAL != 0 {
                    return Err(std::io::Error::from_raw_os_error(libc::EBADF));
                }
                return Ok(());
            }
            _ => {
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
        }
    }
}

/// An event read and parsed, ready to be handed to the gateway.
pub struct ReadEvent {
    /// What the adapter made of it, with the host and terminal filled in.
    pub event: HookEvent,
    /// What tells that the agent ended the call by itself while the hook holds it, if anything.
    pub cancellation: Option<CancellationCheck>,
}

/// Parses the event read from stdin (`stdin`, as [`read_within`] read it) with `adapter`.
/// `event_name` is the event's name for agents whose input does not name it.
pub fn read_event(
    adapter: &dyn Adapter,
    event_name: Option<&str>,
    stdin: &[u8],
) -> Result<ReadEvent, HookFailure> {
    if stdin.len() as u64 > MAX_EVENT_BYTES {
        return Err(HookFailure::EventTooLarge(MAX_EVENT_BYTES));
    }
    // Parsed, a JSON value takes tens of bytes however short its text: counted first.
    if gatehouse_core::json_shape::values_at_most(stdin) > MAX_EVENT_VALUES {
        return Err(HookFailure::TooManyValues(MAX_EVENT_VALUES));
    }
    let mut event = adapter
        .parse_hook_event(stdin, event_name)
        .map_err(HookFailure::NotAnEvent)?;
    let cancellation = match &event {
        HookEvent::Prompt { .. } => adapter.cancellation_check(stdin),
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
