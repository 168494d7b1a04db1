//! How `codex --version` names Codex's version (`codex-cli 0.171.0`). Finding the installed
//! `codex` and the one that runs a hook (the nearest ancestor called `codex`) is the kit's
//! ([`crate::AGENT`]'s executable).

use gatehouse_harness::executable::last_word_version;

/// The version in the output of `codex --version`: the last word of its first line, such as
/// `0.171.0` in `codex-cli 0.171.0`, when the line names Codex and the word starts with a digit.
pub fn parse_version_output(output: &str) -> Option<String> {
    last_word_version(output, |line| {
        line.split_whitespace()
            .next()
            .is_some_and(|first| first.starts_with("codex"))
    })
}

#[cfg(test)]
mod tests {
    use gatehouse_harness::executable::testing::{
        assert_a_missing_program_cannot_run, assert_versions, script,
    };
    use gatehouse_harness::executable::VersionError;

    use super::*;

    #[test]
    fn the_version_is_the_last_word_of_the_first_line() {
        assert_versions(
            parse_version_output,
            &[
                ("codex-cli 0.171.0\n", Some("0.171.0")),
                ("codex-cli 0.172.0-alpha.1", Some("0.172.0-alpha.1")),
                ("usage: codex", None),
                ("true (GNU coreutils) 9.1", None),
                ("", None),
            ],
        );
    }

    #[test]
    fn a_program_that_is_not_there_cannot_run() {
        assert_a_missing_program_cannot_run(&crate::AGENT.executable);
    }

    #[test]
    fn a_program_that_prints_no_version_is_unrecognised() {
        let folder = tempfile::tempdir().unwrap();
        let program = script(folder.path(), "codex", "echo 'usage: codex [OPTIONS]'\n");
        let error = crate::AGENT.executable.version_of(&program).unwrap_err();
        assert!(
            matches!(error, VersionError::Unrecognised { .. }),
            "{error}"
        );
    }
}
