//! End-to-end: the real Factory Droid (npm `@factory/cli` with its platform package, pinned in
//! package.json) in tmux, offline in Airgap mode, against the kit's scripted chat-completions
//! model on loopback as Droid's custom model, with gatehouse's hooks installed by `gatehouse
//! install droid` and a real `gatehouse serve`. What the model records is what reached it; what
//! tmux shows is what the person saw. Droid's private home is the probe's
//! ([`gatehouse_adapter_droid::probe::private`]): Auto (Off), the workspace trusted.
//!
//! Without Droid installed the tests that run it are skipped locally, and fail in CI (`CI` set);
//! the last one, which feeds the hook Droid's captured event, runs everywhere.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gatehouse_adapter_droid::install::DROID_WAIT_SECONDS;
use gatehouse_adapter_droid::probe::private::{offline_environment, write_private_settings};
use gatehouse_adapter_droid::probe::{fake_chat, APPROVAL_PROMPT_TEXT, BUSY_TEXT, READY_TEXT};
use gatehouse_harness::model::ScriptedModel;
use serde_json::{json, Value};

use crate::common::Gateway;
use crate::support::fed_hook;
use crate::support::scenarios::{assert_holding_hook, write_calls};
use crate::support::tmux::Tmux;
use crate::support::world::{
    refused, sandbox_env, workspace_in, write_passing_record, Agent, AgentTerminal, AgentWorld,
    QuittingTmux,
};

const DEADLINE: Duration = Duration::from_secs(60);

/// How long Droid may take to start on a busy machine; it took about 10 seconds here.
const START_DEADLINE: Duration = Duration::from_secs(90);

/// Droid's private home: its settings file.
struct DroidHome {
    settings: PathBuf,
}

/// Droid at `bin` in the sandbox's HOME (with the probe's private settings, the scripted model
/// as its custom model), XDG folders and socket, so the hook finds the gateway and the record.
fn private_droid(bin: &Path, gateway: &Gateway, fake: &ScriptedModel) -> Agent<DroidHome> {
    let env = sandbox_env(gateway, true);
    let home = gateway.home();
    let workspace = workspace_in(gateway.sandbox.folder.path());
    write_private_settings(&home, &fake.base_url(), &workspace, None).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    Agent {
        terminal: AgentTerminal::new(
            "droid",
            bin,
            workspace,
            offline_environment(&home, &path),
            &env,
            START_DEADLINE,
        ),
        home: DroidHome {
            settings: home.join(".factory/settings.json"),
        },
    }
}

/// The kit's world with a private Droid home whose hooks `gatehouse install droid` wrote.
type World = AgentWorld<Agent<DroidHome>>;

impl World {
    fn new(script: &[&str]) -> Option<World> {
        let world = World::for_agent(
            &gatehouse_adapter_droid::AGENT,
            ("GATEHOUSE_DROID_BIN", "droid"),
            || fake_chat::start(write_calls(script)).unwrap(),
            private_droid,
        )?;
        let stdout = world.install(&[]);
        let said = ["held for up to 40 s", "gatehouse probe droid", "allowlist"];
        crate::common::assert_says_all("install", &stdout, &said);
        let settings = world.settings();
        assert_eq!(
            settings["customModels"][0]["provider"], "generic-chat-completion-api",
            "install keeps the person's settings"
        );
        let group = &settings["hooks"]["PreToolUse"][0];
        assert_eq!(group["matcher"], "Execute", "{group}");
        assert_holding_hook(&group["hooks"][0], 40, 60, "seconds, above the wait");
        Some(world)
    }

    fn settings(&self) -> Value {
        serde_json::from_slice(&std::fs::read(&self.agent.home.settings).unwrap()).unwrap()
    }

    /// Starts Droid in tmux (keeping the `TMUX` variables its hooks report) and waits for its
    /// input box; dropping the terminal ends Droid with `/quit`.
    fn start(&self) -> QuittingTmux {
        self.agent
            .start_quitting(READY_TEXT, gatehouse_adapter_droid::probe::SCREEN)
    }

