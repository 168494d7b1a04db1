//! What pi states to the kit: its flags after a probe.

use gatehouse_core::PromptKind;
use gatehouse_harness::record::Unlock;
use gatehouse_harness::verdict::testing::assert_once_and_deny_only;

use crate::AGENT;

#[test]
fn a_passing_probe_offers_once_and_deny_for_bash_only_and_never_always() {
    let unprobed = AGENT.capabilities();
    assert!(unprobed.offered(PromptKind::Permission, "bash").is_empty());
    let flags = AGENT.capabilities_for(&[Unlock::Verified {
        version: "0.73.1".into(),
        evidence: "by probe on 2026-12-02 for pi 0.73.1".into(),
    }]);
    assert_once_and_deny_only(&flags, "bash", &["write", "edit", "read"]);
    let other = flags.rule_for(PromptKind::Permission, "write").unwrap();
    assert!(
        other.actions[0]
            .evidence
            .contains("answer the others in pi's dialog"),
        "{}",
        other.actions[0].evidence
    );
}

#[test]
fn the_version_is_what_pi_prints_alone() {
    gatehouse_harness::executable::testing::assert_versions(
        AGENT.executable.parse,
        &[
            ("0.73.1\n", Some("0.73.1")),
            ("0.73.1", Some("0.73.1")),
            ("Error: Cannot find module", None),
            ("0.73.1; rm -rf /", None),
            ("", None),
        ],
    );
}
