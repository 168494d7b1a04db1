//! How `opencode --version` names OpenCode's version (`1.18.33`). Finding the installed
//! `opencode` and the one that runs a hook (the plugin's process, `OPENCODE_PID`) is the kit's
//! ([`crate::AGENT`]'s executable); its `--version` is asked once per executable file (the kit's
//! version cache).

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gatehouse_harness::executable::VersionError;

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
        let error = crate::AGENT
            .executable
            .version_of(Path::new("/nonexistent/opencode"))
            .unwrap_err();
        assert!(matches!(error, VersionError::CannotRun { .. }), "{error}");
    }
}
