//! Which Claude Code is in use, and its version as `claude --version` prints it
//! (`2.1.332 (Claude Code)`).
//!
//! Two questions are asked. The gateway asks which Claude Code is installed: the `claude` on
//! `PATH`, else the executable the last probe checked (a gateway started by a service manager may
//! have a shorter `PATH` than the person's shell). A hook asks which Claude Code is running it
//! ([`CLAUDE`]): on Linux, the nearest of the hook's first few ancestor processes that is
//! the one `CLAUDE_PID` names (Claude Code 2.1.332 puts its own process id there for its hooks;
//! see the fixtures' README) or whose executable is called `claude` or `claude.exe` (the npm
//! package's native binary). Its version is asked of `/proc/<pid>/exe`, the very file that process
//! runs, even if an update has since replaced or removed it on disk (the native installer names
//! that file after its version, so its name cannot be relied on); when the process is a script's
//! interpreter (`sh`, `node`, ...), of the script it runs.

use std::path::{Path, PathBuf};

use gatehouse_harness::executable;
pub use gatehouse_harness::executable::VersionError;

/// The error when no `claude` can be found.
pub fn not_found() -> VersionError {
    VersionError::NotFound { program: "claude" }
}

/// The version in the output of `claude --version`: the first word of its first line, when the
/// line names Claude Code and the word starts with a digit.
pub fn parse_version_output(output: &str) -> Option<String> {
    let line = output.lines().next()?;
    let word = line.split_whitespace().next()?;
    (line.contains("Claude Code") && word.starts_with(|character: char| character.is_ascii_digit()))
        .then(|| word.to_owned())
}

/// Runs `program --version` and reads the version from what it prints.
pub fn version_of(program: &Path) -> Result<String, VersionError> {
    executable::version_of(program, parse_version_output)
}

/// The `claude` on `PATH`.
pub fn find_on_path() -> Option<PathBuf> {
    executable::find_on_path("claude")
}

/// The installed `claude`: the one on `PATH`, else the one the last probe checked.
pub fn installed_claude(probed: Option<&Path>) -> Option<PathBuf> {
    executable::installed("claude", probed)
}

/// How a hook finds the Claude Code that runs it: the nearest of its first few ancestors that
/// `CLAUDE_PID` names (Claude Code 2.1.332 puts its own process id there for its hooks; see the
/// fixtures' README) or whose executable is called `claude` or `claude.exe` (the npm package's
/// native binary). Its version is asked of `/proc/<pid>/exe`, the very file that process runs,
/// even if an update has since replaced it on disk; when the process is a script's interpreter,
/// of the script it runs. When no ancestor is Claude Code, nothing is unlocked.
pub const CLAUDE: executable::AgentExecutable = executable::AgentExecutable {
    program: "claude",
    names: &["claude", "claude.exe"],
    pid_variable: Some("CLAUDE_PID"),
    version_variable: None,
    installed_if_not_running: false,
    parse: parse_version_output,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_first_word_of_a_claude_code_line() {
        executable::testing::assert_versions(
            parse_version_output,
            &[
                ("2.1.332 (Claude Code)\n", Some("2.1.332")),
                ("codex-cli 0.171.0", None),
                ("usage: claude", None),
                ("", None),
            ],
        );
    }

    #[test]
    fn the_program_asked_is_the_processs_own_executable_or_the_script_it_runs() {
        let sleeping = executable::testing::KilledOnDrop(
            std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .unwrap(),
        );
        let pid = sleeping.0.id();
        assert_eq!(
            executable::program_of(pid),
            Some(PathBuf::from(format!("/proc/{pid}/exe")))
        );
        let folder = tempfile::tempdir().unwrap();
        let script = executable::testing::script(
            folder.path(),
            "claude",
            "if [ \"$1\" = --version ]; then echo '9.9.9 (Claude Code)'; exit 0; fi\nsleep 30\nexit 0\n",
        );
        let fake =
            executable::testing::KilledOnDrop(std::process::Command::new(&script).spawn().unwrap());
        let pid = fake.0.id();
        // Until the child has run the script, it is still a copy of this test.
        let started = std::time::Instant::now();
        let mut program = executable::program_of(pid);
        while program.as_deref() != Some(script.as_path())
            && started.elapsed() < std::time::Duration::from_secs(20)
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
            program = executable::program_of(pid);
        }
        assert_eq!(program.as_deref(), Some(script.as_path()));
        assert_eq!(version_of(&script).as_deref(), Ok("9.9.9"));
    }

    #[test]
    fn a_hook_with_no_claude_code_above_it_cannot_tell_which_runs_it() {
        if std::env::var_os("CLAUDE_PID").is_some() {
            eprintln!("skipped: these tests run under Claude Code (CLAUDE_PID is set)");
            return;
        }
        let error = executable::running_agent(&CLAUDE, None, None)
            .version
            .unwrap_err();
        assert!(
            matches!(error, VersionError::NotIdentified { .. }),
            "{error}"
        );
        assert!(
            error.to_string().contains("CLAUDE_PID is not set"),
            "{error}"
        );
    }
}
