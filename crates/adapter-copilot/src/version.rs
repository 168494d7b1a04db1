//! Which Copilot CLI is in use, and its version as `copilot --version` prints it
//! (`GitHub Copilot CLI 1.0.102.`, then a line about updates).
//!
//! Two questions are asked. The gateway asks which Copilot CLI is installed: the `copilot` on
//! `PATH`, else the executable the last probe checked (a gateway started by a service manager
//! may have a shorter `PATH` than the person's shell). A hook asks which Copilot CLI is running
//! it: on Linux that is the nearest ancestor process whose executable is named `copilot` (npm's
//! `copilot` is a Node loader that starts the native `copilot` of `@github/copilot-linux-x64`,
//! which runs hooks through `bash -c`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `copilot --version` may take before it is given up.
const VERSION_DEADLINE: Duration = Duration::from_secs(10);

/// Why the version of a Copilot CLI executable could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VersionError {
    #[error("no `copilot` was found on PATH; install GitHub Copilot CLI, or pass the executable with --executable PATH")]
    NotFound,
    #[error("`{program} --version` could not run: {problem}; check that this Copilot CLI works in a terminal")]
    CannotRun { program: PathBuf, problem: String },
    #[error("`{program} --version` printed {output:?}, which does not name a Copilot CLI version; check that it is GitHub Copilot CLI")]
    Unrecognised { program: PathBuf, output: String },
}

/// The version in the output of `copilot --version`: the last word of its first line without a
/// final full stop, such as `1.0.102` in `GitHub Copilot CLI 1.0.102.`, when the line names
/// Copilot and the word starts with a digit.
pub fn parse_version_output(output: &str) -> Option<String> {
    let line = output.lines().next()?;
    let word = line.split_whitespace().last()?.trim_end_matches('.');
    let names_copilot = line.to_ascii_lowercase().contains("copilot");
    (names_copilot && word.starts_with(|character: char| character.is_ascii_digit()))
        .then(|| word.to_owned())
}

/// Runs `program --version` and reads the version it prints.
pub fn version_of(program: &Path) -> Result<String, VersionError> {
    let cannot_run = |problem: String| VersionError::CannotRun {
        program: program.to_path_buf(),
        problem,
    };
    let mut child = Command::new(program)
        .arg("--version")
        .env("COPILOT_AUTO_UPDATE", "false")
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
    parse_version_output(&output).ok_or_else(|| VersionError::Unrecognised {
        program: program.to_path_buf(),
        output: output.trim().to_owned(),
    })
}

/// The `copilot` executable on `PATH`, if any.
pub fn find_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|folder| folder.join("copilot"))
        .find(|candidate| candidate.is_file())
}

/// The installed Copilot CLI, as the gateway sees it: `copilot` on `PATH`, else `probed` (the
/// executable the last probe checked) if it still exists.
pub fn installed_copilot(probed: Option<&Path>) -> Option<PathBuf> {
    find_on_path().or_else(|| probed.filter(|path| path.is_file()).map(Path::to_path_buf))
}

/// The Copilot CLI executable that runs this process as a hook: the nearest of the first few
/// ancestor processes whose executable is named `copilot`. Only Linux tells this (through
/// `/proc`); elsewhere, and when no ancestor is Copilot, it is `None`.
pub fn running_copilot() -> Option<PathBuf> {
    running_copilot_process().map(|(_, executable)| executable)
}

/// The process id and executable of [`running_copilot`].
pub fn running_copilot_process() -> Option<(u32, PathBuf)> {
    let mut pid = parent_of("self")?;
    for _ in 0..4 {
        let executable = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
        if executable.file_name().is_some_and(|name| name == "copilot") {
            return Some((pid, executable));
        }
        pid = parent_of(&pid.to_string())?;
    }
    None
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

    #[test]
    fn the_version_is_the_last_word_of_the_first_line_without_its_full_stop() {
        assert_eq!(
            parse_version_output(
                "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n"
            )
            .as_deref(),
            Some("1.0.102")
        );
        assert_eq!(
            parse_version_output("GitHub Copilot CLI 1.1.0-beta.2").as_deref(),
            Some("1.1.0-beta.2")
        );
        assert_eq!(parse_version_output("usage: copilot"), None);
        assert_eq!(parse_version_output("codex-cli 0.171.0"), None);
        assert_eq!(parse_version_output(""), None);
    }

    #[test]
    fn a_program_that_is_not_there_cannot_run() {
        let error = version_of(Path::new("/nonexistent/copilot")).unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
    }
}
