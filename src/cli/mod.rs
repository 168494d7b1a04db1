//! The command line: one module per command. This is the contract that scripts and front ends
//! rely on; extend it, never break it.

mod answer;
pub mod client_error;
mod completions;
mod doctor;
mod gateway;
pub mod hook;
mod install;
mod list;
mod log;
mod probe;
mod prompt_json;
mod remote;
mod rules;
mod service;
mod setup;
mod show;
mod status;
mod watch;
mod web;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use gatehouse_host_ipc::{Client, Role, SocketClient};

pub use client_error::{socket_advice, unreachable_gateway};

use crate::config;

const ABOUT: &str = "One gateway to approve, deny or answer the prompts of many AI coding agents.";

/// The long help: the agents, and which of them keep their own prompt on screen, are the
/// registry's.
fn long_about() -> String {
    use gatehouse_core::{Adapter, WhileHeld};
    let registry = crate::adapters::registry();
    // The `word` (name or id) of each adapter that `keep`s, joined by `separator`.
    let listed = |keep: &dyn Fn(&dyn Adapter) -> bool,
                  word: fn(&dyn Adapter) -> &'static str,
                  separator: &str| {
        let words: Vec<&str> = registry
            .iter()
            .filter(|adapter| keep(adapter.as_ref()))
            .map(|adapter| word(adapter.as_ref()))
            .collect();
        words.join(separator)
    };
    let while_held = |kind| move |adapter: &dyn Adapter| adapter.while_held() == Some(kind);
    let first_answer_wins = listed(
        &while_held(WhileHeld::OwnPromptStaysLive),
        |a| a.name(),
        ", ",
    );
    let held = listed(
        &while_held(WhileHeld::OwnDialogAfterHold),
        |a| a.name(),
        ", ",
    );
    let installable = listed(&|adapter| adapter.installer().is_some(), |a| a.id(), "|");
    let probeable = listed(&|adapter| adapter.probe().is_some(), |a| a.id(), "|");
    format!(
        "\
One gateway to approve, deny or answer the prompts of many AI coding agents.

An agent's hook (installed with `gatehouse install claude`) hands each prompt to the gateway
(`gatehouse serve`); any front end lists and answers it. Where the agent keeps its own prompt on
screen ({first_answer_wins}) the first answer wins; where it shows none while the
hook waits ({held}) the prompt is held for the time `list` shows, then
handed back. Only actions proven against the real agent are offered; everything else is shown
read-only.

Quick start:
  gatehouse setup                       # hooks for the agents found here, the gateway as a service, a phone
  gatehouse doctor                      # check every link a prompt travels, and how to fix each
or by hand:
  gatehouse serve &                     # run the gateway
  gatehouse install AGENT               # add the hooks to the agent's settings ({installable})
  gatehouse list                        # prompts waiting for you, with their short ids
  gatehouse answer a3f7 once            # allow one Bash command (or: deny --message TEXT)
  gatehouse console                     # or answer everything from one live screen
  gatehouse web                         # or from a browser (`gatehouse web --help` pairs a phone)

An agent's prompts are read-only until what gatehouse offers is proven against the installed
version: `gatehouse probe {probeable}` runs that proof; `gatehouse status` says what each
agent allows and why. `gatehouse log` shows who answered what, and what was delivered."
    )
}

