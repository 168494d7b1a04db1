//! Handing a read event to the gateway ([`crate::blocking`]) and delivering what comes back:
//! observations are reported, watched prompts registered, and a held prompt waits for a verdict,
//! the agent ending the call by itself, or the deadline. A verdict is printed only if the hook's own
//! adapter offers its action for this prompt and this running agent (defence in depth: the
//! gateway checks the same rule on the same record), and confirmed only once printed.
//!
//! And only within the hook's deadline, the hold's end and [`LATE_AFTER_THE_WAIT`], on the hook's
//! [`crate::clock`] (from when the hook's process started, as its agent's timer runs): every
//! installer sets an agent's own hook timeout well beyond that, but a hook that was stopped (its
//! agent's Ctrl+Z stops the hook with it), starved or asleep may find a verdict waiting when it
//! runs again, after its agent gave up on it (Codex and Copilot CLI end the hook and show their own
//! prompt, Qwen Code shows its dialog and ignores a later answer). Such a verdict is not printed:
//! the agent decides, as without gatehouse, and the gateway marks it unconfirmed when the hook
//! leaves without a receipt. One printed past the deadline (the hook paused between its check and
//! its print) is not confirmed either, and a hook that runs only after its hold should have ended
//! holds nothing.

use std::time::{Duration, Instant};

use gatehouse_core::{Adapter, HoldMode, HookEvent};
use gatehouse_host_ipc::now;

use crate::blocking::{self, Gateway, Held, HoldTerms};
use crate::clock::Deadline;
use crate::input::ReadEvent;
use crate::HookFailure;

/// How long after the hold's wait a verdict may still come and be delivered: the gateway's own
/// grace for an answer that comes as the hold ends. Every agent's hook timeout is later still.
pub const LATE_AFTER_THE_WAIT: Duration = Duration::from_secs(2);

/// How long a watched-only prompt stays listed without news of it.
pub const WATCH_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// How the hook holds a prompt with the gateway.
#[derive(Clone, Copy)]
pub struct Holding {
    /// How long the gateway may take to say it registered a held prompt (see
    /// [`HoldTerms::registration_budget`]).
    pub registration_budget: Option<Duration>,
    /// Tells the person what happens to the hold (the gateway went away).
    pub notice: fn(&str),
}

/// Hands `read` to the gateway and prints a verdict, if one comes before `hold_until` (asked
/// only of a prompt that is held; the binary's is its wait after the hook's process started),
/// with `print` (which returns whether it printed: the hook's stdout is written once).
pub fn deliver(
    adapter: &dyn Adapter,
    read: ReadEvent,
    gateway: Gateway<'_>,
    holding: Holding,
    hold_until: impl FnOnce() -> Deadline,
    print: &dyn Fn(&str) -> std::io::Result<bool>,
) -> Result<(), HookFailure> {
    let ReadEvent {
        event,
        cancellation,
    } = read;
    let observed_at = now();
    let (prompt, watch_if_read_only) = match event {
        HookEvent::Ignore => return Ok(()),
        HookEvent::Observe(observation) => {
            return Ok(blocking::observe(gateway, observation, observed_at)?);
        }
        HookEvent::Prompt {
            prompt,
            hold: HoldMode::RegisterOnly,
        } => return Ok(blocking::register(gateway, prompt, WATCH_STALE_AFTER)?),
        HookEvent::Prompt {
            prompt,
            hold: HoldMode::UntilOutcome,
        } => (prompt, false),
        HookEvent::Prompt {
            prompt,
            hold: HoldMode::WhileActionable,
        } => (prompt, true),
    };
    let hold_until = hold_until();
    let delivered_within = hold_until.later_by(LATE_AFTER_THE_WAIT);
    // A hook that runs only after its wait was over (stopped or starved as it started) holds
    // nothing: its agent may have given up on it already.
    let Some(wait) = hold_until.remaining() else {
        return Err(HookFailure::PausedBeforeHolding(
            hold_until.passed_by().unwrap_or_default(),
        ));
    };
    // What the hook knows of the agent that runs it, when what is offered depends on it: the
    // gateway applies the unlock rule for that agent, and so does the check below.
    let agent = adapter.running_agent(&prompt);
    let terms = HoldTerms {
        prompt,
        held_since: observed_at,
        deadline: Instant::now() + wait,
        watch_if_read_only,
        agent,
        registration_budget: holding.registration_budget,
    };
    // A cancelled hold's connection closes as it is dropped: the gateway withdraws the prompt
    // (its hook went away), and a verdict racing this is unconfirmed.
    let held = blocking::hold(gateway, &terms, cancellation, holding.notice)?;
    let Held::Verdict { verdict, .. } = &held else {
        return Ok(());
    };
    let HoldTerms { prompt, agent, .. } = &terms;
    let action = verdict.0.action();
    if !adapter
        .deliverable_for(prompt, agent.as_ref())
        .contains(&action)
    {
        // The gateway records why; one that does not know the method marks it unconfirmed
        // when this hook leaves, which is true too.
        let _ = held.refuse();
        return Err(HookFailure::NotOffered {
            action,
            kind: prompt.kind.as_str(),
            tool: gatehouse_core::text::visible(&prompt.tool).to_string(),
        });
    }
    // A verdict that comes past the deadline is dropped with its connection: no receipt, so the
    // gateway marks it unconfirmed.
    if let Some(late) = delivered_within.passed_by() {
        return Err(HookFailure::PausedPastDeadline(late));
    }
    let rendered = adapter.render_verdict(prompt, verdict);
    if !print(&rendered).map_err(HookFailure::CannotWrite)? {
        // The deadline's output went first; no receipt, so the gateway marks it unconfirmed.
        return Err(HookFailure::DeadlinePassed);
    }
    if let Some(late) = delivered_within.passed_by() {
        return Err(HookFailure::PrintedPastDeadline(late));
    }
    Ok(held.confirm()?)
}
