//! `gatehouse hook AGENT`: what the agent runs for each hook event. It reads the event on stdin,
//! hands it to the gateway, and prints the verdict, if any, in the agent's own format.
//!
//! It always exits 0. Whenever it cannot do its job (no gateway, input that is not an event,
//! an error on the wire) it prints nothing on stdout and one line on stderr, so the agent
//! behaves exactly as if gatehouse were not installed. Nothing here ever prints an approval
//! that did not come from the gateway as a verdict.
//!
//! One exception, the adapter's to declare ([`gatehouse_core::WithoutVerdict`]): an agent that
//! reads silence as an approval (Gemini CLI with gatehouse's allow policy) gets the adapter's
//! "no verdict" output instead of nothing, printed in one place ([`run_never_failing`]) on every
//! path that printed no verdict, panics included, and by a watchdog thread at the adapter's
//! deadline whatever the hook is waiting for. stdout is written once ([`print_once`]): a verdict
//! or that output, never both.
//!
//! If the gateway goes away while a prompt is held, the hook keeps waiting, and registers the
//! prompt again, with its original snapshot, when a gateway is back. An observation that finds
//! no gateway is spooled, and the next hook that reaches one replays it. All of that is the
//! client's ([`gatehouse_host_ipc::hook_session`]); this module parses, checks and prints.

mod terminal;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use gatehouse_core::{HoldMode, HookEvent, WithoutVerdict};
use gatehouse_host_ipc::hook_session::{Held, HookError, HookSession, SocketConnector};
use gatehouse_host_ipc::now;
use gatehouse_host_ipc::socket::SocketError;
use gatehouse_host_ipc::spool::Spool;
use gatehouse_host_ipc::ClientError;
use tokio::time::Instant;

use crate::{adapters, config};

/// The most stdin that is read; an event larger than this is not held. A hold message carries
/// the tool input once, beside a summary of bounded length and a fixed-size correlation key, so
/// an event of this size fits in one frame with room to spare. An input that grows past the
/// frame limit when encoded again (numbers such as `1e5` become `100000.0`) is refused by the
/// client before it is sent, and that refusal is final.
const MAX_EVENT_BYTES: u64 = (gatehouse_host_ipc::framing::MAX_FRAME_BYTES / 4 * 3) as u64;

/// The most JSON values an event may hold; one with more is not held.
const MAX_EVENT_VALUES: usize = gatehouse_core::json_shape::MAX_EVENT_VALUES;

/// How often a held prompt's [`gatehouse_core::CancellationCheck`] runs.
const CANCELLATION_CHECK_EVERY: Duration = Duration::from_millis(500);

/// How long a watched-only prompt stays listed without news of it.
const WATCH_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

pub fn run(socket_flag: Option<PathBuf>, agent: &str, event_name: Option<&str>) -> ExitCode {
    if let Err(reason) = handle(socket_flag, agent, event_name) {
        say(&format!(
            "gatehouse hook {agent}: {reason}; leaving this to the agent"
        ));
    }
    ExitCode::SUCCESS
}

/// Whether a command line that does not parse may have been meant for `gatehouse hook ...`: its
/// first word that is neither a flag nor the value of `--socket` is `hook`, or any word is (an
/// unset variable in a hook command, `--socket $S hook claude`, swallows words). Such a command
/// line leaves the agent alone rather than failing.
pub fn may_be_a_hook(words: &[OsString]) -> bool {
    invoked_as_hook(words) || words.iter().skip(1).any(|word| word == "hook")
}

fn invoked_as_hook(words: &[OsString]) -> bool {
    let mut words = words.iter().skip(1);
    while let Some(word) = words.next() {
        match word.to_str() {
            Some("--socket") => {
                words.next();
            }
            Some(flag) if flag.starts_with('-') => {}
            Some(command) => return command == "hook",
            None => return false,
        }
    }
    false
}

