//! Which agent executable is in use, and its version as it prints it: what every probe and every
//! per-version capability check asks. The agent's own output format is the caller's (a parse
//! function); finding the executable, running `--version` with a deadline, and walking up the
//! process tree to the agent that runs a hook are the same for every agent.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest `--version` may take. A Node agent's `--version` took over 10 s on a busy 2-core
/// machine, which made a probe fail for no fault of the agent's.
const VERSION_DEADLINE: Duration = Duration::from_secs(30);

/// The most of `--version`'s stderr that is kept to read a version from.
const VERSION_OUTPUT_BYTES: u64 = 64 * 1024;

/// How many ancestors of a hook are looked at for the agent that runs it.
const ANCESTORS_LOOKED_AT: usize = 4;

/// Why an agent's version could not be told.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum VersionError {
    #[error("no `{program}` was found on PATH; install it, or name the executable with --executable PATH")]
    NotFound { program: &'static str },
    #[error("`{program} --version` could not run: {problem}; check that it works in a terminal")]
    CannotRun { program: PathBuf, problem: String },
    #[error("`{program} --version` printed {output:?}, which does not name a version this adapter knows")]
    Unrecognised { program: PathBuf, output: String },
    #[error("the `{program}` that runs this hook cannot be told: {problem}")]
    NotIdentified {
        program: &'static str,
        problem: String,
    },
    /// Why a hook could not tell its agent's version, as it reported it (the gateway applies
    /// the unlock rule to what hooks report).
    #[error("{0}")]
    Reported(String),
}

/// Runs `program --version` (within [`VERSION_DEADLINE`]) and reads the version from its output
/// with `parse`: its stdout, else its stderr (pi 0.73.1 prints its version there, and nothing on
/// stdout).
pub fn version_of(
    program: &Path,
    parse: fn(&str) -> Option<String>,
) -> Result<String, VersionError> {
    let cannot_run = |problem: String| VersionError::CannotRun {
        program: program.to_path_buf(),
        problem,
    };
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| cannot_run(error.to_string()))?;
    // Read meanwhile, so that a chatty stderr never fills its pipe and stalls the program.
    let stderr = child.stderr.take().map(|stderr| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut stderr = stderr;
            let _ = (&mut stderr)
                .take(VERSION_OUTPUT_BYTES)
                .read_to_end(&mut kept);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            String::from_utf8_lossy(&kept).into_owned()
        })
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|error| cannot_run(error.to_string()))?
        {
            break status;
        }
        if started.elapsed() > VERSION_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Err(cannot_run(format!(
                "it did not finish within {VERSION_DEADLINE:?}"
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut output = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut output);
    }
    let stderr = stderr
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default();
    if !status.success() {
        return Err(cannot_run(format!("it exited with {status}")));
    }
    let printed = if output.trim().is_empty() {
        stderr
    } else {
        output
    };
    parse(&printed).ok_or_else(|| VersionError::Unrecognised {
        program: program.to_path_buf(),
        output: printed.trim().to_owned(),
    })
}

/// The executable called `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|folder| folder.join(name))
        .find(|candidate| candidate.is_file())
}

/// The installed executable called `name`: the one on `PATH`, else `probed` (the one the last
/// probe checked; a gateway started by a service manager may have a shorter `PATH`).
pub fn installed(name: &str, probed: Option<&Path>) -> Option<PathBuf> {
    find_on_path(name).or_else(|| probed.filter(|path| path.is_file()).map(Path::to_path_buf))
}

/// The process id and executable of the nearest of this process's first few ancestors whose
/// executable is called `name`: the agent that runs this hook. Only Linux tells this (through
/// `/proc`); elsewhere, and when no ancestor is the agent, it is `None`.
pub fn running_ancestor(name: &str) -> Option<(u32, PathBuf)> {
    let mut found = None;
    nearest_ancestor(|pid| {
        let executable = executable_of(pid)?;
        let is_it = executable.file_name().is_some_and(|file| file == name);
        if is_it {
            found = Some((pid, executable));
        }
        Some(is_it)
    });
    found
}

