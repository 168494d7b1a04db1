//! How `opencode --version` names OpenCode's version (`1.18.33`): alone on its first line, which
//! the kit reads ([`gatehouse_harness::executable::first_line_version`]: one word starting with a
//! digit, of digits, letters, `.`, `-` and `+` only, at most 64 characters; OpenCode prints
//! nothing else there). Finding the installed `opencode` and the one that runs a hook (the
//! plugin's process, `OPENCODE_PID`) is the kit's too ([`crate::AGENT`]'s executable); its
//! `--version` is asked once per executable file (the kit's version cache).

pub use gatehouse_harness::executable::first_line_version as parse_version_output;

#[cfg(test)]
mod tests {
    use gatehouse_harness::executable::testing::{
        assert_a_missing_program_cannot_run, assert_versions,
    };

    use super::*;

    #[test]
    fn the_version_is_the_first_line_when_it_is_one_version_word() {
        assert_versions(
            parse_version_output,
            &[
                ("1.18.33\n", Some("1.18.33")),
                ("1.19.0-beta.1", Some("1.19.0-beta.1")),
                ("opencode 1.18.33", None),
                ("1.18.33 \u{202e}x", None),
                ("", None),
            ],
        );
    }

    #[test]
    fn a_program_that_is_not_there_cannot_run() {
        assert_a_missing_program_cannot_run(&crate::AGENT.executable);
    }
}
