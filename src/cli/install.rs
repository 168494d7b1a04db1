//! `gatehouse install AGENT` and `gatehouse uninstall AGENT`: add or remove gatehouse's hooks in
//! an agent's settings, and say what changed. Where the settings are and what goes in them is the
//! adapter's business ([`gatehouse_core::kit::HookInstaller`]); this command has no code per
//! agent.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use clap::Args;
use gatehouse_core::kit::{
    HoldLimits, HookInstaller, InstallOutcome, InstallRequest, SettingsScope,
};
use gatehouse_core::text::visible;

use crate::{adapters, config};

mod replaceable;

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The agent whose settings to change.
    #[arg(value_parser = adapters::installable_ids())]
    agent: String,
    /// The settings file to change [default: the agent's own user settings, such as
    /// ~/.claude/settings.json; `gatehouse install --help` lists each agent's].
    #[arg(long, value_name = "FILE", conflicts_with = "project")]
    settings: Option<PathBuf>,
    /// Change this project's settings (such as .claude/settings.json) instead of your own.
    #[arg(long)]
    project: bool,
    /// Let gatehouse answer the agent's prompts where that changes the agent's own safety net
    /// (Gemini CLI: gatehouse's policy and a hook that decides). The price is printed first;
    /// without a terminal to confirm on, --yes is needed too.
    #[arg(long)]
    answerable: bool,
    /// With --answerable: accept the printed price without being asked (for scripts).
    #[arg(long, requires = "answerable")]
    yes: bool,
    /// For an agent that shows no dialog of its own while gatehouse holds its prompt: hold each
    /// prompt this long, then hand it to the agent's own dialog [default: the agent's, or the
    /// wait installed before; the list below gives each agent's default and longest].
    #[arg(long, value_name = "SECONDS", conflicts_with = "answerable")]
    hold: Option<u64>,
}

/// For `--help`: where each agent's settings are, and how long the agents that show nothing
/// while their hook waits are held (`--hold`).
pub fn after_help() -> String {
    let mut text = String::from("Settings, by agent:\n");
    let mut holds = String::new();
    for adapter in adapters::registry().iter() {
        let Some(installer) = adapter.installer() else {
            continue;
        };
        text.push_str(&format!(
            "  {:<8} {}\n",
            adapter.id(),
            installer.settings_described()
        ));
        if let Some(limits) = installer.hold_limits() {
            holds.push_str(&format!(
                "  {:<8} {}\n",
                adapter.id(),
                hold_described(&limits)
            ));
        }
    }
    if !holds.is_empty() {
        text.push_str(
            "\nHeld prompts, by agent (--hold SECONDS; the agent shows no dialog of its own meanwhile):\n",
        );
        text.push_str(&holds);
    }
    text
}

/// One agent's hold for `--help`, such as "60 s by default, at most 600 s".
fn hold_described(limits: &HoldLimits) -> String {
    match limits.why_fixed {
        Some(_) => format!(
            "{} s when answerable, fixed (not --hold)",
            limits.default_seconds
        ),
        None => format!(
            "{} s by default, at most {} s",
            limits.default_seconds, limits.max_seconds
        ),
    }
}

impl InstallArgs {
    fn installer_and_path(
        &self,
    ) -> anyhow::Result<(std::sync::Arc<dyn gatehouse_core::Adapter>, PathBuf)> {
        let adapter = adapters::registry()
            .get(&self.agent)
            .filter(|adapter| adapter.installer().is_some())
            .ok_or_else(|| anyhow!("gatehouse cannot install hooks for `{}`", self.agent))?;
        let scope = match (&self.settings, self.project) {
            (Some(path), _) => SettingsScope::File(path.clone()),
            (None, true) => SettingsScope::Project(
                std::env::current_dir().context("cannot tell the current folder")?,
            ),
            (None, false) => SettingsScope::User,
        };
        let installer = adapter.installer().expect("filtered above");
        let path = installer
            .settings_path(&scope)
            .map_err(|error| anyhow!("{error}; pass --settings FILE"))?;
        Ok((adapter.clone(), path))
    }
}

/// The gatehouse binary that the hooks run.
fn this_binary() -> anyhow::Result<PathBuf> {
    std::env::current_exe()
        .and_then(|path| path.canonicalize())
        .context("cannot tell where the gatehouse binary is, so the hook command cannot be written")
}

fn installer_of(adapter: &dyn gatehouse_core::Adapter) -> &dyn HookInstaller {
    adapter
        .installer()
        .expect("only installable adapters are accepted")
}

