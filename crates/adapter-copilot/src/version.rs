//! Which Copilot CLI is in use, and its version as `copilot --version` prints it
//! (`GitHub Copilot CLI 1.0.102.`, then a line about updates).
//!
//! Two questions are asked. The gateway asks which Copilot CLI is installed: the `copilot` on
//! `PATH`, else the executable the last probe checked (a gateway started by a service manager
//! may have a shorter `PATH` than the person's shell). A hook asks which Copilot CLI is running
//! it: on Linux that is the nearest ancestor process whose executable is named `copilot` (npm's
//! `copilot` is a Node loader that starts the native `copilot` of `@github/copilot-linux-x64`,
//! which runs hooks through `bash -c`).

use std::path::{Path, PathBuf};

use gatehouse_harness::executable;
pub use gatehouse_harness::executable::VersionError;

/// The error when no `copilot` can be found.
pub fn not_found() -> VersionError {
    VersionError::NotFound { program: "copilot" }
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

/// Runs `program --version` and reads the version from what it prints.
pub fn version_of(program: &Path) -> Result<String, VersionError> {
    executable::version_of(program, parse_version_output)
}

/// The `copilot` on `PATH`.
pub fn find_on_path() -> Option<PathBuf> {
    executable::find_on_path("copilot")
}

/// The installed `copilot`: the one on `PATH`, else the one the last probe checked.
pub fn installed_copilot(probed: Option<&Path>) -> Option<PathBuf> {
    executable::installed("copilot", probed)
}

/// How a hook finds the Copilot CLI that runs it: Copilot CLI 1.0.102 names its version in
/// `COPILOT_CLI_BINARY_VERSION` for its hooks; else the nearest ancestor called `copilot`, else
/// the installed one.
pub const COPILOT: executable::AgentExecutable = executable::AgentExecutable {
    program: "copilot",
    names: &["copilot"],
    pid_variable: None,
    version_variable: Some("COPILOT_CLI_BINARY_VERSION"),
    installed_if_not_running: true,
    parse: parse_version_output,
};

/// The `copilot` that runs this process as a hook, when the process tree tells (Linux).
pub fn running_copilot() -> Option<PathBuf> {
    executable::running_ancestor("copilot").map(|(_, executable)| executable)
}

/// The process id and executable of [`running_copilot`].
pub fn running_copilot_process() -> Option<(u32, PathBuf)> {
    executable::running_ancestor("copilot")
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
