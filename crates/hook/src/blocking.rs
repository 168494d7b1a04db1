//! The hook's dealings with the gateway over one blocking Unix socket: report an observation,
//! register a prompt for watching, or hold it until its outcome across gateway restarts, and
//! send the delivery receipt. No async runtime: each read and write waits (its socket timeout)
//! at most until the step's deadline, and a hold wakes for its agent's cancellation check.
//!
//! With the budgets of [`gatehouse_host_ipc::hook_session`]: the server must be run by this user (`SO_PEERCRED`), checked before a byte is sent;
//! the hook says hello as a hook naming its host; the spool is replayed on connecting (entries
//! that cannot be replayed go back); connecting, each observation and each registration have
//! [`CALL_BUDGET`], the receipt [`RECEIPT_BUDGET`], a hold its wait and [`LOCAL_GRACE`]; an
//! observation that reaches no gateway is spooled; a hold whose gateway goes away is registered
//! again, with its snapshot and `held_since`, when a gateway is back (tried every
//! [`RECONNECT_EVERY`]); an outcome counts only for the id the gateway registered this hook's
//! prompt as, said first. Replies are read in blocks and held to the protocol's frame limit;
//! notifications that come before a reply are skipped, bounded in bytes. A reply is read only
//! for what the hook uses: the `hello` reply's adapters, if a gateway still sends them, are
//! skipped unparsed.

use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::io::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_core::{
    CancellationCheck, DecisionId, NewPrompt, Observation, Outcome, RunningAgent, Timestamp,
    Verdict,
};
use gatehouse_host_ipc::client::MAX_QUEUED_NOTIFICATION_BYTES;
use gatehouse_host_ipc::framing::{FrameError, MAX_FRAME_BYTES};
use gatehouse_host_ipc::hook_session::{
    HookError, CALL_BUDGET, LOCAL_GRACE, RECEIPT_BUDGET, RECONNECT_EVERY,
};
use gatehouse_host_ipc::protocol::{
    method, notification, HelloParams, HoldParams, HoldResult, IdParams, ObserveParams,
    ObserveResult, RegisteredParams, Role, RpcError, StateResult, PROTOCOL_VERSION,
};
use gatehouse_host_ipc::socket::{SocketError, User};
use gatehouse_host_ipc::spool::{Entry, Spool};
use gatehouse_host_ipc::ClientError;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::HookFailure;

#[cfg(test)]
mod tests;

/// The name the hook gives itself in its hello, as the async client's hook does.
const CLIENT_NAME: &str = concat!("gatehouse-hook ", env!("CARGO_PKG_VERSION"));

/// How much is read from the socket at a time.
const READ_BLOCK: usize = 16 * 1024;

/// How often a held prompt's [`CancellationCheck`] runs.
pub const CANCELLATION_CHECK_EVERY: Duration = Duration::from_millis(500);

/// Where the gateway is, and who the hook is there.
#[derive(Clone, Copy)]
pub struct Gateway<'a> {
    /// The gateway's socket.
    pub socket: &'a Path,
    /// This machine's name, said in the hello.
    pub host: &'a str,
    /// Where observations that find no gateway go, and come back from.
    pub spool: Option<&'a Spool>,
}

/// Reports what the agent did; spooled when no gateway can be reached.
pub fn observe(
    gateway: Gateway<'_>,
    observation: Observation,
    observed_at: Timestamp,
) -> Result<(), HookError> {
    match Connection::open(gateway) {
        Ok(mut connection) => connection.observe(observation, None).map(drop),
        Err(reason) => {
            let Some(spool) = gateway.spool else {
                return Err(reason);
            };
            match spool.append(&Entry {
                observed_at,
                observation,
            }) {
                Ok(()) => Err(reason),
                Err(problem) => Err(HookError::NotSpooled {
                    reason: Box::new(reason),
                    problem,
                }),
            }
        }
    }
}

