//! The wire types of gatehouse's protocol: JSON-RPC 2.0 envelopes, each method's parameters and
//! result, the notifications, and the stable error codes. Types only: no I/O.
//!
//! docs/PROTOCOL.md describes every method, notification and error with an example.

use gatehouse_core::{
    AdapterCapabilities, Answer, DecisionId, Event, NewPrompt, Observation, Outcome, Prompt,
    PromptState, RunningAgent, Timestamp,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this build speaks. `hello` refuses any other. Version 3: prompts in
/// `list`, `subscribe` and events may be cut (`cut`), `prompt.get` fetches one in full, an
/// approving `answer` of a cut prompt names what was seen (`seen`), the gateway stamps every
/// prompt's `host`, and a link's relay names its host with `link.host`. Version 4: every prompt
/// says its `origin` (`local` or `remote`, from the socket it came through), which front ends
/// must show; a hook's `hello` reply has no `adapters`; receipts only from the holding connection.
pub const PROTOCOL_VERSION: u32 = 4;

/// Method names.
pub mod method {
    pub const HELLO: &str = "hello";
    pub const LIST: &str = "list";
    pub const SUBSCRIBE: &str = "subscribe";
    pub const ANSWER: &str = "answer";
    pub const RELEASE: &str = "release";
    pub const STATUS: &str = "status";
    pub const HOOK_HOLD: &str = "hook.hold";
    pub const HOOK_REGISTER: &str = "hook.register";
    pub const HOOK_OBSERVE: &str = "hook.observe";
    pub const HOOK_DELIVERED: &str = "hook.delivered";
    /// The hook did not deliver the verdict of a prompt it holds: its own check refused it.
    pub const HOOK_UNDELIVERED: &str = "hook.undelivered";
    /// One prompt in full, as the hook sent it, with the digest an approving answer names.
    pub const PROMPT_GET: &str = "prompt.get";
    /// The first frame on the hooks socket from `gatehouse remote`'s relay: the link's host.
    /// A notification (no id); accepted only as a connection's very first frame.
    pub const LINK_HOST: &str = "link.host";
}

/// Notification names (server to client).
pub mod notification {
    /// A live event, after `subscribe`.
    pub const EVENT: &str = "event";
    /// A fresh snapshot, sent to a subscriber that fell behind and missed events.
    pub const SNAPSHOT: &str = "snapshot";
    /// The prompt of a `hook.hold` call is registered; its id, before the outcome.
    pub const REGISTERED: &str = "hook.registered";
}

/// A request or a notification from the peer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub jsonrpc: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    pub method: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
}

/// A response: exactly one of `result` and `error`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Response {
    pub jsonrpc: String,
    pub id: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

impl Response {
    pub fn success(id: Value, result: Value) -> Self {
        Response {
            jsonrpc: "2.0".into(),
            id,
            result: Some(result),
            error: None,
        }
    }

    pub fn failure(id: Value, error: RpcError) -> Self {
        Response {
            jsonrpc: "2.0".into(),
            id,
            result: None,
            error: Some(error),
        }
    }
}

/// A notification from the server.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Notification {
    pub jsonrpc: String,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

impl Notification {
    pub fn new(method: &str, params: impl Serialize) -> Self {
        Notification {
            jsonrpc: "2.0".into(),
            method: method.into(),
            params: serde_json::to_value(params).expect("protocol values always serialize"),
        }
    }
}

/// A notification from the gateway, read into its type.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum ServerNotification {
    /// A live event, after `subscribe`.
    Event(Event),
    /// A fresh snapshot, for a subscriber that fell behind.
    Snapshot(SnapshotParams),
    /// The prompt of a `hook.hold` call is registered.
    Registered(RegisteredParams),
    /// A notification this build does not know (from a newer gateway), by method.
    Unknown(String),
}