/// The process ids of this process's first few ancestors, nearest first (the parent first),
/// through `/proc`; empty where there is none.
pub fn ancestors() -> Vec<u32> {
    let mut found = Vec::new();
    nearest_ancestor(|pid| {
        found.push(pid);
        Some(false)
    });
    found
}

/// The nearest of this process's first [`ANCESTORS_LOOKED_AT`] ancestors for which `is_it`
/// says `Some(true)`; `None` from it stops the walk there. One process at a time, so that the
/// walk stops as soon as it is found (most often at the parent, or the one above a shell): the
/// parent from `getppid`, then each one's parent from its `stat` only when it was not the one.
fn nearest_ancestor(mut is_it: impl FnMut(u32) -> Option<bool>) -> Option<u32> {
    let mut pid = Some(std::os::unix::process::parent_id()).filter(|pid| *pid > 1)?;
    for looked_at in 1..=ANCESTORS_LOOKED_AT {
        if is_it(pid)? {
            return Some(pid);
        }
        if looked_at == ANCESTORS_LOOKED_AT {
            break;
        }
        pid = parent_of(pid)?;
    }
    None
}

/// The executable process `pid` runs (`/proc/<pid>/exe`).
fn executable_of(pid: u32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok()
}

/// The most of a `/proc/<pid>/stat` line that is read: its parent id comes within the first
/// 60 bytes or so (the command name is at most 64 bytes), and the whole line is rarely over 400.
const STAT_BYTES: usize = 1024;

/// The parent process id of process `pid`, from its `stat` line, read in one read (the kernel
/// writes the whole line at once; a longer one is cut where the parent id was read long before).
fn parent_of(pid: u32) -> Option<u32> {
    use std::io::ErrorKind;
    let mut file = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
    let mut stat = [0_u8; STAT_BYTES];
    let read = loop {
        match file.read(&mut stat) {
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            read => break read.ok()?,
        }
    };
    parent_in_stat(&stat[..read])
}

/// The parent id in a `stat` line: the second field after the command name, which is in
/// parentheses and may hold anything (spaces, parentheses, bytes that are not UTF-8) but its
/// last `)`. Ids up to 1 are not parents worth looking at (none, or init).
fn parent_in_stat(stat: &[u8]) -> Option<u32> {
    let after_name = stat.iter().rposition(|&byte| byte == b')')? + 1;
    std::str::from_utf8(&stat[after_name..])
        .ok()?
        .split_ascii_whitespace()
        .nth(1)?
        .parse()
        .ok()
        .filter(|pid| *pid > 1)
}

/// How to tell which agent executable runs a hook, and its version: what each adapter says of
/// its agent, so that finding it is done here once for every agent.
#[derive(Debug, Clone, Copy)]
pub struct AgentExecutable {
    /// The command's name on `PATH`, such as `copilot`.
    pub program: &'static str,
    /// The file names the agent's executable may have among the hook's ancestors.
    pub names: &'static [&'static str],
    /// A variable in which the agent gives its hooks its own process id (`CLAUDE_PID`).
    pub pid_variable: Option<&'static str>,
    /// A variable in which the agent gives its hooks its own version
    /// (`COPILOT_CLI_BINARY_VERSION`): when set, no program is run to learn it.
    pub version_variable: Option<&'static str>,
    /// Whether the installed executable (on `PATH`, else the probed one) is asked when no
    /// ancestor of the hook is the agent. Where processes cannot be looked at (no `/proc`), it
    /// always is.
    pub installed_if_not_running: bool,
    /// Reads the version from what `--version` prints.
    pub parse: fn(&str) -> Option<String>,
}

impl AgentExecutable {
    /// The error when no executable of this agent can be found.
    pub fn not_found(&self) -> VersionError {
        VersionError::NotFound {
            program: self.program,
        }
    }

    /// Runs `program --version` and reads the version with this agent's parser.
    pub fn version_of(&self, program: &Path) -> Result<String, VersionError> {
        version_of(program, self.parse)
    }

    /// The agent's command on `PATH`.
    pub fn find_on_path(&self) -> Option<PathBuf> {
        find_on_path(self.program)
    }

    /// The installed agent: the one on `PATH`, else `probed` (see [`installed`]).
    pub fn installed(&self, probed: Option<&Path>) -> Option<PathBuf> {
        installed(self.program, probed)
    }

