//! Tests of recognising gatehouse's hook commands and of building them.

use std::path::Path;

use super::*;
use crate::test_agent::{EXAMPLE, EXAMPLE_WITH_ASSIGNMENTS};

#[test]
fn gatehouse_commands_are_recognised_however_they_are_quoted() {
    let commands = [
        "gatehouse hook example",
        "/usr/local/bin/gatehouse hook example",
        "'/Users/me/My Apps/gatehouse' hook example",
        "\"/Users/me/My Apps/gatehouse\" hook example",
        "\"/it's here/gatehouse\" hook example",
        "/Users/me/My\\ Apps/gatehouse hook example",
        "'/tmp/it'\\''s/gatehouse' hook example",
        "  /usr/bin/gatehouse --verbose hook example",
        "'C:\\Program Files\\gatehouse\\gatehouse.exe' hook example",
    ];
    for command in commands {
        assert!(
            EXAMPLE.is_gatehouse_command(command),
            "not recognised: {command}"
        );
    }
    assert!(!EXAMPLE.is_gatehouse_command(""));
    assert!(!EXAMPLE.is_gatehouse_command(" hook example"));
    assert!(!EXAMPLE.is_gatehouse_command("'' hook example"));
}

#[test]
fn lookalike_commands_are_not_recognised() {
    let lookalikes = [
        "/usr/bin/other hook example",
        "gatehouse-lookalike hook example",
        "/opt/gatehouse-lookalike hook example",
        "'/opt/not-gatehouse' hook example",
        "echo gatehouse hook example",
        "/opt/gatehouse/bin/gatehouse hook example --extra",
        "/opt/gatehouse/bin/gatehouse hook other",
        "/opt/gatehouse/bin/gatehouse hookexample",
        "'/opt/gatehouse hook example",
        "'/opt/gatehouse/bin/gatehouse' 'unclosed hook example",
    ];
    for command in lookalikes {
        assert!(
            !EXAMPLE.is_gatehouse_command(command),
            "recognised: {command}"
        );
        assert!(
            !EXAMPLE_WITH_ASSIGNMENTS.is_gatehouse_command(command),
            "recognised with assignments: {command}"
        );
    }
}

#[test]
fn assignments_before_the_program_are_skipped_only_where_the_agent_allows_them() {
    let commands = [
        "GATEHOUSE_HOOK__WAIT_SECONDS=60 '/opt/bin/gatehouse' hook example",
        "A=1 _B='two words' /opt/bin/gatehouse hook example",
    ];
    for command in commands {
        assert!(
            EXAMPLE_WITH_ASSIGNMENTS.is_gatehouse_command(command),
            "{command}"
        );
        assert!(!EXAMPLE.is_gatehouse_command(command), "{command}");
    }
    // Words that are not assignments are not skipped, and a lone assignment is no program.
    assert!(!EXAMPLE_WITH_ASSIGNMENTS.is_gatehouse_command("1A=1 gatehouse hook example"));
    assert!(!EXAMPLE_WITH_ASSIGNMENTS.is_gatehouse_command("=1 gatehouse hook example"));
    assert!(!EXAMPLE_WITH_ASSIGNMENTS.is_gatehouse_command("A=gatehouse hook example"));
}

#[test]
fn hook_command_quotes_the_path_so_it_is_recognised() {
    let command = EXAMPLE
        .hook_command(Path::new("/tmp/it's here/gatehouse"))
        .unwrap();
    assert_eq!(command, "'/tmp/it'\\''s here/gatehouse' hook example");
    assert_eq!(
        shell_words(&command).unwrap(),
        ["/tmp/it's here/gatehouse", "hook", "example"]
    );
    assert_eq!(EXAMPLE.hook_command(Path::new("/usr/bin/other")), None);
    assert_eq!(
        EXAMPLE.hook_command(Path::new("/usr/bin/not-gatehouse")),
        None
    );
}

#[test]
fn shell_words_removes_quotes_and_escapes() {
    assert_eq!(
        shell_words(r#"  a 'b c'd "e \"f\" \g" h\ i "#).unwrap(),
        ["a", "b cd", "e \"f\" \\g", "h i"]
    );
    assert_eq!(shell_words("''").unwrap(), [""]);
    assert_eq!(shell_words("'open"), None);
    assert_eq!(shell_words("\"open"), None);
}