impl Notification {
    /// Reads the params into the type its method names.
    pub fn typed(self) -> Result<ServerNotification, serde_json::Error> {
        Ok(match self.method.as_str() {
            notification::EVENT => ServerNotification::Event(serde_json::from_value(self.params)?),
            notification::SNAPSHOT => {
                ServerNotification::Snapshot(serde_json::from_value(self.params)?)
            }
            notification::REGISTERED => {
                ServerNotification::Registered(serde_json::from_value(self.params)?)
            }
            _ => ServerNotification::Unknown(self.method),
        })
    }
}

/// The stable error codes. Each has a name, carried in the error's `data.name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    ParseError,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    InternalError,
    FrameTooLarge,
    NotFound,
    NotPending,
    ReadOnly,
    ActionNotOffered,
    InvalidAnswer,
    VersionMismatch,
    HelloRequired,
    WrongRole,
    UnknownAdapter,
    NoVerdictAwaitingReceipt,
    InvalidId,
    AmbiguousId,
    OverLimit,
    NotSeenInFull,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::MethodNotFound,
        ErrorCode::InvalidParams,
        ErrorCode::InternalError,
        ErrorCode::FrameTooLarge,
        ErrorCode::NotFound,
        ErrorCode::NotPending,
        ErrorCode::ReadOnly,
        ErrorCode::ActionNotOffered,
        ErrorCode::InvalidAnswer,
        ErrorCode::VersionMismatch,
        ErrorCode::HelloRequired,
        ErrorCode::WrongRole,
        ErrorCode::UnknownAdapter,
        ErrorCode::NoVerdictAwaitingReceipt,
        ErrorCode::InvalidId,
        ErrorCode::AmbiguousId,
        ErrorCode::OverLimit,
        ErrorCode::NotSeenInFull,
    ];

    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::FrameTooLarge => -32000,
            ErrorCode::NotFound => -32001,
            ErrorCode::NotPending => -32002,
            ErrorCode::ReadOnly => -32003,
            ErrorCode::ActionNotOffered => -32004,
            ErrorCode::InvalidAnswer => -32005,
            ErrorCode::VersionMismatch => -32006,
            ErrorCode::HelloRequired => -32007,
            ErrorCode::WrongRole => -32008,
            ErrorCode::UnknownAdapter => -32009,
            ErrorCode::NoVerdictAwaitingReceipt => -32010,
            ErrorCode::InvalidId => -32011,
            ErrorCode::AmbiguousId => -32012,
            ErrorCode::OverLimit => -32013,
            ErrorCode::NotSeenInFull => -32014,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::ParseError => "parse_error",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::MethodNotFound => "method_not_found",
            ErrorCode::InvalidParams => "invalid_params",
            ErrorCode::InternalError => "internal_error",
            ErrorCode::FrameTooLarge => "frame_too_large",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NotPending => "not_pending",
            ErrorCode::ReadOnly => "read_only",
            ErrorCode::ActionNotOffered => "action_not_offered",
            ErrorCode::InvalidAnswer => "invalid_answer",
            ErrorCode::VersionMismatch => "version_mismatch",
            ErrorCode::HelloRequired => "hello_required",
            ErrorCode::WrongRole => "wrong_role",
            ErrorCode::UnknownAdapter => "unknown_adapter",
            ErrorCode::NoVerdictAwaitingReceipt => "no_verdict_awaiting_receipt",
            ErrorCode::InvalidId => "invalid_id",
            ErrorCode::AmbiguousId => "ambiguous_id",
            ErrorCode::OverLimit => "over_limit",
            ErrorCode::NotSeenInFull => "not_seen_in_full",
        }
    }

    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|code| code.name() == name)
    }
}

/// A JSON-RPC error object. `data.name` is the stable name of the code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default)]
    pub data: Value,
}

impl RpcError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        RpcError {
            code: code.code(),
            message: message.into(),
            data: serde_json::json!({ "name": code.name() }),
        }
    }

    /// The stable name, such as `not_pending`, or `unknown` for an error from another server.
    pub fn name(&self) -> &str {
        self.data
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
    }
}