    /// The process id and executable of the agent that runs this hook, when the process tree
    /// tells (see [`running_ancestor`]).
    pub fn running_process(&self) -> Option<(u32, PathBuf)> {
        running_ancestor(self.program)
    }
}

/// What a hook found of the agent that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningAgent {
    /// The program whose version was asked (or that runs the hook), when known.
    pub executable: Option<PathBuf>,
    pub version: Result<String, VersionError>,
}

/// The executables that run an agent written as a script, rather than being it.
const INTERPRETERS: [&str; 7] = ["sh", "bash", "dash", "zsh", "node", "nodejs", "bun"];

/// The longest version a variable may name; anything longer, or with characters no version
/// has, is not taken.
const VERSION_MAX_CHARS: usize = 64;

/// Which agent runs this hook, and its version: from the agent's version variable when it sets
/// one; else `--version` of the program that runs the hook (an answer kept in `cache`, a file,
/// per executable file, so that it runs once per agent version rather than once per prompt);
/// else, as `agent` allows, of the installed one (`probed`: the executable the last probe
/// checked, when none is on `PATH`).
pub fn running_agent(
    agent: &AgentExecutable,
    probed: Option<&Path>,
    cache: Option<&Path>,
) -> RunningAgent {
    if let Some(version) = agent
        .version_variable
        .and_then(|name| std::env::var(name).ok())
        .filter(|version| looks_like_a_version(version))
    {
        return RunningAgent {
            executable: None,
            version: Ok(version),
        };
    }
    let program = match running_program(agent) {
        Ok(Some(program)) => program,
        Ok(None) => match installed(agent.program, probed) {
            Some(program) => program,
            None => {
                return RunningAgent {
                    executable: None,
                    version: Err(VersionError::NotFound {
                        program: agent.program,
                    }),
                }
            }
        },
        Err(problem) => {
            return RunningAgent {
                executable: None,
                version: Err(problem),
            }
        }
    };
    let version = version_of_cached(&program, agent.parse, cache);
    RunningAgent {
        executable: Some(program),
        version,
    }
}

/// The version in what an agent's `--version` prints when it prints its version alone: the
/// first line, when that is one word that may be a version (see below); as Gemini CLI and
/// OpenCode do.
pub fn first_line_version(output: &str) -> Option<String> {
    let line = output.lines().next()?.trim();
    looks_like_a_version(line).then(|| line.to_owned())
}

/// The version in what an agent's `--version` prints as a line that names the agent: the last
/// word of the first line without a final full stop (such as `0.171.0` in `codex-cli 0.171.0`,
/// `1.0.102` in `GitHub Copilot CLI 1.0.102.`), when `names_the_agent` holds for the line and
/// the word starts with a digit.
pub fn last_word_version(output: &str, names_the_agent: impl Fn(&str) -> bool) -> Option<String> {
    let line = output.lines().next()?;
    let word = line.split_whitespace().last()?.trim_end_matches('.');
    (names_the_agent(line) && word.starts_with(|character: char| character.is_ascii_digit()))
        .then(|| word.to_owned())
}

/// Whether `text` may be a version: short, starting with a digit, of digits, letters, `.`,
/// `-` and `+` only.
fn looks_like_a_version(text: &str) -> bool {
    text.len() <= VERSION_MAX_CHARS
        && text.starts_with(|character: char| character.is_ascii_digit())
        && text
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || ".-+".contains(character))
}

