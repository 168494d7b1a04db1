//! One connection: reads requests, checks `hello` and the caller's role, dispatches each method
//! to the [`Gateway`], and writes responses and notifications through one writer task.
//!
//! When the connection ends, every prompt its hook was holding is withdrawn: the agent killed
//! the hook (the person answered in the terminal) or the hook crashed. Neither ever approves.
//!
//! Where a prompt comes from is the gateway's to say: every prompt's `origin` (`local` on the
//! gateway's own socket, `remote` on the hooks socket; set in [`Gateway`]'s registration from the
//! connection's owner) and `host` are stamped from the connection, whatever the hook wrote. On
//! the gateway's own socket the host is this machine's name
//! ([`crate::GatewayOptions::local_host`]); on the hooks socket it is the link's, as the link's
//! relay (`gatehouse remote`) named it in a `link.host` frame before anything else, with every
//! character outside a host name's escaped and a name that could be taken for this machine
//! marked (`link_name`), so a prompt from the hooks socket never looks local.
//!
//! A hook is told only what it needs: its `hello` reply names the gateway and its protocol,
//! never this machine's adapters or their probe evidence.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use crate::gateway::{EventFrame, Gateway, GatewayError, HeldPrompt, Owner};
use gatehouse_core::DecisionId;
use gatehouse_host_ipc::framing::{encode_frame, FrameError, FrameReader};
use gatehouse_host_ipc::protocol::{
    method, notification, AnswerParams, ErrorCode, FullPrompt, HelloParams, HelloResult,
    HoldParams, HoldResult, IdParams, LinkHostParams, Notification, ObserveParams, ObserveResult,
    RegisteredParams, Request, Response, Role, RpcError, SnapshotParams, StateResult, StatusResult,
    SubscribeResult, TypedIdParams, PROTOCOL_VERSION,
};

/// Frames queued for one connection's writer. When a peer stops reading, its queue fills and
/// only that connection's tasks wait; the gateway never does.
const OUTGOING_QUEUE: usize = 256;

/// The longest a hook may ask to wait.
const MAX_WAIT: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest a watch-only prompt from the hooks socket stays listed without news of it (the
/// hook asks for 10 minutes).
const MAX_WATCH_FROM_HOOKS_SOCKET: Duration = Duration::from_secs(15 * 60);

/// How long a closing connection may take to flush its last frames.
const CLOSING_FLUSH: Duration = Duration::from_secs(1);

/// Which roles a connection may say hello as: any, on the gateway's own socket; only the hook
/// role, on the hooks socket that `gatehouse remote` forwards to other machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Roles {
    Any,
    HooksOnly,
}

/// Serves one connection until the peer hangs up or sends a frame that is too large.
pub async fn serve_connection<S>(gateway: Arc<Gateway>, stream: S)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    serve_connection_with(gateway, stream, Roles::Any).await;
}

/// Serves one connection that may say hello only as one of `roles`: on the hooks socket, a peer
/// can hold, register and observe prompts, and nothing else (no list, no answer, no status).
pub async fn serve_connection_with<S>(gateway: Arc<Gateway>, stream: S, roles: Roles)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    serve_connection_from(gateway, stream, roles, None).await;
}

