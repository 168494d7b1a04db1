//! `gatehouse hook AGENT`: what the agent runs for each hook event. It reads the event on stdin,
//! hands it to the gateway, and prints the verdict, if any, in the agent's own format.
//!
//! It always exits 0. Whenever it cannot do its job (no gateway, input that is not an event,
//! an error on the wire) it prints nothing on stdout and one line on stderr, so the agent
//! behaves exactly as if gatehouse were not installed. Nothing here ever prints an approval
//! that did not come from the gateway as a verdict.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use gatehouse_core::{Adapter, HoldMode, HookEvent, NewPrompt, Outcome};
use gatehouse_host_ipc::{ClientError, Role, SocketClient};

use crate::{adapters, config};

/// The most stdin that is read; an event larger than this is not held.
const MAX_EVENT_BYTES: u64 = 32 * 1024 * 1024;

/// How long a watched-only prompt stays listed without news of it.
const WATCH_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Extra time, beyond the gateway's own deadline, that the hook waits for the gateway's answer
/// before it gives up on its own.
const LOCAL_GRACE: Duration = Duration::from_secs(2);

pub fn run(socket_flag: Option<PathBuf>, agent: &str) -> ExitCode {
    if let Err(reason) = handle(socket_flag, agent) {
        eprintln!("gatehouse hook {agent}: {reason}; leaving this to the agent");
    }
    ExitCode::SUCCESS
}

fn handle(socket_flag: Option<PathBuf>, agent: &str) -> Result<(), String> {
    let registry = adapters::registry();
    let adapter = registry.get(agent).ok_or_else(|| {
        format!("unknown agent `{agent}` (known: {})", registry.ids().collect::<Vec<_>>().join(", "))
    })?;
    let mut stdin = Vec::new();
    std::io::stdin()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut stdin)
        .map_err(|error| format!("cannot read the hook event: {error}"))?;
    if stdin.len() as u64 > MAX_EVENT_BYTES {
        return Err(format!("the hook event is larger than {MAX_EVENT_BYTES} bytes"));
    }
    let event = adapter.parse_hook_event(&stdin).map_err(|error| error.to_string())?;
    if event == HookEvent::Ignore {
        return Ok(());
    }
    // Only a prompt that is held needs the config (for its wait); the socket may come from the flag.
    let settings = match (&socket_flag, &event) {
        (Some(_), HookEvent::Observe(_)) => config::Config::default(),
        _ => config::load().map_err(|error| format!("{error:#}"))?,
    };
    let socket = socket_flag.or(settings.socket).unwrap_or_else(gatehouse_host_ipc::socket::default_socket_path);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let mut client = connect(&socket).await?;
        match event {
            HookEvent::Ignore => Ok(()),
            HookEvent::Observe(observation) => client.observe(observation).await.map(drop).map_err(wire),
            HookEvent::Prompt { prompt, hold: HoldMode::RegisterOnly } => {
                client.register(prompt, WATCH_STALE_AFTER).await.map(drop).map_err(wire)
            }
            HookEvent::Prompt { prompt, hold: HoldMode::UntilOutcome } => {
                hold(&mut client, adapter.as_ref(), prompt, settings.hook.wait()).await
            }
        }
    })
}

async fn connect(socket: &Path) -> Result<SocketClient, String> {
    SocketClient::connect(socket, Role::Hook, concat!("gatehouse-hook ", env!("CARGO_PKG_VERSION")))
        .await
        .map_err(|error| match error {
            ClientError::Socket(_) => format!("no gateway is running on {}", socket.display()),
            other => wire(other),
        })
}

fn wire(error: ClientError) -> String {
    format!("the gateway did not answer properly: {error}")
}

/// Holds the prompt until its outcome, and delivers a verdict if there is one.
async fn hold(client: &mut SocketClient, adapter: &dyn Adapter, prompt: NewPrompt, wait: Duration) -> Result<(), String> {
    let snapshot = prompt.clone();
    let result = tokio::time::timeout(wait + LOCAL_GRACE, client.hold(prompt, wait))
        .await
        .map_err(|_| "the gateway did not answer before the deadline".to_owned())?
        .map_err(wire)?;
    let Outcome::Verdict { verdict } = result.outcome else {
        return Ok(());
    };
    let rendered = adapter.render_verdict(&snapshot, &verdict);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(rendered.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush())
        .map_err(|error| format!("cannot write the verdict to the agent: {error}"))?;
    drop(stdout);
    // The receipt: the verdict is out. Without it the gateway marks the prompt unconfirmed.
    client.confirm_delivery(result.id).await.map(drop).map_err(wire)
}