/// The program to ask for the version of the agent that runs this hook: `Ok(None)` when the
/// installed one is to be asked instead (no `/proc`, or no ancestor is the agent and `agent`
/// allows that), an error when no ancestor is the agent and it does not. Each ancestor is
/// looked at (its id against the agent's variable, its executable's name) before the next is
/// read; whether there is a `/proc` at all is asked only when that finds nothing.
fn running_program(agent: &AgentExecutable) -> Result<Option<PathBuf>, VersionError> {
    let named = agent
        .pid_variable
        .and_then(|name| std::env::var(name).ok())
        .and_then(|pid| pid.trim().parse::<u32>().ok());
    // The executable of the last one looked at, when it was read to tell whether it is the
    // agent (not when the agent's variable named it).
    let mut executable = None;
    let found = nearest_ancestor(|pid| {
        if Some(pid) == named {
            executable = None;
            return Some(true);
        }
        executable = executable_of(pid);
        Some(
            executable
                .as_deref()
                .and_then(Path::file_name)
                .is_some_and(|name| agent.names.iter().any(|known| name == *known)),
        )
    });
    let no_proc = || !Path::new("/proc/self/stat").exists();
    let not_identified = |problem: String| VersionError::NotIdentified {
        program: agent.program,
        problem,
    };
    let Some(pid) = found else {
        if agent.installed_if_not_running || no_proc() {
            return Ok(None);
        }
        let variable = agent
            .pid_variable
            .unwrap_or("the agent's process id variable");
        return Err(not_identified(match named {
            Some(pid) => format!(
                "{variable} names process {pid}, which did not start this hook, and no process that did is `{}`",
                agent.program
            ),
            None => format!(
                "{variable} is not set, and no process that started this hook is `{}`",
                agent.program
            ),
        }));
    };
    let program = match executable {
        Some(executable) => program_running(pid, executable),
        None => program_of(pid),
    };
    match program {
        Some(program) => Ok(Some(program)),
        // The agent's variable named the parent, but processes cannot be looked at here.
        None if no_proc() => Ok(None),
        None => Err(not_identified(format!(
            "the executable of process {pid} cannot be read"
        ))),
    }
}

/// What to run as `--version` for process `pid`: its executable (`/proc/<pid>/exe`, the very
/// file it runs, even if an update has since replaced it on disk), or, when that is a script's
/// interpreter, the script it runs (its first argument that is not an option).
pub fn program_of(pid: u32) -> Option<PathBuf> {
    program_running(pid, executable_of(pid)?)
}

/// [`program_of`] for process `pid`, whose executable was read as `executable`.
fn program_running(pid: u32, executable: PathBuf) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let name = executable.file_name()?.to_str()?;
    if !INTERPRETERS.contains(&name) {
        return Some(PathBuf::from(format!("/proc/{pid}/exe")));
    }
    let command_line = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let script = command_line
        .split(|&byte| byte == 0)
        .skip(1)
        .find(|argument| !argument.is_empty() && !argument.starts_with(b"-"))?;
    let script = Path::new(std::ffi::OsStr::from_bytes(script));
    let script = if script.is_absolute() {
        script.to_path_buf()
    } else {
        std::fs::read_link(format!("/proc/{pid}/cwd"))
            .ok()?
            .join(script)
    };
    script.is_file().then_some(script)
}

/// The version a hook reported for the agent that runs it, or why it could not tell: what the
/// unlock rule is given when the gateway or the hook's own check decides for a reported agent.
pub fn reported_version(agent: &gatehouse_core::RunningAgent) -> Result<String, VersionError> {
    agent
        .version()
        .map(str::to_owned)
        .map_err(VersionError::Reported)
}

/// The agent that runs this hook as the hook reports it to the gateway: [`running_agent`], with
/// the version cache in `state_dir` and the executable the probe record names as `probed`.
pub fn report_running_agent(
    agent: &AgentExecutable,
    probed: Option<&Path>,
    state_dir: Option<&Path>,
) -> gatehouse_core::RunningAgent {
    let cache = state_dir.map(version_cache_path);
    let found = running_agent(agent, probed, cache.as_deref());
    gatehouse_core::RunningAgent::new(
        found.executable.map(|path| path.display().to_string()),
        found.version.map_err(|error| error.to_string()),
    )
}

/// The version cache's file in a state folder, shared by every agent (the key is the file).
pub fn version_cache_path(state_dir: &Path) -> PathBuf {
    state_dir.join("agent-versions.json")
}

/// How many executables' versions the cache keeps.
const CACHED_VERSIONS: usize = 32;

