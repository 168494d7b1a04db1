//! The client library that hooks and front ends use: one connection, `hello` first, then typed
//! calls. Notifications that arrive while a call waits for its response are queued and read
//! with [`Client::next_notification`].

use std::collections::VecDeque;
use std::path::Path;

use gatehouse_core::{Answer, DecisionId, NewPrompt, Observation, Prompt, Timestamp};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

#[cfg(test)]
mod tests;

/// The most notifications, in bytes on the wire, that are kept while a call waits for its
/// response: a subscriber's events in a burst fit many times over, and a gateway that floods a
/// connection cannot take a hook's memory (the call fails instead).
pub const MAX_QUEUED_NOTIFICATION_BYTES: usize = 32 * 1024 * 1024;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadHalf, WriteHalf};

use crate::framing::{encode_frame, FrameError, FrameReader, MAX_FRAME_BYTES};
use crate::protocol::{
    method, notification, AnswerParams, FullPrompt, HelloParams, HelloResult, HoldParams,
    HoldResult, IdParams, Notification, ObserveParams, ObserveResult, RegisteredParams, Request,
    Response, Role, RpcError, ServerNotification, StateResult, StatusResult, SubscribeResult,
    TypedIdParams, PROTOCOL_VERSION,
};
use crate::socket::{self, SocketError};

#[derive(Debug, Error)]
pub enum ClientError {
    #[error(transparent)]
    Socket(#[from] SocketError),
    #[error("the connection to the gateway failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("the gateway sent a frame that is too large: {0}")]
    Frame(String),
    #[error(
        "the request is {bytes} bytes, more than the {limit} a frame may hold, so it was not sent"
    )]
    RequestTooLarge { bytes: usize, limit: usize },
    #[error("the gateway closed the connection")]
    Closed,
    #[error("the gateway sent something that is not a valid reply: {0}")]
    BadReply(String),
    #[error(transparent)]
    Rpc(#[from] RpcError),
    #[error("the gateway did not say it registered the prompt within {0:?}")]
    NotRegistered(std::time::Duration),
}

impl ClientError {
    /// The stable error name, for errors the gateway returned.
    pub fn rpc_name(&self) -> Option<&str> {
        match self {
            ClientError::Rpc(error) => Some(error.name()),
            _ => None,
        }
    }
}

/// How a front end words a client error for a person: the binary's one wording, with its hints
/// (no library gives command-line advice). `socket` is the path the front end connects to.
pub type ClientErrorWords = fn(&Path, &ClientError) -> String;

/// A client connected over the gateway's local socket.
pub type SocketClient = Client<interprocess::local_socket::tokio::Stream>;

/// A connection to the gateway.
pub struct Client<S> {
    reader: FrameReader<ReadHalf<S>>,
    writer: WriteHalf<S>,
    next_request_id: u64,
    /// Notifications that came while a call waited, with their sizes on the wire.
    notifications: VecDeque<(Notification, usize)>,
    /// The sum of those sizes, at most [`MAX_QUEUED_NOTIFICATION_BYTES`].
    queued_bytes: usize,
    hello: HelloResult,
    /// How long a hold may wait for the gateway's `registered` (none: as long as the hold).
    registration_budget: Option<std::time::Duration>,
}

impl SocketClient {
    /// Connects to the gateway's socket and says hello.
    pub async fn connect(path: &Path, role: Role, name: &str) -> Result<Self, ClientError> {
        let stream = socket::connect(path).await?;
        Client::over(stream, role, name).await
    }

    /// Like [`Client::connect`], and names this machine's host in the hello (as the hook does).
    pub async fn connect_from_host(
        path: &Path,
        role: Role,
        name: &str,
        host: &str,
    ) -> Result<Self, ClientError> {
        let stream = socket::connect(path).await?;
        Client::over_from_host(stream, role, name, Some(host)).await
    }
}

impl<S: AsyncRead + AsyncWrite> Client<S> {
    /// Says hello over any byte stream (a socket, or an in-memory duplex in tests).
    pub async fn over(stream: S, role: Role, name: &str) -> Result<Self, ClientError> {
        Self::over_from_host(stream, role, name, None).await
    }

