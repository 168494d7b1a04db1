//! The hook's dealings with the gateway over one blocking Unix socket, for the calls that need
//! one connection and one answer: an observation, and a prompt registered for watching. No async
//! runtime is started for them; each read and write waits at most until the call's deadline.
//!
//! They do what [`gatehouse_host_ipc::hook_session`] does for the same calls, in the same words:
//! the server must be run by this user (`SO_PEERCRED`), checked before a byte is sent; the hook
//! says hello as a hook naming its host; the spool is replayed on connecting (entries that
//! cannot be replayed go back); every step has [`CALL_BUDGET`]; an observation that reaches no
//! gateway is spooled. Replies are read in blocks and held to the protocol's frame limit;
//! notifications that come before a reply are skipped, bounded in bytes. A reply is read only
//! for what the hook uses: the `hello` reply's adapters, if a gateway still sends them, are
//! skipped unparsed.

use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::io::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_core::{NewPrompt, Observation, Timestamp};
use gatehouse_host_ipc::client::MAX_QUEUED_NOTIFICATION_BYTES;
use gatehouse_host_ipc::framing::{FrameError, MAX_FRAME_BYTES};
use gatehouse_host_ipc::hook_session::{HookError, CALL_BUDGET};
use gatehouse_host_ipc::protocol::{
    method, HelloParams, HoldParams, ObserveParams, ObserveResult, RegisteredParams, Role,
    RpcError, PROTOCOL_VERSION,
};
use gatehouse_host_ipc::socket::{SocketError, User};
use gatehouse_host_ipc::spool::{Entry, Spool};
use gatehouse_host_ipc::ClientError;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(test)]
mod tests;

/// The name the hook gives itself in its hello, as the async client's hook does.
const CLIENT_NAME: &str = concat!("gatehouse-hook ", env!("CARGO_PKG_VERSION"));

/// How much is read from the socket at a time.
const READ_BLOCK: usize = 16 * 1024;

