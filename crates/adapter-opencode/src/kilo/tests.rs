//! Kilo through the family's code: its captured events read as Kilo's prompts (adapter `kilo`,
//! `KILO_PID`, Kilo's words and its saved `always`), its flags and record are its own, and its
//! hook is what the plugin runs.

use gatehouse_core::{
    Action, AlwaysScope, HoldMode, HookEvent, Observation, PromptKind, Timestamp,
};
use gatehouse_harness::events::testing::{assert_permission_prompt, prompt_of};
use gatehouse_harness::probe::CaseResult;
use gatehouse_harness::record::{ProbeRecord, Unlock};
use serde_json::{json, Value};

use super::{capabilities, AGENT, KILO};
use crate::events::{parse, request_correlation, HookEnvironment};
use crate::tests::{captured, from_plugin};

fn in_tmux() -> HookEnvironment {
    crate::tests::in_tmux("/tmp/tmux-1000/default,3001,0", "%1", "3014")
}

fn verified() -> Unlock {
    Unlock::Verified {
        version: "7.7.7".into(),
        evidence: "by probe on 2026-12-02 for Kilo 7.7.7".into(),
    }
}

#[test]
fn kilos_bash_permission_is_a_kilo_prompt_held_with_its_command_and_terminal() {
    let stdin = from_plugin(captured!("kilo-cli-7.7.7", "permission.asked"));
    let (prompt, hold) =
        prompt_of(parse(&KILO, &stdin, Some("permission.asked"), &in_tmux()).unwrap());
    assert_eq!(hold, HoldMode::WhileActionable);
    let session = "ses_dcbc3154effejoHD2sxv2nFYwh";
    assert_permission_prompt(
        &prompt,
        "kilo",
        session,
        "bash",
        "printf approved > proof.txt",
    );
    assert_eq!(prompt.input["metadata"]["description"], "write proof file");
    assert_eq!(prompt.read_only_reason, None);
    assert_eq!(
        prompt.correlation,
        request_correlation("per_2343cf0ee001MoZ4C0LBHnB1kD")
    );
    let terminal = prompt.extra.terminal.clone().unwrap();
    assert_eq!(
        (terminal.tmux_pane.as_str(), terminal.pid),
        ("%1", Some(3014))
    );
    // No always for bash, and the prompt says why, in Kilo's name.
    assert!(prompt.extra.suggestions.is_empty());
    let preview = prompt.extra.preview.as_ref().unwrap();
    assert_eq!(preview.title, "What Kilo does with each answer");
    assert!(
        preview.text.contains(&format!(
            "always: not offered, because {}.",
            KILO.bash_always_withheld
        )),
        "{}",
        preview.text
    );
    let flags = AGENT.capabilities_for(&[verified()]);
    assert_eq!(flags.deliverable(&prompt), [Action::Once, Action::Deny]);
    // Read-only until probed.
    assert!(capabilities().deliverable(&prompt).is_empty());
}

#[test]
fn another_kilo_permission_is_watched_and_says_to_answer_it_in_kilo() {
    let mut event: Value =
        serde_json::from_str(captured!("kilo-cli-7.7.7", "permission.asked")).unwrap();
    event["properties"]["permission"] = "edit".into();
    event["properties"]["metadata"] = json!({ "filepath": "/etc/passwd" });
    let stdin = from_plugin(&event.to_string());
    let (prompt, hold) =
        prompt_of(parse(&KILO, &stdin, Some("permission.asked"), &in_tmux()).unwrap());
    assert_eq!(hold, HoldMode::RegisterOnly);
    let reason = prompt.read_only_reason.unwrap();
    assert!(
        reason.contains("bash prompts of Kilo; answer this edit prompt in Kilo's terminal"),
        "{reason}"
    );
    // Its always (answered in Kilo's terminal) is described: saved, for the user's every project.
    let suggestion = &prompt.extra.suggestions[0];
    assert_eq!(suggestion.scopes, [AlwaysScope::User]);
    let preview = prompt.extra.preview.unwrap();
    assert!(
        preview
            .text
            .contains("saves the rule in ~/.config/kilo/kilo.json"),
        "{}",
        preview.text
    );
}

#[test]
fn kilos_answers_settle_their_request_as_kilos() {
    let replied: Value =
        serde_json::from_str(captured!("kilo-cli-7.7.7", "permission.replied")).unwrap();
    let observed = parse(&KILO, replied[0].to_string().as_bytes(), None, &in_tmux()).unwrap();
    assert_eq!(
        observed,
        HookEvent::Observe(Observation::ToolFinished {
            adapter: "kilo".into(),
            session: "ses_dcbc3154effejoHD2sxv2nFYwh".into(),
            correlation: request_correlation("per_2343cf0ee001MoZ4C0LBHnB1kD"),
        })
    );
    let unnamed = parse(&KILO, b"{}", None, &in_tmux()).unwrap_err();
    assert!(
        unnamed
            .to_string()
            .contains("gatehouse hook kilo permission.asked"),
        "{unnamed}"
    );
}

