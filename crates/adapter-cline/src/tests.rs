//! What Cline's adapter states: every tool read-only with the reason, nothing ever deliverable,
//! no verdict ever printed, a hook installer and no probe.

use gatehouse_core::{Adapter, Answer, PromptKind, Verdict};
use gatehouse_harness::captured_payload;
use gatehouse_harness::events::testing::prompt_of;

use crate::{ClineAdapter, READ_ONLY_REASON};

#[test]
fn every_tool_is_read_only_with_the_reason_and_nothing_is_ever_delivered() {
    let adapter = ClineAdapter::new(None);
    assert_eq!((adapter.id(), adapter.name()), ("cline", "Cline CLI"));
    let flags = adapter.capabilities();
    for tool in ["run_commands", "read_files", "editor"] {
        let rule = flags.rule_for(PromptKind::Permission, tool).unwrap();
        assert!(rule.offered().is_empty(), "{tool}");
        assert!(rule
            .actions
            .iter()
            .all(|flag| flag.evidence == READ_ONLY_REASON));
    }
    assert!(READ_ONLY_REASON.contains("only cancel the whole turn"));

    let stdin = captured_payload!("cline-cli-3.0.65", "PreToolUse.run_commands");
    let (prompt, _) = prompt_of(adapter.parse_hook_event(stdin, None).unwrap());
    assert!(adapter.deliverable_actions(&prompt).is_empty());
    assert!(adapter.deliverable_for(&prompt, None).is_empty());
    assert_eq!(adapter.running_agent(&prompt), None);
    for verdict in [
        Verdict(Answer::Once),
        Verdict(Answer::Deny {
            message: Some("no".into()),
        }),
    ] {
        assert_eq!(
            adapter.render_verdict(&prompt, &verdict),
            "",
            "never printed"
        );
    }
    assert!(adapter.installer().is_some());
    assert!(
        adapter.probe().is_none(),
        "nothing to prove: Cline's hooks cannot allow"
    );
    assert_eq!(adapter.while_held(), None, "never held");
}
