//! Which Codex is in use, and its version as `codex --version` prints it (`codex-cli 0.171.0`).
//!
//! Two questions are asked. The gateway asks which Codex is installed: the `codex` on `PATH`,
//! else the executable the last probe checked (a gateway started by a service manager may have a
//! shorter `PATH` than the person's shell). A hook asks which Codex is running it: on Linux that
//! is the nearest ancestor process whose executable is named `codex` (Codex 0.171.0 starts hook
//! commands through `sh -c`, which replaces itself with the command, so it is usually the parent).
//! Asking the native executable for its version takes a few milliseconds.

use std::path::{Path, PathBuf};

use gatehouse_harness::executable;
pub use gatehouse_harness::executable::VersionError;

/// The error when no `codex` can be found.
pub fn not_found() -> VersionError {
    VersionError::NotFound { program: "codex" }
}

/// The version in the output of `codex --version`: the last word of its first line, such as
/// `0.171.0` in `codex-cli 0.171.0`, when the line names Codex and the word starts with a digit.
pub fn parse_version_output(output: &str) -> Option<String> {
    let line = output.lines().next()?;
    let word = line.split_whitespace().last()?;
    let names_codex = line.split_whitespace().next()?.starts_with("codex");
    (names_codex && word.starts_with(|character: char| character.is_ascii_digit()))
        .then(|| word.to_owned())
}

/// Runs `program --version` and reads the version from what it prints.
pub fn version_of(program: &Path) -> Result<String, VersionError> {
    executable::version_of(program, parse_version_output)
}

/// The `codex` on `PATH`.
pub fn find_on_path() -> Option<PathBuf> {
    executable::find_on_path("codex")
}

/// The installed `codex`: the one on `PATH`, else the one the last probe checked.
pub fn installed_codex(probed: Option<&Path>) -> Option<PathBuf> {
    executable::installed("codex", probed)
}

/// How a hook finds the Codex that runs it: the nearest ancestor called `codex`, else the
/// installed one. Codex gives its hooks no variable naming its version or process.
pub const CODEX: executable::AgentExecutable = executable::AgentExecutable {
    program: "codex",
    names: &["codex"],
    pid_variable: None,
    version_variable: None,
    installed_if_not_running: true,
    parse: parse_version_output,
};

/// The `codex` that runs this process as a hook, when the process tree tells (Linux).
pub fn running_codex() -> Option<PathBuf> {
    executable::running_ancestor("codex").map(|(_, executable)| executable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_last_word_of_the_first_line() {
        assert_eq!(
            parse_version_output("codex-cli 0.171.0\n").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(
            parse_version_output("codex-cli 0.172.0-alpha.1").as_deref(),
            Some("0.172.0-alpha.1")
        );
        assert_eq!(parse_version_output("usage: codex"), None);
        assert_eq!(parse_version_output("true (GNU coreutils) 9.1"), None);
        assert_eq!(parse_version_output(""), None);
    }

    #[test]
    fn a_program_that_is_not_there_cannot_run() {
        let error = version_of(Path::new("/nonexistent/codex")).unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
    }

    #[test]
    fn a_program_that_prints_no_version_is_unrecognised() {
        let folder = tempfile::tempdir().unwrap();
        let program = folder.path().join("codex");
        std::fs::write(&program, "#!/bin/sh\necho 'usage: codex [OPTIONS]'\n").unwrap();
        std::fs::set_permissions(
            &program,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let error = version_of(&program).unwrap_err();
        assert!(
            matches!(error, VersionError::Unrecognised { .. }),
            "{error}"
        );
    }
}