    /// Like [`Client::over`], naming the caller's host in the hello when given.
    pub async fn over_from_host(
        stream: S,
        role: Role,
        name: &str,
        host: Option<&str>,
    ) -> Result<Self, ClientError> {
        let (read_half, writer) = tokio::io::split(stream);
        let mut client = Client {
            reader: FrameReader::new(read_half),
            writer,
            next_request_id: 1,
            notifications: VecDeque::new(),
            queued_bytes: 0,
            hello: HelloResult {
                protocol: PROTOCOL_VERSION,
                server: String::new(),
                adapters: Vec::new(),
            },
            registration_budget: None,
        };
        let params = HelloParams {
            protocol: PROTOCOL_VERSION,
            role,
            client: Some(name.to_owned()),
            host: host.filter(|host| !host.is_empty()).map(str::to_owned),
        };
        client.hello = client.call(method::HELLO, &params).await?;
        Ok(client)
    }

    /// What the server said in reply to `hello`: its version and the adapters' capability flags.
    pub fn hello(&self) -> &HelloResult {
        &self.hello
    }

    /// Makes each later hold fail with [`ClientError::NotRegistered`] when the gateway has not
    /// said `registered` within `budget` of sending it (none: the hold waits for its outcome
    /// however long). For a hook whose agent reads a hook that never answers as an approval.
    pub fn expect_registration_within(&mut self, budget: Option<std::time::Duration>) {
        self.registration_budget = budget;
    }

