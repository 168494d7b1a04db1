//! `gatehouse hook AGENT`: the hook, as `gatehouse`'s subcommand (settings written before
//! `gatehouse-hook` existed name it; `gatehouse install` writes `gatehouse-hook` now). The words
//! are clap's here; everything else is `gatehouse_hook::command`, which `gatehouse-hook` runs
//! too: nothing (arguments that do not parse, a panic, an error) ever ends the hook with anything
//! but exit 0, nothing on stdout but a verdict or the adapter's "no verdict" output, and one line
//! on stderr.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_hook::command::{never_failing, say_unparsed, without_verdict_of_words};
use gatehouse_hook::output::say;
use gatehouse_hook::without_verdict::without_verdict_of;

use crate::adapters;

pub fn run(socket_flag: Option<PathBuf>, agent: &str, event_name: Option<&str>) -> ExitCode {
    gatehouse_hook::command::run_and_say(
        &adapters::registry(),
        socket_flag.as_deref(),
        agent,
        event_name,
    );
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
        Err(_) => without_verdict_of_words(&adapters::registry(), words),
    };
    never_failing(without_verdict, || match parsed {
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
            say_unparsed(problem);
        }
    })
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
            let output =
                without_verdict_of_words(&adapters::registry(), &words).map(|answer| answer.output);
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
            assert_eq!(
                without_verdict_of_words(&adapters::registry(), &words(line)),
                None,
                "{line}"
            );
        }
    }
}