/// Registers `prompt` for watching only, listed for `stale_after` without news of it, and
/// returns at once.
pub fn register(
    gateway: Gateway<'_>,
    prompt: NewPrompt,
    stale_after: Duration,
) -> Result<(), HookError> {
    let mut connection = Connection::open(gateway)?;
    let params = HoldParams {
        prompt,
        wait_ms: stale_after.as_millis() as u64,
        held_since: None,
        watch_if_read_only: false,
        agent: None,
    };
    connection
        .call::<_, RegisteredParams>(method::HOOK_REGISTER, &params, CALL_BUDGET)
        .map(drop)
}

/// What a hold asks of the gateway.
pub struct HoldTerms {
    pub prompt: NewPrompt,
    /// When the hook first got the prompt: every registration says it.
    pub held_since: Timestamp,
    /// When the hold ends, whatever the gateway says.
    pub deadline: Instant,
    /// Only watch the prompt if nothing is offered for it (see [`HoldParams`]).
    pub watch_if_read_only: bool,
    /// What the hook knows of the agent that runs it.
    pub agent: Option<RunningAgent>,
    /// How long the gateway may take to say it registered the prompt (none: as long as the
    /// hold): for an agent that reads a hook that never answers as an approval.
    pub registration_budget: Option<Duration>,
}

/// How a hold ended. One is made per hook run, so the size of the verdict variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Held {
    /// A front end answered: deliver the verdict, then [`Held::confirm`] it.
    Verdict {
        id: DecisionId,
        verdict: Verdict,
        connection: Connection,
    },
    /// Released, withdrawn, expired, only watched, or the deadline passed with no gateway: the
    /// agent's own prompt decides.
    NoVerdict,
}

/// Holds `terms.prompt` until its outcome or `terms.deadline`, registering it again whenever
/// the gateway it was held by goes away and another is back. `cancelled`, if any, runs every
/// [`CANCELLATION_CHECK_EVERY`] meanwhile: once it says the agent ended the call, the hold's
/// connection closes (the gateway withdraws the prompt) and the hook lets go. `notice` tells
/// the person what happens.
pub fn hold(
    gateway: Gateway<'_>,
    terms: &HoldTerms,
    cancelled: Option<CancellationCheck>,
    notice: fn(&str),
) -> Result<Held, HookFailure> {
    let mut cancellation = Cancellation::new(cancelled);
    let mut connection = Connection::open(gateway)?;
    loop {
        match connection.hold_once(terms, &mut cancellation)? {
            Some(result) => {
                return Ok(match result.outcome {
                    Outcome::Verdict { verdict } => Held::Verdict {
                        id: result.id,
                        verdict,
                        connection,
                    },
                    _ => Held::NoVerdict,
                })
            }
            None => {
                notice("gatehouse hook: the gateway went away; the terminal is in charge, and the prompt returns when a gateway is back");
                match reconnect(gateway, terms.deadline, &mut cancellation)? {
                    Some(again) => connection = again,
                    None => return Ok(Held::NoVerdict),
                }
            }
        }
    }
}

/// A connection to a gateway that is back, tried every [`RECONNECT_EVERY`] until `deadline`.
fn reconnect(
    gateway: Gateway<'_>,
    deadline: Instant,
    cancellation: &mut Cancellation,
) -> Result<Option<Connection>, HookFailure> {
    while Instant::now() + RECONNECT_EVERY + CALL_BUDGET < deadline {
        let wake = Instant::now() + RECONNECT_EVERY;
        while let Some(left) = wake.checked_duration_since(Instant::now()) {
            let until = cancellation
                .next_check()
                .map_or(wake, |next| next.min(wake));
            std::thread::sleep(until.saturating_duration_since(Instant::now()).min(left));
            cancellation.run_if_due()?;
        }
        if let Ok(connection) = Connection::open(gateway) {
            return Ok(Some(connection));
        }
    }
    Ok(None)
}

