//! `gatehouse console`: one live screen to answer every agent's prompts.
//!
//! - [`state`]: the pending prompts, the selection and the keys, with no I/O (and its safety rules).
//! - [`messages`]: what the parts send each other.
//! - [`answer_form`]: filling in the answers to a question prompt.
//! - [`view`]: drawing it all with ratatui.
//! - [`connection`]: the gateway link: subscribe, reconnect, send commands.
//! - [`desktop_notification`]: the optional `notify-send` for new actionable prompts.
//!
//! This file sets the terminal up (raw mode, alternate screen, restored on exit and on panic) and
//! runs the loop that joins keys, gateway news and a clock tick to the state and the screen.

mod answer_form;
mod connection;
mod desktop_notification;
mod messages;
pub mod output;
mod state;
mod view;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use crossterm::event::Event as TerminalEvent;
use gatehouse_host_ipc::ClientErrorWords;
use ratatui::DefaultTerminal;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use state::{ConsoleState, GatewayCommand, GatewayUpdate, Intent};

/// How often the screen is redrawn with nothing else happening: ages tick, the reconnect
/// countdown runs, and the pause after a list change ends visibly.
const REDRAW_INTERVAL: Duration = Duration::from_millis(250);

/// The help after `gatehouse console --help`: the keys.
pub const KEYS_HELP: &str = "\
Keys:
  ↑/↓ or j/k     move between prompts (Home/End or g/G: first/last)
  PgUp/PgDn      scroll the detail pane by its height, no further than its end
  o              allow once (only when the prompt offers it, and only once every line of
                 its detail has been on screen: PgDn through it; a prompt the gateway sent cut,
                 too large to send whole, is approved with `gatehouse show ID` and
                 `answer ID once --seen`)
  A              always, for this session (or the only scope a suggestion allows, as for
                 Codex: every project, from its next session on), by the agent's first
                 suggestion (its words are in the detail: what it lets through); other scopes:
                 `gatehouse answer ID always`
  t              switch your tmux client to the agent's pane (when both run in one tmux)
  d              deny: type an optional message for the agent, Enter sends, Esc cancels
  a or Enter     answer a question: ↑/↓ moves between options, Tab (or ←/→) between
                 questions, Space chooses (toggles for multi-select), the last row takes
                 your own words; Enter picks the option under the cursor, as the agent's
                 own dialog does, and sends once every question has an answer (else it
                 moves to the first without one); Esc cancels
  r              release: hand the prompt back to the agent's own terminal
  q or Ctrl-C    quit (Esc only cancels a deny or an answer)

Only the actions a prompt offers have keys; read-only prompts are marked and must be
answered in the agent's terminal. An action always goes to the prompt it was drawn for: if
that prompt has gone, nothing is sent, and if the list changed under the cursor in the last
moment, the key is ignored so that you can look again.";

/// Whether the console can run here: stdin and stdout are a terminal.
pub fn has_a_terminal() -> bool {
    std::io::stdout().is_terminal() && std::io::stdin().is_terminal()
}

/// Runs the console on this terminal until the person quits; `words` words the gateway's errors.
pub fn run(socket: PathBuf, notify: bool, words: ClientErrorWords) -> anyhow::Result<ExitCode> {
    if !has_a_terminal() {
        bail!("the console needs a terminal on stdin and stdout");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let (update_sender, updates) = mpsc::unbounded_channel();
        let commands = connection::start(socket, update_sender, words);
        let terminal_events = read_terminal_events();
        // `try_init` installs a panic hook that restores the terminal before the panic is printed.
        let mut terminal = ratatui::try_init().context("cannot set the terminal up")?;
        let result = run_loop(&mut terminal, terminal_events, updates, commands, notify).await;
        ratatui::restore();
        result
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn run_loop(
    terminal: &mut DefaultTerminal,
    mut terminal_events: UnboundedReceiver<TerminalEvent>,
    mut updates: UnboundedReceiver<GatewayUpdate>,
    commands: UnboundedSender<GatewayCommand>,
    notify: bool,
) -> anyhow::Result<()> {
    let mut state = ConsoleState {
        own_tmux_socket: std::env::var("TMUX")
            .ok()
            .and_then(|tmux| tmux.split(',').next().map(str::to_owned))
            .filter(|socket| !socket.is_empty()),
        ..ConsoleState::default()
    };
    let mut redraw = tokio::time::interval(REDRAW_INTERVAL);
    loop {
        state.tick(Instant::now());
        terminal
            .draw(|frame| view::render(frame, &state, gatehouse_host_ipc::now(), Instant::now()))
            .context("cannot draw on the terminal")?;
        tokio::select! {
            event = terminal_events.recv() => match event {
                Some(TerminalEvent::Key(key)) => match state.handle_key(key, Instant::now()) {
                    Intent::Quit => return Ok(()),
                    Intent::Send(command) => {
                        let _ = commands.send(command);
                    }
                    Intent::Nothing => {}
                    Intent::SwitchPane { socket, pane } => switch_pane(&mut state, &socket, &pane),
                },
                Some(_) => {}
                None => return Ok(()),
            },
            Some(update) = updates.recv() => {
                let alerts = state.apply_update(update, Instant::now());
                if notify {
                    alerts.iter().for_each(desktop_notification::raise);
                }
            }
            _ = redraw.tick() => {}
        }
    }
}

/// Reads the terminal's events on a thread of their own (crossterm's read blocks) and passes
/// them on. The thread ends when reading fails or the console stops listening.
fn read_terminal_events() -> UnboundedReceiver<TerminalEvent> {
    let (sender, receiver) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(event) = crossterm::event::read() {
            if sender.send(event).is_err() {
                return;
            }
        }
    });
    receiver
}

/// Switches the person's tmux client to `pane` of the server at `socket`; says so if it fails.
fn switch_pane(state: &mut ConsoleState, socket: &str, pane: &str) {
    let switched = std::process::Command::new("tmux")
        .args(["-S", socket, "switch-client", "-t", pane])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !switched {
        state.say(
            state::Tone::Warning,
            format!(
                "tmux could not switch to pane {}",
                gatehouse_core::text::visible(pane)
            ),
        );
    }
}
