//! Which Claude Code is installed, and its version as `claude --version` prints it
//! (`2.1.332 (Claude Code)`): the `claude` on `PATH`, else the executable the last probe checked
//! (a gateway started by a service manager may have a shorter `PATH` than the person's shell).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `claude --version` may take before it is given up.
const VERSION_DEADLINE: Duration = Duration::from_secs(10);

/// Why the version of a Claude Code executable could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VersionError {
    #[error("no `claude` was found on PATH; install Claude Code, or name the executable with --executable PATH")]
    NotFound,
    #[error("`{program} --version` could not run: {problem}; check that this Claude Code works in a terminal")]
    CannotRun { program: PathBuf, problem: String },
    #[error("`{program} --version` printed {output:?}, which does not name a Claude Code version")]
    Unrecognised { program: PathBuf, output: String },
}

/// The version in the output of `claude --version`: the first word of its first line, when the
/// line names Claude Code and the word starts with a digit.
pub fn parse_version_output(output: &str) -> Option<String> {
    let line = output.lines().next()?;
    let word = line.split_whitespace().next()?;
    (line.contains("Claude Code") && word.starts_with(|character: char| character.is_ascii_digit()))
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

/// The `claude` executable on `PATH`, if any.
pub fn find_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|folder| folder.join("claude"))
        .find(|candidate| candidate.is_file())
}

/// The installed Claude Code: `claude` on `PATH`, else `probed` if it still exists.
pub fn installed_claude(probed: Option<&Path>) -> Option<PathBuf> {
    find_on_path().or_else(|| probed.filter(|path| path.is_file()).map(Path::to_path_buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_first_word_of_a_claude_code_line() {
        assert_eq!(
            parse_version_output("2.1.332 (Claude Code)\n").as_deref(),
            Some("2.1.332")
        );
        assert_eq!(parse_version_output("codex-cli 0.171.0"), None);
        assert_eq!(parse_version_output("usage: claude"), None);
        assert_eq!(parse_version_output(""), None);
    }
}