/// Like [`serve_connection_with`], for a connection from the process `peer` (as the kernel names
/// it; `None` when it cannot): on the hooks socket, a connection past the socket's or this
/// peer's share of [`crate::Limits`] is told so (`over_limit`) and closed at once, a frame must
/// end within its pace and the socket's budget of unfinished bytes, and a connection that holds
/// no prompt and sends nothing for a while is closed.
pub async fn serve_connection_from<S>(
    gateway: Arc<Gateway>,
    stream: S,
    roles: Roles,
    peer: Option<u32>,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let limits = gateway.options().limits;
    let _seat = match roles {
        Roles::Any => None,
        Roles::HooksOnly => match gateway.hooks_socket_seat(peer) {
            Ok(seat) => Some(seat),
            Err(refusal) => return refuse_connection(stream, &refusal).await,
        },
    };
    gateway.connection_opened();
    let owner = Owner {
        connection: gateway.connection_number(),
        hooks_socket: roles == Roles::HooksOnly,
    };
    let (read_half, write_half) = tokio::io::split(stream);
    let (outgoing, outgoing_queue) = mpsc::channel(OUTGOING_QUEUE);
    let writer = tokio::spawn(write_frames(write_half, outgoing_queue));
    let mut connection = Connection {
        gateway: gateway.clone(),
        outgoing,
        caller: None,
        roles,
        owner,
        link_host: None,
        frames_read: 0,
        closing: false,
        held: Vec::new(),
        tasks: Vec::new(),
        feed: None,
    };
    let mut frames = FrameReader::new(read_half);
    if roles == Roles::HooksOnly {
        frames = frames
            .paced(limits.hooks_socket_frame_pace)
            .within_budget(gateway.hooks_socket_frames());
    }
    loop {
        // A peer of the hooks socket that holds no prompt has no reason to stay silent long.
        let idle = (roles == Roles::HooksOnly && !connection.waits_for_an_outcome())
            .then_some(limits.hooks_socket_idle);
        match frames.next_frame_within(idle).await {
            // Boxed, so that an idle connection (a hook waiting for its verdict) keeps only this
            // loop in memory, not room for the largest request handler.
            Ok(Some(frame)) => {
                Box::pin(connection.handle_frame(&frame)).await;
                if connection.closing {
                    break;
                }
            }
            Ok(None) => break,
            Err(FrameError::TooLarge { limit }) => {
                tracing::warn!("closing a connection that sent a frame over {limit} bytes");
                let message = format!(
                    "a frame is longer than the limit of {limit} bytes; the connection is closed"
                );
                connection
                    .send(&Response::failure(
                        Value::Null,
                        RpcError::new(ErrorCode::FrameTooLarge, message),
                    ))
                    .await;
                break;
            }
            // The frame was read to its end and dropped; the connection goes on.
            Err(error @ FrameError::OverBudget { .. }) => {
                tracing::warn!("refused a frame on the hooks socket: {error}");
                let message = format!(
                    "{error}, unread; the prompt is not held here, and the agent's own terminal decides"
                );
                connection
                    .send(&Response::failure(
                        Value::Null,
                        RpcError::new(ErrorCode::OverLimit, message),
                    ))
                    .await;
            }
            Err(error @ (FrameError::TooSlow { .. } | FrameError::Idle(_))) => {
                tracing::info!("closing a hooks socket connection: {error}");
                let message = format!("{error}; the connection is closed");
                connection
                    .send(&Response::failure(
                        Value::Null,
                        RpcError::new(ErrorCode::OverLimit, message),
                    ))
                    .await;
                break;
            }
            Err(FrameError::Io(error)) => {
                tracing::debug!("a connection failed: {error}");
                break;
            }
        }
    }
    drop(frames);
    connection.close().await;
    let _ = tokio::time::timeout(CLOSING_FLUSH, writer).await;
    gateway.connection_closed();
}

/// Tells a connection the hooks socket has no place for why (`over_limit`, which a hook takes
/// as final: the agent's own terminal decides), and closes it.
async fn refuse_connection<S: AsyncWrite>(stream: S, refusal: &str) {
    tracing::warn!("refused a connection on the hooks socket: {refusal}");
    let message =
        format!("{refusal}; the connection is closed, and the agent's own terminal decides");
    let frame = encode_frame(&Response::failure(
        Value::Null,
        RpcError::new(ErrorCode::OverLimit, message),
    ));
    let mut stream = std::pin::pin!(stream);
    let _ = tokio::time::timeout(CLOSING_FLUSH, async {
        stream.write_all(&frame).await?;
        stream.shutdown().await
    })
    .await;
}

/// Writes queued frames in order. Frames that are already queued go out together in one write,
/// so a busy subscriber costs one system call per batch, not one per event.
async fn write_frames<W: AsyncWrite>(writer: W, mut queue: mpsc::Receiver<Vec<u8>>) {
    const BATCH_BYTES: usize = 64 * 1024;
    let mut writer = std::pin::pin!(writer);
    while let Some(mut batch) = queue.recv().await {
        while batch.len() < BATCH_BYTES {
            match queue.try_recv() {
                Ok(frame) => batch.extend_from_slice(&frame),
                Err(_) => break,
            }
        }
        if writer.write_all(&batch).await.is_err() || writer.flush().await.is_err() {
            return;
        }
    }
    let _ = writer.shutdown().await;
}

struct Caller {
    role: Role,
    name: String,
    /// The host a hook's hello named, counted in `status` while the connection lasts.
    hook_host: Option<String>,
}

/// The longest host name a hello may name; longer ones are cut (host names have at most 253).
const MAX_HOST_CHARS: usize = 255;

