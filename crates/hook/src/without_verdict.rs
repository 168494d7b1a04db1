//! The adapter's "no verdict" output ([`WithoutVerdict`]), for an agent that reads a hook's
//! silence as an approval (Gemini CLI with gatehouse's allow policy): printed, unless a verdict
//! was, on every path that ends the hook, by a watchdog at the adapter's deadline whatever the
//! hook is waiting for, and on every catchable signal that would end it.
//!
//! The deadline is on the hook's [`crate::clock`], from when the hook's process started, and counts
//! the time the hook is stopped (its agent's Ctrl+Z stops the hook with it), starved or the machine
//! sleeps: continued past it, the hook answers at once (the watchdog wakes, and SIGCONT is taken by
//! the signal thread, which answers too), before anything else it was waiting for.

use gatehouse_core::{Adapter, WithoutVerdict};

use crate::clock::Deadline;
use crate::output::{print_once, say};

/// The adapter's "no verdict" output for `event`, if it has one. Tests shorten its deadline with
/// `GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS`; release builds lack that.
pub fn without_verdict_of(adapter: &dyn Adapter, event: Option<&str>) -> Option<WithoutVerdict> {
    #[allow(unused_mut)]
    let mut without_verdict = adapter.without_verdict(event)?;
    #[cfg(debug_assertions)]
    if let Some(milliseconds) = std::env::var("GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS")
        .ok()
        .and_then(|value| value.parse().ok())
    {
        without_verdict.answer_within = std::time::Duration::from_millis(milliseconds);
    }
    Some(without_verdict)
}

/// Starts the guards of `without_verdict`: the signal thread and the watchdog. Call it first,
/// before any other thread starts: they inherit the blocked signals.
pub fn guard(without_verdict: WithoutVerdict) {
    let deadline = Deadline::after_the_process_started(without_verdict.answer_within);
    answer_on_termination_signals(without_verdict, deadline);
    start_watchdog(without_verdict, deadline);
}

/// Prints `without_verdict`'s output unless a verdict was printed: the one place every path
/// without a verdict ends.
pub fn print_unless_answered(without_verdict: WithoutVerdict) {
    let _ = print_once(without_verdict.output);
}

/// A watchdog that wakes this much after its deadline was not running at it.
const PAUSED_IF_LATER_BY: std::time::Duration = std::time::Duration::from_secs(1);

/// The line on stderr of a hook that answers late because it was not running at its deadline.
fn say_paused_past_the_deadline(late: std::time::Duration) {
    say(&format!(
        "gatehouse hook: paused past its deadline (stopped, starved or asleep) by {:.1} s; the agent's own dialog decides",
        late.as_secs_f64()
    ));
}

/// Every signal whose default action ends the process and that can be sent to it (a `kill`, a
/// closed terminal, a shutdown, a CPU or file size limit, a timer, a stray `kill -USR1`): each
/// is blocked and taken by the one signal thread, which answers. SIGPIPE is not among them: the
/// hook ignores it (Rust's default), so a write to a closed pipe fails as an error instead.
/// SIGKILL and SIGSTOP cannot be caught; SIGSEGV, SIGBUS, SIGFPE and SIGILL from a real fault are
/// delivered to the faulting thread whatever the mask (blocking them only kills the process), so
/// they are left alone: those residual risks are the agent's (see docs/SECURITY.md).
fn terminating_signals() -> Vec<libc::c_int> {
    let mut signals = vec![
        libc::SIGHUP,
        libc::SIGINT,
        libc::SIGQUIT,
        libc::SIGTRAP,
        libc::SIGABRT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
        libc::SIGTERM,
        libc::SIGXCPU,
        libc::SIGXFSZ,
        libc::SIGVTALRM,
        libc::SIGPROF,
        libc::SIGIO,
        libc::SIGSYS,
    ];
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        signals.extend([libc::SIGSTKFLT, libc::SIGPWR]);
        // The real-time signals end the process by default too; glibc keeps the first few
        // below SIGRTMIN() for itself.
        signals.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    }
    signals
}

/// Any of [`terminating_signals`] prints the adapter's "no verdict" output (unless a verdict was
/// printed) before the hook exits, and so does SIGCONT once `deadline` has passed: a hook stopped
/// past its deadline answers the moment it is continued. The signals are blocked in every thread
/// and taken by one that waits for them (a blocked SIGCONT still continues the process).
fn answer_on_termination_signals(without_verdict: WithoutVerdict, deadline: Deadline) {
    let terminating = terminating_signals();
    // SAFETY: plain libc calls on a signal set owned here; the mask is set on this thread before
    // any other starts, so every thread of the hook inherits it.
    let signals = unsafe {
        let mut signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut signals);
        for signal in terminating.into_iter().chain([libc::SIGCONT]) {
            libc::sigaddset(&mut signals, signal);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &signals, std::ptr::null_mut()) != 0 {
            return;
        }
        signals
    };
    let waiting = std::thread::Builder::new()
        .name("hook-signals".into())
        .spawn(move || loop {
            let mut received = 0;
            // SAFETY: waits on the set built above, blocked in every thread.
            if unsafe { libc::sigwait(&signals, &mut received) } != 0 {
                return;
            }
            if received == libc::SIGCONT {
                let Some(late) = deadline.passed_by() else {
                    continue;
                };
                say_paused_past_the_deadline(late);
            }
            print_unless_answered(without_verdict);
            std::process::exit(0);
        });
    if waiting.is_err() {
        // Nobody would take them: let them act as before.
        // SAFETY: unblocks the set blocked above, on this thread.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &signals, std::ptr::null_mut()) };
    }
}

/// At the adapter's deadline, prints the adapter's "no verdict" output (unless a verdict was printed) and
/// ends the hook, whatever it is waiting for: a gateway that accepts and never answers, a read
/// that never ends, a disk that hangs, or the hook stopped, starved or asleep past it.
fn start_watchdog(without_verdict: WithoutVerdict, deadline: Deadline) {
    let started = std::thread::Builder::new()
        .name("hook-deadline".into())
        .spawn(move || {
            deadline.sleep_until();
            if let Some(late) = deadline
                .passed_by()
                .filter(|late| *late >= PAUSED_IF_LATER_BY)
            {
                say_paused_past_the_deadline(late);
            }
            print_unless_answered(without_verdict);
            std::process::exit(0);
        });
    if started.is_err() {
        // No watchdog: answer at once rather than risk the agent's timeout.
        print_unless_answered(without_verdict);
        std::process::exit(0);
    }
}
