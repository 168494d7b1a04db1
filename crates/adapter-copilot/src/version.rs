//! How `copilot --version` names Copilot CLI's version (`GitHub Copilot CLI 1.0.102.`, then a
//! line about updates). Finding the installed `copilot` and the one that runs a hook is the kit's
//! ([`crate::AGENT`]'s executable).

use gatehouse_harness::executable::last_word_version;

/// The version in the output of `copilot --version`: the last word of its first line without a
/// final full stop, such as `1.0.102` in `GitHub Copilot CLI 1.0.102.`, when the line names
/// Copilot and the word starts with a digit.
pub fn parse_version_output(output: &str) -> Option<String> {
    last_word_version(output, |line| line.to_ascii_lowercase().contains("copilot"))
}

#[cfg(test)]
mod tests {
    use gatehouse_harness::executable::testing::{
        assert_a_missing_program_cannot_run, assert_versions,
    };

    use super::*;

    #[test]
    fn the_version_is_the_last_word_of_the_first_line_without_its_full_stop() {
        assert_versions(
            parse_version_output,
            &[
                (
                    "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n",
                    Some("1.0.102"),
                ),
                ("GitHub Copilot CLI 1.1.0-beta.2", Some("1.1.0-beta.2")),
                ("usage: copilot", None),
                ("codex-cli 0.171.0", None),
                ("", None),
            ],
        );
    }

    #[test]
    fn a_program_that_is_not_there_cannot_run() {
        assert_a_missing_program_cannot_run(&crate::AGENT.executable);
    }
}