/// A held prompt's [`CancellationCheck`], with when it runs next.
struct Cancellation {
    check: Option<CancellationCheck>,
    next: Instant,
}

impl Cancellation {
    fn new(check: Option<CancellationCheck>) -> Self {
        Cancellation {
            check,
            next: Instant::now() + CANCELLATION_CHECK_EVERY,
        }
    }

    /// When the check runs next, if there is one.
    fn next_check(&self) -> Option<Instant> {
        self.check.as_ref().map(|_| self.next)
    }

    /// Runs the check if its time has come: [`HookFailure::CancelledByAgent`] once it says the
    /// agent ended the call.
    fn run_if_due(&mut self) -> Result<(), HookFailure> {
        let Some(check) = &mut self.check else {
            return Ok(());
        };
        if Instant::now() < self.next {
            return Ok(());
        }
        if check() {
            return Err(HookFailure::CancelledByAgent);
        }
        self.next = Instant::now() + CANCELLATION_CHECK_EVERY;
        Ok(())
    }
}

impl Held {
    /// The receipt: the verdict is out. Without it the gateway marks the prompt unconfirmed.
    pub fn confirm(self) -> Result<(), HookError> {
        self.receipt(method::HOOK_DELIVERED)
    }

    /// The verdict was not delivered: the hook's own check refused it. The gateway records why
    /// (a gateway that does not know `hook.undelivered` marks it unconfirmed when the hook leaves).
    pub fn refuse(self) -> Result<(), HookError> {
        self.receipt(method::HOOK_UNDELIVERED)
    }

    /// Tells the gateway `method` of the verdict, within [`RECEIPT_BUDGET`]; nothing to tell
    /// without a verdict.
    fn receipt(self, method: &str) -> Result<(), HookError> {
        let Held::Verdict {
            id, mut connection, ..
        } = self
        else {
            return Ok(());
        };
        connection
            .call::<_, StateResult>(method, &IdParams { id }, RECEIPT_BUDGET)
            .map(drop)
    }
}

/// One connection to the gateway, past its hello.
pub struct Connection {
    stream: UnixStream,
    /// Bytes read and not yet taken as frames.
    received: Vec<u8>,
    next_request_id: u64,
    /// The socket's timeouts as last set: each blocking call waits at most that long.
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
}

/// A request, serialized straight from its typed params.
#[derive(Serialize)]
struct Call<'a, P> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    params: &'a P,
}

/// A frame from the gateway: a notification (`method`, `params`) or the reply to a call.
#[derive(Deserialize)]
struct Incoming<R> {
    method: Option<String>,
    params: Option<Value>,
    id: Option<Value>,
    result: Option<R>,
    error: Option<RpcError>,
}

/// Why a blocking step on the socket stopped short.
enum Stopped {
    /// Its deadline came.
    TimedOut,
    /// The connection failed or said something that is not the protocol.
    Failed(ClientError),
}

impl Stopped {
    /// The step's failure as a call says it: too slow for `budget`, or on the wire.
    fn in_a_call(self, budget: Duration) -> HookError {
        match self {
            Stopped::TimedOut => HookError::TooSlow(budget),
            Stopped::Failed(error) => HookError::Wire(error),
        }
    }
}

/// What came for a request: a notification (its method and params) or the reply.
enum Came<R> {
    Notification(String, Option<Value>),
    Reply(R),
}