/// The hook finds its Kilo by `KILO_PID` (Kilo sets it; no `OPENCODE_PID`) or its native
/// executable (`.kilo`) among its parents, never the installed one instead: a hook that no Kilo
/// runs (this test's) cannot say which version asks, so nothing is unlocked for it.
#[test]
fn a_hook_that_no_kilo_runs_cannot_say_which_kilo_asks() {
    if std::env::var_os("KILO_PID").is_some() {
        return; // run inside a Kilo: its parent may be one.
    }
    let running = gatehouse_harness::executable::running_agent(&AGENT.executable, None, None);
    let problem = running.version.unwrap_err().to_string();
    assert!(
        problem.contains("KILO_PID is not set, and no process that started this hook is `kilo`"),
        "{problem}"
    );
    gatehouse_harness::executable::testing::assert_a_missing_program_cannot_run(&AGENT.executable);
}

#[test]
fn read_only_until_probed_then_once_deny_and_answers_from_its_own_record() {
    let flags = capabilities();
    assert!(flags.offered(PromptKind::Permission, "bash").is_empty());
    assert!(flags.offered(PromptKind::Question, "question").is_empty());
    let folder = tempfile::tempdir().unwrap();
    let unlock = AGENT
        .unlock(AGENT.record(folder.path()), |_| Ok("7.7.7".to_owned()))
        .remove(0);
    assert!(
        matches!(&unlock, Unlock::ReadOnly { reason } if reason.contains("this Kilo honours gatehouse's answers; run `gatehouse probe kilo`")),
        "{unlock:?}"
    );
    let record = ProbeRecord {
        agent: "kilo",
        version: "7.7.7".into(),
        executable: "/w/node_modules/.bin/kilo".into(),
        probed_at: Timestamp::parse_rfc3339("2026-12-02T03:00:00Z").unwrap(),
        passed: true,
        cases: vec![CaseResult {
            case: "always".into(),
            passed: true,
            evidence: "ran".into(),
        }],
        gatehouse_version: "0.1.0".into(),
    };
    record.write(folder.path()).unwrap();
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(folder.path().join("kilo-probe.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(written["kilo_version"], "7.7.7");
    assert_eq!(written["kilo_executable"], "/w/node_modules/.bin/kilo");
    let unlocks = AGENT.unlock(AGENT.record(folder.path()), |_| Ok("7.7.7".to_owned()));
    let flags = AGENT.capabilities_for(&unlocks);
    assert_eq!(
        flags.offered(PromptKind::Permission, "bash"),
        [Action::Once, Action::Deny]
    );
    assert_eq!(
        flags.offered(PromptKind::Question, "question"),
        [Action::Answer]
    );
    let another = AGENT
        .unlock(AGENT.record(folder.path()), |_| Ok("7.8.1".to_owned()))
        .remove(0);
    assert!(
        matches!(&another, Unlock::ReadOnly { reason } if reason.contains("passed for Kilo 7.7.7, but Kilo 7.8.1 is in use")),
        "{another:?}"
    );
    // OpenCode's record unlocks nothing of Kilo's, and Kilo's nothing of OpenCode's.
    assert!(crate::AGENT.record(folder.path()).unwrap().is_none());
}

#[test]
fn the_installer_writes_kilos_plugin_into_kilos_folders_and_says_so() {
    let installer = AGENT.installer;
    assert!(installer
        .settings_described()
        .contains("~/.config/kilo/plugin/gatehouse.js"));
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join(".kilo/plugin/gatehouse.js");
    let outcome = installer
        .install(&gatehouse_core::kit::InstallRequest {
            settings: settings.clone(),
            program: "/usr/local/bin/gatehouse".into(),
            hold_seconds: 600,
            timeout_margin_seconds: 30,
        })
        .unwrap();
    assert!(
        outcome.changes[0].contains("/usr/local/bin/gatehouse hook kilo"),
        "{outcome:?}"
    );
    let notes = outcome.notes.join("\n");
    assert!(
        notes.contains("`gatehouse probe kilo`") && notes.contains("kilo.json"),
        "{notes}"
    );
    assert!(!notes.contains("OpenCode"), "{notes}");
    let plugin = std::fs::read_to_string(&settings).unwrap();
    assert!(plugin.contains(r#"const ADAPTER = "kilo""#));
}

#[test]
fn a_passing_probe_says_it_offers_once_and_deny_and_answers() {
    assert_eq!(
        AGENT.offers(),
        (
            "once and deny".to_owned(),
            "bash prompts, and answers to its questions".to_owned()
        )
    );
}
