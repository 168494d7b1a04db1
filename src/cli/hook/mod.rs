//! `gatehouse hook AGENT`: what the agent runs for each hook event. It reads the event on stdin,
//! hands it to the gateway, and prints the verdict, if any, in the agent's own format.
//!
//! It always exits 0. Whenever it cannot do its job (no gateway, input that is not an event,
//! an error on the wire) it prints nothing on stdout and one line on stderr, so the agent
//! behaves exactly as if gatehouse were not installed. Nothing here ever prints an approval
//! that did not come from the gateway as a verdict.
//!
//! If the gateway goes away while a prompt is held, the hook keeps waiting, and registers the
//! prompt again, with its original snapshot, when a gateway is back. An observation that finds
//! no gateway goes to the [`spool`], and the next hook that reaches one replays it.

mod spool;
mod terminal;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use gatehouse_core::{Adapter, HoldMode, HookEvent, NewPrompt, Outcome, Timestamp};
use gatehouse_host_ipc::server::now;
use gatehouse_host_ipc::socket::SocketError;
use gatehouse_host_ipc::{ClientError, Role, SocketClient};
use tokio::time::Instant;

use self::spool::{Entry, Spool};
use crate::{adapters, config};

/// The most stdin that is read; an event larger than this is not held. A hold message carries
/// the tool input once, beside a summary of bounded length and a fixed-size correlation key, so
/// an event of this size fits in one frame with room to spare. An input that grows past the
/// frame limit when encoded again (numbers such as `1e5` become `100000.0`) is refused by the
/// client before it is sent, and that refusal is final.
const MAX_EVENT_BYTES: u64 = (gatehouse_host_ipc::framing::MAX_FRAME_BYTES / 4 * 3) as u64;

/// How long a watched-only prompt stays listed without news of it.
const WATCH_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Extra time, beyond the gateway's own deadline, that the hook waits for the gateway's answer
/// before it gives up on its own.
const LOCAL_GRACE: Duration = Duration::from_secs(2);

/// The longest any single call to the gateway may take (connecting and saying hello, an
/// observation, a registration), so that a stuck gateway costs the agent at most this.
const CALL_BUDGET: Duration = Duration::from_secs(2);

/// The longest the delivery receipt may take: the gateway waits 5 s for it.
const RECEIPT_BUDGET: Duration = Duration::from_secs(5);

/// How often a hook whose gateway went away tries to reach a new one.
const RECONNECT_EVERY: Duration = Duration::from_millis(250);

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
    ExitCode::SUCCESS
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
    let mut event = adapter
        .parse_hook_event(&stdin, event_name)
        .map_err(|error| error.to_string())?;
    // The host is the hook's to say, not the adapter's: every prompt names the machine it is on.
    if let HookEvent::Prompt { prompt, .. } = &mut event {
        prompt.host = crate::host::own_host_name().to_owned();
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
    let spool = Spool::default_path().map(Spool::new);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let observed_at = now();
        let wait = settings.hook.wait();
        let deadline = Instant::now() + wait;
        let mut client = match connect(&socket, spool.as_ref()).await {
            Ok(client) => client,
            Err(reason) => {
                if let (HookEvent::Observe(observation), Some(spool)) = (&event, &spool) {
                    let entry = Entry {
                        observed_at,
                        observation: observation.clone(),
                    };
                    spool.append(&entry).map_err(|error| {
                        format!("{reason}, and the spool cannot be written: {error}")
                    })?;
                }
                return Err(reason);
            }
        };
        let (prompt, watch_if_read_only) = match event {
            HookEvent::Ignore => return Ok(()),
            HookEvent::Observe(observation) => {
                return within(CALL_BUDGET, client.observe(observation))
                    .await
                    .map(drop);
            }
            HookEvent::Prompt {
                prompt,
                hold: HoldMode::RegisterOnly,
            } => {
                return within(CALL_BUDGET, client.register(prompt, WATCH_STALE_AFTER))
                    .await
                    .map(drop);
            }
            HookEvent::Prompt {
                prompt,
                hold: HoldMode::UntilOutcome,
            } => (prompt, false),
            HookEvent::Prompt {
                prompt,
                hold: HoldMode::WhileActionable,
            } => (prompt, true),
        };
        let waiting = Waiting {
            socket: &socket,
            spool: spool.as_ref(),
            held_since: observed_at,
            deadline,
            watch_if_read_only,
        };
        waiting.hold(client, adapter.as_ref(), prompt).await
    })
}