impl From<gatehouse_core::ArbiterError> for RpcError {
    /// Each kind of refusal has its code, chosen by its type: a new kind of refusal does not
    /// compile until it has one.
    fn from(error: gatehouse_core::ArbiterError) -> Self {
        use gatehouse_core::ArbiterError as Refusal;
        let code = match &error {
            Refusal::UnknownAdapter { .. } => ErrorCode::UnknownAdapter,
            Refusal::NotFound { .. } | Refusal::UnknownId { .. } => ErrorCode::NotFound,
            Refusal::InvalidId(_) => ErrorCode::InvalidId,
            Refusal::IdNamesAnEndedPrompt { .. } | Refusal::NotPending { .. } => {
                ErrorCode::NotPending
            }
            Refusal::AmbiguousId { .. } | Refusal::StartOfFullIds { .. } => ErrorCode::AmbiguousId,
            Refusal::ReadOnly { .. } => ErrorCode::ReadOnly,
            Refusal::ActionNotOffered { .. } => ErrorCode::ActionNotOffered,
            Refusal::InvalidAnswer { .. } => ErrorCode::InvalidAnswer,
            Refusal::NoVerdictAwaitingReceipt { .. } => ErrorCode::NoVerdictAwaitingReceipt,
        };
        RpcError::new(code, error.to_string())
    }
}

/// Who is calling: a front end (lists and answers) or a hook (holds prompts and reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Frontend,
    Hook,
}

impl Role {
    /// The role's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Frontend => "frontend",
            Role::Hook => "hook",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HelloParams {
    pub protocol: u32,
    pub role: Role,
    /// A name for the caller, shown as who answered (such as `gatehouse-cli`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The host name of the caller's machine, as it says. Only a claim: the gateway stamps
    /// every prompt's host itself, from the connection (see `link.host`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HelloResult {
    pub protocol: u32,
    /// The server's name and version, such as `gatehouse 0.1.0`.
    pub server: String,
    /// Each adapter's capability flags, for a front end; a hook is told none (absent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adapters: Vec<AdapterCapabilities>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SubscribeResult {
    pub snapshot: Vec<Prompt>,
}

/// The params of the `snapshot` notification.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotParams {
    pub prompts: Vec<Prompt>,
    /// Why a snapshot was sent, such as falling behind.
    pub reason: String,
}

/// The params of `answer`. `id` is a full id, a short id, or a prefix of either: the gateway
/// matches it against every prompt it knows and refuses any text that could name more than one,
/// or names one that is no longer pending.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnswerParams {
    pub id: String,
    #[serde(flatten)]
    pub answer: Answer,
    /// For an approving answer of a prompt that front ends were sent cut: the digest
    /// (`FullPrompt::digest`, or at least its first [`MIN_SEEN_CHARS`] characters) of the full
    /// prompt the person was shown. Without it such an answer is refused (`not_seen_in_full`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
}

/// The fewest characters of a digest that `AnswerParams::seen` may give.
pub const MIN_SEEN_CHARS: usize = 16;

/// The result of `prompt.get`: the prompt in full, never cut, and the digest of its content.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FullPrompt {
    pub prompt: Prompt,
    /// `sha256:` and the hex SHA-256 of the prompt's content (its [`gatehouse_core::NewPrompt`]
    /// as JSON), as `AnswerParams::seen` names it.
    pub digest: String,
}

/// The params of `link.host`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LinkHostParams {
    pub host: String,
}

/// The params of `release`: a typed id, as for `answer`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TypedIdParams {
    pub id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IdParams {
    pub id: DecisionId,
}

