//! What a hook does with the gateway, whatever agent it serves: connect and replay the
//! [`Spool`], report an observation, register a prompt for watching, or hold it until its
//! outcome across gateway restarts, and send the delivery receipt.
//!
//! Every call has a budget, so a gateway that is stuck (suspended, or waiting on its disk) costs
//! the agent at most that. A hold whose gateway goes away is registered again, with its original
//! snapshot and `held_since`, when a gateway is back. An observation that finds no gateway is
//! spooled, and the next hook that reaches one replays it. Nothing here prints: the hook's notes
//! for the person go to the `notice` callback.
//!
//! The connection comes from a [`Connector`], so tests drive a session over in-memory streams
//! with paused time.

use std::future::Future;
use std::time::Duration;

use gatehouse_core::{DecisionId, NewPrompt, Observation, Outcome, Timestamp, Verdict};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::Instant;

use crate::client::{Client, ClientError};
use crate::spool::{Entry, Spool};

/// The longest any single call to the gateway may take (connecting and saying hello, an
/// observation, a registration).
pub const CALL_BUDGET: Duration = Duration::from_secs(2);

/// The longest the delivery receipt may take: the gateway waits 5 s for it.
pub const RECEIPT_BUDGET: Duration = Duration::from_secs(5);

/// How often a hook whose gateway went away tries to reach a new one.
pub const RECONNECT_EVERY: Duration = Duration::from_millis(250);

/// Extra time, beyond the gateway's own deadline, that a hold waits for the gateway's answer.
pub const LOCAL_GRACE: Duration = Duration::from_secs(2);

/// Why a hook could not do its job with the gateway. None of these approves anything.
#[derive(Debug, Error)]
pub enum HookError {
    #[error("{0}")]
    Unreachable(ClientError),
    #[error("the gateway did not answer within {0:?}")]
    TooSlow(Duration),
    #[error("the gateway did not answer properly: {0}")]
    Wire(ClientError),
    #[error("{reason}, and the spool cannot be written: {problem}")]
    NotSpooled {
        reason: Box<HookError>,
        problem: std::io::Error,
    },
}

/// Opens a connection to the gateway and says hello as a hook.
pub trait Connector {
    type Stream: AsyncRead + AsyncWrite;

    fn connect(&self) -> impl Future<Output = Result<Client<Self::Stream>, ClientError>>;
}

/// How a hold ended. One is made per hook run, so the size of the verdict variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Held<S> {
    /// A front end answered: deliver the verdict, then [`Held::confirm`] it.
    Verdict {
        id: DecisionId,
        verdict: Verdict,
        client: Client<S>,
    },
    /// Released, withdrawn, expired, only watched, or the deadline passed with no gateway: the
    /// agent's own prompt decides.
    NoVerdict,
}

/// One hook run's dealings with the gateway.
pub struct HookSession<C> {
    connector: C,
    spool: Option<Spool>,
    notice: fn(&str),
    registration_budget: Option<Duration>,
}

impl<C: Connector> HookSession<C> {
    /// A session that reaches gateways through `connector`, spools to `spool` (none: observations
    /// that find no gateway are lost), and tells the person what happens with `notice`.
    pub fn new(connector: C, spool: Option<Spool>, notice: fn(&str)) -> Self {
        HookSession {
            connector,
            spool,
            notice,
            registration_budget: None,
        }
    }

    /// A hold ends with [`HookError::TooSlow`] when the gateway has not said it registered the
    /// prompt within `budget` (a gateway that says hello and then never takes the hold), rather
    /// than waiting out the hold. For an agent that reads a hook that never answers as an
    /// approval; others keep waiting, as the person may still answer.
    #[must_use]
    pub fn expecting_registration_within(mut self, budget: Duration) -> Self {
        self.registration_budget = Some(budget);
        self
    }