impl Connection {
    /// Connects to the gateway, checks that this user runs its server, says hello as a hook on
    /// its machine, within [`CALL_BUDGET`], and replays the spool, each entry within it.
    pub fn open(gateway: Gateway<'_>) -> Result<Self, HookError> {
        let started = Instant::now();
        let stream = connect_within(gateway.socket, CALL_BUDGET).map_err(|error| match error {
            SocketError::Connect { source, .. } if is_timeout(&source) => {
                HookError::TooSlow(CALL_BUDGET)
            }
            other => HookError::Unreachable(ClientError::Socket(other)),
        })?;
        let mut connection = Connection {
            stream,
            received: Vec::new(),
            next_request_id: 1,
            read_timeout: None,
            // Set for the connect.
            write_timeout: Some(CALL_BUDGET),
        };
        let hello = HelloParams {
            protocol: PROTOCOL_VERSION,
            role: Role::Hook,
            client: Some(CLIENT_NAME.to_owned()),
            host: Some(gateway.host.to_owned()).filter(|host| !host.is_empty()),
        };
        let left = CALL_BUDGET.saturating_sub(started.elapsed());
        connection
            .call_until::<_, IgnoredAny>(method::HELLO, &hello, Instant::now() + left)
            .map_err(|stopped| stopped.in_a_call(CALL_BUDGET))?;
        let Some(spool) = gateway.spool else {
            return Ok(connection);
        };
        let mut entries = spool.take(gatehouse_host_ipc::now()).into_iter();
        while let Some(entry) = entries.next() {
            let replayed = connection.observe(entry.observation.clone(), Some(entry.observed_at));
            if let Err(reason) = replayed {
                let _ = spool.put_back(std::iter::once(entry).chain(entries));
                return Err(reason);
            }
        }
        Ok(connection)
    }

    /// Reports `observation` (made at `observed_at`, when replayed from the spool), within
    /// [`CALL_BUDGET`].
    pub fn observe(
        &mut self,
        observation: Observation,
        observed_at: Option<Timestamp>,
    ) -> Result<ObserveResult, HookError> {
        let params = ObserveParams {
            observation,
            observed_at,
        };
        self.call(method::HOOK_OBSERVE, &params, CALL_BUDGET)
    }

