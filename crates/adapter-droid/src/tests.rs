//! What Factory Droid states to the kit: its version, and its flags after a probe.

use gatehouse_core::PromptKind;
use gatehouse_harness::record::Unlock;
use gatehouse_harness::verdict::testing::assert_once_and_deny_only;

use crate::{parse_version_output, AGENT};

#[test]
fn the_version_is_the_first_line_when_it_is_a_version() {
    gatehouse_harness::executable::testing::assert_versions(
        parse_version_output,
        &[
            ("0.225.2\n", Some("0.225.2")),
            ("0.226.0-beta.1", Some("0.226.0-beta.1")),
            (
                "Error: Could not find the droid binary for linux-x64.",
                None,
            ),
            ("1", None),
            ("0.225.2; rm -rf /", None),
            ("", None),
        ],
    );
}

#[test]
fn a_passing_probe_offers_once_and_deny_for_shell_commands_says_how_long_and_never_always() {
    let unprobed = AGENT.capabilities();
    assert!(unprobed
        .offered(PromptKind::Permission, "Execute")
        .is_empty());
    let flags = AGENT.capabilities_for(&[Unlock::Verified {
        version: "0.225.2".into(),
        evidence: "by probe on 2026-12-02 for Droid 0.225.2".into(),
    }]);
    assert_once_and_deny_only(&flags, "Execute", &["Edit", "Read"]);
    let shell = flags.rule_for(PromptKind::Permission, "Execute").unwrap();
    assert!(
        shell.actions[0]
            .evidence
            .starts_with("by probe on 2026-12-02 for Droid 0.225.2; ")
            && shell.actions[0].evidence.contains("answer within 40 s"),
        "{}",
        shell.actions[0].evidence
    );
    assert!(
        shell.actions[2].evidence.contains("\"always allow\""),
        "{}",
        shell.actions[2].evidence
    );
}