    /// Submits a turn and returns the prompt the gateway lists for it: the command whole, from
    /// the pane Droid runs in.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.prompt_for_writing_in_its_pane(tmux, name, "Execute", DEADLINE)
    }

    /// Types `message` into Droid's input box until it shows whole, then sends it: after a
    /// cancelled turn Droid resets its input box a moment later, dropping what was typed
    /// meanwhile, so what is gone is deleted and typed again.
    fn submit_whole(&self, tmux: &Tmux, message: &str) {
        let started = Instant::now();
        loop {
            tmux.send_text(message);
            let typed = tmux
                .terminal()
                .wait_for_screen(Duration::from_secs(5), |screen| screen.contains(message));
            if typed.is_ok() {
                break;
            }
            assert!(
                started.elapsed() < self.agent.start_deadline,
                "Droid did not take {message:?}; last screen:\n{}",
                tmux.screen()
            );
            let delete = vec!["BSpace"; message.len() + 8];
            tmux.send_keys(&delete);
        }
        tmux.send_keys(&["Enter"]);
    }

    /// Answers Yes in Droid's dialog ("Yes, allow" is selected) and waits for the command to run.
    fn yes_in_droid(&self, tmux: &Tmux, name: &str) {
        self.yes_in_the_terminal(tmux, name, APPROVAL_PROMPT_TEXT, DEADLINE);
    }

    /// What `gatehouse status` prints.
    fn status_text(&self) -> String {
        String::from_utf8_lossy(&self.gateway.run(&["status"]).stdout).into_owned()
    }
}

#[test]
fn read_only_until_probed_droids_dialog_decides_and_its_answers_withdraw_the_prompt() {
    let Some(world) = World::new(&["yes", "esc"]) else {
        return;
    };
    world.unverified_until_probed("Factory Droid");
    let status = world.status_text();
    assert!(
        status.contains("no probe has checked that this Droid honours gatehouse's answers"),
        "{status}"
    );
    let tmux = world.start();

    // Yes in Droid's dialog: the command runs, and PostToolUse withdraws the prompt. Esc in
    // Droid's dialog: the turn is cancelled, Stop says so, and the prompt goes.
    let prompt_for = |name: &str| world.prompt_for(&tmux, name);
    let screens = (APPROVAL_PROMPT_TEXT, READY_TEXT);
    world.read_only_yes_and_esc_in_the_terminal(&tmux, prompt_for, screens, DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // `uninstall droid` removes gatehouse's entries and only those.
    let settings = world.uninstall_removes_the_hooks(&world.agent.home.settings);
    assert_eq!(settings["customModels"][0]["model"], "gatehouse-scripted");
}

#[test]
fn the_probe_unlocks_once_and_deny_an_unanswered_hold_ends_in_droids_dialog_and_without_a_gateway_droid_decides(
) {
    let Some(mut world) = World::new(&["once", "deny", "cancelled", "unanswered", "down"]) else {
        return;
    };
    world.probe(&world.agent.bin);
    let shell = world.wait_until_verified("Droid 0.225.2");
    assert_eq!(shell["tool"], "Execute");
    let evidence = shell["actions"][0]["evidence"].as_str().unwrap();
    assert!(evidence.contains("answer within 40 s"), "{evidence}");
    let status = world.status_text();
    let droid = status
        .split("Factory Droid (droid)\n")
        .nth(1)
        .unwrap_or_default();
    assert!(
        droid
            .lines()
            .any(|line| line.contains("permission Execute")
                && line.trim_end().ends_with("once, deny"))
            && droid.contains(
                "the probe proves Execute prompts only; answer the others in Droid's terminal"
            ),
        "status says what Droid allows and why: {status}"
    );

    let tmux = world.start();
    // Once from the gateway: Droid shows no dialog of its own, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    let screens = (APPROVAL_PROMPT_TEXT, READY_TEXT);
    world.once_offered_and_from_the_gateway_runs_it(&tmux, &prompt, screens, DEADLINE);

    // Deny with a message: the command does not run and the model reads the message.
    let prompt = world.prompt_for(&tmux, "deny");
    let output = world.deny_from_the_gateway(&prompt, "deny", "use make clean instead", DEADLINE);
    assert_eq!(output, "Error: use make clean instead");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // Esc at Droid's "Executing..." while gatehouse holds the call cancels the turn: Droid's
    // Stop withdraws the prompt, the command never runs, and a late `once` is refused.
    let prompt = world.prompt_for(&tmux, "cancelled");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    // One Esc, so that no second one reaches Droid's input box after the cancel.
    tmux.wait_for_text(BUSY_TEXT, DEADLINE);
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_text_gone(BUSY_TEXT, DEADLINE);
    let what = "the held prompt cancelled in Droid to be withdrawn";
    world.withdrawn(&prompt, what, "once", DEADLINE);
    assert_eq!(world.written_by("cancelled"), None);
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // Nobody answers: `list` shows the hold and what comes after it; Droid shows no dialog of
    // its own until the hold ends, then its dialog decides and a late answer is refused.
    world.submit_whole(&tmux, "please write unanswered.txt");
    let prompt = world.the_one_listed(&tmux, DEADLINE);
    assert_eq!(prompt["summary"], "printf unanswered > unanswered.txt");
    let asked_at = Instant::now();
    let list = world.gateway.list_text();
    assert!(
        list.contains("held: answer within ")
            && list.contains("then Factory Droid shows its own dialog"),
        "{list}"
    );
    assert!(
        tmux.screen().contains(BUSY_TEXT) && !tmux.screen().contains(APPROVAL_PROMPT_TEXT),
        "{}",
        tmux.screen()
    );
    let hold = Duration::from_secs(DROID_WAIT_SECONDS);
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, hold + DEADLINE);
    let held_for = asked_at.elapsed();
    assert!(
        held_for >= hold - Duration::from_secs(10),
        "Droid's dialog came after {held_for:?}, before the hold of {hold:?} ended"
    );
    refused(&world.answer(&prompt["id"], &["once"]), "expired");
    world.yes_in_droid(&tmux, "unanswered");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // The gateway down: the hook leaves it to Droid at once, as if gatehouse were not installed.
    world.with_the_gateway_down_the_dialog_asks_at_once(
        &tmux,
        APPROVAL_PROMPT_TEXT,
        hold,
        DEADLINE,
    );
}