#[derive(Debug, Parser)]
#[command(name = "gatehouse", version, about = ABOUT, long_about = long_about())]
pub struct Cli {
    /// The gateway's socket [default: $XDG_RUNTIME_DIR/gatehouse/gatehouse.sock].
    #[arg(long, global = true, env = "GATEHOUSE_SOCKET", value_name = "PATH")]
    socket: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Set up this machine: hooks for the agents on PATH, the gateway as a service, a phone.
    ///
    /// Shows what installing gatehouse's hooks changes in each agent's settings (tried on a copy)
    /// and asks y/N for each; installs and starts the gateway as a user service (or says how to
    /// run `gatehouse serve` by hand); offers to pair a phone when `gatehouse web` runs. What is
    /// in place already is left as it is. Without --yes and without a terminal, nothing changes.
    Setup(setup::SetupArgs),
    /// Check every link a prompt travels, and say the one command that fixes each.
    ///
    /// The gateway, each agent's hooks and probe, the page, paired browsers and a test push: one
    /// line each, ok, warn or FAIL (- where it does not apply). Exits 1 when a check fails.
    Doctor(doctor::DoctorArgs),
    /// Run the gateway in the foreground (logs on stderr; set RUST_LOG=debug for more).
    Serve,
    /// Say whether the gateway is up, and what each agent allows; exits 1 when unreachable.
    Status {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Show every agent gatehouse knows in full, not only those installed here.
        #[arg(long)]
        all: bool,
    },
    /// List the prompts that are pending, from every agent.
    #[command(after_help = prompt_json::INPUT_HELP)]
    List {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print one prompt whole, however large, and the digest that approves it if it was listed cut.
    Show {
        /// The prompt's short id, as `gatehouse list` shows it, or its full id.
        id: String,
        /// Print the prompt and its digest as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print live events as they happen, until interrupted.
    #[command(after_help = prompt_json::INPUT_HELP)]
    Watch {
        /// Print one JSON object a line.
        #[arg(long)]
        json: bool,
    },
    /// Answer a pending prompt: `once` or `deny` for a permission, --pick/--text for questions.
    #[command(after_help = answer::AFTER_HELP)]
    Answer(answer::AnswerArgs),
    /// Read the audit log: every prompt and transition, who answered and what was delivered.
    #[command(arg(socket_meaning_nothing()))]
    Log {
        /// Print the records as JSON, one a line.
        #[arg(long)]
        json: bool,
        /// Only records from this time on: an RFC 3339 time, or an age such as 30m, 2h or 7d.
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
    },
    /// List gatehouse's rules, each with its id and what it lets through (or blocks).
    #[command(after_help = rules::RULE_AFTER_HELP, arg(socket_meaning_nothing()))]
    Rules {
        /// Print a JSON array: each rule's id, description and the rule itself.
        #[arg(long)]
        json: bool,
    },
    /// Make or remove one of gatehouse's rules, which answer matching prompts for every agent.
    #[command(after_help = rules::RULE_AFTER_HELP, arg(socket_meaning_nothing()))]
    Rule {
        #[command(subcommand)]
        command: RuleCommand,
    },
    /// Hand a pending prompt back to the agent's own terminal.
    Release {
        /// The prompt's short id, as `gatehouse list` shows it, or its full id.
        id: String,
    },
    /// Run as an agent's hook: read the hook event on stdin, print the verdict if any. Always exits 0.
    Hook {
        /// The agent, by adapter id (`gatehouse status` lists them).
        agent: String,
        /// The event's name, for agents whose hook input does not name its event.
        event: Option<String>,
    },
    /// Add gatehouse's hooks to an agent's settings; `install service` runs the gateway as a
    /// user service (systemd socket activation, or launchd on macOS).
    #[command(after_help = install::after_help(), arg(socket_meaning_nothing()))]
    Install(InstallTarget),
    /// Remove gatehouse's hooks (and only those) from an agent's settings; `uninstall service`
    /// removes the service files.
    #[command(after_help = install::after_help(), arg(socket_meaning_nothing()))]
    Uninstall(InstallTarget),
    /// Check, live and offline, whether the installed agent honours gatehouse's answers; a pass
    /// unlocks answering that agent version's prompts from gatehouse.
    Probe(probe::ProbeArgs),
    /// Let agents on another machine reach this gateway: keep up an ssh forward of the hooks
    /// socket to HOST (needs gatehouse installed there for its hooks); until interrupted.
    Remote(remote::RemoteArgs),
    /// Open one live screen that lists every agent's pending prompts and answers them with keys.
    #[command(after_help = gatehouse_console::KEYS_HELP)]
    Console {
        /// Raise a desktop notification (with notify-send, when installed) for each new prompt
        /// that can be answered here.
        #[arg(long)]
        notify: bool,
    },
    /// Serve a page to answer every agent from a phone or another machine's browser, paired and
    /// private; `web pair` prints a pairing link.
    #[command(after_help = web::AFTER_HELP)]
    Web(web::WebArgs),
    /// Print a shell completion script, e.g. `gatehouse completions bash >
    /// ~/.local/share/bash-completion/completions/gatehouse`.
    #[command(arg(socket_meaning_nothing()))]
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print a man page in roff: gatehouse(1), or a command's, such as gatehouse-setup(1) for
    /// `gatehouse man setup`.
    ///
    /// For example `gatehouse man > ~/.local/share/man/man1/gatehouse.1` and
    /// `gatehouse man setup > ~/.local/share/man/man1/gatehouse-setup.1`, then `man gatehouse`.
    /// The pages come from the same definitions as `--help`, so they always match this binary.
    #[command(arg(socket_meaning_nothing()))]
    Man {
        /// The command whose page to print, such as `setup` or `web pair` [default: gatehouse(1)
        /// itself, which lists the commands].
        #[arg(value_name = "COMMAND")]
        command: Vec<String>,
    },
}

/// The commands that never reach the gateway, whose `--socket` is [`socket_meaning_nothing`].
const WITHOUT_SOCKET: &[&str] = &[
    "log",
    "install",
    "uninstall",
    "completions",
    "man",
    "rules",
    "rule",
];

/// `--socket` for a command that never reaches the gateway (it reads a file, or prints): hidden
/// from its `--help`, man page and completions, and still accepted, so that a script that passes
/// it to every command keeps working. Clap gives a command the global `--socket` only where it
/// has no argument of that id itself; this one is global too, so the commands under it
/// (`install service`) take it as they did.
fn socket_meaning_nothing() -> clap::Arg {
    clap::Arg::new("socket")
        .long("socket")
        .value_name("PATH")
        .value_parser(clap::value_parser!(PathBuf))
        .global(true)
        .hide(true)
}

impl Cli {
    /// Whether this is `gatehouse hook ...`, which must never fail (see [`hook`]).
    pub fn is_hook(&self) -> bool {
        matches!(self.command, Command::Hook { .. })
    }

    /// Whether the command asks once and prints, so that output piped into a command that stops
    /// reading early, such as `head`, may end it quietly, as it would any Unix tool. Not the
    /// gateway, `web`, `remote`, `watch` or the console: they live on sockets, where a reader that
    /// goes away is an error to handle and say, not the end of the process.
    pub fn only_prints(&self) -> bool {
        matches!(
            self.command,
            Command::Status { .. }
                | Command::List { .. }
                | Command::Show { .. }
                | Command::Log { .. }
                | Command::Rules { .. }
                | Command::Doctor(_)
                | Command::Completions { .. }
                | Command::Man { .. }
        )
    }

    /// For `gatehouse hook AGENT [EVENT]`: the agent and the event.
    pub fn hook_target(&self) -> Option<(&str, Option<&str>)> {
        match &self.command {
            Command::Hook { agent, event } => Some((agent, event.as_deref())),
            _ => None,
        }
    }
}

#[derive(Debug, Subcommand)]
enum RuleCommand {
    /// Add a rule; prints its id and what it lets through (or blocks).
    #[command(after_help = rules::RULE_AFTER_HELP)]
    Add(rules::AddArgs),
    /// Remove a rule by its id (`gatehouse rules` lists them); the very next prompt is decided
    /// without it.
    Remove {
        /// The rule's id, as `gatehouse rules` shows it.
        id: String,
    },
}

/// `install AGENT [flags]`, or `install service`: the word `service` is a subcommand, and the
/// agent's arguments are not asked for beside it.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct InstallTarget {
    #[command(subcommand)]
    service: Option<ServiceWord>,
    #[command(flatten)]
    agent: Option<install::InstallArgs>,
}

#[derive(Debug, Subcommand)]
enum ServiceWord {
    /// The gateway as a user service: a systemd socket and service unit (the first connection
    /// starts it), or a launchd agent on macOS.
    Service,
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let socket = cli.socket;
    match cli.command {
        Command::Serve => gateway::run(socket),
        Command::Hook { agent, event } => Ok(hook::run(socket, &agent, event.as_deref())),
        Command::Install(InstallTarget {
            agent: Some(arguments),
            ..
        }) => install::install(arguments),
        Command::Install(InstallTarget { .. }) => service::install(),
        Command::Uninstall(InstallTarget {
            agent: Some(arguments),
            ..
        }) => install::uninstall(arguments),
        Command::Uninstall(InstallTarget { .. }) => service::uninstall(),
        Command::Probe(arguments) => probe::run(socket, arguments),
        Command::Status { json, all } => block_on(status::run(socket_path(socket)?, json, all)),
        Command::List { json } => block_on(list::run(socket_path(socket)?, json)),
        Command::Show { id, json } => block_on(show::run(socket_path(socket)?, id, json)),
        Command::Watch { json } => block_on(watch::run(socket_path(socket)?, json)),
        Command::Answer(arguments) => block_on(answer::run(socket_path(socket)?, arguments)),
        Command::Log { json, since } => log::run(json, since.as_deref()),
        Command::Rules { json } => rules::list(json),
        Command::Rule {
            command: RuleCommand::Add(arguments),
        } => rules::add(arguments),
        Command::Rule {
            command: RuleCommand::Remove { id },
        } => rules::remove(&id),
        Command::Release { id } => block_on(answer::release(socket_path(socket)?, id)),
        Command::Remote(arguments) => block_on(remote::run(socket_path(socket)?, arguments)),
        Command::Console { notify } => {
            let socket = socket_path(socket)?;
            if !gatehouse_console::has_a_terminal() {
                anyhow::bail!("`gatehouse console` needs a terminal; scripts can use `gatehouse list`, `watch` and `answer`");
            }
            gatehouse_console::run(socket, notify, client_error::in_words)
        }
        Command::Web(arguments) => web::run(socket_path(socket)?, arguments),
        Command::Setup(arguments) => setup::run(socket_path(socket)?, arguments),
        Command::Doctor(arguments) => doctor::run(socket_path(socket)?, arguments),
        Command::Completions { shell } => completions::completions(shell),
        Command::Man { command } => completions::man(&command),
    }
}

fn block_on<F: std::future::Future<Output = anyhow::Result<ExitCode>>>(
    future: F,
) -> anyhow::Result<ExitCode> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(future)
}

/// The socket: the flag or `GATEHOUSE_SOCKET`, else the config file's, else the default.
pub fn socket_path(from_flag: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(path) = from_flag {
        return Ok(path);
    }
    Ok(config::load()?
        .socket
        .unwrap_or_else(gatehouse_host_ipc::socket::default_socket_path))
}

/// Connects as a front end, with an error that says what to do when the gateway is not there.
pub async fn connect_frontend(socket: &std::path::Path) -> anyhow::Result<SocketClient> {
    Client::connect(socket, Role::Frontend, "gatehouse-cli")
        .await
        .map_err(|error| unreachable_gateway(socket, error))
}
