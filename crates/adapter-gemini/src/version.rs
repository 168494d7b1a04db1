//! Which Gemini CLI is in use, and its version as `gemini --version` prints it (`0.61.0`, alone
//! on its line).
//!
//! The gateway asks which Gemini CLI is installed: the `gemini` on `PATH`, else the executable
//! the last probe checked. A hook asks which Gemini CLI runs it: Gemini CLI 0.61.0 is a Node
//! script (`bundle/gemini.js`) that starts itself again as a child `node` process and runs its
//! hooks through `bash -c`, and names its version in no variable; so the nearest `node` ancestor
//! of the hook is asked, through the script it runs (the kit's
//! [`gatehouse_harness::executable::program_of`]), with the answer cached per file.

use std::path::{Path, PathBuf};

use gatehouse_harness::executable;
pub use gatehouse_harness::executable::VersionError;

/// The error when no `gemini` can be found.
pub fn not_found() -> VersionError {
    VersionError::NotFound { program: "gemini" }
}

/// The version in the output of `gemini --version`: its first line, when that is one word that
/// starts with a digit and holds nothing but digits, letters, `.`, `-` and `+`.
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

/// The `gemini` on `PATH`.
pub fn find_on_path() -> Option<PathBuf> {
    executable::find_on_path("gemini")
}

/// The installed `gemini`: the one on `PATH`, else the one the last probe checked.
pub fn installed_gemini(probed: Option<&Path>) -> Option<PathBuf> {
    executable::installed("gemini", probed)
}

/// How a hook finds the Gemini CLI that runs it: the nearest `node` ancestor (the script it
/// runs is asked for its version), else the installed one.
pub const GEMINI: executable::AgentExecutable = executable::AgentExecutable {
    program: "gemini",
    names: &["gemini", "node", "nodejs"],
    pid_variable: None,
    version_variable: None,
    installed_if_not_running: true,
    parse: parse_version_output,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_first_line_when_it_is_one() {
        assert_eq!(parse_version_output("0.61.0\n").as_deref(), Some("0.61.0"));
        assert_eq!(
            parse_version_output("0.62.0-preview.1").as_deref(),
            Some("0.62.0-preview.1")
        );
        assert_eq!(parse_version_output("usage: gemini"), None);
        assert_eq!(parse_version_output("0.61.0 and more"), None);
        assert_eq!(parse_version_output(""), None);
    }

    #[test]
    fn a_program_that_is_not_there_cannot_run() {
        let error = version_of(Path::new("/nonexistent/gemini")).unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
    }
}