/// Parses the arguments and runs the hook, so that nothing (arguments that do not parse, a
/// panic) ever ends it with anything but exit 0 and nothing on stdout. What went wrong goes to
/// stderr in one line.
pub fn run_never_failing(parsed: Result<crate::cli::Cli, clap::Error>) -> ExitCode {
    // Known from the command line before anything can fail: what to print without a verdict.
    let without_verdict = parsed
        .as_ref()
        .ok()
        .and_then(crate::cli::Cli::hook_target)
        .and_then(|(agent, event)| {
            without_verdict_of(adapters::registry().get(agent)?.as_ref(), event)
        });
    if let Some(without_verdict) = without_verdict {
        // First, before any other thread starts: they inherit the blocked signals.
        answer_on_termination_signals(without_verdict);
        start_watchdog(without_verdict);
    }
    std::panic::set_hook(Box::new(|panic| {
        say(&format!(
            "gatehouse hook: internal error ({panic}); leaving this to the agent"
        ));
    }));
    // A panic has been reported by the hook above; exit 0 all the same.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match parsed {
        Ok(cli) => {
            if let Err(error) = crate::cli::run(cli) {
                say(&format!(
                    "gatehouse hook: {error:#}; leaving this to the agent"
                ));
            }
        }
        Err(error)
            if matches!(
                error.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            // A person asked; the agent never does. Still nothing on stdout.
            let _ = write!(std::io::stderr(), "{}", error.render());
        }
        Err(error) => {
            let problem = error.to_string();
            let problem = problem
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ");
            say(&format!("gatehouse hook: {problem}; leaving this to the agent (check the hook's command in the agent's settings)"));
        }
    }));
    if let Some(without_verdict) = without_verdict {
        // Printed only if no verdict was: the one place every path without a verdict ends.
        let _ = print_once(without_verdict.output);
    }
    ExitCode::SUCCESS
}

/// The adapter's "no verdict" output for `event`, if it has one. Tests shorten its deadline with
/// `GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS`; release builds lack that.
fn without_verdict_of(
    adapter: &dyn gatehouse_core::Adapter,
    event: Option<&str>,
) -> Option<WithoutVerdict> {
    #[allow(unused_mut)]
    let mut without_verdict = adapter.without_verdict(event)?;
    #[cfg(debug_assertions)]
    if let Some(milliseconds) = std::env::var("GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS")
        .ok()
        .and_then(|value| value.parse().ok())
    {
        without_verdict.answer_within = Duration::from_millis(milliseconds);
    }
    Some(without_verdict)
}

/// Whether stdout has been written: a hook prints one verdict or one "no verdict" output.
static PRINTED: Mutex<bool> = Mutex::new(false);

/// Prints `text` and a newline on stdout and flushes, unless something was printed already.
/// Returns whether this call printed it.
fn print_once(text: &str) -> std::io::Result<bool> {
    let mut printed = PRINTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if *printed {
        return Ok(false);
    }
    *printed = true;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush())?;
    Ok(true)
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
/// printed) before the hook exits. The signals are blocked in every thread and taken by one that
/// waits for them.
fn answer_on_termination_signals(without_verdict: WithoutVerdict) {
    let terminating = terminating_signals();
    // SAFETY: plain libc calls on a signal set owned here; the mask is set on this thread before
    // any other starts, so every thread of the hook inherits it.
    let signals = unsafe {
        let mut signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut signals);
        for signal in terminating {
            libc::sigaddset(&mut signals, signal);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &signals, std::ptr::null_mut()) != 0 {
            return;
        }
        signals
    };
    let waiting = std::thread::Builder::new()
        .name("hook-signals".into())
        .spawn(move || {
            let mut received = 0;
            // SAFETY: waits on the set built above, blocked in every thread.
            if unsafe { libc::sigwait(&signals, &mut received) } == 0 {
                let _ = print_once(without_verdict.output);
                std::process::exit(0);
            }
        });
    if waiting.is_err() {
        // Nobody would take them: let them act as before.
        // SAFETY: unblocks the set blocked above, on this thread.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &signals, std::ptr::null_mut()) };
    }
}