    /// Reports what the agent did; spooled when no gateway can be reached.
    pub async fn observe(
        &self,
        observation: Observation,
        observed_at: Timestamp,
    ) -> Result<(), HookError> {
        match self.connect().await {
            Ok(mut client) => within(CALL_BUDGET, client.observe(observation))
                .await
                .map(drop),
            Err(reason) => {
                let Some(spool) = &self.spool else {
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

    /// Registers a prompt for watching only, and returns at once.
    pub async fn register(
        &self,
        prompt: NewPrompt,
        stale_after: Duration,
    ) -> Result<(), HookError> {
        let mut client = self.connect().await?;
        within(CALL_BUDGET, client.register(prompt, stale_after))
            .await
            .map(drop)
    }

    /// Holds `prompt` until its outcome or `deadline`, registering it again whenever the gateway
    /// it was held by goes away and another is back. `watch_if_read_only` asks the gateway to only
    /// watch it if nothing is offered for it.
    pub async fn hold(
        &self,
        prompt: NewPrompt,
        held_since: Timestamp,
        deadline: Instant,
        watch_if_read_only: bool,
    ) -> Result<Held<C::Stream>, HookError> {
        self.hold_for(prompt, held_since, deadline, watch_if_read_only, None)
            .await
    }

    /// Like [`HookSession::hold`], saying which agent runs the hook (see
    /// [`crate::protocol::HoldParams::agent`]).
    pub async fn hold_for(
        &self,
        prompt: NewPrompt,
        held_since: Timestamp,
        deadline: Instant,
        watch_if_read_only: bool,
        agent: Option<gatehouse_core::RunningAgent>,
    ) -> Result<Held<C::Stream>, HookError> {
        let mut client = self.connect().await?;
        loop {
            client.expect_registration_within(self.registration_budget);
            let remaining = deadline.saturating_duration_since(Instant::now());
            let holding = client.hold_for(
                prompt.clone(),
                remaining,
                Some(held_since),
                watch_if_read_only,
                agent.clone(),
            );
            let result = match tokio::time::timeout(remaining + LOCAL_GRACE, holding).await {
                Err(_) => return Err(HookError::TooSlow(remaining + LOCAL_GRACE)),
                Ok(Ok(result)) => result,
                Ok(Err(ClientError::Closed | ClientError::Io(_))) => {
                    (self.notice)("gatehouse hook: the gateway went away; the terminal is in charge, and the prompt returns when a gateway is back");
                    match self.reconnect(deadline).await {
                        Some(again) => {
                            client = again;
                            continue;
                        }
                        None => return Ok(Held::NoVerdict),
                    }
                }
                Ok(Err(ClientError::NotRegistered(budget))) => {
                    return Err(HookError::TooSlow(budget))
                }
                Ok(Err(other)) => return Err(HookError::Wire(other)),
            };
            return Ok(match result.outcome {
                Outcome::Verdict { verdict } => Held::Verdict {
                    id: result.id,
                    verdict,
                    client,
                },
                _ => Held::NoVerdict,
            });
        }
    }

    /// Connects, says hello, and replays the spool, each step within its budget. Spooled entries
    /// that cannot be replayed go back to the spool.
    async fn connect(&self) -> Result<Client<C::Stream>, HookError> {
        let mut client = match tokio::time::timeout(CALL_BUDGET, self.connector.connect()).await {
            Ok(Ok(client)) => client,
            Ok(Err(error @ ClientError::Socket(_))) => return Err(HookError::Unreachable(error)),
            Ok(Err(other)) => return Err(HookError::Wire(other)),
            Err(_) => return Err(HookError::TooSlow(CALL_BUDGET)),
        };
        let Some(spool) = &self.spool else {
            return Ok(client);
        };
        let mut entries = spool.take(crate::now()).into_iter();
        while let Some(entry) = entries.next() {
            let replayed = within(
                CALL_BUDGET,
                client.observe_at(entry.observation.clone(), Some(entry.observed_at)),
            )
            .await;
            if let Err(reason) = replayed {
                let _ = spool.put_back(std::iter::once(entry).chain(entries));
                return Err(reason);
            }
        }
        Ok(client)
    }

    /// A connection to a gateway that is back, tried every [`RECONNECT_EVERY`] until `deadline`.
    async fn reconnect(&self, deadline: Instant) -> Option<Client<C::Stream>> {
        while Instant::now() + RECONNECT_EVERY + CALL_BUDGET < deadline {
            tokio::time::sleep(RECONNECT_EVERY).await;
            if let Ok(client) = self.connect().await {
                return Some(client);
            }
        }
        None
    }
}

impl<S: AsyncRead + AsyncWrite> Held<S> {
    /// The receipt: the verdict is out. Without it the gateway marks the prompt unconfirmed.
    pub async fn confirm(self) -> Result<(), HookError> {
        self.receipt(true).await
    }

    /// The verdict was not delivered: the hook's own check refused it. The gateway records why
    /// (a gateway that does not know `hook.undelivered` marks it unconfirmed when the hook leaves).
    pub async fn refuse(self) -> Result<(), HookError> {
        self.receipt(false).await
    }

    /// Tells the gateway whether the verdict was `delivered`, within [`RECEIPT_BUDGET`]; nothing
    /// to tell without a verdict.
    async fn receipt(self, delivered: bool) -> Result<(), HookError> {
        let Held::Verdict { id, mut client, .. } = self else {
            return Ok(());
        };
        let told = async {
            if delivered {
                client.confirm_delivery(id).await
            } else {
                client.refuse_delivery(id).await
            }
        };
        within(RECEIPT_BUDGET, told).await.map(drop)
    }
}

/// Runs one call to the gateway within `budget`.
async fn within<T>(
    budget: Duration,
    call: impl Future<Output = Result<T, ClientError>>,
) -> Result<T, HookError> {
    match tokio::time::timeout(budget, call).await {
        Ok(result) => result.map_err(HookError::Wire),
        Err(_) => Err(HookError::TooSlow(budget)),
    }
}

/// Connects to the gateway's socket at `path`, as a hook on the machine `host`.
pub struct SocketConnector {
    pub path: std::path::PathBuf,
    pub host: String,
}

impl Connector for SocketConnector {
    type Stream = interprocess::local_socket::tokio::Stream;

    async fn connect(&self) -> Result<Client<Self::Stream>, ClientError> {
        let name = concat!("gatehouse-hook ", env!("CARGO_PKG_VERSION"));
        crate::SocketClient::connect_from_host(&self.path, crate::Role::Hook, name, &self.host)
            .await
    }
}
