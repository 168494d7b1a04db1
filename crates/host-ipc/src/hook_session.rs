//! The budgets of a hook's dealings with the gateway, and why they can fail, for every hook
//! (`gatehouse_hook::blocking` does the dealings over one blocking socket).
//!
//! Every call has a budget, so a gateway that is stuck (suspended, or waiting on its disk) costs
//! the agent at most that. None of the failures approves anything.

use std::time::Duration;

use thiserror::Error;

use crate::client::ClientError;

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