/// At the adapter's deadline, prints its "no verdict" output (unless a verdict was printed) and
/// ends the hook, whatever it is waiting for: a gateway that accepts and never answers, a read
/// that never ends, a disk that hangs.
fn start_watchdog(without_verdict: WithoutVerdict) {
    let started = std::thread::Builder::new()
        .name("hook-deadline".into())
        .spawn(move || {
            std::thread::sleep(without_verdict.answer_within);
            let _ = print_once(without_verdict.output);
            std::process::exit(0);
        });
    if started.is_err() {
        // No watchdog: answer at once rather than risk the agent's timeout.
        let _ = print_once(without_verdict.output);
        std::process::exit(0);
    }
}

/// Writes one line to stderr, whatever the text holds, and never panics (a closed stderr is
/// not the agent's problem).
fn say(line: &str) {
    let line: String = line
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn handle(
    socket_flag: Option<PathBuf>,
    agent: &str,
    event_name: Option<&str>,
) -> Result<(), String> {
    // Tests check that a panic anywhere still leaves the agent alone; release builds lack this.
    #[cfg(debug_assertions)]
    if std::env::var_os("GATEHOUSE_TEST_PANIC_IN_HOOK").is_some() {
        panic!("GATEHOUSE_TEST_PANIC_IN_HOOK is set");
    }
    let registry = adapters::registry();
    let adapter = registry.get(agent).ok_or_else(|| {
        format!(
            "unknown agent `{agent}` (known: {})",
            registry.ids().collect::<Vec<_>>().join(", ")
        )
    })?;
    let mut stdin = Vec::new();
    std::io::stdin()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut stdin)
        .map_err(|error| format!("cannot read the hook event: {error}"))?;
    if stdin.len() as u64 > MAX_EVENT_BYTES {
        return Err(format!(
            "the hook event is larger than {MAX_EVENT_BYTES} bytes"
        ));
    }
    // Parsed, a JSON value takes tens of bytes however short its text: counted first.
    if gatehouse_core::json_shape::values_at_most(&stdin) > MAX_EVENT_VALUES {
        return Err(format!(
            "the hook event holds more than {MAX_EVENT_VALUES} JSON values"
        ));
    }
    let mut event = adapter
        .parse_hook_event(&stdin, event_name)
        .map_err(|error| error.to_string())?;
    // What tells that the agent ended the call by itself while the hook holds it, if anything.
    let mut cancellation = match &event {
        HookEvent::Prompt { .. } => adapter.cancellation_check(&stdin),
        _ => None,
    };
    // As large as the event, and not read again while the prompt is held.
    drop(stdin);
    // The host and the terminal are the hook's to say, for every agent: every prompt names the
    // machine it is on, and the tmux pane its agent runs in when the environment tells (an
    // adapter may have said more, such as the agent's pid).
    if let HookEvent::Prompt { prompt, .. } = &mut event {
        prompt.host = gatehouse_host_ipc::host::own_host_name().to_owned();
        if prompt.extra.terminal.is_none() {
            let variable = |name: &str| std::env::var(name).ok();
            prompt.extra.terminal = gatehouse_core::TerminalLocation::from_values(
                variable("TMUX").as_deref(),
                variable("TMUX_PANE").as_deref(),
                None,
            );
        }
        if let Some(terminal) = &mut prompt.extra.terminal {
            terminal::name_tmux_window(terminal);
        }
    }
    if event == HookEvent::Ignore {
        return Ok(());
    }
    // Only a prompt that is held needs the config (for its wait); the socket may come from the flag.
    let settings = match (&socket_flag, &event) {
        (Some(_), HookEvent::Observe(_)) => config::Config::default(),
        _ => config::load().map_err(|error| format!("{error:#}"))?,
    };
    let socket = socket_flag
        .or(settings.socket)
        .unwrap_or_else(gatehouse_host_ipc::socket::default_socket_path);
    let spool = spool_path().map(Spool::new);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let connector = SocketConnector {
        path: socket.clone(),
        host: gatehouse_host_ipc::host::own_host_name().to_owned(),
    };
    let mut session = HookSession::new(connector, spool, say);
    // An agent that reads silence as an approval gets its answer before its hook timeout,
    // whatever the configured wait, and at once from a gateway that says hello but never
    // takes the hold (the person could not answer a prompt that is not listed).
    let wait = match without_verdict_of(adapter.as_ref(), event_name) {
        Some(without_verdict) => {
            session = session
                .expecting_registration_within(gatehouse_host_ipc::hook_session::CALL_BUDGET);
            settings.hook.wait().min(without_verdict.hold_at_most())
        }
        None => settings.hook.wait(),
    };
    runtime.block_on(async {
        let observed_at = now();
        let deadline = Instant::now() + wait;
        let in_words = |error: HookError| in_words(error, &socket);
        let (prompt, watch_if_read_only) = match event {
            HookEvent::Ignore => return Ok(()),
            HookEvent::Observe(observation) => return session.observe(observation, observed_at).await.map_err(in_words),
            HookEvent::Prompt { prompt, hold: HoldMode::RegisterOnly } => {
                return session.register(prompt, WATCH_STALE_AFTER).await.map_err(in_words);
            }
            HookEvent::Prompt { prompt, hold: HoldMode::UntilOutcome } => (prompt, false),
            HookEvent::Prompt { prompt, hold: HoldMode::WhileActionable } => (prompt, true),
        };
        // What the hook knows of the agent that runs it, when what is offered depends on it:
        // the gateway applies the unlock rule for that agent, and so does the check below.
        let agent = adapter.running_agent(&prompt);
        let holding = session.hold_for(prompt.clone(), observed_at, deadline, watch_if_read_only, agent.clone());
        let held = match cancellation.take() {
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
                    return Err("the agent ended the call (the person cancelled it there); the prompt is withdrawn".into());
                }
            },
        }
        .map_err(in_words)?;
        let Held::Verdict { verdict, .. } = &held else {
            return Ok(());
        };
        // Defence in depth: the gateway checks this too, but the hook prints only what its own
        // adapter offers for this prompt, by the same rule on the same record, for the agent
        // that runs it.
        let action = verdict.0.action();
        if !adapter.deliverable_for(&prompt, agent.as_ref()).contains(&action) {
            // The gateway records why; one that does not know the method marks it unconfirmed
            // when this hook leaves, which is true too.
            let _ = held.refuse().await;
            return Err(format!(
                "the gateway sent `{action}` for a {} prompt of {}, which gatehouse does not offer for it; nothing was delivered",
                prompt.kind.as_str(),
                gatehouse_core::text::visible(&prompt.tool)
            ));
        }
        let rendered = adapter.render_verdict(&prompt, verdict);
        let printed = print_once(&rendered)
            .map_err(|error| format!("cannot write the verdict to the agent: {error}"))?;
        if !printed {
            // The deadline's output went first; no receipt, so the gateway marks it unconfirmed.
            return Err("the hook's deadline passed as the verdict came; the agent decides".into());
        }
        held.confirm().await.map_err(in_words)
    })
}

/// The spool: `$XDG_STATE_HOME/gatehouse/spool.jsonl`, or `~/.local/state/gatehouse/spool.jsonl`;
/// none when that home does not exist (a hook that outlives a removed home, say, as when a
/// test's private home is cleaned up), so that the hook never makes a home of its own.
fn spool_path() -> Option<PathBuf> {
    let home_exists = std::env::var_os("XDG_STATE_HOME")
        .filter(|folder| !folder.is_empty())
        .or_else(|| std::env::var_os("HOME"))
        .is_some_and(|folder| Path::new(&folder).is_dir());
    crate::config::state_dir()
        .filter(|_| home_exists)
        .map(|folder| folder.join("spool.jsonl"))
}

/// What went wrong, in the hook's one line.
fn in_words(error: HookError, socket: &Path) -> String {
    match error {
        HookError::Unreachable(ClientError::Socket(SocketError::Connect { .. })) => {
            format!("no gateway is running on {}", socket.display())
        }
        // Another user's server, or one whose user cannot be told: the refusal says which.
        other => other.to_string(),
    }
}
