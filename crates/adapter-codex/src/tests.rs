//! Codex's capability flags through the kit: each verified kind offers its own actions, and the
//! flags read exactly as they did before the kit held Codex's rule.

use gatehouse_core::{Action, PromptKind};
use gatehouse_harness::verdict::testing::assert_once_and_deny_only;

use crate::record::{Kind, Unlock};
use crate::{capabilities, AGENT};

fn verified() -> Unlock {
    Unlock::Verified {
        version: "0.171.0".into(),
        evidence: "by probe on 2026-11-30 for Codex 0.171.0".into(),
    }
}

fn read_only(reason: &str) -> Unlock {
    Unlock::ReadOnly {
        reason: reason.into(),
    }
}

#[test]
fn read_only_offers_nothing() {
    let flags = AGENT.capabilities_for(&AGENT.every_group(read_only("no probe")));
    assert!(flags.offered(PromptKind::Permission, "Bash").is_empty());
    assert!(flags
        .offered(PromptKind::Permission, "apply_patch")
        .is_empty());
    assert_eq!(
        flags
            .rule_for(PromptKind::Permission, "Bash")
            .unwrap()
            .actions[0]
            .evidence,
        "no probe"
    );
}

#[test]
fn a_verified_probe_offers_once_and_deny_for_bash_only() {
    assert!(capabilities()
        .offered(PromptKind::Permission, "Bash")
        .is_empty());
    let flags = AGENT.capabilities_for(&[
        verified(),
        read_only("the probe of Codex 0.171.0 did not check file changes"),
        read_only("not checked"),
    ]);
    assert_once_and_deny_only(&flags, "Bash", &["apply_patch"]);
    assert!(flags
        .rule_for(PromptKind::Permission, "apply_patch")
        .unwrap()
        .actions[0]
        .evidence
        .contains("did not check file changes"));
    let once = &flags
        .rule_for(PromptKind::Permission, "Bash")
        .unwrap()
        .actions[0];
    assert_eq!(once.evidence, "by probe on 2026-11-30 for Codex 0.171.0");
}

#[test]
fn each_verified_kind_offers_its_own_actions() {
    let patch_only = AGENT.capabilities_for(&[read_only("shell failed"), verified(), verified()]);
    assert_once_and_deny_only(&patch_only, "apply_patch", &["Bash"]);
    let all = AGENT.capabilities_for(&AGENT.every_group(verified()));
    let bash_rule = all.rule_for(PromptKind::Permission, "Bash").unwrap();
    assert!(bash_rule
        .actions
        .iter()
        .any(|flag| flag.action == Action::Always && flag.verified));
    let patch_rule = all.rule_for(PromptKind::Permission, "apply_patch").unwrap();
    assert!(!patch_rule
        .actions
        .iter()
        .any(|flag| flag.action == Action::Always && flag.verified));
    assert!(all.offered(PromptKind::Permission, "WebSearch").is_empty());
}

/// Every combination of the three kinds (shell, patch, always; verified or not), then the flags
/// with no probe, as Codex's own `capabilities_for` rendered them before the kit held its rule
/// (tests/data/capabilities-before-the-kit.json, written by that code).
#[test]
fn the_flags_of_every_combination_of_kinds_are_those_from_before_the_kit() {
    let before: Vec<serde_json::Value> = serde_json::from_str(include_str!(
        "../tests/data/capabilities-before-the-kit.json"
    ))
    .unwrap();
    let one = |verified_kind: bool, kind: Kind| {
        let word = ["shell", "patch", "always"][kind as usize];
        match verified_kind {
            true => Unlock::Verified {
                version: "0.171.0".into(),
                evidence: format!("ev-{word}"),
            },
            false => read_only(&format!("ro-{word}")),
        }
    };
    let mut now = Vec::new();
    for shell in [true, false] {
        for patch in [true, false] {
            for always in [true, false] {
                let unlocks = [
                    one(shell, Kind::Shell),
                    one(patch, Kind::Patch),
                    one(always, Kind::Always),
                ];
                now.push(serde_json::to_value(AGENT.capabilities_for(&unlocks)).unwrap());
            }
        }
    }
    now.push(serde_json::to_value(capabilities()).unwrap());
    assert_eq!(now.len(), before.len());
    for (index, (now, before)) in now.iter().zip(&before).enumerate() {
        assert_eq!(now, before, "combination {index}");
    }
}

#[test]
fn a_passing_probe_says_it_offers_once_and_deny_for_bash_and_apply_patch_as_before() {
    assert_eq!(
        AGENT.offers(),
        (
            "once and deny".to_owned(),
            "Bash and apply_patch prompts".to_owned()
        )
    );
}
