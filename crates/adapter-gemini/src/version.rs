//! How `gemini --version` names Gemini CLI's version (`0.61.0`, alone on its line). Finding the
//! installed `gemini` and the one that runs a hook is the kit's ([`crate::AGENT`]'s executable):
//! Gemini CLI 0.61.0 is a Node script (`bundle/gemini.js`) that starts itself again as a child
//! `node` process and runs its hooks through `bash -c`, and names its version in no variable; so
//! the nearest `node` ancestor of the hook is asked, through the script it runs (the kit's
//! [`gatehouse_harness::executable::program_of`]), with the answer cached per file.

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gatehouse_harness::executable::VersionError;

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
        let error = crate::AGENT
            .executable
            .version_of(Path::new("/nonexistent/gemini"))
            .unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
        assert_eq!(
            crate::AGENT.executable.not_found(),
            VersionError::NotFound { program: "gemini" }
        );
    }
}
