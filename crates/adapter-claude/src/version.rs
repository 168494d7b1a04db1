//! Which Claude Code is installed, and its version as `claude --version` prints it
//! (`2.1.332 (Claude Code)`): the `claude` on `PATH`, else the executable the last probe checked
//! (a gateway started by a service manager may have a shorter `PATH` than the person's shell).

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
