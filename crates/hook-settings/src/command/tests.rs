//! Tests of recognising gatehouse's hook commands and of building them.

use std::path::Path;

use super::*;
use crate::test_agent::{EXAMPLE, EXAMPLE_WITH_ASSIGNMENTS, FLAT};

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

#[test]
fn hook_executable_commands_are_recognised_in_their_short_form() {
    for command in [
        "gatehouse-hook example",
        "'/usr/local/bin/gatehouse-hook' example",
        "'/Users/me/My Apps/gatehouse-hook' example",
        "'C:\\Program Files\\gatehouse\\gatehouse-hook.exe' example",
        // `gatehouse-hook` stands in for `gatehouse` in a command written by hand.
        "/usr/local/bin/gatehouse-hook hook example",
    ] {
        assert!(EXAMPLE.is_gatehouse_command(command), "{command}");
    }
    assert!(EXAMPLE_WITH_ASSIGNMENTS
        .is_gatehouse_command("GATEHOUSE_HOOK__WAIT_SECONDS=60 '/opt/bin/gatehouse-hook' example"));
    assert!(FLAT.is_gatehouse_command("WAIT=60 '/opt/bin/gatehouse-hook' flat permissionRequest"));
    for lookalike in [
        // The short form belongs to the hook executable alone.
        "/usr/local/bin/gatehouse example",
        "/usr/local/bin/gatehouse-hook other",
        "/usr/local/bin/gatehouse-hooks example",
        "/usr/local/bin/not-gatehouse-hook example",
        "echo gatehouse-hook example",
        "'/opt/gatehouse-hook' example --extra",
        " example",
    ] {
        assert!(!EXAMPLE.is_gatehouse_command(lookalike), "{lookalike}");
        assert!(
            !EXAMPLE_WITH_ASSIGNMENTS.is_gatehouse_command(lookalike),
            "{lookalike}"
        );
    }
}

/// A folder holding a `gatehouse` and, if `with_hook`, a `gatehouse-hook` of `mode`.
fn installed_binaries(with_hook: Option<u32>) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let write = |name: &str, mode: u32| {
        let path = folder.path().join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    write("gatehouse", 0o755);
    if let Some(mode) = with_hook {
        write("gatehouse-hook", mode);
    }
    folder
}

#[test]
fn hook_command_names_the_hook_executable_beside_gatehouse() {
    let folder = installed_binaries(Some(0o755));
    let program = folder.path().join("gatehouse");
    let command = EXAMPLE.hook_command(&program).unwrap();
    assert_eq!(
        command,
        format!(
            "'{}' example",
            folder.path().join("gatehouse-hook").display()
        )
    );
    assert!(EXAMPLE.is_gatehouse_command(&command));
}

#[test]
fn hook_command_falls_back_to_gatehouse_hook_without_the_hook_executable() {
    // Missing (only `gatehouse` was copied), or there but not executable.
    for with_hook in [None, Some(0o644)] {
        let folder = installed_binaries(with_hook);
        let program = folder.path().join("gatehouse");
        assert_eq!(
            EXAMPLE.hook_command(&program).unwrap(),
            format!("'{}' hook example", program.display()),
            "{with_hook:?}"
        );
    }
}
