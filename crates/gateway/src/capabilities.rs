//! Where the gateway gets the capability flags for one held prompt whose hook said which agent
//! runs it. The gateway knows no agents: the binary hands it a [`CapabilitySource`] that applies
//! each adapter's unlock rule (its probe record, as it is on disk now) to the reported agent. The
//! hook checks any verdict against the same source before it prints it, so the two cannot
//! disagree unless the record changes in between; a prompt they disagree on is listed read-only
//! with the source's reason, never dropped.

use gatehouse_core::{AdapterCapabilities, RunningAgent};

/// Computes an adapter's capability flags for the agent a hook reported.
pub trait CapabilitySource: Send + Sync {
    /// The flags of `adapter` for `agent`; `None` when this source knows no such adapter (the
    /// gateway then uses the adapter's registered flags). Called per held prompt, on the
    /// gateway's async threads: it may read a small file, and must never run a program.
    fn for_agent(&self, adapter: &str, agent: &RunningAgent) -> Option<AdapterCapabilities>;
}

/// A source from a function, for tests and for the binary's wiring.
impl<F> CapabilitySource for F
where
    F: Fn(&str, &RunningAgent) -> Option<AdapterCapabilities> + Send + Sync,
{
    fn for_agent(&self, adapter: &str, agent: &RunningAgent) -> Option<AdapterCapabilities> {
        self(adapter, agent)
    }
}
