//! How `codex --version` names Codex's version (`codex-cli 0.171.0`). Finding the installed
//! `codex` and the one that runs a hook (the nearest ancestor called `codex`) is the kit's
//! ([`crate::AGENT`]'s executable).

/// The version in the output of `codex --version`: the last word of its first line, such as
/// `0.171.0` in `codex-cli 0.171.0`, when the line names Codex and the word starts with a digit.
pub fn parse_version_output(output: &str) -> Option<String> {
    let line = output.lines().next()?;
    let word = line.split_whitespace().last()?;
    let names_codex = line.split_whitespace().next()?.starts_with("codex");
    (names_codex && word.starts_with(|character: char| character.is_ascii_digit()))
        .then(|| word.to_owned())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gatehouse_harness::executable::VersionError;

    use super::*;

    fn version_of(program: &Path) -> Result<String, VersionError> {
        crate::AGENT.executable.version_of(program)
    }

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