struct Connection {
    gateway: Arc<Gateway>,
    outgoing: mpsc::Sender<Vec<u8>>,
    caller: Option<Caller>,
    /// The roles this connection may say hello as.
    roles: Roles,
    /// Who holds this connection's prompts, for the gateway's limits.
    owner: Owner,
    /// The link's host, as the relay of `gatehouse remote` named it (hooks socket only).
    link_host: Option<String>,
    /// How many frames were read so far: `link.host` is accepted only as the first.
    frames_read: u64,
    /// Set to close the connection after the current frame.
    closing: bool,
    /// The prompts this connection's hook holds.
    held: Vec<DecisionId>,
    /// Tasks that write hold outcomes to this connection.
    tasks: Vec<JoinHandle<()>>,
    /// The subscription feed, once subscribed.
    feed: Option<JoinHandle<()>>,
}

type Reply = Result<Value, RpcError>;

impl Connection {
    async fn send(&self, message: &impl Serialize) {
        let _ = self.outgoing.send(encode_frame(message)).await;
    }

    async fn handle_frame(&mut self, frame: &[u8]) {
        self.frames_read += 1;
        let request: Request = match serde_json::from_slice::<Value>(frame) {
            Err(error) => {
                let error = RpcError::new(
                    ErrorCode::ParseError,
                    format!("the frame is not JSON: {error}"),
                );
                return self.send(&Response::failure(Value::Null, error)).await;
            }
            Ok(value) => {
                let id = value.get("id").cloned().unwrap_or(Value::Null);
                match serde_json::from_value::<Request>(value) {
                    Ok(request) if request.jsonrpc == "2.0" => request,
                    _ => {
                        let message = "not a JSON-RPC 2.0 request: it needs \"jsonrpc\":\"2.0\" and a string \"method\", and an \"id\" to get a reply";
                        return self
                            .send(&Response::failure(
                                id,
                                RpcError::new(ErrorCode::InvalidRequest, message),
                            ))
                            .await;
                    }
                }
            }
        };
        if request.method == method::LINK_HOST {
            return self.link_host(request.params).await;
        }
        // Requests without an id are notifications; nothing else the server takes is one.
        let Some(id) = request.id.clone() else { return };
        if let Some(reply) = self.dispatch(&id, request).await {
            let response = match reply {
                Ok(result) => Response::success(id, result),
                Err(error) => Response::failure(id, error),
            };
            self.send(&response).await;
        }
    }

    /// Runs one request. `None` means the reply is sent later (by `hook.hold`).
    async fn dispatch(&mut self, id: &Value, request: Request) -> Option<Reply> {
        if request.method == method::HELLO {
            return Some(self.hello(request.params));
        }
        let Some(caller) = &self.caller else {
            let message = format!("call `hello` before `{}`", request.method);
            return Some(Err(RpcError::new(ErrorCode::HelloRequired, message)));
        };
        let role = caller.role;
        let needs = |wanted: Role| -> Result<(), RpcError> {
            if role == wanted {
                Ok(())
            } else {
                let message = format!(
                    "`{}` is for the {} role; this connection said hello as {}",
                    request.method,
                    wanted.as_str(),
                    role.as_str()
                );
                Err(RpcError::new(ErrorCode::WrongRole, message))
            }
        };
        let method = request.method.as_str();
        let reply = match method {
            method::LIST => needs(Role::Frontend).map(|()| to_value(self.gateway.pending())),
            method::PROMPT_GET => needs(Role::Frontend).and_then(|()| {
                let TypedIdParams { id } = params(request.params)?;
                let (prompt, digest) = self.gateway.full_prompt(&id)?;
                Ok(to_value(FullPrompt { prompt, digest }))
            }),
            // A hooks-only connection learns nothing about other prompts or machines.
            method::STATUS if self.roles == Roles::HooksOnly => Err(RpcError::new(
                ErrorCode::WrongRole,
                "`status` is not served on the hooks socket; ask the gateway's own socket",
            )),
            method::STATUS => Ok(to_value(self.status())),
            method::SUBSCRIBE => needs(Role::Frontend).map(|()| self.subscribe()),
            method::ANSWER => needs(Role::Frontend).and_then(|()| self.answer(request.params)),
            method::RELEASE => needs(Role::Frontend).and_then(|()| self.release(request.params)),
            method::HOOK_HOLD => {
                match needs(Role::Hook).and_then(|()| params::<HoldParams>(request.params)) {
                    Ok(hold) => return self.hold(id.clone(), hold).await,
                    Err(error) => Err(error),
                }
            }
            method::HOOK_REGISTER => needs(Role::Hook).and_then(|()| {
                let HoldParams {
                    mut prompt,
                    wait_ms,
                    ..
                } = params(request.params)?;
                prompt.host = self.stamped_host();
                // A peer on the hooks socket may not keep what it registered counted against
                // the socket's limits for a day: its watch-only prompts go stale sooner.
                let longest = match self.roles {
                    Roles::Any => MAX_WAIT,
                    Roles::HooksOnly => MAX_WATCH_FROM_HOOKS_SOCKET,
                };
                let prompt = self.gateway.register_watch_only(
                    prompt,
                    Duration::from_millis(wait_ms).min(longest),
                    self.owner,
                )?;
                Ok(to_value(RegisteredParams {
                    id: prompt.id,
                    actions: prompt.actions,
                }))
            }),
            method::HOOK_OBSERVE => needs(Role::Hook).and_then(|()| {
                let observe: ObserveParams = params(request.params)?;
                Ok(to_value(ObserveResult {
                    withdrawn: self
                        .gateway
                        .observe(&observe.observation, observe.observed_at),
                }))
            }),
            method::HOOK_UNDELIVERED => needs(Role::Hook).and_then(|()| {
                let IdParams { id } = params(request.params)?;
                // Only the connection that holds the prompt may say it refused its verdict.
                self.check_holds(id)?;
                let state = self.gateway.refused_delivery(id)?;
                Ok(to_value(StateResult {
                    id,
                    state,
                    prompt: None,
                }))
            }),
            method::HOOK_DELIVERED => needs(Role::Hook).and_then(|()| {
                let IdParams { id } = params(request.params)?;
                // Only the connection that holds the prompt may say its verdict was delivered.
                self.check_holds(id)?;
                let state = self.gateway.confirm_delivery(id)?;
                Ok(to_value(StateResult {
                    id,
                    state,
                    prompt: None,
                }))
            }),
            other => Err(RpcError::new(
                ErrorCode::MethodNotFound,
                format!("there is no method `{other}`"),
            )),
        };
        Some(reply)
    }

