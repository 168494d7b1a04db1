//! The hook as a command, whichever executable runs it: `gatehouse hook AGENT [EVENT]` (the
//! `gatehouse` binary parses its words) and `gatehouse-hook AGENT [EVENT]` (the small executable
//! that `gatehouse install` names in agents' settings, which parses them with [`words`]). Both
//! bring the adapter registry; everything else is here: the settings and the spool, and making
//! sure that nothing (words that do not parse, a panic, an error) ever ends the hook with
//! anything but exit 0, nothing on stdout but a verdict or the adapter's "no verdict" output,
//! and one line on stderr.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gatehouse_core::{AdapterRegistry, WithoutVerdict};
use gatehouse_host_ipc::spool::Spool;

use crate::output::say;
use crate::without_verdict::{self, without_verdict_of};
use crate::HookFailure;

/// Runs the hook of `agent` (from `registry`) for `event_name`, with the socket `socket_flag`
/// if given.
pub fn run(
    registry: &AdapterRegistry,
    socket_flag: Option<&Path>,
    agent: &str,
    event_name: Option<&str>,
) -> Result<(), HookFailure> {
    // Tests check that a panic anywhere still leaves the agent alone; release builds lack this.
    #[cfg(debug_assertions)]
    if std::env::var_os("GATEHOUSE_TEST_PANIC_IN_HOOK").is_some() {
        panic!("GATEHOUSE_TEST_PANIC_IN_HOOK is set");
    }
    let adapter = registry.get(agent).ok_or_else(|| {
        HookFailure::Settings(format!(
            "unknown agent `{agent}` (known: {})",
            registry.ids().collect::<Vec<_>>().join(", ")
        ))
    })?;
    crate::handle(
        adapter.as_ref(),
        event_name,
        |event| crate::settings::for_event(socket_flag, event),
        spool(),
    )
}

/// Runs the hook and says its failure, if any, in one line on stderr.
pub fn run_and_say(
    registry: &AdapterRegistry,
    socket_flag: Option<&Path>,
    agent: &str,
    event_name: Option<&str>,
) {
    if let Err(reason) = run(registry, socket_flag, agent, event_name) {
        say(&format!(
            "gatehouse hook {agent}: {reason}; leaving this to the agent"
        ));
    }
}

/// Runs `hook` so that nothing ends it with anything but exit 0: a panic is said on stderr, and
/// `without_verdict` (the adapter's "no verdict" output, known from the command line before
/// anything can fail) is printed unless a verdict was, with its guards started first.
pub fn never_failing(without_verdict: Option<WithoutVerdict>, hook: impl FnOnce()) -> ExitCode {
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
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(hook));
    if let Some(without_verdict) = without_verdict {
        // Printed only if no verdict was: the one place every path without a verdict ends.
        without_verdict::print_unless_answered(without_verdict);
    }
    ExitCode::SUCCESS
}

/// Says that the hook's command line does not parse (`problem`), in one line on stderr.
pub fn say_unparsed(problem: &str) {
    say(&format!("gatehouse hook: {problem}; leaving this to the agent (check the hook's command in the agent's settings)"));
}

/// For a command line that does not parse (a hand-written hook command with a stray word, an
/// empty `--socket`, a swallowed word): the "no verdict" output of an agent named among its words
/// for an event named after it, if any. An agent that reads silence as an approval still gets
/// its answer.
pub fn without_verdict_of_words(
    registry: &AdapterRegistry,
    words: &[OsString],
) -> Option<WithoutVerdict> {
    let words: Vec<&str> = words.iter().filter_map(|word| word.to_str()).collect();
    words.iter().enumerate().find_map(|(position, word)| {
        let adapter = registry.get(word)?;
        words[position + 1..]
            .iter()
            .map(|event| Some(*event))
            .chain([None])
            .find_map(|event| without_verdict_of(adapter.as_ref(), event))
    })
}