    /// Sends one request and reads frames until its reply, within `budget`.
    pub fn call<P: Serialize, R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: &P,
        budget: Duration,
    ) -> Result<R, HookError> {
        self.call_until(method, params, Instant::now() + budget)
            .map_err(|stopped| stopped.in_a_call(budget))
    }

    /// Sends one request and reads frames until its reply, by `deadline`, skipping the
    /// notifications that come first.
    fn call_until<P: Serialize, R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: &P,
        deadline: Instant,
    ) -> Result<R, Stopped> {
        let id = self.send_request(method, params, deadline)?;
        let mut notified_bytes = 0;
        loop {
            match self.next_from(id, deadline, &mut notified_bytes)? {
                Came::Notification(..) => continue,
                Came::Reply(reply) => return Ok(reply),
            }
        }
    }

    /// Holds `terms.prompt` once on this connection: its outcome, or `None` when the connection
    /// failed (the gateway went away).
    fn hold_once(
        &mut self,
        terms: &HoldTerms,
        cancellation: &mut Cancellation,
    ) -> Result<Option<HoldResult>, HookFailure> {
        let started = Instant::now();
        let remaining = terms.deadline.saturating_duration_since(started);
        let params = HoldParams {
            prompt: terms.prompt.clone(),
            wait_ms: remaining.as_millis() as u64,
            held_since: Some(terms.held_since),
            watch_if_read_only: terms.watch_if_read_only,
            agent: terms.agent.clone(),
        };
        let held_until = started + remaining + LOCAL_GRACE;
        let registration = terms
            .registration_budget
            .map(|budget| (budget, started + budget));
        // Said when the registration or the hold took too long.
        let too_slow = |now: Instant, registered: bool| match registration {
            Some((budget, by)) if !registered && now >= by => {
                Some(HookError::TooSlow(budget).into())
            }
            _ if now >= held_until => Some(HookError::TooSlow(remaining + LOCAL_GRACE).into()),
            _ => None,
        };
        let went_away = |stopped: Stopped| match stopped {
            Stopped::Failed(ClientError::Closed | ClientError::Io(_)) => Ok(None),
            Stopped::Failed(other) => Err(HookFailure::from(HookError::Wire(other))),
            Stopped::TimedOut => Err(too_slow(Instant::now(), false)
                .unwrap_or_else(|| HookError::TooSlow(remaining + LOCAL_GRACE).into())),
        };
        let send_by = registration.map_or(held_until, |(_, by)| by.min(held_until));
        let id = match self.send_request(method::HOOK_HOLD, &params, send_by) {
            Ok(id) => id,
            Err(stopped) => return went_away(stopped),
        };
        // Whether `hook.registered` came, and the id it gave the first time.
        let mut registered: Option<Option<DecisionId>> = None;
        let mut notified_bytes = 0;
        loop {
            let mut until = held_until;
            if let (None, Some((_, by))) = (&registered, registration) {
                until = until.min(by);
            }
            if let Some(next) = cancellation.next_check() {
                until = until.min(next);
            }
            match self.next_from::<HoldResult>(id, until, &mut notified_bytes) {
                Ok(Came::Notification(name, params)) => {
                    if name == notification::REGISTERED && registered.is_none() {
                        registered = Some(params.and_then(|params| {
                            serde_json::from_value::<RegisteredParams>(params)
                                .ok()
                                .map(|registered| registered.id)
                        }));
                    }
                }
                Ok(Came::Reply(result)) => {
                    // The outcome must be for the prompt the gateway registered for this call,
                    // and said so first: anything else is not an answer to this hook.
                    return match registered.flatten() {
                        Some(id) if id == result.id => Ok(Some(result)),
                        Some(id) => Err(HookError::Wire(ClientError::BadReply(format!(
                            "the outcome names prompt {}, but the gateway registered this hook's prompt as {id}",
                            result.id
                        ))).into()),
                        None => Err(HookError::Wire(ClientError::BadReply(format!(
                            "an outcome for prompt {} came before the gateway said it registered the prompt",
                            result.id
                        ))).into()),
                    };
                }
                Err(Stopped::TimedOut) => {
                    cancellation.run_if_due()?;
                    if let Some(failure) = too_slow(Instant::now(), registered.is_some()) {
                        return Err(failure);
                    }
                }
                Err(stopped) => return went_away(stopped),
            }
        }
    }

    /// Writes a request for `method` by `deadline`; its id.
    fn send_request<P: Serialize>(
        &mut self,
        method: &str,
        params: &P,
        deadline: Instant,
    ) -> Result<u64, Stopped> {
        let id = self.next_request_id;
        self.next_request_id += 1;
        let mut frame = serde_json::to_vec(&Call {
            jsonrpc: "2.0",
            id,
            method,
            params,
        })
        .map_err(|error| Stopped::Failed(ClientError::BadReply(error.to_string())))?;
        frame.push(b'\n');
        if frame.len() > MAX_FRAME_BYTES {
            // The gateway would close the connection part-way through; say so before sending.
            return Err(Stopped::Failed(ClientError::RequestTooLarge {
                bytes: frame.len(),
                limit: MAX_FRAME_BYTES,
            }));
        }
        self.send(&frame, deadline)?;
        Ok(id)
    }

    /// The next notification or the reply to request `id`, by `deadline`; `notified_bytes`
    /// counts the notifications' bytes, which may not pass [`MAX_QUEUED_NOTIFICATION_BYTES`].
    fn next_from<R: DeserializeOwned>(
        &mut self,
        id: u64,
        deadline: Instant,
        notified_bytes: &mut usize,
    ) -> Result<Came<R>, Stopped> {
        let bad_reply = |error: String| Stopped::Failed(ClientError::BadReply(error));
        let frame = self.next_frame(deadline)?;
        let incoming: Incoming<R> =
            serde_json::from_slice(&frame).map_err(|error| bad_reply(error.to_string()))?;
        if let (Some(method), None) = (incoming.method, &incoming.id) {
            *notified_bytes += frame.len();
            if *notified_bytes > MAX_QUEUED_NOTIFICATION_BYTES {
                return Err(bad_reply(format!(
                    "more than {MAX_QUEUED_NOTIFICATION_BYTES} bytes of notifications came while a call waited"
                )));
            }
            return Ok(Came::Notification(method, incoming.params));
        }
        if let Some(error) = incoming.error {
            return Err(Stopped::Failed(ClientError::Rpc(error)));
        }
        let answered = incoming.id.unwrap_or(Value::Null);
        if answered.as_u64() != Some(id) {
            return Err(bad_reply(format!(
                "a response to request {answered} while waiting for {id}"
            )));
        }
        match incoming.result {
            Some(result) => Ok(Came::Reply(result)),
            None => serde_json::from_value(Value::Null)
                .map(Came::Reply)
                .map_err(|error| bad_reply(error.to_string())),
        }
    }

    /// Writes `bytes` whole by `deadline`.
    fn send(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), Stopped> {
        let mut rest = bytes;
        while !rest.is_empty() {
            self.within(deadline, Direction::Write)?;
            match self.stream.write(rest) {
                Ok(0) => return Err(Stopped::Failed(ClientError::Closed)),
                Ok(written) => rest = &rest[written..],
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(io_failure(error)),
            }
        }
        Ok(())
    }

    /// The next frame, newline excluded, read in blocks by `deadline`.
    fn next_frame(&mut self, deadline: Instant) -> Result<Vec<u8>, Stopped> {
        let mut scanned = 0;
        loop {
            if let Some(end) = self.received[scanned..]
                .iter()
                .position(|&byte| byte == b'\n')
                .map(|at| scanned + at)
            {
                if end > MAX_FRAME_BYTES {
                    return Err(frame_too_large());
                }
                let rest = self.received.split_off(end + 1);
                let mut frame = std::mem::replace(&mut self.received, rest);
                frame.truncate(end);
                return Ok(frame);
            }
            scanned = self.received.len();
            if scanned > MAX_FRAME_BYTES {
                return Err(frame_too_large());
            }
            self.within(deadline, Direction::Read)?;
            match crate::input::read_appending(self.stream.as_fd(), &mut self.received, READ_BLOCK)
            {
                Ok(0) => return Err(Stopped::Failed(ClientError::Closed)),
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(io_failure(error)),
            }
        }
    }

    /// Makes the socket's next blocking `direction` end by `deadline`: its timeout is shortened
    /// when what is left is less than the one it has (set once per connection, mostly).
    fn within(&mut self, deadline: Instant, direction: Direction) -> Result<(), Stopped> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Stopped::TimedOut);
        }
        let set = match direction {
            Direction::Read => &mut self.read_timeout,
            Direction::Write => &mut self.write_timeout,
        };
        if set.is_some_and(|timeout| timeout <= left) {
            return Ok(());
        }
        match direction {
            Direction::Read => self.stream.set_read_timeout(Some(left)),
            Direction::Write => self.stream.set_write_timeout(Some(left)),
        }
        .map_err(io_failure)?;
        *set = Some(left);
        Ok(())
    }
}

