//! `gatehouse setup`: the first ten minutes in one command. It finds the agents installed here
//! (each registered adapter's executable on `PATH`), shows what installing gatehouse's hooks
//! would change in each agent's settings (a trial install on a copy, [`agents`]) and installs
//! them for the agents the person accepts, through the installer `gatehouse install AGENT` runs;
//! installs and starts the gateway as a user service (the units of `gatehouse install service`,
//! then `systemctl --user`, [`user_service`]), or says how to run `gatehouse serve` by hand where
//! there is no systemd user manager; and offers to pair a phone when `gatehouse web` runs.
//!
//! It asks before each change, y/N on stdin; `--yes` accepts every change (for scripts) and
//! pairs nothing (a pairing link is a secret, and a script's output may end up in a log).
//! Without `--yes` and without a terminal on stdin, it shows what it would do and changes
//! nothing. A second run finds everything in place and changes nothing.

pub mod agents;
pub mod user_service;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use gatehouse_core::text::visible;
use gatehouse_web::control::{self, ControlReply, ControlRequest};

use self::agents::{Agent, HookState, Plan};
use self::user_service::{Manager, ServiceState};
use crate::cli::install;
use crate::cli::service::Done;

#[derive(Debug, Args)]
pub struct SetupArgs {
    /// Accept every change without asking (for scripts). No phone is paired: run
    /// `gatehouse web pair --qr` for that.
    #[arg(long)]
    yes: bool,
    /// Leave the user service alone: set up the agents' hooks only.
    #[arg(long)]
    no_service: bool,
}

/// A path as setup and doctor show it: the home folder as `~`, made safe for a terminal.
pub fn shown_path(path: &Path) -> String {
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    let shortened = match home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    };
    visible(&shortened).into_owned()
}

/// Who says yes to a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Consent {
    /// `--yes`: every change.
    Everything,
    /// The person, on the terminal.
    Asked,
    /// Nobody can: no terminal and no `--yes`. Nothing is changed.
    Nobody,
}

/// What setup found to do, and what came of it.
#[derive(Default)]
struct Tally {
    /// Changes made.
    made: usize,
    /// Changes offered that were declined, or not made for want of a terminal.
    not_made: usize,
    /// What setup cannot do, with the command that does it.
    by_hand: Vec<String>,
}

