//! What Qwen Code states to the kit: its version, and its flags after a probe.

use gatehouse_core::PromptKind;
use gatehouse_harness::record::Unlock;
use gatehouse_harness::verdict::testing::assert_once_and_deny_only;

use crate::{parse_version_output, AGENT};

#[test]
fn the_version_is_the_first_line_when_it_is_a_version() {
    gatehouse_harness::executable::testing::assert_versions(
        parse_version_output,
        &[
            ("0.24.4\n", Some("0.24.4")),
            ("0.25.0-nightly.1", Some("0.25.0-nightly.1")),
            ("usage: qwen", None),
            ("1", None),
            ("0.24.4; rm -rf /", None),
            ("", None),
        ],
    );
}

#[test]
fn a_passing_probe_offers_once_and_deny_for_shell_commands_says_how_long_and_never_always() {
    let unprobed = AGENT.capabilities();
    assert!(unprobed
        .offered(PromptKind::Permission, "run_shell_command")
        .is_empty());
    let flags = AGENT.capabilities_for(&[Unlock::Verified {
        version: "0.24.4".into(),
        evidence: "by probe on 2026-12-01 for Qwen Code 0.24.4".into(),
    }]);
    assert_once_and_deny_only(&flags, "run_shell_command", &["write_file"]);
    let shell = flags
        .rule_for(PromptKind::Permission, "run_shell_command")
        .unwrap();
    assert!(
        shell.actions[0]
            .evidence
            .starts_with("by probe on 2026-12-01 for Qwen Code 0.24.4; ")
            && shell.actions[0].evidence.contains("answer within 40 s"),
        "{}",
        shell.actions[0].evidence
    );
    assert!(
        shell.actions[2]
            .evidence
            .contains("ignores a hook's \"always\""),
        "{}",
        shell.actions[2].evidence
    );
}