/// Which way a blocking socket call goes.
#[derive(Clone, Copy)]
enum Direction {
    Read,
    Write,
}

fn frame_too_large() -> Stopped {
    Stopped::Failed(ClientError::Frame(
        FrameError::TooLarge {
            limit: MAX_FRAME_BYTES,
        }
        .to_string(),
    ))
}

/// A failed read or write: timed out when its timeout ran out, else the connection failed.
fn io_failure(error: io::Error) -> Stopped {
    if is_timeout(&error) {
        Stopped::TimedOut
    } else {
        Stopped::Failed(ClientError::Io(error))
    }
}

/// Whether `error` is a socket timeout running out (Linux says `EAGAIN`).
fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Connects to the socket at `path` within `budget`, and makes sure that this user runs its
/// server before anything is sent (as `gatehouse_host_ipc::socket::connect` does).
pub fn connect_within(path: &Path, budget: Duration) -> Result<UnixStream, SocketError> {
    use std::os::unix::ffi::OsStrExt;
    let connect_error = |source| SocketError::Connect {
        path: path.into(),
        source,
    };
    let bytes = path.as_os_str().as_bytes();
    // SAFETY: sockaddr_un is plain data; all zeroes is a valid value.
    let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    if bytes.is_empty() || bytes.len() >= address.sun_path.len() || bytes.contains(&0) {
        return Err(connect_error(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the socket path is empty, holds a NUL or is too long for a Unix socket",
        )));
    }
    address.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (slot, byte) in address.sun_path.iter_mut().zip(bytes) {
        *slot = *byte as libc::c_char;
    }
    let stream = unix_socket().map_err(connect_error)?;
    // Linux bounds a blocking connect to a Unix socket (a gateway whose backlog is full, as one
    // that is stopped) by the socket's send timeout.
    stream
        .set_write_timeout(Some(budget))
        .map_err(connect_error)?;
    let length = std::mem::offset_of!(libc::sockaddr_un, sun_path) + bytes.len() + 1;
    // SAFETY: `address` is a valid sockaddr_un of which `length` bytes are used.
    let connected = unsafe {
        libc::connect(
            stream.as_raw_fd(),
            std::ptr::addr_of!(address).cast::<libc::sockaddr>(),
            length as libc::socklen_t,
        )
    };
    if connected != 0 {
        return Err(connect_error(io::Error::last_os_error()));
    }
    check_server(path, &stream)?;
    Ok(stream)
}