    /// Sends one request and waits for its response, queueing notifications that come first.
    pub async fn call<P: Serialize, R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: &P,
    ) -> Result<R, ClientError> {
        self.call_expecting(method, params, None).await
    }

    /// Like [`Client::call`]; with `expected`, the notification named there must come within
    /// its budget of the call's start (the request's sending included), or the call fails with
    /// [`ClientError::NotRegistered`] (the connection is then of no further use).
    async fn call_expecting<P: Serialize, R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: &P,
        expected: Option<(&str, std::time::Duration)>,
    ) -> Result<R, ClientError> {
        let mut expected =
            expected.map(|(name, budget)| (name, budget, tokio::time::Instant::now() + budget));
        let id = self.next_request_id;
        self.next_request_id += 1;
        let params = serde_json::to_value(params)
            .map_err(|error| ClientError::BadReply(error.to_string()))?;
        let request = Request {
            jsonrpc: "2.0".into(),
            id: Some(Value::from(id)),
            method: method.into(),
            params,
        };
        let frame = encode_frame(&request);
        if frame.len() > MAX_FRAME_BYTES {
            // The gateway would close the connection part-way through; say so before sending.
            return Err(ClientError::RequestTooLarge {
                bytes: frame.len(),
                limit: MAX_FRAME_BYTES,
            });
        }
        let sending = async {
            self.writer.write_all(&frame).await?;
            self.writer.flush().await
        };
        match expected {
            Some((_, budget, deadline)) => tokio::time::timeout_at(deadline, sending)
                .await
                .map_err(|_| ClientError::NotRegistered(budget))??,
            None => sending.await?,
        }
        loop {
            let frame = match expected {
                Some((_, budget, deadline)) => tokio::time::timeout_at(deadline, self.read_frame())
                    .await
                    .map_err(|_| ClientError::NotRegistered(budget))??,
                None => self.read_frame().await?,
            };
            let value: Value = serde_json::from_slice(&frame)
                .map_err(|error| ClientError::BadReply(error.to_string()))?;
            if value.get("id").is_none() {
                let notification: Notification = serde_json::from_value(value)
                    .map_err(|error| ClientError::BadReply(error.to_string()))?;
                if expected.is_some_and(|(name, _, _)| notification.method == name) {
                    expected = None;
                }
                self.queued_bytes += frame.len();
                if self.queued_bytes > MAX_QUEUED_NOTIFICATION_BYTES {
                    return Err(ClientError::BadReply(format!(
                        "more than {MAX_QUEUED_NOTIFICATION_BYTES} bytes of notifications came while a call waited"
                    )));
                }
                self.notifications.push_back((notification, frame.len()));
                continue;
            }
            let response: Response = serde_json::from_value(value)
                .map_err(|error| ClientError::BadReply(error.to_string()))?;
            if let Some(error) = response.error {
                return Err(ClientError::Rpc(error));
            }
            if response.id.as_u64() != Some(id) {
                return Err(ClientError::BadReply(format!(
                    "a response to request {} while waiting for {id}",
                    response.id
                )));
            }
            let result = response.result.unwrap_or(Value::Null);
            return serde_json::from_value(result)
                .map_err(|error| ClientError::BadReply(error.to_string()));
        }
    }

    /// The next notification, read into its type (see [`ServerNotification`]).
    pub async fn next_server_notification(&mut self) -> Result<ServerNotification, ClientError> {
        let notification = self.next_notification().await?;
        notification.typed().map_err(|error| {
            ClientError::BadReply(format!("a notification that cannot be read: {error}"))
        })
    }

    /// The next notification: a queued one, or the next frame from the server.
    pub async fn next_notification(&mut self) -> Result<Notification, ClientError> {
        if let Some((notification, bytes)) = self.notifications.pop_front() {
            self.queued_bytes -= bytes;
            return Ok(notification);
        }
        let frame = self.read_frame().await?;
        serde_json::from_slice(&frame).map_err(|error| ClientError::BadReply(error.to_string()))
    }

    async fn read_frame(&mut self) -> Result<Vec<u8>, ClientError> {
        match self.reader.next_frame().await {
            Ok(Some(frame)) => Ok(frame),
            Ok(None) => Err(ClientError::Closed),
            Err(FrameError::Io(error)) => Err(ClientError::Io(error)),
            // The client holds its reader to no pace or budget: only a frame too large.
            Err(error) => Err(ClientError::Frame(error.to_string())),
        }
    }

    pub async fn list(&mut self) -> Result<Vec<Prompt>, ClientError> {
        self.call(method::LIST, &serde_json::json!({})).await
    }

    pub async fn status(&mut self) -> Result<StatusResult, ClientError> {
        self.call(method::STATUS, &serde_json::json!({})).await
    }

    /// Subscribes to events; read them with [`Client::next_notification`].
    pub async fn subscribe(&mut self) -> Result<Vec<Prompt>, ClientError> {
        let result: SubscribeResult = self.call(method::SUBSCRIBE, &serde_json::json!({})).await?;
        Ok(result.snapshot)
    }

    /// Answers the pending prompt that `id` names: a [`DecisionId`], or a short id or prefix
    /// as a person typed it (the gateway refuses text that could name anything else).
    pub async fn answer(
        &mut self,
        id: impl std::fmt::Display,
        answer: Answer,
    ) -> Result<StateResult, ClientError> {
        self.answer_seen(id, answer, None).await
    }

    /// Like [`Client::answer`], naming the digest of the full prompt the person was shown
    /// (from [`Client::prompt_get`]): an approving answer of a cut prompt needs it.
    pub async fn answer_seen(
        &mut self,
        id: impl std::fmt::Display,
        answer: Answer,
        seen: Option<String>,
    ) -> Result<StateResult, ClientError> {
        self.call(
            method::ANSWER,
            &AnswerParams {
                id: id.to_string(),
                answer,
                seen,
            },
        )
        .await
    }

    /// The prompt that `id` names (typed as for `answer`), in full, with its digest.
    pub async fn prompt_get(
        &mut self,
        id: impl std::fmt::Display,
    ) -> Result<FullPrompt, ClientError> {
        self.call_typed_id(method::PROMPT_GET, id).await
    }

    /// Hands the pending prompt that `id` names back to the agent's terminal.
    pub async fn release(
        &mut self,
        id: impl std::fmt::Display,
    ) -> Result<StateResult, ClientError> {
        self.call_typed_id(method::RELEASE, id).await
    }

    /// Calls `method` with the prompt that `id` names, typed as a person types it.
    async fn call_typed_id<R: DeserializeOwned>(
        &mut self,
        method: &str,
        id: impl std::fmt::Display,
    ) -> Result<R, ClientError> {
        let params = TypedIdParams { id: id.to_string() };
        self.call(method, &params).await
    }

    /// Registers a prompt and waits for its outcome. The `hook.registered` notification with the
    /// prompt's id is queued for [`Client::next_notification`].
    pub async fn hold(
        &mut self,
        prompt: NewPrompt,
        wait: std::time::Duration,
    ) -> Result<HoldResult, ClientError> {
        self.hold_with(prompt, wait, None, false).await
    }

    /// Like [`Client::hold`], with every option: `held_since` for a prompt registered again after
    /// the gateway it was held by went away, and `watch_if_read_only` to be answered `watched` at
    /// once when nothing is offered for the prompt.
    pub async fn hold_with(
        &mut self,
        prompt: NewPrompt,
        wait: std::time::Duration,
        held_since: Option<Timestamp>,
        watch_if_read_only: bool,
    ) -> Result<HoldResult, ClientError> {
        self.hold_for(prompt, wait, held_since, watch_if_read_only, None)
            .await
    }

    /// Like [`Client::hold_with`], saying which agent runs the hook (`agent`), so that the
    /// gateway offers what is unlocked for that agent's version.
    pub async fn hold_for(
        &mut self,
        prompt: NewPrompt,
        wait: std::time::Duration,
        held_since: Option<Timestamp>,
        watch_if_read_only: bool,
        agent: Option<gatehouse_core::RunningAgent>,
    ) -> Result<HoldResult, ClientError> {
        let params = HoldParams {
            prompt,
            wait_ms: wait.as_millis() as u64,
            held_since,
            watch_if_read_only,
            agent,
        };
        let queued_before = self.notifications.len();
        let expected = self
            .registration_budget
            .map(|budget| (notification::REGISTERED, budget));
        let result: HoldResult = self
            .call_expecting(method::HOOK_HOLD, &params, expected)
            .await?;
        // The outcome must be for the prompt the gateway registered for this call, and said so
        // first: anything else is not an answer to this hook.
        let registered_id = self
            .notifications
            .iter()
            .skip(queued_before)
            .map(|(queued, _)| queued)
            .find(|queued| queued.method == notification::REGISTERED)
            .and_then(|queued| {
                serde_json::from_value::<RegisteredParams>(queued.params.clone()).ok()
            })
            .map(|params| params.id);
        match registered_id {
            Some(id) if id == result.id => Ok(result),
            Some(id) => Err(ClientError::BadReply(format!(
                "the outcome names prompt {}, but the gateway registered this hook's prompt as {id}",
                result.id
            ))),
            None => Err(ClientError::BadReply(format!(
                "an outcome for prompt {} came before the gateway said it registered the prompt",
                result.id
            ))),
        }
    }

    /// Registers a prompt for watching only, and returns at once.
    pub async fn register(
        &mut self,
        prompt: NewPrompt,
        stale_after: std::time::Duration,
    ) -> Result<RegisteredParams, ClientError> {
        let params = HoldParams {
            prompt,
            wait_ms: stale_after.as_millis() as u64,
            held_since: None,
            watch_if_read_only: false,
            agent: None,
        };
        self.call(method::HOOK_REGISTER, &params).await
    }

    /// Reports what the agent did; `observed_at` is set when replaying an older observation.
    pub async fn observe(
        &mut self,
        observation: Observation,
    ) -> Result<ObserveResult, ClientError> {
        self.observe_at(observation, None).await
    }

    pub async fn observe_at(
        &mut self,
        observation: Observation,
        observed_at: Option<Timestamp>,
    ) -> Result<ObserveResult, ClientError> {
        self.call(
            method::HOOK_OBSERVE,
            &ObserveParams {
                observation,
                observed_at,
            },
        )
        .await
    }

    pub async fn confirm_delivery(&mut self, id: DecisionId) -> Result<StateResult, ClientError> {
        self.call(method::HOOK_DELIVERED, &IdParams { id }).await
    }

    /// Tells the gateway that the verdict of `id`, a prompt this connection holds, was not
    /// delivered: the hook's own check refused it.
    pub async fn refuse_delivery(&mut self, id: DecisionId) -> Result<StateResult, ClientError> {
        self.call(method::HOOK_UNDELIVERED, &IdParams { id }).await
    }
}