    /// Refuses a receipt for a prompt this connection does not hold (`not_found`, as for an id
    /// nobody holds): another hook may not confirm or refuse someone else's verdict.
    fn check_holds(&self, id: DecisionId) -> Result<(), RpcError> {
        if self.held.contains(&id) {
            Ok(())
        } else {
            Err(RpcError::new(
                ErrorCode::NotFound,
                format!("this connection holds no prompt {id}"),
            ))
        }
    }

    fn hello(&mut self, raw: Value) -> Reply {
        if self.caller.is_some() {
            // A connection keeps the role it said hello with: a hook may never turn into a
            // front end and answer the prompt it holds.
            return Err(RpcError::new(
                ErrorCode::InvalidRequest,
                "this connection already said hello; open a new connection for another role",
            ));
        }
        let hello: HelloParams = params(raw)?;
        if hello.protocol != PROTOCOL_VERSION {
            let message = format!(
                "this gateway speaks protocol {PROTOCOL_VERSION} and the caller speaks {}; use a gatehouse of the same version as the gateway",
                hello.protocol
            );
            return Err(RpcError::new(ErrorCode::VersionMismatch, message));
        }
        if self.roles == Roles::HooksOnly && hello.role != Role::Hook {
            let message = format!(
                "this is the gateway's hooks socket, where only the hook role may say hello, not {}; front ends use the gateway's own socket",
                hello.role.as_str()
            );
            return Err(RpcError::new(ErrorCode::WrongRole, message));
        }
        let name = hello
            .client
            .unwrap_or_else(|| hello.role.as_str().to_owned());
        // Counted in `status` by the host the gateway stamps, not the one the hello claims.
        let hook_host = match hello.role {
            Role::Hook => {
                let host = self.stamped_host();
                self.gateway.hook_host_joined(&host);
                Some(host)
            }
            Role::Frontend => None,
        };
        self.caller = Some(Caller {
            role: hello.role,
            name,
            hook_host,
        });
        // A hook needs only to know it reached a gateway of its protocol: it is told nothing of
        // this machine's adapters, their probe evidence or their versions (a peer on the hooks
        // socket is another machine).
        let adapters = match hello.role {
            Role::Frontend => self.gateway.adapters(),
            Role::Hook => Vec::new(),
        };
        Ok(to_value(HelloResult {
            protocol: PROTOCOL_VERSION,
            server: self.gateway.options().server_name.clone(),
            adapters,
        }))
    }

