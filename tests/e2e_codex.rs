//! End-to-end: the real Codex (npm `@openai/codex`, pinned in package.json) in tmux, against the
//! probe's scripted Responses API on loopback, with gatehouse's hooks installed by
//! `gatehouse install codex` and trusted at Codex's "Hooks need review" screen, as a person would.
//! What the fake records is what reached the model; what tmux shows is what the person saw.
//!
//! Without Codex installed these tests are skipped locally, and fail in CI (`CI` set).

use std::time::Duration;

use gatehouse_adapter_codex::probe::fake_responses::{self, ScriptedCall};
use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};
use crate::support::codex_env::{
    find_codex_bin, CodexEnv, APPROVAL_PROMPT_TEXT, INTERRUPTED_TEXT, READY_TEXT,
};
use crate::support::tmux::Tmux;
use crate::support::world::{refused, required_bin, sandbox_env, AgentWorld};

const DEADLINE: Duration = Duration::from_secs(30);

fn call(name: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("call_{name}"),
        command: format!("printf {name} > {name}.txt"),
        reason: format!("write {name}.txt"),
    }
}

/// The kit's world with a Codex home whose hooks `gatehouse install codex` wrote.
type World = AgentWorld<CodexEnv>;

impl World {
    fn new(script: &[&str]) -> Option<World> {
        let bin = required_bin("Codex", find_codex_bin())?;
        let gateway = Gateway::start();
        let fake = fake_responses::start(script.iter().map(|name| call(name)).collect()).unwrap();
        // The same HOME and XDG folders as the sandbox's gatehouse commands, so the hook finds the
        // gateway and the probe record.
        let env = sandbox_env(&gateway, true);
        let codex = CodexEnv::new(&bin, gateway.sandbox.folder.path(), &fake, &env);
        let world = AgentWorld {
            agent: codex,
            adapter: "codex",
            gateway,
            fake,
        };
        let stdout = world.install(&[("CODEX_HOME", &world.agent.codex_home)]);
        assert!(
            stdout.contains("Hooks need review"),
            "install says Codex asks for a review: {stdout}"
        );
        Some(world)
    }

    /// Submits a turn and returns the prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.agent.submit(tmux, &format!("please write {name}.txt"));
        let prompt = self.the_one_listed(tmux, DEADLINE);
        assert_eq!(prompt["summary"], format!("printf {name} > {name}.txt"));
        prompt
    }
}

#[test]
fn read_only_until_probed_codex_decides_and_its_answers_withdraw_the_prompt() {
    let Some(world) = World::new(&["yes", "esc"]) else {
        return;
    };
    assert_eq!(world.flags()["actions"][0]["verified"], false);
    let tmux = world.agent.start();

    // Yes in Codex's terminal: the command runs and PostToolUse withdraws the prompt.
    let prompt = world.prompt_for(&tmux, "yes");
    assert_eq!(prompt["actions"], json!([]), "read-only until probed");
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");
    tmux.send_keys(&["y"]);
    world.output_for("call_yes", DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.agent.marker("yes.txt")).unwrap(),
        "yes"
    );
    wait_for(DEADLINE, "the prompt answered Yes to be withdrawn", || {
        world.gateway.list().is_empty()
    });
    refused(&world.answer(&prompt["id"], &["deny"]), "withdrawn");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // Esc in Codex's terminal: the turn is interrupted and the Interrupt hook withdraws the prompt.
    let prompt = world.prompt_for(&tmux, "esc");
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    tmux.press_until_gone(
        &["Escape"],
        APPROVAL_PROMPT_TEXT,
        Duration::from_secs(2),
        DEADLINE,
    );
    tmux.wait_for_text(INTERRUPTED_TEXT, DEADLINE);
    wait_for(DEADLINE, "the prompt answered Esc to be withdrawn", || {
        world.gateway.list().is_empty()
    });
    refused(&world.answer(&prompt["id"], &["once"]), "withdrawn");
    assert!(!world.agent.marker("esc.txt").exists());
}

#[test]
fn the_probe_unlocks_once_and_deny_for_that_codex_version_only() {
    let Some(mut world) = World::new(&["once", "deny", "again"]) else {
        return;
    };
    let bin = world.agent.bin.clone();
    let stdout = world.probe(&bin);
    assert!(
        stdout.contains("offers them now, from the next prompt on"),
        "the running gateway read the new record at once: {stdout}"
    );
    let bash = world.wait_until_verified("Codex 0.171.0");
    assert_eq!(bash["tool"], "Bash");

    let tmux = world.agent.start();
    // Once from the gateway: Codex never shows its own prompt, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    world.output_for("call_once", DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.agent.marker("once.txt")).unwrap(),
        "once"
    );
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    assert!(world.gateway.list().is_empty());

    // Deny with a message: the command does not run and the model reads the message.
    let prompt = world.prompt_for(&tmux, "deny");
    assert!(world
        .answer(
            &prompt["id"],
            &["deny", "--message", "use make clean instead"]
        )
        .status
        .success());
    let output = world.output_for("call_deny", DEADLINE);
    assert!(output.contains("use make clean instead"), "{output}");
    assert!(!world.agent.marker("deny.txt").exists());
    tmux.wait_for_text("Blocked by hook", DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A record for another version: read-only again, and Codex's own prompt decides.
    world.edit_record_and_restart("codex_version", "0.170.9");
    let bash = world.flags();
    assert_eq!(bash["actions"][0]["verified"], false, "{bash}");
    assert!(
        bash["actions"][0]["evidence"]
            .as_str()
            .unwrap()
            .contains("but Codex 0.171.0 is in use"),
        "{bash}"
    );
    let prompt = world.prompt_for(&tmux, "again");
    assert_eq!(prompt["actions"], json!([]));
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    tmux.send_keys(&["y"]);
    world.output_for("call_again", DEADLINE);
    wait_for(DEADLINE, "the read-only prompt to be withdrawn", || {
        world.gateway.list().is_empty()
    });
}

/// Issue 19: a passing probe counts for the very next prompt. Codex runs while the probe passes,
/// and the person goes straight back to it: the next Bash prompt is answerable at once (no
/// refresh waited for), and `once` from the gateway runs the command.
#[test]
fn a_probe_then_at_once_a_prompt_is_answerable_and_once_from_the_gateway_runs_it() {
    let Some(world) = World::new(&["atonce"]) else {
        return;
    };
    let tmux = world.agent.start();
    let bin = world.agent.bin.clone();
    world.probe(&bin);
    // No wait for any refresh: the very next prompt is answerable.
    let prompt = world.prompt_for(&tmux, "atonce");
    assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    world.output_for("call_atonce", DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.agent.marker("atonce.txt")).unwrap(),
        "atonce"
    );
}
