//! Which Claude Code is in use, and its version as `claude --version` prints it
//! (`2.1.332 (Claude Code)`).
//!
//! Two questions are asked. The gateway asks which Claude Code is installed: the `claude` on
//! `PATH`, else the executable the last probe checked (a gateway started by a service manager may
//! have a shorter `PATH` than the person's shell). A hook asks which Claude Code is running it
//! ([`running_claude`]): on Linux, the nearest of the hook's first few ancestor processes that is
//! the one `CLAUDE_PID` names (Claude Code 2.1.332 puts its own process id there for its hooks;
//! see the fixtures' README) or whose executable is called `claude` or `claude.exe` (the npm
//! package's native binary). Its version is asked of `/proc/<pid>/exe`, the very file that process
//! runs, even if an update has since replaced or removed it on disk (the native installer names
//! that file after its version, so its name cannot be relied on); when the process is a script's
//! interpreter (`sh`, `node`, ...), of the script it runs.

use std::os::unix::ffi::OsStrExt;
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

/// The executables that run a Claude Code written as a script, rather than being it.
const INTERPRETERS: [&str; 7] = ["sh", "bash", "dash", "zsh", "node", "nodejs", "bun"];

/// The program to ask for the version of the Claude Code that runs this hook. `Ok(None)` where
/// processes cannot be looked at (no `/proc`: not Linux), so only the installed one can be asked;
/// an error where they can but none of the hook's ancestors is Claude Code.
pub fn running_claude() -> Result<Option<PathBuf>, VersionError> {
    if !Path::new("/proc/self/stat").exists() {
        return Ok(None);
    }
    let named = std::env::var("CLAUDE_PID")
        .ok()
        .and_then(|pid| pid.trim().parse::<u32>().ok());
    let not_identified = |problem: String| VersionError::NotIdentified {
        program: "claude",
        problem,
    };
    let ancestors = executable::ancestors();
    let claude = ancestors
        .iter()
        .copied()
        .find(|&pid| Some(pid) == named || executable_is_claude(pid))
        .ok_or_else(|| {
            not_identified(match named {
                Some(pid) => format!(
                    "CLAUDE_PID is {pid}, which is not among the hook's ancestors {ancestors:?}, and none of them runs an executable called claude"
                ),
                None => format!(
                    "CLAUDE_PID is not set, and none of the hook's ancestors {ancestors:?} runs an executable called claude"
                ),
            })
        })?;
    program_of(claude)
        .map(Some)
        .ok_or_else(|| not_identified(format!("the executable of process {claude} cannot be read")))
}

fn executable_is_claude(pid: u32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|executable| executable.file_name().map(ToOwned::to_owned))
        .is_some_and(|name| name == "claude" || name == "claude.exe")
}

/// What to run as `--version` for process `pid`: its executable, or the script its interpreter
/// runs (the first argument that is not an option, from the process's own folder).
fn program_of(pid: u32) -> Option<PathBuf> {
    let executable = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
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

    /// A process that runs until killed: `program` with `arguments`.
    struct Running(std::process::Child);

    impl Drop for Running {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn the_program_asked_is_the_processs_own_executable_or_the_script_it_runs() {
        use std::os::unix::fs::PermissionsExt;
        let sleeping = Running(
            std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .unwrap(),
        );
        let pid = sleeping.0.id();
        assert_eq!(
            program_of(pid),
            Some(PathBuf::from(format!("/proc/{pid}/exe")))
        );
        let folder = tempfile::tempdir().unwrap();
        let script = folder.path().join("claude");
        std::fs::write(
            &script,
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '9.9.9 (Claude Code)'; exit 0; fi\nsleep 30\nexit 0\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let fake = Running(std::process::Command::new(&script).spawn().unwrap());
        let pid = fake.0.id();
        // Until the child has run the script, it is still a copy of this test.
        let started = std::time::Instant::now();
        let mut program = program_of(pid);
        while program.as_deref() != Some(script.as_path())
            && started.elapsed() < std::time::Duration::from_secs(20)
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
            program = program_of(pid);
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
        let error = running_claude().unwrap_err();
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