    fn status(&self) -> StatusResult {
        StatusResult {
            server: self.gateway.options().server_name.clone(),
            protocol: PROTOCOL_VERSION,
            pid: std::process::id(),
            socket: self.gateway.options().socket.clone(),
            started_at: self.gateway.started_at(),
            pending: self.gateway.pending_count(),
            connections: self.gateway.connection_count(),
            adapters: self.gateway.adapters(),
            started_by: self.gateway.options().started_by.clone(),
            hosts: self.gateway.hook_hosts(),
        }
    }

    /// The name this connection's answers are recorded by: its hello's, never one that reads as
    /// a rule's (`rule ID` is the gateway's own, see `crate::rules`).
    fn caller_name(&self) -> String {
        let name = self
            .caller
            .as_ref()
            .map_or_else(String::new, |caller| caller.name.clone());
        if name.trim_start().to_lowercase().starts_with("rule") {
            format!("front end {name}")
        } else {
            name
        }
    }

    /// The host stamped on this connection's prompts (see the module's doc).
    fn stamped_host(&self) -> String {
        let local = &self.gateway.options().local_host;
        match self.roles {
            Roles::Any => local.clone(),
            Roles::HooksOnly => link_name(self.link_host.as_deref(), local),
        }
    }

    /// `link.host`: the relay of `gatehouse remote` names the link's host, as the very first
    /// frame of a hooks socket connection. Anything else is refused and the connection closed:
    /// a peer that tries to rename its link is not served.
    async fn link_host(&mut self, raw: Value) {
        let refusal = if self.roles != Roles::HooksOnly {
            Some("`link.host` is only for the hooks socket")
        } else if self.frames_read != 1 {
            Some("`link.host` is accepted only as a connection's first frame")
        } else {
            None
        };
        let parsed = params::<LinkHostParams>(raw);
        match (refusal, parsed) {
            (None, Ok(LinkHostParams { host })) => self.link_host = Some(host),
            (refusal, parsed) => {
                let message = refusal.map_or_else(
                    || parsed.err().map(|error| error.message).unwrap_or_default(),
                    str::to_owned,
                );
                tracing::warn!("closing a connection: {message}");
                let error = RpcError::new(
                    ErrorCode::InvalidRequest,
                    format!("{message}; the connection is closed"),
                );
                self.send(&Response::failure(Value::Null, error)).await;
                self.closing = true;
            }
        }
    }

    fn answer(&self, raw: Value) -> Reply {
        let AnswerParams { id, answer, seen } = params(raw)?;
        let (prompt, state) =
            self.gateway
                .answer(&id, answer, seen.as_deref(), &self.caller_name())?;
        Ok(to_value(StateResult {
            id: prompt.id,
            state,
            prompt: Some(prompt),
        }))
    }

    fn release(&self, raw: Value) -> Reply {
        let TypedIdParams { id } = params(raw)?;
        let (prompt, state) = self.gateway.release(&id, &self.caller_name())?;
        Ok(to_value(StateResult {
            id: prompt.id,
            state,
            prompt: Some(prompt),
        }))
    }

    /// Starts the event feed; a second `subscribe` replaces the first, so no event is sent twice.
    fn subscribe(&mut self) -> Value {
        if let Some(previous) = self.feed.take() {
            previous.abort();
        }
        let (snapshot, receiver) = self.gateway.subscribe();
        self.feed = Some(tokio::spawn(forward_events(
            self.gateway.clone(),
            receiver,
            self.outgoing.clone(),
        )));
        to_value(SubscribeResult { snapshot })
    }

    async fn hold(&mut self, request_id: Value, mut hold: HoldParams) -> Option<Reply> {
        let wait = Duration::from_millis(hold.wait_ms).min(MAX_WAIT);
        hold.prompt.host = self.stamped_host();
        let HeldPrompt {
            prompt,
            outcome,
            watched,
        } = match self.gateway.hold(
            hold.prompt,
            wait,
            hold.held_since,
            hold.watch_if_read_only,
            hold.agent.as_ref(),
            self.owner,
        ) {
            Ok(held) => held,
            Err(error) => return Some(Err(error.into())),
        };
        let id = prompt.id;
        // A watched prompt's hook leaves at once: its leaving is no news of the prompt, which
        // stays listed until an observation settles it or it goes stale.
        if !watched {
            self.held.push(id);
        }
        self.send(&Notification::new(
            notification::REGISTERED,
            RegisteredParams {
                id,
                actions: prompt.actions,
            },
        ))
        .await;
        let outgoing = self.outgoing.clone();
        self.tasks.push(tokio::spawn(async move {
            if let Ok(outcome) = outcome.await {
                let response = Response::success(request_id, to_value(HoldResult { id, outcome }));
                let _ = outgoing.send(encode_frame(&response)).await;
            }
        }));
        None
    }