/// Reports what the agent did to the gateway at `socket`; spooled (to `spool`, if any) when no
/// gateway can be reached.
pub fn observe(
    socket: &Path,
    host: &str,
    spool: Option<&Spool>,
    observation: Observation,
    observed_at: Timestamp,
) -> Result<(), HookError> {
    match Connection::open(socket, host, spool) {
        Ok(mut connection) => connection
            .observe(observation, None, Instant::now() + CALL_BUDGET)
            .map(drop),
        Err(reason) => {
            let Some(spool) = spool else {
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

/// Registers `prompt` for watching only with the gateway at `socket`, listed for `stale_after`
/// without news of it, and returns at once.
pub fn register(
    socket: &Path,
    host: &str,
    spool: Option<&Spool>,
    prompt: NewPrompt,
    stale_after: Duration,
) -> Result<(), HookError> {
    let mut connection = Connection::open(socket, host, spool)?;
    let params = HoldParams {
        prompt,
        wait_ms: stale_after.as_millis() as u64,
        held_since: None,
        watch_if_read_only: false,
        agent: None,
    };
    connection
        .call::<_, RegisteredParams>(method::HOOK_REGISTER, &params, Instant::now() + CALL_BUDGET)
        .map(drop)
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

/// A frame from the gateway: a notification (`method`) or the reply to a call.
#[derive(Deserialize)]
struct Incoming<R> {
    method: Option<IgnoredAny>,
    id: Option<Value>,
    result: Option<R>,
    error: Option<RpcError>,
}

impl Connection {
    /// Connects to `socket`, checks that this user runs its server, says hello as a hook on the
    /// machine `host`, and replays `spool`: each step within [`CALL_BUDGET`].
    pub fn open(socket: &Path, host: &str, spool: Option<&Spool>) -> Result<Self, HookError> {
        let deadline = Instant::now() + CALL_BUDGET;
        let stream = connect_within(socket, CALL_BUDGET).map_err(|error| match error {
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
            host: Some(host.to_owned()).filter(|host| !host.is_empty()),
        };
        connection.call::<_, IgnoredAny>(method::HELLO, &hello, deadline)?;
        let Some(spool) = spool else {
            return Ok(connection);
        };
        let mut entries = spool.take(gatehouse_host_ipc::now()).into_iter();
        while let Some(entry) = entries.next() {
            let replayed = connection.observe(
                entry.observation.clone(),
                Some(entry.observed_at),
                Instant::now() + CALL_BUDGET,
            );
            if let Err(reason) = replayed {
                let _ = spool.put_back(std::iter::once(entry).chain(entries));
                return Err(reason);
            }
        }
        Ok(connection)
    }

    /// Reports `observation` (made at `observed_at`, when replayed from the spool).
    pub fn observe(
        &mut self,
        observation: Observation,
        observed_at: Option<Timestamp>,
        deadline: Instant,
    ) -> Result<ObserveResult, HookError> {
        let params = ObserveParams {
            observation,
            observed_at,
        };
        self.call(method::HOOK_OBSERVE, &params, deadline)
    }

    /// Sends one request and reads frames until its reply, by `deadline`.
    pub fn call<P: Serialize, R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: &P,
        deadline: Instant,
    ) -> Result<R, HookError> {
        let id = self.next_request_id;
        self.next_request_id += 1;
        let mut frame = serde_json::to_vec(&Call {
            jsonrpc: "2.0",
            id,
            method,
            params,
        })
        .map_err(|error| wire(ClientError::BadReply(error.to_string())))?;
        frame.push(b'\n');
        if frame.len() > MAX_FRAME_BYTES {
            // The gateway would close the connection part-way through; say so before sending.
            return Err(wire(ClientError::RequestTooLarge {
                bytes: frame.len(),
                limit: MAX_FRAME_BYTES,
            }));
        }
        self.send(&frame, deadline)?;
        let mut skipped_bytes = 0;
        loop {
            let frame = self.next_frame(deadline)?;
            let incoming: Incoming<R> = serde_json::from_slice(&frame)
                .map_err(|error| wire(ClientError::BadReply(error.to_string())))?;
            if incoming.method.is_some() && incoming.id.is_none() {
                skipped_bytes += frame.len();
                if skipped_bytes > MAX_QUEUED_NOTIFICATION_BYTES {
                    return Err(wire(ClientError::BadReply(format!(
                        "more than {MAX_QUEUED_NOTIFICATION_BYTES} bytes of notifications came while a call waited"
                    ))));
                }
                continue;
            }
            if let Some(error) = incoming.error {
                return Err(wire(ClientError::Rpc(error)));
            }
            let answered = incoming.id.unwrap_or(Value::Null);
            if answered.as_u64() != Some(id) {
                return Err(wire(ClientError::BadReply(format!(
                    "a response to request {answered} while waiting for {id}"
                ))));
            }
            return match incoming.result {
                Some(result) => Ok(result),
                None => serde_json::from_value(Value::Null)
                    .map_err(|error| wire(ClientError::BadReply(error.to_string()))),
            };
        }
    }

    /// Writes `bytes` whole by `deadline`.
    fn send(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), HookError> {
        let mut rest = bytes;
        while !rest.is_empty() {
            self.within(deadline, Direction::Write)?;
            match self.stream.write(rest) {
                Ok(0) => return Err(wire(ClientError::Closed)),
                Ok(written) => rest = &rest[written..],
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(io_failure(error)),
            }
        }
        Ok(())
    }

    /// The next frame, newline excluded, read in blocks by `deadline`.
    fn next_frame(&mut self, deadline: Instant) -> Result<Vec<u8>, HookError> {
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
                Ok(0) => return Err(wire(ClientError::Closed)),
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(io_failure(error)),
            }
        }
    }

    /// Makes the socket's next blocking `direction` end by `deadline`: its timeout is shortened
    /// when what is left is less than the one it has (set once per connection, mostly).
    fn within(&mut self, deadline: Instant, direction: Direction) -> Result<(), HookError> {
        let left = remaining(deadline)?;
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

/// What is left of the time until `deadline`; [`HookError::TooSlow`] when nothing is.
fn remaining(deadline: Instant) -> Result<Duration, HookError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(HookError::TooSlow(CALL_BUDGET));
    }
    Ok(left)
}

fn wire(error: ClientError) -> HookError {
    HookError::Wire(error)
}

fn frame_too_large() -> HookError {
    wire(ClientError::Frame(
        FrameError::TooLarge {
            limit: MAX_FRAME_BYTES,
        }
        .to_string(),
    ))
}

/// A failed read or write: too slow when its timeout ran out, else the connection failed.
fn io_failure(error: io::Error) -> HookError {
    if is_timeout(&error) {
        HookError::TooSlow(CALL_BUDGET)
    } else {
        wire(ClientError::Io(error))
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