/// The spool: `$XDG_STATE_HOME/gatehouse/spool.jsonl`, or `~/.local/state/gatehouse/spool.jsonl`;
/// its folders are made only below that home, which must exist (a hook that outlives a removed
/// home, say, as when a test's private home is cleaned up), so that the hook never makes a home
/// of its own.
pub fn spool() -> Option<Spool> {
    let home = std::env::var_os("XDG_STATE_HOME")
        .filter(|folder| !folder.is_empty())
        .or_else(|| std::env::var_os("HOME"))
        .map(PathBuf::from)
        .filter(|folder| folder.is_dir())?;
    let path = gatehouse_host_ipc::socket::state_dir()?.join("spool.jsonl");
    Some(Spool::below(home, path))
}

/// `gatehouse-hook`'s words, after its own name: `[--socket PATH] AGENT [EVENT]`. A leading
/// `hook` is allowed too, so that `gatehouse-hook` can stand in for `gatehouse` in a command
/// written by hand.
pub mod words {
    use std::ffi::OsString;
    use std::path::PathBuf;

    /// What the words ask for.
    #[derive(Debug, PartialEq, Eq)]
    pub enum Asked {
        /// Run the hook of `agent` for `event` (when the agent's input does not name it).
        Hook {
            socket: Option<PathBuf>,
            agent: String,
            event: Option<String>,
        },
        /// A person asked for the usage (`--help`) or the version (`--version`).
        Help,
        Version,
    }

    /// The usage, for `--help` and for words that do not parse.
    pub const USAGE: &str = "Usage: gatehouse-hook [--socket PATH] AGENT [EVENT]\n\nWhat an agent runs for each hook event (the same as `gatehouse hook AGENT [EVENT]`): the\nevent on stdin, a verdict, if any, on stdout in the agent's format. `gatehouse install AGENT`\nwrites it into the agent's settings.\n";

    /// Reads `words` (the program's name first); the error says what is wrong in a few words.
    pub fn parse(words: &[OsString]) -> Result<Asked, String> {
        let mut socket = None;
        let mut positional = Vec::new();
        let mut words = words.iter().skip(1);
        while let Some(word) = words.next() {
            let text = word
                .to_str()
                .ok_or_else(|| format!("the word {word:?} is not UTF-8"))?;
            match text {
                "-h" | "--help" => return Ok(Asked::Help),
                "-V" | "--version" => return Ok(Asked::Version),
                "--socket" => {
                    let path = words
                        .next()
                        .filter(|path| !path.is_empty())
                        .ok_or("--socket needs a path")?;
                    socket = Some(PathBuf::from(path));
                }
                flag if flag.starts_with("--socket=") => {
                    let path = &flag["--socket=".len()..];
                    if path.is_empty() {
                        return Err("--socket needs a path".into());
                    }
                    socket = Some(PathBuf::from(path));
                }
                flag if flag.starts_with('-') => {
                    return Err(format!("unexpected argument '{flag}'"));
                }
                word => positional.push(word.to_owned()),
            }
        }
        if positional.first().is_some_and(|word| word == "hook") {
            positional.remove(0);
        }
        let mut positional = positional.into_iter();
        let agent = positional.next().ok_or("the agent is missing")?;
        let event = positional.next();
        if let Some(extra) = positional.next() {
            return Err(format!("unexpected argument '{extra}'"));
        }
        Ok(Asked::Hook {
            socket,
            agent,
            event,
        })
    }
}

