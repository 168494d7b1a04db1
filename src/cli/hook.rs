//! `gatehouse hook AGENT`: the wiring of the hook (`gatehouse_hook`). It finds the agent's
//! adapter in the registry, the settings and the spool, and makes sure that nothing (arguments
//! that do not parse, a panic, an error) ever ends the hook with anything but exit 0, nothing
//! on stdout but a verdict or the adapter's "no verdict" output, and one line on stderr.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_core::HookEvent;
use gatehouse_hook::output::say;
use gatehouse_hook::without_verdict::{self, without_verdict_of};
use gatehouse_hook::{HookFailure, HookSettings};
use gatehouse_host_ipc::spool::Spool;

use crate::{adapters, config};

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
pub fn run_never_failing(
    parsed: Result<crate::cli::Cli, clap::Error>,
    words: &[OsString],
) -> ExitCode {
    // Known from the command line before anything can fail: what to print without a verdict.
    let without_verdict = match &parsed {
        Ok(cli) => cli.hook_target().and_then(|(agent, event)| {
            without_verdict_of(adapters::registry().get(agent)?.as_ref(), event)
        }),
        Err(_) => without_verdict_of_words(words),
    };
    if let Some(without_verdict) = without_verdict {
        // First, before any other thread starts: they inherit the blocked signals.
        without_verdict::guard(without_verdict);
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
        without_verdict::print_unless_answered(without_verdict);
    }
    ExitCode::SUCCESS
}

/// For a command line that does not parse (a hand-written hook command with a stray word, an
/// empty `--socket`, a swallowed word): the "no verdict" output of an agent named among its words
/// for an event named after it, if any. An agent that reads silence as an approval still gets
/// its answer.
fn without_verdict_of_words(words: &[OsString]) -> Option<gatehouse_core::WithoutVerdict> {
    let words: Vec<&str> = words.iter().filter_map(|word| word.to_str()).collect();
    let registry = adapters::registry();
    words.iter().enumerate().find_map(|(position, word)| {
        let adapter = registry.get(word)?;
        words[position + 1..]
            .iter()
            .map(|event| Some(*event))
            .chain([None])
            .find_map(|event| without_verdict_of(adapter.as_ref(), event))
    })
}

fn handle(
    socket_flag: Option<PathBuf>,
    agent: &str,
    event_name: Option<&str>,
) -> Result<(), HookFailure> {
    // Tests check that a panic anywhere still leaves the agent alone; release builds lack this.
    #[cfg(debug_assertions)]
    if std::env::var_os("GATEHOUSE_TEST_PANIC_IN_HOOK").is_some() {
        panic!("GATEHOUSE_TEST_PANIC_IN_HOOK is set");
    }
    let registry = adapters::registry();
    let adapter = registry.get(agent).ok_or_else(|| {
        HookFailure::Settings(format!(
            "unknown agent `{agent}` (known: {})",
            registry.ids().collect::<Vec<_>>().join(", ")
        ))
    })?;
    let settings = |event: &HookEvent| {
        // Only a prompt needs the config (for its wait); the socket may come from the flag.
        let settings = match (&socket_flag, event) {
            (Some(_), HookEvent::Observe(_)) => config::Config::default(),
            _ => config::load().map_err(|error| format!("{error:#}"))?,
        };
        Ok(HookSettings {
            socket: socket_flag
                .clone()
                .or(settings.socket)
                .unwrap_or_else(gatehouse_host_ipc::socket::default_socket_path),
            wait: settings.hook.wait(),
        })
    };
    gatehouse_hook::handle(adapter.as_ref(), event_name, settings, spool())
}

/// The spool: `$XDG_STATE_HOME/gatehouse/spool.jsonl`, or `~/.local/state/gatehouse/spool.jsonl`;
/// its folders are made only below that home, which must exist (a hook that outlives a removed
/// home, say, as when a test's private home is cleaned up), so that the hook never makes a home
/// of its own.
fn spool() -> Option<Spool> {
    let home = std::env::var_os("XDG_STATE_HOME")
        .filter(|folder| !folder.is_empty())
        .or_else(|| std::env::var_os("HOME"))
        .map(PathBuf::from)
        .filter(|folder| folder.is_dir())?;
    let path = crate::config::state_dir()?.join("spool.jsonl");
    Some(Spool::below(home, path))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    /// Gemini's `BeforeTool` hook answers `ask` even when its command line does not parse (found
    /// by the attacker's review: each of these printed nothing, which Gemini runs unasked).
    #[test]
    fn a_gemini_hook_command_that_does_not_parse_still_has_its_no_verdict_output() {
        for line in [
            "gatehouse --socket hook gemini BeforeTool",
            "gatehouse hook gemini BeforeTool extra",
            "gatehouse hook gemini BeforeTool --bogus",
            "gatehouse -V hook gemini BeforeTool",
        ] {
            let words = words(line);
            assert!(crate::cli::Cli::try_parse_from(&words).is_err(), "{line}");
            assert!(may_be_a_hook(&words), "{line}");
            let output = without_verdict_of_words(&words).map(|answer| answer.output);
            assert_eq!(output, Some(r#"{"decision":"ask"}"#), "{line}");
        }
    }

    #[test]
    fn other_agents_and_events_have_no_no_verdict_output() {
        for line in [
            "gatehouse --socket hook claude",
            "gatehouse hook gemini AfterTool extra",
            "gatehouse hook codex BeforeTool --bogus",
        ] {
            assert_eq!(without_verdict_of_words(&words(line)), None, "{line}");
        }
    }
}
