//! Which OpenCode is in use, and its version as `opencode --version` prints it (`1.18.33`).
//!
//! The gateway asks which OpenCode is installed: the `opencode` on `PATH`, else the executable
//! the last probe checked. A hook asks which OpenCode runs it: gatehouse's plugin runs inside
//! OpenCode's process and starts the hook itself (no shell between), so that process is the
//! hook's parent, named by `OPENCODE_PID` (npm's `opencode` is the native executable itself,
//! `opencode-ai/bin/opencode.exe`, a copy of `opencode-linux-x64/bin/opencode`). Its
//! `--version` is asked once per executable file (the kit's version cache).

use std::path::{Path, PathBuf};

use gatehouse_harness::executable;
pub use gatehouse_harness::executable::VersionError;

/// The error when no `opencode` can be found.
pub fn not_found() -> VersionError {
    VersionError::NotFound {
        program: "opencode",
    }
}

/// The version in the output of `opencode --version`: its first line, when that is one word
/// starting with a digit, of digits, letters, `.`, `-` and `+` only (OpenCode prints nothing
/// else there).
pub fn parse_version_output(output: &str) -> Option<String> {
    let line = output.lines().next()?.trim();
    let looks_like_a_version = line.len() <= 64
        && line.starts_with(|character: char| character.is_ascii_digit())
        && line
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || ".-+".contains(character));
    looks_like_a_version.then(|| line.to_owned())
}

/// Runs `program --version` and reads the version from what it prints.
pub fn version_of(program: &Path) -> Result<String, VersionError> {
    executable::version_of(program, parse_version_output)
}

/// The `opencode` on `PATH`.
pub fn find_on_path() -> Option<PathBuf> {
    executable::find_on_path("opencode")
}

/// The installed `opencode`: the one on `PATH`, else the one the last probe checked.
pub fn installed_opencode(probed: Option<&Path>) -> Option<PathBuf> {
    executable::installed("opencode", probed)
}

/// How a hook finds the OpenCode that runs it: the ancestor `OPENCODE_PID` names (the plugin's
/// process), or one whose executable is called `opencode` or `opencode.exe`. Never the installed
/// one instead: a hook not run by an OpenCode cannot say which version asks.
pub const OPENCODE: executable::AgentExecutable = executable::AgentExecutable {
    program: "opencode",
    names: &["opencode", "opencode.exe"],
    pid_variable: Some("OPENCODE_PID"),
    version_variable: None,
    installed_if_not_running: false,
    parse: parse_version_output,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_first_line_when_it_is_one_version_word() {
        assert_eq!(
            parse_version_output("1.18.33\n").as_deref(),
            Some("1.18.33")
        );
        assert_eq!(
            parse_version_output("1.19.0-beta.1").as_deref(),
            Some("1.19.0-beta.1")
        );
        assert_eq!(parse_version_output("opencode 1.18.33"), None);
        assert_eq!(parse_version_output("1.18.33 \u{202e}x"), None);
        assert_eq!(parse_version_output(""), None);
    }

    #[test]
    fn a_program_that_is_not_there_cannot_run() {
        let error = version_of(Path::new("/nonexistent/opencode")).unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
    }
}