/// `gatehouse-hook`'s whole run, given its words and the adapter registry. Its executable skips
/// Rust's runtime start (`#![no_main]`: the stack overflow guard alone reads and parses
/// `/proc/self/maps`, several system calls on every tool call), so this does first what of it
/// the hook needs ([`as_rust_starts`]), and flushes stdout last.
pub fn main(words: &[OsString], registry: fn() -> AdapterRegistry) -> ExitCode {
    use std::io::Write;
    as_rust_starts();
    // An empty GATEHOUSE_SOCKET means "not set", as for every other variable gatehouse reads.
    if std::env::var_os(gatehouse_host_ipc::socket::SOCKET_ENV)
        .is_some_and(|value| value.is_empty())
    {
        // SAFETY: called first in `main`: no other thread runs yet to read the environment.
        unsafe { std::env::remove_var(gatehouse_host_ipc::socket::SOCKET_ENV) };
    }
    let registry = registry();
    let asked = words::parse(words);
    let without_verdict = match &asked {
        Ok(words::Asked::Hook { agent, event, .. }) => registry
            .get(agent)
            .and_then(|adapter| without_verdict_of(adapter.as_ref(), event.as_deref())),
        Ok(_) => None,
        Err(_) => without_verdict_of_words(&registry, words),
    };
    let code = never_failing(without_verdict, || match asked {
        Ok(words::Asked::Hook {
            socket,
            agent,
            event,
        }) => run_and_say(&registry, socket.as_deref(), &agent, event.as_deref()),
        // A person asked; the agent never does. Still nothing on stdout.
        Ok(words::Asked::Help) => {
            let _ = write!(std::io::stderr(), "{}", words::USAGE);
        }
        Ok(words::Asked::Version) => {
            let _ = writeln!(
                std::io::stderr(),
                "gatehouse-hook {}",
                env!("CARGO_PKG_VERSION")
            );
        }
        Err(problem) => say_unparsed(&problem),
    });
    let _ = std::io::stdout().flush();
    code
}

/// What Rust's runtime does before `main` that the hook relies on: standard input, output and
/// error are open (a closed one is opened on `/dev/null`, so that no socket the hook opens
/// becomes its stdout), and SIGPIPE is ignored (a write to a closed pipe fails as an error
/// instead of ending the hook by a signal, which the agent would read as a failure).
fn as_rust_starts() {
    let mut standard = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: three pollfds owned here; a zero timeout returns at once.
    let polled = loop {
        let polled = unsafe { libc::poll(standard.as_mut_ptr(), 3, 0) };
        if polled != -1 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            break polled;
        }
    };
    for entry in &standard {
        let closed = if polled == -1 {
            // SAFETY: fcntl only asks whether the descriptor is open.
            (unsafe { libc::fcntl(entry.fd, libc::F_GETFD) }) == -1
        } else {
            entry.revents & libc::POLLNVAL != 0
        };
        // SAFETY: open on a constant path; the lowest free descriptor, this one, is taken.
        if closed && unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
            std::process::abort();
        }
    }
    // SAFETY: sets the disposition of one signal before any other thread runs.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

#[cfg(test)]
mod tests {
    use super::words::{parse, Asked};
    use std::ffi::OsString;

    fn parsed(line: &str) -> Result<Asked, String> {
        let words: Vec<OsString> = line.split(' ').map(OsString::from).collect();
        parse(&words)
    }

    fn hook(socket: Option<&str>, agent: &str, event: Option<&str>) -> Asked {
        Asked::Hook {
            socket: socket.map(Into::into),
            agent: agent.into(),
            event: event.map(Into::into),
        }
    }

    #[test]
    fn the_words_name_the_agent_its_event_and_the_socket() {
        assert_eq!(
            parsed("gatehouse-hook claude"),
            Ok(hook(None, "claude", None))
        );
        assert_eq!(
            parsed("gatehouse-hook copilot permissionRequest"),
            Ok(hook(None, "copilot", Some("permissionRequest")))
        );
        assert_eq!(
            parsed("gatehouse-hook --socket /s claude"),
            Ok(hook(Some("/s"), "claude", None))
        );
        assert_eq!(
            parsed("gatehouse-hook --socket=/s hook gemini BeforeTool"),
            Ok(hook(Some("/s"), "gemini", Some("BeforeTool")))
        );
        assert_eq!(parsed("gatehouse-hook --help"), Ok(Asked::Help));
        assert_eq!(parsed("gatehouse-hook claude -V"), Ok(Asked::Version));
    }

    #[test]
    fn words_that_do_not_parse_say_why() {
        for line in [
            "gatehouse-hook",
            "gatehouse-hook hook",
            "gatehouse-hook claude extra more",
            "gatehouse-hook claude --bogus",
            "gatehouse-hook --socket",
            "gatehouse-hook --socket= claude",
        ] {
            assert!(parsed(line).is_err(), "{line}");
        }
    }
}