/// A new Unix stream socket, not inherited by the programs the hook runs (tmux).
fn unix_socket() -> io::Result<UnixStream> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let kind = libc::SOCK_STREAM | libc::SOCK_CLOEXEC;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let kind = libc::SOCK_STREAM;
    // SAFETY: a plain system call; its result is checked.
    let fd = unsafe { libc::socket(libc::AF_UNIX, kind, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a socket just made and owned by nothing else; the stream closes it.
    let stream = unsafe { UnixStream::from_raw_fd(fd) };
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    // SAFETY: sets a flag on the descriptor the stream owns.
    if unsafe { libc::fcntl(stream.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stream)
}

/// Only a server run by this process's own effective user is talked to: the kernel reports the
/// credentials the server had when it called `listen`, which it cannot forge.
fn check_server(path: &Path, stream: &UnixStream) -> Result<(), SocketError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let own = unsafe { libc::geteuid() };
    match server_uid(stream) {
        Ok(server) if server == own => Ok(()),
        Ok(server) => Err(SocketError::NotYourGateway {
            path: path.into(),
            server: User::with_uid(server),
            you: User::with_uid(own),
        }),
        Err(source) => Err(SocketError::ServerUnknown {
            path: path.into(),
            source,
        }),
    }
}

/// The effective user id of the process that listens on the other end of `stream`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn server_uid(stream: &UnixStream) -> io::Result<u32> {
    // SAFETY: ucred is plain data; getsockopt fills at most `length` bytes of it.
    let mut credentials: libc::ucred = unsafe { std::mem::zeroed() };
    let mut length = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    let status = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            std::ptr::addr_of_mut!(credentials).cast(),
            &mut length,
        )
    };
    if status != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(credentials.uid)
}

/// The effective user id of the process that listens on the other end of `stream`.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn server_uid(stream: &UnixStream) -> io::Result<u32> {
    let mut uid: libc::uid_t = 0;
    let mut gid: libc::gid_t = 0;
    // SAFETY: both out-pointers are to live locals of the right type.
    if unsafe { libc::getpeereid(stream.as_raw_fd(), &mut uid, &mut gid) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(uid)
}