    /// Whether a `hook.hold` of this connection still waits for its outcome (the tasks of
    /// those that ended are let go here).
    fn waits_for_an_outcome(&mut self) -> bool {
        self.tasks.retain(|task| !task.is_finished());
        !self.tasks.is_empty()
    }

    async fn close(self) {
        if let Some(host) = self
            .caller
            .as_ref()
            .and_then(|caller| caller.hook_host.as_ref())
        {
            self.gateway.hook_host_left(host);
        }
        for id in &self.held {
            self.gateway.hook_gone(*id);
        }
        for task in self.tasks.iter().chain(&self.feed) {
            task.abort();
        }
    }
}

/// The characters a link's name keeps as they are: those of host names and addresses.
fn is_host_name_char(character: char) -> bool {
    character.is_ascii_alphanumeric() || matches!(character, '.' | '-' | '_' | ':')
}

/// The host a link's prompts are stamped with, from the name its relay gave (`link.host`) and
/// this machine's name `local`. Only the gateway's own words have spaces: every character of the
/// name outside a host name's (spaces, brackets, escapes, anything beyond ASCII) is written as
/// its `\u{hex}` escape, so no name can carry the marks front ends add (`NAME (local)`), and a
/// name that could be taken for this machine says it is not.
fn link_name(named: Option<&str>, local: &str) -> String {
    let Some(named) = named.map(str::trim).filter(|name| !name.is_empty()) else {
        return "unnamed link".into();
    };
    let mut name = String::new();
    for character in named.chars().take(MAX_HOST_CHARS) {
        if is_host_name_char(character) {
            name.push(character);
        } else {
            let _ = write!(name, "\\u{{{:x}}}", character as u32);
        }
    }
    if looks_like_this_machine(&name, local) {
        name.push_str(" (not this machine)");
    }
    name
}

/// Whether a host name could be read as this machine's (`local`): the same name in any case,
/// with or without a final dot, the same first label (`laptop.lan` beside `laptop`), or a name
/// every machine has for itself.
fn looks_like_this_machine(name: &str, local: &str) -> bool {
    let bare = |name: &str| name.trim_end_matches('.').to_ascii_lowercase();
    let first_label = |name: &str| bare(name).split('.').next().unwrap_or_default().to_owned();
    let name = bare(name);
    let own_names = ["localhost", "local", "localhost.localdomain"];
    own_names.contains(&name.as_str())
        || (!local.is_empty() && (name == bare(local) || first_label(&name) == first_label(local)))
}

/// Sends a subscriber every event; one that fell behind gets a fresh snapshot and carries on.
async fn forward_events(
    gateway: Arc<Gateway>,
    mut receiver: broadcast::Receiver<EventFrame>,
    outgoing: mpsc::Sender<Vec<u8>>,
) {
    loop {
        let frame = match receiver.recv().await {
            Ok(frame) => frame.to_vec(),
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                let (prompts, fresh) = gateway.subscribe();
                receiver = fresh;
                let reason = format!(
                    "this subscriber fell {missed} events behind; here is the current state"
                );
                encode_frame(&Notification::new(
                    notification::SNAPSHOT,
                    SnapshotParams { prompts, reason },
                ))
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if outgoing.send(frame).await.is_err() {
            return;
        }
    }
}

impl From<GatewayError> for RpcError {
    fn from(error: GatewayError) -> Self {
        match error {
            GatewayError::Arbiter(refusal) => refusal.into(),
            GatewayError::OverLimit(message) => RpcError::new(ErrorCode::OverLimit, message),
            GatewayError::NotSeenInFull(message) => {
                RpcError::new(ErrorCode::NotSeenInFull, message)
            }
        }
    }
}

fn params<T: DeserializeOwned>(raw: Value) -> Result<T, RpcError> {
    let raw = if raw.is_null() {
        Value::Object(Default::default())
    } else {
        raw
    };
    serde_json::from_value(raw).map_err(|error| {
        RpcError::new(
            ErrorCode::InvalidParams,
            format!("the params are not valid: {error}"),
        )
    })
}

fn to_value(value: impl Serialize) -> Value {
    serde_json::to_value(value).expect("protocol values always serialize")
}