/// Runs one call to the gateway within `budget`: a gateway that is stopped (suspended, say, or
/// stuck on its disk) must never keep the agent waiting.
async fn within<T>(
    budget: Duration,
    call: impl std::future::Future<Output = Result<T, ClientError>>,
) -> Result<T, String> {
    match tokio::time::timeout(budget, call).await {
        Ok(result) => result.map_err(wire),
        Err(_) => Err(format!("the gateway did not answer within {budget:?}")),
    }
}

/// Connects, says hello, and replays the spool, each step within its budget. Spooled entries
/// that cannot be replayed go back to the spool.
async fn connect(socket: &Path, spool: Option<&Spool>) -> Result<SocketClient, String> {
    let connecting = SocketClient::connect_from_host(
        socket,
        Role::Hook,
        concat!("gatehouse-hook ", env!("CARGO_PKG_VERSION")),
        crate::host::own_host_name(),
    );
    let mut client = match tokio::time::timeout(CALL_BUDGET, connecting).await {
        Ok(Ok(client)) => client,
        Ok(Err(ClientError::Socket(SocketError::Connect { .. }))) => {
            return Err(format!("no gateway is running on {}", socket.display()))
        }
        // Another user's server, or one whose user cannot be told: the refusal says which.
        Ok(Err(ClientError::Socket(refusal))) => return Err(refusal.to_string()),
        Ok(Err(other)) => return Err(wire(other)),
        Err(_) => {
            return Err(format!(
                "the gateway on {} did not answer within {CALL_BUDGET:?}",
                socket.display()
            ))
        }
    };
    let Some(spool) = spool else {
        return Ok(client);
    };
    let mut entries = spool.take(now()).into_iter();
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

fn wire(error: ClientError) -> String {
    format!("the gateway did not answer properly: {error}")
}

/// A prompt held until its outcome, across gateway restarts.
struct Waiting<'a> {
    socket: &'a Path,
    spool: Option<&'a Spool>,
    /// When the hook got the prompt: observations from then on settle it.
    held_since: Timestamp,
    /// When the hook gives up and leaves the prompt to the terminal, counted from its start.
    deadline: Instant,
    /// Ask the gateway to only watch the prompt if it offers nothing for it.
    watch_if_read_only: bool,
}

impl Waiting<'_> {
    /// Holds the prompt until its outcome, and delivers a verdict if there is one.
    async fn hold(
        &self,
        mut client: SocketClient,
        adapter: &dyn Adapter,
        prompt: NewPrompt,
    ) -> Result<(), String> {
        loop {
            let remaining = self.deadline.saturating_duration_since(Instant::now());
            let holding = client.hold_with(
                prompt.clone(),
                remaining,
                Some(self.held_since),
                self.watch_if_read_only,
            );
            let result = match tokio::time::timeout(remaining + LOCAL_GRACE, holding).await {
                Err(_) => return Err("the gateway did not answer before the deadline".into()),
                Ok(Ok(result)) => result,
                Ok(Err(ClientError::Closed | ClientError::Io(_))) => {
                    say("gatehouse hook: the gateway went away; the terminal is in charge, and the prompt returns when a gateway is back");
                    match self.reconnect().await {
                        Some(again) => {
                            client = again;
                            continue;
                        }
                        None => return Ok(()),
                    }
                }
                Ok(Err(other)) => return Err(wire(other)),
            };
            let Outcome::Verdict { verdict } = result.outcome else {
                return Ok(());
            };
            // Defence in depth: the gateway checks this too, but the hook prints only what its
            // own adapter could ever offer for this prompt.
            let action = verdict.0.action();
            if !adapter.deliverable_actions(&prompt).contains(&action) {
                return Err(format!(
                    "the gateway sent `{action}` for a {} prompt of {}, which gatehouse does not offer for it; nothing was delivered",
                    prompt.kind.as_str(),
                    gatehouse_core::text::visible(&prompt.tool)
                ));
            }
            let rendered = adapter.render_verdict(&prompt, &verdict);
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(rendered.as_bytes())
                .and_then(|()| stdout.write_all(b"\n"))
                .and_then(|()| stdout.flush())
                .map_err(|error| format!("cannot write the verdict to the agent: {error}"))?;
            drop(stdout);
            // The receipt: the verdict is out. Without it the gateway marks the prompt unconfirmed.
            return within(RECEIPT_BUDGET, client.confirm_delivery(result.id))
                .await
                .map(drop);
        }
    }

    /// A connection to a gateway that is back, tried every [`RECONNECT_EVERY`] until the deadline.
    async fn reconnect(&self) -> Option<SocketClient> {
        while Instant::now() + RECONNECT_EVERY + CALL_BUDGET < self.deadline {
            tokio::time::sleep(RECONNECT_EVERY).await;
            if let Ok(client) = connect(self.socket, self.spool).await {
                return Some(client);
            }
        }
        None
    }
}