/// What `install` asks an installer for the settings file `settings`: hooks that run this
/// binary, with the configured wait. `gatehouse setup` and `doctor` ask the same.
pub fn request_for(settings: PathBuf) -> anyhow::Result<InstallRequest> {
    let hook = config::load()?.hook;
    Ok(InstallRequest {
        settings,
        program: this_binary()?,
        hold_seconds: hook.wait_seconds,
        timeout_margin_seconds: config::HOOK_TIMEOUT_MARGIN_SECONDS,
    })
}

/// What to do when another user could replace the program a hook would run.
pub const MOVE_TO_A_PRIVATE_FOLDER: &str =
    "move gatehouse and gatehouse-hook to a folder only you can write, e.g. ~/.cargo/bin, and run `gatehouse install` from there";

/// Why another user could replace a program the hooks of `program` run (`program` itself, and
/// the `gatehouse-hook` beside it that `install` writes where it is there), naming the file or
/// folder; `None` when only the person and root can.
pub fn hook_program_replaceable(program: &std::path::Path) -> Option<String> {
    let beside = program.with_file_name("gatehouse-hook");
    let beside = (beside != program && beside.exists()).then_some(beside);
    std::iter::once(program)
        .chain(beside.as_deref())
        .find_map(replaceable::why_others_could_replace)
        .map(|why| format!("another user could replace the program the hooks run: {why}"))
}

pub fn install(arguments: InstallArgs) -> anyhow::Result<ExitCode> {
    let (adapter, settings) = arguments.installer_and_path()?;
    let request = request_for(settings)?;
    if let Some(why) = hook_program_replaceable(&request.program) {
        bail!("{why}; nothing was changed: {MOVE_TO_A_PRIVATE_FOLDER}");
    }
    let installer = installer_of(adapter.as_ref());
    if arguments.hold.is_some() && installer.hold_limits().is_none() {
        bail!(
            "{} shows its own prompt while gatehouse holds one (or is only watched), so --hold does not apply; drop it (hook.wait_seconds in gatehouse's config sets how long such a prompt is held); `gatehouse install --help` lists the agents --hold is for",
            visible(adapter.name())
        );
    }
    let outcome = if arguments.answerable {
        let Some(price) = installer.answerable_price() else {
            bail!(
                "{} has no answerable install: `gatehouse install {}` is all there is",
                adapter.name(),
                arguments.agent
            );
        };
        println!("{}", visible(price));
        if !arguments.yes && !accepted_in_terminal()? {
            println!("Nothing was changed.");
            return Ok(ExitCode::from(1));
        }
        installer.install_answerable(&request)
    } else if let Some(hold) = arguments.hold {
        installer.install_holding(&request, hold)
    } else {
        installer.install(&request)
    }
    .map_err(|error| anyhow!("{error}"))?;
    print_outcome(&outcome, "installed");
    println!(
        "Start the gateway with `gatehouse serve`; without it, {} behaves as if gatehouse were not installed.",
        visible(adapter.name())
    );
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall(arguments: InstallArgs) -> anyhow::Result<ExitCode> {
    let (adapter, settings) = arguments.installer_and_path()?;
    let outcome = installer_of(adapter.as_ref())
        .uninstall(&settings)
        .map_err(|error| anyhow!("{error}"))?;
    print_outcome(&outcome, "uninstalled");
    Ok(ExitCode::SUCCESS)
}

/// Asks the person, on the terminal, to accept the price just printed. Without a terminal
/// (a script, a pipe) nobody could have read it: refused, with what to add.
fn accepted_in_terminal() -> anyhow::Result<bool> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        bail!("--answerable changes what the agent does when gatehouse's hook fails; with no terminal to confirm on, pass --yes to accept the price printed above");
    }
    print!("Type yes to accept this: ");
    std::io::stdout().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(answer.trim().eq_ignore_ascii_case("yes"))
}

/// Prints what changed, where the backup is, and the installer's notes, each through
/// [`visible`]: a path (a project folder, a HOME) may hold terminal escapes.
pub fn print_outcome(outcome: &InstallOutcome, what: &str) {
    print_changes(outcome, what);
    for note in &outcome.notes {
        println!("{}", visible(note));
    }
}

/// Prints what changed and where the backup is, without the notes, through [`visible`].
pub fn print_changes(outcome: &InstallOutcome, what: &str) {
    let path = outcome.path.display().to_string();
    if outcome.changes.is_empty() {
        println!(
            "{}: nothing to change; gatehouse is already {what} there.",
            visible(&path)
        );
    } else {
        println!("{}:", visible(&path));
        for change in &outcome.changes {
            println!("  {}", visible(change));
        }
        if let Some(backup) = &outcome.backup {
            println!(
                "The previous settings are saved in {}.",
                visible(&backup.display().to_string())
            );
        }
    }
}