/// The result of `answer`, `release` and `hook.delivered`: the prompt's new state, and for
/// `answer` and `release` the prompt itself, so the caller can show what it answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StateResult {
    pub id: DecisionId,
    pub state: PromptState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<Prompt>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StatusResult {
    pub server: String,
    pub protocol: u32,
    pub pid: u32,
    pub socket: String,
    pub started_at: Timestamp,
    pub pending: usize,
    pub connections: usize,
    pub adapters: Vec<AdapterCapabilities>,
    /// How the gateway was started: `gatehouse serve`, or `systemd socket activation`.
    /// Missing from older gateways.
    #[serde(default)]
    pub started_by: String,
    /// The hosts that have hook connections open now, as their hellos name them, with how many.
    #[serde(default)]
    pub hosts: Vec<HostConnections>,
}

/// The hook connections of one host, in [`StatusResult::hosts`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostConnections {
    pub host: String,
    pub connections: usize,
}

/// The params of `hook.hold` and `hook.register`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HoldParams {
    pub prompt: NewPrompt,
    /// How long to wait for an outcome (`hook.hold`), or how long the prompt stays listed
    /// without news of it (`hook.register`), before it expires.
    pub wait_ms: u64,
    /// When the hook first got the prompt, if that was before this call: a hook registers its
    /// prompt again after a gateway restart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_since: Option<Timestamp>,
    /// With `hook.hold`: if nothing is offered for the prompt, register it for watching only
    /// and answer at once with the outcome `watched`, instead of holding the hook.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watch_if_read_only: bool,
    /// With `hook.hold`: what the hook knows of the agent that runs it (its executable and
    /// version), when what is offered depends on it. The gateway then applies the unlock rule for
    /// that agent, per prompt. Optional: a gateway that does not know it ignores it, and the hook
    /// still checks any verdict against the same rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<RunningAgent>,
}

/// The params of the `hook.registered` notification, and the result of `hook.register`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RegisteredParams {
    pub id: DecisionId,
    pub actions: Vec<gatehouse_core::Action>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HoldResult {
    pub id: DecisionId,
    #[serde(flatten)]
    pub outcome: Outcome,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ObserveParams {
    pub observation: Observation,
    /// When the hook saw it, if earlier than now: replayed from the hook's spool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_at: Option<Timestamp>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ObserveResult {
    pub withdrawn: Vec<DecisionId>,
}

/// The params of the `event` notification.
pub type EventParams = Event;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_and_names_are_unique_and_round_trip() {
        let mut codes: Vec<i64> = ErrorCode::ALL.iter().map(|code| code.code()).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), ErrorCode::ALL.len());
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_name(code.name()), Some(code));
        }
    }

    #[test]
    fn every_arbiter_error_has_a_wire_code() {
        use gatehouse_core::{ArbiterError, DecisionId, PromptState};
        let id = DecisionId::new_v7();
        let errors = [
            ArbiterError::UnknownAdapter {
                adapter: "x".into(),
            },
            ArbiterError::NotFound { id },
            ArbiterError::NotPending {
                id,
                state: PromptState::Expired,
            },
            ArbiterError::ReadOnly {
                id,
                reason: "r".into(),
            },
            ArbiterError::ActionNotOffered {
                id,
                action: gatehouse_core::Action::Once,
                offered: String::new(),
            },
            ArbiterError::InvalidAnswer {
                id,
                problem: "p".into(),
            },
            ArbiterError::NoVerdictAwaitingReceipt {
                id,
                state: PromptState::Pending,
            },
            ArbiterError::InvalidId(gatehouse_core::IdQueryError::TooShort { given: "a".into() }),
            ArbiterError::UnknownId {
                given: "abcd".into(),
            },
            ArbiterError::AmbiguousId {
                given: "abcd".into(),
                matches: Vec::new(),
            },
        ];
        for error in errors {
            let name = error.name();
            let wire = RpcError::from(error);
            assert_eq!(wire.name(), name);
            assert_ne!(wire.code, ErrorCode::InternalError.code(), "{name}");
        }
    }
}
