//! End-to-end: the real GitHub Copilot CLI (npm `@github/copilot`, pinned in package.json) in
//! tmux, offline, against the probe's scripted chat-completions API on loopback as its BYOK
//! provider, with gatehouse's hooks installed by `gatehouse install copilot` and a real
//! `gatehouse serve`. What the fake records is what reached the model; what tmux shows is what
//! the person saw.
//!
//! Without Copilot CLI installed these tests are skipped locally, and fail in CI (`CI` set).

use std::path::PathBuf;
use std::time::Duration;

use gatehouse_adapter_copilot::probe::fake_chat::{FakeChat, ScriptedCall};
use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};
use crate::support::copilot_env::{
    find_copilot_bin, wait_for_output, CopilotEnv, APPROVAL_PROMPT_TEXT, READY_TEXT,
};
use crate::support::tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(30);

/// What Copilot CLI 1.0.102 tells the model for a call a permissionRequest hook denied.
const DENIED_BY_HOOK: &str = "Permission denied by a PermissionRequest hook: ";

fn copilot_bin() -> Option<PathBuf> {
    let found = find_copilot_bin();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Copilot CLI is not installed; run `npm ci` (.ci/run does)"
        );
        eprintln!("skipped: Copilot CLI is not installed (run `npm ci`)");
    }
    found
}

fn calls(names: &[&str]) -> Vec<ScriptedCall> {
    names.iter().map(|name| call(name)).collect()
}

fn call(name: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("call_{name}"),
        command: format!("printf {name} > {name}.txt"),
        description: format!("write {name}.txt"),
    }
}

/// A gateway, the fake model with its script, and Copilot's files with gatehouse's hooks.
struct World {
    gateway: Gateway,
    fake: FakeChat,
    copilot: CopilotEnv,
}

impl World {
    fn new(script: Vec<ScriptedCall>) -> Option<World> {
        let bin = copilot_bin()?;
        let gateway = Gateway::start();
        let fake = FakeChat::start(script).unwrap();
        let folder = gateway.sandbox.folder.path();
        // The sandbox's XDG folders and socket, so the hook finds the gateway and the record.
        let env = [
            (
                "XDG_CONFIG_HOME",
                folder.join("config").display().to_string(),
            ),
            ("XDG_RUNTIME_DIR", folder.join("run").display().to_string()),
            ("GATEHOUSE_SOCKET", gateway.socket().display().to_string()),
        ];
        let copilot = CopilotEnv::new(&bin, folder, &gateway.home(), &fake, &env);
        let installed = gateway.run(&["install", "copilot"]);
        let stdout = String::from_utf8_lossy(&installed.stdout);
        assert!(
            installed.status.success(),
            "install: {stdout}{}",
            String::from_utf8_lossy(&installed.stderr)
        );
        let settings: Value =
            serde_json::from_slice(&std::fs::read(&copilot.settings).unwrap()).unwrap();
        assert_eq!(settings["banner"], "never", "install keeps other settings");
        let hook = settings["hooks"]["permissionRequest"][0]["bash"]
            .as_str()
            .unwrap();
        assert!(
            hook.starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=60 ")
                && hook.ends_with(" hook copilot permissionRequest"),
            "{hook}"
        );
        Some(World {
            gateway,
            fake,
            copilot,
        })
    }

    fn answer(&self, id: &Value, arguments: &[&str]) -> std::process::Output {
        let mut all = vec!["answer", id.as_str().unwrap()];
        all.extend_from_slice(arguments);
        self.gateway.run(&all)
    }

    fn copilot_flags(&self) -> Value {
        let status = self.gateway.run(&["status", "--json"]);
        let status: Value = serde_json::from_slice(&status.stdout).unwrap();
        let copilot = status["adapters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|adapter| adapter["adapter"] == "copilot")
            .unwrap();
        copilot["rules"][0].clone()
    }

    /// Submits a turn and returns the prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.copilot
            .submit(tmux, &format!("please write {name}.txt"));
        let mut pending = Vec::new();
        let listed = crate::support::codex_env::poll_until(DEADLINE, || {
            pending = self.gateway.list();
            pending.len() == 1
        });
        assert!(
            listed,
            "the gateway listed {} prompts, not 1; Copilot's screen:\n{}",
            pending.len(),
            tmux.screen()
        );
        let prompt = pending.remove(0);
        assert_eq!(prompt["adapter"], "copilot");
        assert_eq!(prompt["tool"], "bash");
        assert_eq!(prompt["summary"], format!("printf {name} > {name}.txt"));
        prompt
    }

