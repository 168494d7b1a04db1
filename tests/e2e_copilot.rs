//! End-to-end: the real GitHub Copilot CLI (npm `@github/copilot`, pinned in package.json) in
//! tmux, offline, against the probe's scripted chat-completions API on loopback as its BYOK
//! provider, with gatehouse's hooks installed by `gatehouse install copilot` and a real
//! `gatehouse serve`. What the fake records is what reached the model; what tmux shows is what
//! the person saw.
//!
//! Without Copilot CLI installed these tests are skipped locally, and fail in CI (`CI` set).

use std::time::Duration;

use gatehouse_adapter_copilot::probe::fake_chat::{self, ScriptedCall};
use serde_json::{json, Value};

use crate::common::wait_for;
use crate::support::copilot_env::{CopilotEnv, APPROVAL_PROMPT_TEXT, READY_TEXT};
use crate::support::scenarios::write_calls;
use crate::support::tmux::Tmux;
use crate::support::world::{refused, sandbox_env, AgentWorld};

const DEADLINE: Duration = Duration::from_secs(30);

/// What Copilot CLI 1.0.102 tells the model for a call a permissionRequest hook denied.
const DENIED_BY_HOOK: &str = "Permission denied by a PermissionRequest hook: ";

/// The kit's world with Copilot's files, gatehouse's hooks installed.
type World = AgentWorld<CopilotEnv>;

impl World {
    fn new(script: Vec<ScriptedCall>) -> Option<World> {
        let world = World::for_agent(
            &gatehouse_adapter_copilot::AGENT,
            ("GATEHOUSE_COPILOT_BIN", "copilot"),
            || fake_chat::start(script).unwrap(),
            |bin, gateway, fake| {
                // The sandbox's XDG folders and socket, so the hook finds the gateway and the record.
                let env = sandbox_env(gateway, false);
                let folder = gateway.sandbox.folder.path();
                CopilotEnv::new(bin, folder, &gateway.home(), fake, &env)
            },
        )?;
        world.install(&[]);
        let settings: Value =
            serde_json::from_slice(&std::fs::read(&world.agent.home.settings).unwrap()).unwrap();
        assert_eq!(settings["banner"], "never", "install keeps other settings");
        let hook = settings["hooks"]["permissionRequest"][0]["bash"]
            .as_str()
            .unwrap();
        assert!(
            hook.starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=60 ")
                && hook.ends_with("/gatehouse-hook' copilot permissionRequest"),
            "{hook}"
        );
        Some(world)
    }

    /// Submits a turn and returns the prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.prompt_for_writing(tmux, name, Some("bash"), DEADLINE)
    }

    /// Answers Yes in Copilot's dialog ("1. Yes" is selected) and waits for the command to run.
    fn yes_in_copilot(&self, tmux: &Tmux, name: &str) -> String {
        self.yes_in_the_terminal(tmux, name, APPROVAL_PROMPT_TEXT, DEADLINE)
    }
}