/// [`version_of`], with the answer kept in `cache` (a JSON file) under the identity of the
/// file `program` names (device, inode, size, modification and change times): a new or
/// rewritten executable is a new entry, so a cached answer is never another file's. A cache
/// that cannot be read or written only costs a `--version` run.
pub fn version_of_cached(
    program: &Path,
    parse: fn(&str) -> Option<String>,
    cache: Option<&Path>,
) -> Result<String, VersionError> {
    let (Some(cache), Some(identity)) = (cache, file_identity(program)) else {
        return version_of(program, parse);
    };
    let mut known: Vec<(String, String)> = crate::record::read(cache)
        .ok()
        .flatten()
        .unwrap_or_default();
    if let Some((_, version)) = known.iter().find(|(key, _)| *key == identity) {
        return Ok(version.clone());
    }
    let version = version_of(program, parse)?;
    known.retain(|(key, _)| *key != identity);
    known.push((identity, version.clone()));
    let excess = known.len().saturating_sub(CACHED_VERSIONS);
    known.drain(..excess);
    // A cache that cannot be written is asked again next time. Its folder is never made here: a
    // hook must not make a home of its own (one whose home was removed, say).
    if cache.parent().is_some_and(Path::is_dir) {
        let _ = crate::record::write(cache, &known);
    }
    Ok(version)
}

/// The identity of the file `program` names, following links: it changes whenever the file is
/// replaced or rewritten (the change time cannot be set back by its owner).
fn file_identity(program: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(program).ok()?;
    Some(format!(
        "{}:{}:{}:{}.{}:{}.{}",
        metadata.dev(),
        metadata.ino(),
        metadata.size(),
        metadata.mtime(),
        metadata.mtime_nsec(),
        metadata.ctime(),
        metadata.ctime_nsec()
    ))
}

