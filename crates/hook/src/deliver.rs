//! Handing a read event to the gateway and delivering what comes back: observations are
//! reported, watched prompts registered, and a held prompt waits for a verdict, the agent
//! ending the call by itself, or the deadline. A verdict is printed only if the hook's own
//! adapter offers its action for this prompt and this running agent (defence in depth: the
//! gateway checks the same rule on the same record), and confirmed only once printed.

use std::time::Duration;

use gatehouse_core::{Adapter, HoldMode, HookEvent};
use gatehouse_host_ipc::hook_session::{Connector, Held, HookSession};
use gatehouse_host_ipc::now;
use tokio::time::Instant;

use crate::input::ReadEvent;
use crate::HookFailure;

/// How often a held prompt's [`gatehouse_core::CancellationCheck`] runs.
const CANCELLATION_CHECK_EVERY: Duration = Duration::from_millis(500);

/// How long a watched-only prompt stays listed without news of it.
const WATCH_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Hands `read` to the gateway through `session` and prints a verdict, if one comes within
/// `wait`, with `print` (which returns whether it printed: the hook's stdout is written once).
pub async fn deliver<C: Connector>(
    adapter: &dyn Adapter,
    read: ReadEvent,
    session: &HookSession<C>,
    wait: Duration,
    print: &dyn Fn(&str) -> std::io::Result<bool>,
) -> Result<(), HookFailure> {
    let ReadEvent {
        event,
        cancellation,
    } = read;
    let observed_at = now();
    let deadline = Instant::now() + wait;
    let (prompt, watch_if_read_only) = match event {
        HookEvent::Ignore => return Ok(()),
        HookEvent::Observe(observation) => {
            return Ok(session.observe(observation, observed_at).await?);
        }
        HookEvent::Prompt {
            prompt,
            hold: HoldMode::RegisterOnly,
        } => return Ok(session.register(prompt, WATCH_STALE_AFTER).await?),
        HookEvent::Prompt {
            prompt,
            hold: HoldMode::UntilOutcome,
        } => (prompt, false),
        HookEvent::Prompt {
            prompt,
            hold: HoldMode::WhileActionable,
        } => (prompt, true),
    };
    // What the hook knows of the agent that runs it, when what is offered depends on it: the
    // gateway applies the unlock rule for that agent, and so does the check below.
    let agent = adapter.running_agent(&prompt);
    let holding = session.hold_for(
        prompt.clone(),
        observed_at,
        deadline,
        watch_if_read_only,
        agent.clone(),
    );
    let held = match cancellation {
        None => holding.await,
        Some(mut cancelled) => tokio::select! {
            held = holding => held,
            () = async {
                loop {
                    tokio::time::sleep(CANCELLATION_CHECK_EVERY).await;
                    if cancelled() {
                        break;
                    }
                }
            } => {
                // The hold's connection closes as it is dropped: the gateway withdraws the
                // prompt (its hook went away), and a verdict racing this is unconfirmed.
                return Err(HookFailure::CancelledByAgent);
            }
        },
    }?;
    let Held::Verdict { verdict, .. } = &held else {
        return Ok(());
    };
    let action = verdict.0.action();
    if !adapter
        .deliverable_for(&prompt, agent.as_ref())
        .contains(&action)
    {
        // The gateway records why; one that does not know the method marks it unconfirmed
        // when this hook leaves, which is true too.
        let _ = held.refuse().await;
        return Err(HookFailure::NotOffered {
            action,
            kind: prompt.kind.as_str(),
            tool: gatehouse_core::text::visible(&prompt.tool).to_string(),
        });
    }
    let rendered = adapter.render_verdict(&prompt, verdict);
    if !print(&rendered).map_err(HookFailure::CannotWrite)? {
        // The deadline's output went first; no receipt, so the gateway marks it unconfirmed.
        return Err(HookFailure::DeadlinePassed);
    }
    Ok(held.confirm().await?)
}