pub fn run(socket: PathBuf, arguments: SetupArgs) -> anyhow::Result<ExitCode> {
    // Every hook and the service would name this program: one another user can replace is
    // refused before anything is shown or changed, as `install` refuses it.
    let program = install::request_for(PathBuf::new())?.program;
    if let Some(why) = install::hook_program_replaceable(&program) {
        anyhow::bail!(
            "{why}; nothing was changed: {}",
            install::MOVE_TO_A_PRIVATE_FOLDER
        );
    }
    let consent = if arguments.yes {
        Consent::Everything
    } else if std::io::stdin().is_terminal() {
        Consent::Asked
    } else {
        Consent::Nobody
    };
    let mut tally = Tally::default();
    set_up_agents(&socket, consent, &mut tally)?;
    if !arguments.no_service {
        set_up_service(&socket, consent, &mut tally)?;
    }
    offer_pairing(&socket, consent);
    println!();
    for step in &tally.by_hand {
        println!("To do by hand: {step}");
    }
    if consent == Consent::Nobody && tally.not_made > 0 {
        println!("Nothing was changed: setup asks before each change, and there is no terminal to ask on. Run `gatehouse setup --yes` to make every change above.");
        return Ok(ExitCode::from(1));
    }
    if tally.made == 0 && tally.not_made == 0 {
        println!("Everything is in place; setup changed nothing.");
    } else {
        println!(
            "{} change{} made, {} declined. `gatehouse doctor` checks every link a prompt travels.",
            tally.made,
            if tally.made == 1 { "" } else { "s" },
            tally.not_made
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The hooks of every agent found on `PATH`.
fn set_up_agents(socket: &Path, consent: Consent, tally: &mut Tally) -> anyhow::Result<()> {
    // The settings file is each agent's own; the rest (this binary, the wait) is the same.
    let request = install::request_for(PathBuf::new())?;
    // What the running gateway offers (with the probes it found), else this process's flags.
    let flags_from_gateway = user_service::gateway_status(socket)
        .ok()
        .and_then(Result::ok)
        .map(|status| status.adapters);
    let (found, missing): (Vec<Agent>, Vec<Agent>) = agents::all()
        .into_iter()
        .partition(|agent| agent.executable.is_some());
    if found.is_empty() {
        println!("No agent gatehouse knows is on PATH.");
    }
    for agent in &found {
        set_up_agent(agent, &request, consent, tally)?;
        say_what_the_probe_unlocks(agent, flags_from_gateway.as_ref());
    }
    if !missing.is_empty() {
        let names: Vec<String> = missing
            .iter()
            .map(|agent| match agent.executable_name() {
                Some(command) => format!("{} ({command})", agent.name()),
                None => agent.name().to_owned(),
            })
            .collect();
        println!("Not on PATH, so left alone: {}.", names.join(", "));
    }
    Ok(())
}

fn set_up_agent(
    agent: &Agent,
    request: &gatehouse_core::kit::InstallRequest,
    consent: Consent,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let executable = agent
        .executable
        .as_deref()
        .expect("only agents found on PATH are set up");
    let version = agent
        .version()
        .unwrap_or_else(|why| format!("(version unknown: {why})"));
    println!(
        "\n{} {} ({})",
        agent.name(),
        visible(&version),
        shown_path(executable)
    );
    let settings = match &agent.settings {
        Ok(settings) => settings.clone(),
        Err(why) => {
            println!("  cannot be set up: {}", visible(why));
            tally.by_hand.push(format!(
                "`gatehouse install {} --settings FILE` ({})",
                agent.id(),
                visible(why)
            ));
            return Ok(());
        }
    };
    let shown = shown_path(&settings);
    let planned = match agent.hook_state(request) {
        HookState::Current { answerable } => {
            let how = if answerable { " (answerable)" } else { "" };
            println!("  gatehouse's hooks are in place{how} in {shown}");
            return Ok(());
        }
        HookState::Outdated {
            answerable: true, ..
        } => {
            // A plain install would undo the person's choice of an answerable install, and an
            // answerable one needs its price accepted: the person's command, not setup's.
            println!("  gatehouse's answerable hooks in {shown} are not current; setup leaves them as they are");
            tally
                .by_hand
                .push(format!("`gatehouse install {} --answerable`", agent.id()));
            return Ok(());
        }
        HookState::Unusable(why) => {
            println!("  cannot be set up: {}", visible(&why));
            tally.by_hand.push(format!(
                "fix {shown}, then run `gatehouse install {}`",
                agent.id()
            ));
            return Ok(());
        }
        HookState::Absent { planned } => (format!("are not in {shown}"), planned),
        HookState::Outdated { planned, .. } => (
            format!("in {shown} are not this gatehouse's (another binary, or older)"),
            planned,
        ),
    };
    let (what, planned) = planned;
    // With --yes, what the install does is printed once, as it is done.
    if consent == Consent::Everything {
        println!("  gatehouse's hooks {what}; installing them:");
    } else {
        println!("  gatehouse's hooks {what}; installing them changes it so (tried on a copy):");
        print!("{}", preview(&planned));
    }
    if !accepted(
        consent,
        &format!("Install gatehouse's hooks for {}?", agent.name()),
    )? {
        tally.not_made += 1;
        return Ok(());
    }
    let outcome = agent
        .installer()
        .install(&gatehouse_core::kit::InstallRequest {
            settings,
            ..request.clone()
        })
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    if consent == Consent::Everything {
        install::print_outcome(&outcome, "installed");
    } else {
        // The notes were in the preview, word for word.
        install::print_changes(&outcome, "installed");
    }
    tally.made += 1;
    Ok(())
}

/// Under an agent, what its probe unlocks, while that is still read-only ("Until `gatehouse
/// probe claude` has checked this Claude Code, these are answered only in its terminal: always
/// for Bash, Write, ..."). Nothing for an agent with no probe or nothing waiting.
fn say_what_the_probe_unlocks(
    agent: &Agent,
    from_gateway: Option<&Vec<gatehouse_core::capability::AdapterCapabilities>>,
) {
    let Some(command) = agent.probe_command() else {
        return;
    };
    let flags = from_gateway
        .and_then(|all| {
            all.iter()
                .find(|flags| flags.adapter == agent.id())
                .cloned()
        })
        .unwrap_or_else(|| agent.capabilities());
    let waiting = agent.read_only_until_probed(&flags);
    if let Some(text) = probe_sentence(agent.name(), &command, &waiting) {
        println!("  {text}");
    }
}

/// The sentence [`say_what_the_probe_unlocks`] prints; `None` when nothing waits.
fn probe_sentence(name: &str, command: &str, waiting: &[String]) -> Option<String> {
    let (last, first) = waiting.split_last()?;
    let listed = if first.is_empty() {
        last.clone()
    } else {
        format!("{} and {last}", first.join(", "))
    };
    Some(format!(
        "Until `{command}` has checked this {name}, these are answered only in its terminal: {listed}. Run it to answer them here too."
    ))
}

/// What an install would do, as `gatehouse install AGENT` prints it when it does it: each change,
/// the installer's notes (the hook command as written, the hold, what the agent needs next), and
/// a backup only where there is a file to back up. Indented under the agent, made safe to show.
fn preview(planned: &Plan) -> String {
    let mut text = String::new();
    for change in &planned.changes {
        text.push_str(&format!("    {}\n", visible(change)));
    }
    for note in &planned.notes {
        text.push_str(&format!("  {}\n", visible(note)));
    }
    if let Some(backup) = &planned.backup {
        text.push_str(&format!(
            "  The previous settings would be saved in {}.\n",
            shown_path(backup)
        ));
    }
    text
}

/// What setup says of the gateway where no user service can run it (`why`): that one runs now
/// (`running`: its pid and what started it, as the gateway says), and that nothing starts it
/// after a restart; or, when none runs, how to run one and what the agents do meanwhile.
fn no_service_words(why: &str, socket: &str, running: Option<(u32, String)>) -> String {
    match running {
        Some((pid, started_by)) => {
            let how = if started_by.is_empty() {
                "by hand".to_owned()
            } else {
                format!("by {}", visible(&started_by))
            };
            format!(
                "A gateway runs on {socket} now (pid {pid}), started {how}. No user service here ({why}), so nothing starts it again after a logout or a restart: run `gatehouse serve` then (e.g. in a tmux window); where a user service manager runs (systemd --user, launchd), `gatehouse install service` starts it at login."
            )
        }
        None => format!(
            "No gateway runs, and no user service here: {why}. Run the gateway by hand, e.g. in a tmux window: `gatehouse serve`. Until it runs, every agent behaves as if gatehouse were not installed."
        ),
    }
}

/// The gateway as a user service, or how to run it by hand.
fn set_up_service(socket: &Path, consent: Consent, tally: &mut Tally) -> anyhow::Result<()> {
    println!("\nThe gateway");
    let manager = user_service::manager();
    let default_socket = gatehouse_host_ipc::socket::default_socket_path();
    if let Manager::Missing(why) = &manager {
        let running = user_service::gateway_status(socket)
            .ok()
            .and_then(Result::ok)
            .map(|status| (status.pid, status.started_by));
        println!(
            "  {}",
            no_service_words(&visible(why), &shown_path(socket), running)
        );
        return Ok(());
    }
    let state = match ServiceState::now(&manager) {
        Ok(state) => state,
        Err(error) => {
            println!("  cannot be set up: {}", visible(&format!("{error:#}")));
            tally
                .by_hand
                .push("fix the unit files above, then run `gatehouse install service`".into());
            return Ok(());
        }
    };
    if socket != default_socket {
        println!(
            "  Note: the service listens on {}, but this gatehouse's socket is {} (--socket, GATEHOUSE_SOCKET or config.toml); hooks and front ends that use it will not reach the service.",
            shown_path(&default_socket),
            shown_path(socket)
        );
    }
    if state.in_place(&manager) {
        match manager {
            Manager::Systemd => println!(
                "  In place: {} is enabled and listening; the first hook or front end starts the gateway.",
                user_service::SOCKET_UNIT
            ),
            _ => println!("  In place: the service file is written."),
        }
        return Ok(());
    }
    if manager == Manager::Systemd
        && !state.running
        && matches!(user_service::gateway_status(&default_socket), Ok(Ok(_)))
    {
        println!(
            "  A gateway started by hand runs on {}; setup does not take its socket away.",
            shown_path(&default_socket)
        );
        tally
            .by_hand
            .push("stop the gateway you started, then run `gatehouse setup` again".into());
        return Ok(());
    }
    println!("  Installing it as a user service would:");
    for (path, done) in &state.units {
        let what = match done {
            Done::Written => "write",
            Done::Updated => "update",
            _ => "keep",
        };
        println!("    {what} {}", shown_path(path));
    }
    match manager {
        Manager::Systemd => println!(
            "    run systemctl --user daemon-reload && systemctl --user enable --now {}",
            user_service::SOCKET_UNIT
        ),
        _ => println!("    (launchd: you then run the launchctl command printed)"),
    }
    if !accepted(consent, "Install and start the gateway as a user service?")? {
        tally.not_made += 1;
        return Ok(());
    }
    for (path, done) in user_service::install_and_start(&manager)? {
        let what = match done {
            Done::Written => "written",
            Done::Updated => "updated",
            _ => "unchanged",
        };
        println!("{}: {what}", shown_path(&path));
    }
    match manager {
        Manager::Systemd => println!(
            "{} is enabled and listening: the first hook or front end starts the gateway, which stops again when idle.",
            user_service::SOCKET_UNIT
        ),
        _ => {
            tally.by_hand.push(
                "load the launchd agent with the `launchctl bootstrap` command that `gatehouse install service` prints".into(),
            );
        }
    }
    tally.made += 1;
    Ok(())
}

/// A phone: pairs one when `gatehouse web` runs, none is paired yet and the person is at a
/// terminal; else says how.
fn offer_pairing(socket: &Path, consent: Consent) {
    println!("\nA phone");
    let control = control::control_path(socket);
    let asked = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|runtime| runtime.block_on(control::request(&control, &ControlRequest::Devices)));
    match asked {
        Ok(Some(ControlReply::Devices { devices })) if !devices.is_empty() => println!(
            "  {} browser{} paired (`gatehouse web devices`); `gatehouse web pair --qr` pairs another.",
            devices.len(),
            if devices.len() == 1 { " is" } else { "s are" }
        ),
        Ok(Some(_)) => {
            let at_a_terminal = consent == Consent::Asked && std::io::stdout().is_terminal();
            if at_a_terminal && accepted(consent, "Pair a phone now?").unwrap_or(false) {
                pair(socket);
            } else {
                println!("  {WEB_RUNS_PAIRING_WORDS}");
            }
        }
        Ok(None) => println!(
            "  To answer from a phone, start `gatehouse web` (for a phone on the same network: `gatehouse web --listen 0.0.0.0:7780 --tls-self-signed`; `gatehouse web --help` says more), then run `gatehouse web pair --qr`."
        ),
        Err(error) => println!(
            "  `gatehouse web` could not be asked: {}",
            visible(&format!("{error:#}"))
        ),
    }
}

/// How to pair when `gatehouse web` runs: setup cannot tell where it listens, and on loopback
/// (its default) a phone cannot open its link, so `--qr` says how instead of drawing a code.
const WEB_RUNS_PAIRING_WORDS: &str = "`gatehouse web` runs. `gatehouse web pair` prints a link \
that pairs a browser on this machine. A phone reaches the page only when `gatehouse web` \
listens on the network (`gatehouse web --listen 0.0.0.0:7780 --tls-self-signed`, see \
`gatehouse web --help`) or through an SSH tunnel or `gatehouse remote`; then \
`gatehouse web pair --qr` draws a code to scan (on loopback it prints these ways instead).";

/// Runs `gatehouse web pair --qr` for this socket, its output the person's.
fn pair(socket: &Path) {
    let ran = std::env::current_exe().and_then(|binary| {
        std::process::Command::new(binary)
            .arg("--socket")
            .arg(socket)
            .args(["web", "pair", "--qr"])
            .status()
    });
    if !ran.is_ok_and(|status| status.success()) {
        println!("  Pairing did not work; run `gatehouse web pair --qr` to see why.");
    }
}

/// Whether a change is accepted: always with `--yes`, never without a terminal, else the
/// person's y (or yes) on stdin; anything else, or the end of stdin, is no.
fn accepted(consent: Consent, question: &str) -> anyhow::Result<bool> {
    match consent {
        Consent::Everything => Ok(true),
        Consent::Nobody => Ok(false),
        Consent::Asked => {
            print!("{question} [y/N] ");
            std::io::stdout().flush()?;
            let mut answer = String::new();
            std::io::stdin().lock().read_line(&mut answer)?;
            let answer = answer.trim();
            Ok(answer.eq_ignore_ascii_case("y") || answer.eq_ignore_ascii_case("yes"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_whose_probe_unlocks_actions_says_which_and_the_command() {
        let waiting = ["always for Bash", "Write", "plans"].map(String::from);
        let text = probe_sentence("Claude Code", "gatehouse probe claude", &waiting).unwrap();
        assert_eq!(
            text,
            "Until `gatehouse probe claude` has checked this Claude Code, these are answered only in its terminal: always for Bash, Write and plans. Run it to answer them here too."
        );
        assert!(probe_sentence("Codex", "gatehouse probe codex", &[]).is_none());
    }

    #[test]
    fn a_gateway_started_by_hand_is_said_to_run_without_a_service() {
        let running = no_service_words(
            "no systemd user manager",
            "/run/gatehouse.sock",
            Some((23760, "gatehouse serve".into())),
        );
        assert!(
            running.starts_with("A gateway runs on /run/gatehouse.sock now (pid 23760), started by gatehouse serve."),
            "{running}"
        );
        assert!(
            !running.contains("as if gatehouse were not installed"),
            "{running}"
        );
        assert!(running.contains("`gatehouse install service`"), "{running}");
        let down = no_service_words("no systemd user manager", "/run/gatehouse.sock", None);
        assert!(
            down.contains("as if gatehouse were not installed"),
            "{down}"
        );
        assert!(down.contains("`gatehouse serve`"), "{down}");
    }

    #[test]
    fn pairing_words_say_how_a_phone_reaches_a_page_on_loopback() {
        assert!(WEB_RUNS_PAIRING_WORDS.contains("--listen 0.0.0.0:7780 --tls-self-signed"));
        assert!(WEB_RUNS_PAIRING_WORDS.contains("on loopback"));
    }
}