    /// Answers Yes in Copilot's dialog ("1. Yes" is selected) and waits for the command to run.
    fn yes_in_the_terminal(&self, tmux: &Tmux, name: &str) -> String {
        tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
        assert!(
            !self.copilot.marker(&format!("{name}.txt")).exists(),
            "ran before the dialog was answered"
        );
        tmux.press_until_gone(
            &["Enter"],
            APPROVAL_PROMPT_TEXT,
            Duration::from_secs(2),
            DEADLINE,
        );
        let output = wait_for_output(&self.fake, &format!("call_{name}"), DEADLINE);
        assert_eq!(
            std::fs::read_to_string(self.copilot.marker(&format!("{name}.txt"))).unwrap(),
            name
        );
        output
    }
}

fn refused(output: &std::process::Output, code: &str) {
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(code), "expected {code}: {stderr}");
}

#[test]
fn read_only_until_probed_copilots_dialog_decides_and_its_answers_withdraw_the_prompt() {
    let Some(world) = World::new(calls(&["yes", "esc"])) else {
        return;
    };
    assert_eq!(world.copilot_flags()["actions"][0]["verified"], false);
    let status = String::from_utf8_lossy(&world.gateway.run(&["status"]).stdout).into_owned();
    assert!(status.contains("GitHub Copilot CLI (copilot)"), "{status}");
    assert!(status.contains("gatehouse probe copilot"), "{status}");
    let tmux = world.copilot.start();

    // Yes in Copilot's dialog: the command runs and postToolUse withdraws the prompt.
    let prompt = world.prompt_for(&tmux, "yes");
    assert_eq!(prompt["actions"], json!([]), "read-only until probed");
    assert!(
        prompt["read_only_reason"]
            .as_str()
            .unwrap()
            .contains("gatehouse probe copilot"),
        "{prompt}"
    );
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");
    world.yes_in_the_terminal(&tmux, "yes");
    wait_for(DEADLINE, "the prompt answered Yes to be withdrawn", || {
        world.gateway.list().is_empty()
    });
    refused(&world.answer(&prompt["id"], &["deny"]), "withdrawn");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // Esc in Copilot's dialog sends no hook event; the next message (a later turn) withdraws it.
    let prompt = world.prompt_for(&tmux, "esc");
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    tmux.press_until_gone(
        &["Escape"],
        APPROVAL_PROMPT_TEXT,
        Duration::from_secs(2),
        DEADLINE,
    );
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    world.copilot.submit(&tmux, "never mind");
    wait_for(DEADLINE, "the next turn to withdraw the prompt", || {
        world.gateway.list().is_empty()
    });
    refused(&world.answer(&prompt["id"], &["once"]), "withdrawn");
    assert!(!world.copilot.marker("esc.txt").exists());
}