/// Droid 0.225.2's PreToolUse for `command` in `session`.
fn droid_pre_tool_use(session: &str, command: &str) -> Vec<u8> {
    let captured = "crates/adapter-droid/tests/data/factory-droid-0.225.2/PreToolUse-Execute.json";
    fed_hook::captured_event(captured, session, command)
}

/// Without Droid itself (this runs everywhere): a folder `name` in the sandbox with a `droid`
/// that prints `version` for `--version`, for the hook's PATH. The script is written by a shell
/// (a script the test process held open for writing could not be run by a child another test
/// thread forked meanwhile).
fn fake_droid(gateway: &Gateway, name: &str, version: &str) -> PathBuf {
    let bin = gateway.sandbox.folder.path().join(name);
    let written = std::process::Command::new("sh")
        .args([
            "-c",
            r#"mkdir -p "$1" && printf '#!/bin/sh\necho %s\n' "$2" > "$1/droid" && chmod +x "$1/droid""#,
            "sh",
        ])
        .arg(&bin)
        .arg(version)
        .status()
        .unwrap();
    assert!(written.success());
    bin
}

/// Without Droid itself: a hostile command from Droid is listed with its control and bidi
/// characters as escapes; a Droid whose version no probe passed for is only watched; the probed
/// one is answerable, and a deny reaches the hook's stdout as Droid's PreToolUse deny; a call
/// Droid runs by its allowlist is only watched; input that is not an event leaves Droid alone,
/// with exit 0 and nothing printed.
#[test]
fn hostile_droid_text_is_shown_as_escapes_and_only_the_probed_version_is_answerable() {
    let gateway = Gateway::start();
    write_passing_record(&gateway, "droid", "0.225.2", "/nonexistent/droid");
    let older = fake_droid(&gateway, "older-bin", "0.224.0");
    let path = format!("{}:/usr/bin:/bin", older.display());
    let watched = gateway.spawn_hook(
        "droid",
        &droid_pre_tool_use("older", fed_hook::HOSTILE_COMMAND),
        &[("PATH", &path)],
    );
    let list = fed_hook::hostile_command_is_listed_escaped(&gateway, watched, DEADLINE);
    assert!(
        list.contains("0.224.0"),
        "the reason names the version: {list}"
    );

    // An allowlisted command: only watched, whatever the version.
    let current = fake_droid(&gateway, "current-bin", "0.225.2");
    let path = format!("{}:/usr/bin:/bin", current.display());
    let allowlisted = gateway.spawn_hook(
        "droid",
        &droid_pre_tool_use("allowlisted", "git status"),
        &[("PATH", &path)],
    );
    crate::common::finished_silently(allowlisted, DEADLINE, "Droid runs its allowlist itself");

    let probed = gateway.spawn_hook(
        "droid",
        &droid_pre_tool_use("probed", "printf fine > fine.txt"),
        &[("PATH", &path)],
    );
    let verdict = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "not today" } });
    fed_hook::the_probed_prompt_denied_prints(&gateway, probed, verdict, DEADLINE);
    let watched_ones: Vec<Value> = gateway
        .list()
        .into_iter()
        .filter(|prompt| prompt["session"] == "allowlisted")
        .collect();
    assert_eq!(watched_ones.len(), 1, "{watched_ones:?}");
    assert!(
        watched_ones[0]["read_only_reason"]
            .as_str()
            .unwrap_or_default()
            .contains("allowlist"),
        "{}",
        watched_ones[0]
    );

    fed_hook::not_an_event_is_left_alone(
        &gateway,
        "droid",
        "PreToolUse",
        &[("PATH", &path)],
        DEADLINE,
    );
}