#[test]
fn read_only_until_probed_copilots_dialog_decides_and_its_answers_withdraw_the_prompt() {
    let Some(world) = World::new(write_calls(&["yes", "esc"])) else {
        return;
    };
    world.unverified_until_probed("GitHub Copilot CLI");
    let tmux = world.agent.start();

    // Yes in Copilot's dialog: the command runs and postToolUse withdraws the prompt.
    let prompt = world.prompt_for(&tmux, "yes");
    let texts = (APPROVAL_PROMPT_TEXT, READY_TEXT);
    world.read_only_and_enter_in_the_terminal_withdraws_it(&tmux, &prompt, "yes", texts, DEADLINE);

    // Esc in Copilot's dialog sends no hook event; the next message (a later turn) withdraws it.
    let prompt = world.prompt_for(&tmux, "esc");
    world.esc_in_the_terminal(&tmux, APPROVAL_PROMPT_TEXT, DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    world.agent.submit(&tmux, "never mind");
    world.withdrawn(
        &prompt,
        "the next turn to withdraw the prompt",
        "once",
        DEADLINE,
    );
    assert_eq!(world.written_by("esc"), None);
}

#[test]
fn the_probe_unlocks_once_and_deny_for_that_version_a_release_hands_back_and_calls_copilot_allows_are_not_held(
) {
    let Some(mut world) = World::new(
        write_calls(&["once", "deny", "release", "again", "remember"])
            .into_iter()
            .chain([ScriptedCall {
                call_id: "call_allowed".into(),
                command: "printf allowed".into(),
                reason: "print allowed".into(),
            }])
            .collect(),
    ) else {
        return;
    };
    let stdout = world.probe(&world.agent.bin);
    assert!(stdout.contains(DENIED_BY_HOOK), "{stdout}");
    let bash = world.wait_until_verified("Copilot CLI 1.0.102");
    assert_eq!(bash["tool"], "bash");
    let status = String::from_utf8_lossy(&world.gateway.run(&["status"]).stdout).into_owned();
    let copilot = status.split("GitHub Copilot CLI (copilot)").nth(1).unwrap();
    assert!(
        copilot.contains("permission bash") && copilot.contains("once, deny"),
        "{status}"
    );
    assert!(
        copilot.contains("the probe proves bash prompts only"),
        "{status}"
    );

    let tmux = world.agent.start();
    // Once from the gateway: Copilot shows no dialog of its own, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    let screens = (APPROVAL_PROMPT_TEXT, READY_TEXT);
    world.once_from_the_gateway_runs_it(&tmux, &prompt, "once", screens, DEADLINE);

    // Deny with a message: the command does not run and the model reads the message.
    let prompt = world.prompt_for(&tmux, "deny");
    let output = world.deny_from_the_gateway(&prompt, "deny", "use make clean instead", DEADLINE);
    assert_eq!(output, format!("{DENIED_BY_HOOK}use make clean instead"));
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A release hands the prompt back: Copilot's dialog appears, and Yes there runs the command.
    let prompt = world.prompt_for(&tmux, "release");
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    let released = world
        .gateway
        .run(&["release", prompt["id"].as_str().unwrap()]);
    assert!(released.status.success(), "{released:?}");
    world.yes_in_copilot(&tmux, "release");
    refused(&world.answer(&prompt["id"], &["once"]), "released");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A record for another version: read-only again, watched only; Copilot's dialog decides and
    // a Yes there withdraws the watched prompt.
    world.record_another_version("copilot_version", "1.0.101", "Copilot CLI 1.0.102");
    let prompt = world.prompt_for(&tmux, "again");
    assert_eq!(prompt["actions"], json!([]));
    world.yes_in_copilot(&tmux, "again");
    world.withdrawn(
        &prompt,
        "the watched prompt to be withdrawn",
        "once",
        DEADLINE,
    );

    // The probed version again. "Yes, and don't ask again for `printf` in this directory" in
    // Copilot's dialog: the next printf (writing no file, which Copilot would ask about) is one
    // Copilot runs without asking, and the hook, which Copilot still runs and waits for, only
    // watches it instead of holding it for 60 s.
    world.edit_record_and_restart("copilot_version", "1.0.102");
    assert_eq!(world.flags()["actions"][0]["verified"], true);
    let prompt = world.prompt_for(&tmux, "remember");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert!(world
        .gateway
        .run(&["release", prompt["id"].as_str().unwrap()])
        .status
        .success());
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    tmux.wait_for_text("don't ask again for `printf`", DEADLINE);
    tmux.press_until_gone(
        &["Down", "Enter"],
        APPROVAL_PROMPT_TEXT,
        Duration::from_secs(2),
        DEADLINE,
    );
    world.output_for("call_remember", DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    assert!(!tmux.screen().contains("could no longer be answered"));
    world.agent.submit(&tmux, "please print allowed");
    // Within DEADLINE (30 s), below the 60 s a held prompt would wait: nobody answered it.
    let output = world.output_for("call_allowed", DEADLINE);
    assert!(output.starts_with("allowed"), "{output}");
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    wait_for(DEADLINE, "the watched prompt to be withdrawn", || {
        world.gateway.list().is_empty()
    });
    let log = String::from_utf8_lossy(&world.gateway.run(&["log", "--json"]).stdout).into_owned();
    assert!(
        log.contains(r#""summary":"printf allowed","#)
            && log.contains("not to ask again about `printf`"),
        "the audit log shows the call watched, with the reason: {log}"
    );
}

/// Issue 19: a passing probe counts for the very next prompt. Copilot CLI runs while the probe
/// passes, and the person goes straight back to it: the next `bash` prompt is answerable at once
/// (no refresh waited for), and `once` from the gateway runs the command.
#[test]
fn a_probe_then_at_once_a_prompt_is_answerable_and_once_from_the_gateway_runs_it() {
    let Some(world) = World::new(write_calls(&["atonce"])) else {
        return;
    };
    let tmux = world.agent.start();
    let actions = json!(["once", "deny"]);
    world.a_probe_then_at_once_once_runs_it(&tmux, Some("bash"), actions, DEADLINE);
    let log = String::from_utf8_lossy(&world.gateway.run(&["log", "--json"]).stdout).into_owned();
    assert!(
        !log.contains("answered in the terminal or the agent stopped"),
        "{log}"
    );
}