/// What adapters' tests share about executables and versions (the kit's feature `testing`).
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use std::path::{Path, PathBuf};

    use super::{AgentExecutable, VersionError};

    /// Asserts what `parse` reads from each `--version` output of `seen`.
    pub fn assert_versions(parse: fn(&str) -> Option<String>, seen: &[(&str, Option<&str>)]) {
        for (output, version) in seen {
            assert_eq!(parse(output).as_deref(), *version, "{output:?}");
        }
    }

    /// Asserts that the agent's `--version` cannot run from a folder that does not exist.
    pub fn assert_a_missing_program_cannot_run(agent: &AgentExecutable) {
        let program = Path::new("/nonexistent").join(agent.program);
        let error = agent.version_of(&program).unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
    }

    /// Asserts that `hook_command` writes `expected` for gatehouse's executable at `program`, and
    /// nothing for an executable of another name; returns the command.
    pub fn assert_hook_command(
        hook_command: impl Fn(&Path) -> Option<String>,
        program: &str,
        expected: &str,
    ) -> String {
        assert!(hook_command(Path::new("/usr/bin/not-gatehouse")).is_none());
        let command = hook_command(Path::new(program)).unwrap();
        assert_eq!(command, expected);
        command
    }

    /// Asserts which hook `commands` an installer takes for gatehouse's own (`true`) and which
    /// for another's (`false`), as `is_gatehouse_command` reads them.
    pub fn assert_recognised(
        is_gatehouse_command: impl Fn(&str) -> bool,
        commands: &[(&str, bool)],
    ) {
        for (command, gatehouses) in commands {
            assert_eq!(is_gatehouse_command(command), *gatehouses, "{command}");
        }
    }

    /// A child process that is killed and waited for when dropped (a bare [`std::process::Child`]
    /// is left running), so that a test leaves no process behind even when it fails.
    pub struct KilledOnDrop(pub std::process::Child);

    impl Drop for KilledOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Writes the shell script `body` as the executable `name` in `folder`. A shell writes it,
    /// so that this process never holds the file open for writing: a child forked meanwhile by
    /// another test thread would inherit that descriptor, and running the script would then fail
    /// with "Text file busy" (seen in CI).
    pub fn script(folder: &Path, name: &str, body: &str) -> PathBuf {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let path = folder.join(name);
        let mut writer = Command::new("sh")
            .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
            .arg(&path)
            .stdin(Stdio::piped())
            .spawn()
            .expect("sh runs");
        let mut stdin = writer.stdin.take().expect("its stdin");
        stdin
            .write_all(format!("#!/bin/sh\n{body}").as_bytes())
            .unwrap();
        drop(stdin);
        assert!(writer.wait().unwrap().success(), "the script is written");
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_word(output: &str) -> Option<String> {
        output
            .split_whitespace()
            .last()
            .filter(|word| word.starts_with(|c: char| c.is_ascii_digit()))
            .map(str::to_owned)
    }

    #[test]
    fn a_version_is_read_with_the_callers_parser_and_failures_say_which() {
        let folder =
            std::env::temp_dir().join(format!("gatehouse-harness-version-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let agent = testing::script(&folder, "agent", "echo \"agent-cli $1 1.2.3\"\n");
        let read = version_of(&agent, last_word);
        std::fs::remove_dir_all(&folder).unwrap();
        assert_eq!(read, Ok("1.2.3".into()));
        assert!(matches!(
            version_of(Path::new("/nonexistent/agent"), last_word),
            Err(VersionError::CannotRun { .. })
        ));
        assert!(matches!(
            version_of(Path::new("/bin/true"), last_word),
            Err(VersionError::Unrecognised { .. })
        ));
        assert!(matches!(
            version_of(Path::new("/bin/false"), last_word),
            Err(VersionError::CannotRun { .. })
        ));
    }

    #[test]
    fn a_version_printed_on_stderr_alone_is_read_too() {
        let folder = std::env::temp_dir().join(format!(
            "gatehouse-harness-stderr-version-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&folder).unwrap();
        // As pi 0.73.1's `--version` does: the version on stderr, nothing on stdout.
        let agent = testing::script(&folder, "agent", "echo \"agent-cli 4.5.6\" >&2\n");
        let both = testing::script(
            &folder,
            "both",
            "echo \"agent-cli 1.0.0\"\necho \"agent-cli 9.9.9\" >&2\n",
        );
        let (read, stdout_first) = (version_of(&agent, last_word), version_of(&both, last_word));
        std::fs::remove_dir_all(&folder).unwrap();
        assert_eq!(read, Ok("4.5.6".into()));
        assert_eq!(stdout_first, Ok("1.0.0".into()), "stdout is read first");
    }

    #[test]
    fn an_executable_is_found_on_path_or_where_it_was_probed() {
        assert!(find_on_path("sh").is_some());
        assert_eq!(find_on_path("no-such-agent-anywhere"), None);
        assert_eq!(
            installed("no-such-agent-anywhere", Some(Path::new("/bin/sh"))),
            Some(PathBuf::from("/bin/sh"))
        );
        assert_eq!(
            installed("no-such-agent-anywhere", Some(Path::new("/nonexistent"))),
            None
        );
        assert_eq!(running_ancestor("no-such-agent-anywhere"), None);
        let ancestors = ancestors();
        assert!(ancestors.len() <= ANCESTORS_LOOKED_AT);
        if std::os::unix::process::parent_id() > 1 {
            assert_eq!(
                ancestors.first(),
                Some(&std::os::unix::process::parent_id()),
                "the parent comes first"
            );
        }
    }

    #[test]
    fn the_parent_is_read_after_the_last_parenthesis_of_any_command_name() {
        assert_eq!(parent_in_stat(b"42 (node) S 7 42 42 0 -1"), Some(7));
        // A name may hold spaces, parentheses and bytes that are not UTF-8.
        assert_eq!(parent_in_stat(b"42 (a) S 9 (b\xff) S 8 1 1"), Some(8));
        // A line cut after the parent still tells it.
        assert_eq!(parent_in_stat(b"42 (x) R 1234"), Some(1234));
        for no_parent in [
            &b"42 (init child) S 1 1 1"[..],
            b"42 (in a new namespace) S 0 0 0",
            b"42 (cut) R",
            b"42 (no parenthesis S 7 1",
            b"",
        ] {
            assert_eq!(parent_in_stat(no_parent), None, "{no_parent:?}");
        }
        // This process's own line, read in one read, names the parent `getppid` names.
        let parent = std::os::unix::process::parent_id();
        if parent > 1 {
            assert_eq!(parent_of(std::process::id()), Some(parent));
        }
    }

    #[test]
    fn the_agent_is_found_at_the_nearest_ancestor_whose_executable_is_named_so() {
        let parent = std::os::unix::process::parent_id();
        let Some(executable) = (parent > 1).then(|| executable_of(parent)).flatten() else {
            return;
        };
        let name = executable.file_name().unwrap().to_str().unwrap().to_owned();
        assert_eq!(running_ancestor(&name), Some((parent, executable.clone())));
        let names: &'static [&'static str] =
            Box::leak(Box::new([Box::leak(name.into_boxed_str()) as &str]));
        let agent = AgentExecutable {
            program: "the-parent",
            names,
            pid_variable: None,
            version_variable: None,
            installed_if_not_running: false,
            parse: last_word,
        };
        let program = running_program(&agent).unwrap();
        if !INTERPRETERS.contains(&names[0]) {
            assert_eq!(program, Some(PathBuf::from(format!("/proc/{parent}/exe"))));
        }
    }

    fn fake_agent(folder: &Path, version: &str) -> PathBuf {
        testing::script(
            folder,
            "agent",
            &format!("echo run >> \"$0.runs\"\necho \"agent-cli {version}\"\n"),
        )
    }

    fn runs(agent: &Path) -> usize {
        std::fs::read_to_string(agent.with_extension("runs"))
            .unwrap_or_default()
            .lines()
            .count()
    }

    #[test]
    fn a_cached_version_is_asked_once_per_executable_file_and_again_when_it_changes() {
        let folder = std::env::temp_dir().join(format!(
            "gatehouse-harness-version-cache-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&folder).unwrap();
        let cache = folder.join("agent-versions.json");
        let agent = fake_agent(&folder, "1.2.3");
        for _ in 0..3 {
            assert_eq!(
                version_of_cached(&agent, last_word, Some(&cache)),
                Ok("1.2.3".into())
            );
        }
        assert_eq!(runs(&agent), 1, "asked once");
        // An update rewrites the file: its identity changes, and it is asked again.
        std::fs::remove_file(&agent).unwrap();
        let agent = fake_agent(&folder, "1.2.4");
        assert_eq!(
            version_of_cached(&agent, last_word, Some(&cache)),
            Ok("1.2.4".into())
        );
        assert_eq!(runs(&agent), 2);
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn the_first_line_is_the_version_when_it_is_one_version_word() {
        testing::assert_versions(
            first_line_version,
            &[
                ("0.61.0\n", Some("0.61.0")),
                ("0.62.0-preview.1", Some("0.62.0-preview.1")),
                ("usage: gemini", None),
                ("0.61.0 and more", None),
                ("", None),
            ],
        );
    }

    #[test]
    fn a_line_that_names_the_agent_ends_with_its_version() {
        let named = |output: &str| last_word_version(output, |line| line.contains("agent"));
        assert_eq!(named("agent-cli 0.1.0\n").as_deref(), Some("0.1.0"));
        assert_eq!(named("My agent 1.0.2.\nupdate").as_deref(), Some("1.0.2"));
        assert_eq!(named("usage: agent"), None);
        assert_eq!(named("other 1.0.0"), None);
        assert_eq!(named(""), None);
    }

    #[test]
    fn a_version_variable_spares_the_run_and_only_a_version_is_taken_from_it() {
        assert!(looks_like_a_version("1.0.102"));
        assert!(looks_like_a_version("1.1.0-beta.2"));
        assert!(!looks_like_a_version(""));
        assert!(!looks_like_a_version("v1"));
        assert!(!looks_like_a_version("1.0; rm -rf"));
        assert!(!looks_like_a_version(&"1".repeat(VERSION_MAX_CHARS + 1)));
    }

    #[test]
    fn an_agent_that_is_not_among_the_ancestors_is_found_installed_or_not_at_all() {
        let strict = AgentExecutable {
            program: "no-such-agent-anywhere",
            names: &["no-such-agent-anywhere"],
            pid_variable: None,
            version_variable: None,
            installed_if_not_running: false,
            parse: last_word,
        };
        let found = running_agent(&strict, None, None);
        assert!(
            matches!(found.version, Err(VersionError::NotIdentified { .. })),
            "{found:?}"
        );
        let lenient = AgentExecutable {
            installed_if_not_running: true,
            ..strict
        };
        let found = running_agent(&lenient, None, None);
        assert_eq!(
            found.version,
            Err(VersionError::NotFound {
                program: "no-such-agent-anywhere"
            })
        );
    }
}
