//! How `copilot --version` names Copilot CLI's version (`GitHub Copilot CLI 1.0.102.`, then a
//! line about updates). Finding the installed `copilot` and the one that runs a hook is the kit's
//! ([`crate::AGENT`]'s executable).

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gatehouse_harness::executable::VersionError;

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
        let error = crate::AGENT
            .executable
            .version_of(Path::new("/nonexistent/copilot"))
            .unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
    }
}
