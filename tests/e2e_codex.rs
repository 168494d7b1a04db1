//! End-to-end: the real Codex (npm `@openai/codex`, pinned in package.json) in tmux, against the
//! probe's scripted Responses API on loopback, with gatehouse's hooks installed by
//! `gatehouse install codex` and trusted at Codex's "Hooks need review" screen, as a person would.
//! What the fake records is what reached the model; what tmux shows is what the person saw.
//!
//! Without Codex installed these tests are skipped locally, and fail in CI (`CI` set).

use std::path::PathBuf;
use std::time::Duration;

use gatehouse_adapter_codex::probe::fake_responses::{FakeResponses, ScriptedCall};
use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};
use crate::support::codex_env::{
    find_codex_bin, wait_for_output, CodexEnv, APPROVAL_PROMPT_TEXT, INTERRUPTED_TEXT, READY_TEXT,
};
use crate::support::tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(30);

fn codex_bin() -> Option<PathBuf> {
    let found = find_codex_bin();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Codex is not installed; run `npm ci` (.ci/run does)"
        );
        eprintln!("skipped: Codex is not installed (run `npm ci`)");
    }
    found
}

fn call(name: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("call_{name}"),
        command: format!("printf {name} > {name}.txt"),
        justification: format!("write {name}.txt"),
    }
}

/// A gateway, the fake model with its script, and a Codex home with gatehouse's hooks installed.
struct World {
    gateway: Gateway,
    fake: FakeResponses,
    codex: CodexEnv,
}

impl World {
    fn new(script: &[&str]) -> Option<World> {
        let bin = codex_bin()?;
        let gateway = Gateway::start();
        let fake = FakeResponses::start(script.iter().map(|name| call(name)).collect()).unwrap();
        let folder = gateway.sandbox.folder.path();
        // The same HOME and XDG folders as the sandbox's gatehouse commands, so the hook finds the
        // gateway and the probe record.
        let env = [
            ("HOME", gateway.home().display().to_string()),
            (
                "XDG_CONFIG_HOME",
                folder.join("config").display().to_string(),
            ),
            ("XDG_RUNTIME_DIR", folder.join("run").display().to_string()),
            ("GATEHOUSE_SOCKET", gateway.socket().display().to_string()),
        ];
        let codex = CodexEnv::new(&bin, folder, &fake, &env);
        let installed = gateway
            .command(&["install", "codex"])
            .env("CODEX_HOME", &codex.codex_home)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&installed.stdout);
        assert!(
            installed.status.success(),
            "install: {}",
            String::from_utf8_lossy(&installed.stderr)
        );
        assert!(
            stdout.contains("Hooks need review"),
            "install says Codex asks for a review: {stdout}"
        );
        Some(World {
            gateway,
            fake,
            codex,
        })
    }

    fn answer(&self, id: &Value, arguments: &[&str]) -> std::process::Output {
        let mut all = vec!["answer", id.as_str().unwrap()];
        all.extend_from_slice(arguments);
        self.gateway.run(&all)
    }

    fn codex_flags(&self) -> Value {
        let status = self.gateway.run(&["status", "--json"]);
        let status: Value = serde_json::from_slice(&status.stdout).unwrap();
        let codex = status["adapters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|adapter| adapter["adapter"] == "codex")
            .unwrap();
        codex["rules"][0].clone()
    }

    /// Submits a turn and returns the prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.codex.submit(tmux, &format!("please write {name}.txt"));
        let mut pending = Vec::new();
        let listed = crate::support::codex_env::poll_until(DEADLINE, || {
            pending = self.gateway.list();
            pending.len() == 1
        });
        assert!(
            listed,
            "the gateway listed {} prompts, not 1; Codex's screen:\n{}",
            pending.len(),
            tmux.screen()
        );
        let prompt = pending.remove(0);
        assert_eq!(prompt["adapter"], "codex");
        assert_eq!(prompt["summary"], format!("printf {name} > {name}.txt"));
        prompt
    }
}

fn refused(output: &std::process::Output, code: &str) {
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(code), "expected {code}: {stderr}");
}

#[test]
fn read_only_until_probed_codex_decides_and_its_answers_withdraw_the_prompt() {
    let Some(world) = World::new(&["yes", "esc"]) else {
        return;
    };
    assert_eq!(world.codex_flags()["actions"][0]["verified"], false);
    let tmux = world.codex.start();

    // Yes in Codex's terminal: the command runs and PostToolUse withdraws the prompt.
    let prompt = world.prompt_for(&tmux, "yes");
    assert_eq!(prompt["actions"], json!([]), "read-only until probed");
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");
    tmux.send_keys(&["y"]);
    wait_for_output(&world.fake, "call_yes", DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.codex.marker("yes.txt")).unwrap(),
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
    assert!(!world.codex.marker("esc.txt").exists());
}

#[test]
fn the_probe_unlocks_once_and_deny_for_that_codex_version_only() {
    let Some(mut world) = World::new(&["once", "deny", "again"]) else {
        return;
    };
    let probed = world
        .gateway
        .command(&[
            "probe",
            "codex",
            "--codex",
            world.codex.codex_bin.to_str().unwrap(),
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
    assert!(
        stdout.contains("offers them now, from the next prompt on"),
        "the running gateway read the new record at once: {stdout}"
    );

    // The running gateway reads the new record by itself, without a restart.
    crate::common::wait_for(
        Duration::from_secs(40),
        "the gateway to offer what the probe unlocked",
        || world.codex_flags()["actions"][0]["verified"] == true,
    );
    let bash = world.codex_flags();
    assert_eq!(bash["tool"], "Bash");
    assert_eq!(bash["actions"][0]["verified"], true, "{bash}");
    assert!(
        bash["actions"][0]["evidence"]
            .as_str()
            .unwrap()
            .contains("for Codex 0.171.0"),
        "{bash}"
    );

    let tmux = world.codex.start();
    // Once from the gateway: Codex never shows its own prompt, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    wait_for_output(&world.fake, "call_once", DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.codex.marker("once.txt")).unwrap(),
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
    let output = wait_for_output(&world.fake, "call_deny", DEADLINE);
    assert!(output.contains("use make clean instead"), "{output}");
    assert!(!world.codex.marker("deny.txt").exists());
    tmux.wait_for_text("Blocked by hook", DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A record for another version: read-only again, and Codex's own prompt decides.
    let record_path = world
        .gateway
        .home()
        .join(".local/state/gatehouse/codex-probe.json");
    let mut record: Value = serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
    record["codex_version"] = "0.170.9".into();
    std::fs::write(&record_path, record.to_string()).unwrap();
    world.gateway.kill();
    world.gateway.start_again();
    let bash = world.codex_flags();
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
    wait_for_output(&world.fake, "call_again", DEADLINE);
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
    let tmux = world.codex.start();
    let probed = world
        .gateway
        .command(&[
            "probe",
            "codex",
            "--codex",
            world.codex.codex_bin.to_str().unwrap(),
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
        std::fs::read_to_string(world.codex.marker("atonce.txt")).unwrap(),
        "atonce"
    );
}