#[test]
fn the_probe_unlocks_once_and_deny_for_that_version_a_release_hands_back_and_calls_copilot_allows_are_not_held(
) {
    let Some(mut world) = World::new(
        calls(&["once", "deny", "release", "again", "remember"])
            .into_iter()
            .chain([ScriptedCall {
                call_id: "call_allowed".into(),
                command: "printf allowed".into(),
                description: "print allowed".into(),
            }])
            .collect(),
    ) else {
        return;
    };
    let probed = world
        .gateway
        .command(&[
            "probe",
            "copilot",
            "--executable",
            world.copilot.copilot_bin.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&probed.stdout);
    assert!(
        probed.status.success(),
        "probe: {stdout}{}",
        String::from_utf8_lossy(&probed.stderr)
    );
    for case in ["allow", "deny", "no-verdict"] {
        assert!(stdout.contains(&format!("case {case}:")), "{stdout}");
    }
    assert!(!stdout.contains("FAILED"), "{stdout}");
    assert!(stdout.contains(DENIED_BY_HOOK), "{stdout}");

    // The running gateway reads the new record by itself, without a restart.
    wait_for(
        Duration::from_secs(40),
        "the gateway to offer what the probe unlocked",
        || world.copilot_flags()["actions"][0]["verified"] == true,
    );
    let bash = world.copilot_flags();
    assert_eq!(bash["tool"], "bash");
    assert!(
        bash["actions"][0]["evidence"]
            .as_str()
            .unwrap()
            .contains("for Copilot CLI 1.0.102"),
        "{bash}"
    );
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

    let tmux = world.copilot.start();
    // Once from the gateway: Copilot shows no dialog of its own, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    wait_for_output(&world.fake, "call_once", DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.copilot.marker("once.txt")).unwrap(),
        "once"
    );
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    assert!(world.gateway.list().is_empty());

    // Deny with a message: the command does not run and the model reads the message.
    let prompt = world.prompt_for(&tmux, "deny");
    let denied = world.answer(
        &prompt["id"],
        &["deny", "--message", "use make clean instead"],
    );
    assert!(denied.status.success());
    let output = wait_for_output(&world.fake, "call_deny", DEADLINE);
    assert_eq!(output, format!("{DENIED_BY_HOOK}use make clean instead"));
    assert!(!world.copilot.marker("deny.txt").exists());
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A release hands the prompt back: Copilot's dialog appears, and Yes there runs the command.
    let prompt = world.prompt_for(&tmux, "release");
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    let released = world
        .gateway
        .run(&["release", prompt["id"].as_str().unwrap()]);
    assert!(released.status.success(), "{released:?}");
    world.yes_in_the_terminal(&tmux, "release");
    refused(&world.answer(&prompt["id"], &["once"]), "released");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A record for another version: read-only again, watched only; Copilot's dialog decides and
    // a Yes there withdraws the watched prompt.
    let record_path = world
        .gateway
        .home()
        .join(".local/state/gatehouse/copilot-probe.json");
    let mut record: Value = serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
    record["copilot_version"] = "1.0.101".into();
    std::fs::write(&record_path, record.to_string()).unwrap();
    world.gateway.kill();
    world.gateway.start_again();
    let bash = world.copilot_flags();
    assert_eq!(bash["actions"][0]["verified"], false, "{bash}");
    assert!(
        bash["actions"][0]["evidence"]
            .as_str()
            .unwrap()
            .contains("but Copilot CLI 1.0.102 is in use"),
        "{bash}"
    );
    let prompt = world.prompt_for(&tmux, "again");
    assert_eq!(prompt["actions"], json!([]));
    world.yes_in_the_terminal(&tmux, "again");
    wait_for(DEADLINE, "the watched prompt to be withdrawn", || {
        world.gateway.list().is_empty()
    });
    refused(&world.answer(&prompt["id"], &["once"]), "withdrawn");

    // The probed version again. "Yes, and don't ask again for `printf` in this directory" in
    // Copilot's dialog: the next printf (writing no file, which Copilot would ask about) is one
    // Copilot runs without asking, and the hook, which Copilot still runs and waits for, only
    // watches it instead of holding it for 60 s.
    record["copilot_version"] = "1.0.102".into();
    std::fs::write(&record_path, record.to_string()).unwrap();
    world.gateway.kill();
    world.gateway.start_again();
    assert_eq!(world.copilot_flags()["actions"][0]["verified"], true);
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
    wait_for_output(&world.fake, "call_remember", DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    assert!(!tmux.screen().contains("could no longer be answered"));
    world.copilot.submit(&tmux, "please print allowed");
    // Within DEADLINE (30 s), below the 60 s a held prompt would wait: nobody answered it.
    let output = wait_for_output(&world.fake, "call_allowed", DEADLINE);
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
    let Some(world) = World::new(calls(&["atonce"])) else {
        return;
    };
    let tmux = world.copilot.start();
    let probed = world
        .gateway
        .command(&[
            "probe",
            "copilot",
            "--executable",
            world.copilot.copilot_bin.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        probed.status.success(),
        "probe: {}{}",
        String::from_utf8_lossy(&probed.stdout),
        String::from_utf8_lossy(&probed.stderr)
    );
    let prompt = world.prompt_for(&tmux, "atonce");
    assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    wait_for_output(&world.fake, "call_atonce", DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.copilot.marker("atonce.txt")).unwrap(),
        "atonce"
    );
    let log = String::from_utf8_lossy(&world.gateway.run(&["log", "--json"]).stdout).into_owned();
    assert!(
        !log.contains("answered in the terminal or the agent stopped"),
        "{log}"
    );
}
