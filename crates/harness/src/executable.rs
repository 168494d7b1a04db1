//! Which agent executable is in use, and its version as it prints it: what every probe and every
//! per-version capability check asks. The agent's own output format is the caller's (a parse
//! function); finding the executable, running `--version` with a deadline, and walking up the
//! process tree to the agent that runs a hook are the same for every agent.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest `--version` may take.
const VERSION_DEADLINE: Duration = Duration::from_secs(10);

/// How many ancestors of a hook are looked at for the agent that runs it.
const ANCESTORS_LOOKED_AT: usize = 4;

/// Why an agent's version could not be told.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
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
}

/// Runs `program --version` (within [`VERSION_DEADLINE`]) and reads the version from its output
/// with `parse`.
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
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| cannot_run(error.to_string()))?;
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
    if !status.success() {
        return Err(cannot_run(format!("it exited with {status}")));
    }
    parse(&output).ok_or_else(|| VersionError::Unrecognised {
        program: program.to_path_buf(),
        output: output.trim().to_owned(),
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
    for pid in ancestors() {
        let executable = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
        if executable.file_name().is_some_and(|file| file == name) {
            return Some((pid, executable));
        }
    }
    None
}

/// The process ids of this process's first few ancestors, nearest first (the parent first),
/// through `/proc`; empty where there is none.
pub fn ancestors() -> Vec<u32> {
    let mut found = Vec::new();
    let mut next = parent_of("self");
    while let Some(pid) = next {
        found.push(pid);
        if found.len() == ANCESTORS_LOOKED_AT {
            break;
        }
        next = parent_of(&pid.to_string());
    }
    found
}

/// The parent process id of `/proc/<process>`, from its `stat` line.
fn parent_of(process: &str) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{process}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces; the parent id is the second field
    // after the closing parenthesis.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace()
        .nth(1)?
        .parse()
        .ok()
        .filter(|pid| *pid > 1)
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
        use std::os::unix::fs::PermissionsExt;
        let folder =
            std::env::temp_dir().join(format!("gatehouse-harness-version-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let agent = folder.join("agent");
        std::fs::write(&agent, "#!/bin/sh\necho \"agent-cli $1 1.2.3\"\n").unwrap();
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
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
}
