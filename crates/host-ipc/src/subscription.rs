//! One subscription client for every front end (the console, `gatehouse web`'s bridge,
//! `gatehouse watch`): subscribe, take the snapshot, read the events, take a fresh snapshot
//! when the gateway says the subscriber fell behind (catch-up after lag), and, for the front ends
//! that stay up, reconnect with a growing pause when the gateway goes away.
//!
//! - [`Subscription`]: one subscribed connection; [`Subscription::next`] gives the next
//!   [`FeedItem`] and skips notifications that are not for subscribers.
//! - [`follow`]: connect, subscribe and read for as long as the caller wants, reporting each
//!   [`FollowUpdate`]; every failure is reported with its typed [`ClientError`] and the pause
//!   ([`Backoff`]) before the next attempt.
//!
//! Nothing here words an error for a person: front ends get the typed error and the binary's
//! words for it.

use std::future::Future;
use std::ops::ControlFlow;
use std::time::Duration;

use gatehouse_core::{Event, Prompt};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::client::{Client, ClientError};
use crate::protocol::{HelloResult, ServerNotification, SnapshotParams};

/// What a subscription reads after its first snapshot.
#[derive(Debug, Clone)]
pub enum FeedItem {
    /// One live change (boxed: it is far larger than a snapshot's header).
    Event(Box<Event>),
    /// A fresh list that replaces the subscriber's own (sent when it fell behind), and why.
    Snapshot(SnapshotParams),
}

/// One subscribed connection to the gateway.
pub struct Subscription<S> {
    client: Client<S>,
}

impl<S: AsyncRead + AsyncWrite> Subscription<S> {
    /// Subscribes on `client`, and returns the subscription with every pending prompt.
    pub async fn start(mut client: Client<S>) -> Result<(Self, Vec<Prompt>), ClientError> {
        let snapshot = client.subscribe().await?;
        Ok((Subscription { client }, snapshot))
    }

    /// What the gateway said in reply to `hello`.
    pub fn hello(&self) -> &HelloResult {
        self.client.hello()
    }

    /// The next event or catch-up snapshot. [`ClientError::Closed`] when the gateway closed the
    /// connection; notifications meant for hooks or unknown to this build are skipped.
    pub async fn next(&mut self) -> Result<FeedItem, ClientError> {
        loop {
            match self.client.next_server_notification().await? {
                ServerNotification::Event(event) => return Ok(FeedItem::Event(Box::new(event))),
                ServerNotification::Snapshot(snapshot) => return Ok(FeedItem::Snapshot(snapshot)),
                ServerNotification::Registered(_) | ServerNotification::Unknown(_) => {}
            }
        }
    }
}

/// The pause before each attempt to reconnect: `first`, doubling after each failed attempt, up
/// to `longest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub first: Duration,
    pub longest: Duration,
}

impl Backoff {
    /// The pause before attempt number `attempt` (counted from 1).
    pub fn pause(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(16);
        self.first.saturating_mul(1 << doublings).min(self.longest)
    }
}

/// What [`follow`] reports.
#[derive(Debug)]
pub enum FollowUpdate {
    /// Connected and subscribed: the gateway's hello and every pending prompt.
    Connected {
        hello: HelloResult,
        snapshot: Vec<Prompt>,
    },
    /// The next event or catch-up snapshot.
    Item(FeedItem),
    /// The connection ended or could not be made, for `error`; the next attempt (number
    /// `attempt`, counted from 1 since the last success) comes after `retry_in`.
    Disconnected {
        error: ClientError,
        retry_in: Duration,
        attempt: u32,
    },
}

/// Follows the gateway until `report` breaks: connects with `connect`, subscribes, reports the
/// snapshot and every item, and after any failure reports it and tries again after the
/// [`Backoff`] pause. A successful subscription starts the pauses again from the first.
pub async fn follow<S, Connect, Connecting>(
    mut connect: Connect,
    backoff: Backoff,
    mut report: impl FnMut(FollowUpdate) -> ControlFlow<()>,
) where
    S: AsyncRead + AsyncWrite,
    Connect: FnMut() -> Connecting,
    Connecting: Future<Output = Result<Client<S>, ClientError>>,
{
    let mut failed_attempts: u32 = 0;
    loop {
        let error = match subscribe(&mut connect).await {
            Ok((mut subscription, snapshot)) => {
                failed_attempts = 0;
                let hello = subscription.hello().clone();
                if report(FollowUpdate::Connected { hello, snapshot }).is_break() {
                    return;
                }
                loop {
                    match subscription.next().await {
                        Ok(item) => {
                            if report(FollowUpdate::Item(item)).is_break() {
                                return;
                            }
                        }
                        Err(error) => break error,
                    }
                }
            }
            Err(error) => error,
        };
        failed_attempts = failed_attempts.saturating_add(1);
        let retry_in = backoff.pause(failed_attempts);
        let update = FollowUpdate::Disconnected {
            error,
            retry_in,
            attempt: failed_attempts,
        };
        if report(update).is_break() {
            return;
        }
        tokio::time::sleep(retry_in).await;
    }
}

async fn subscribe<S, Connect, Connecting>(
    connect: &mut Connect,
) -> Result<(Subscription<S>, Vec<Prompt>), ClientError>
where
    S: AsyncRead + AsyncWrite,
    Connect: FnMut() -> Connecting,
    Connecting: Future<Output = Result<Client<S>, ClientError>>,
{
    Subscription::start(connect().await?).await
}

#[cfg(test)]
mod tests;
