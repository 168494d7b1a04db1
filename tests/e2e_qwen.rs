//! End-to-end: the real Qwen Code (npm `@qwen-code/qwen-code`, pinned in package.json) in tmux,
//! offline, against the kit's scripted chat-completions model on loopback as its OpenAI-compatible
//! provider, with gatehouse's hooks installed by `gatehouse install qwen` and a real
//! `gatehouse serve`. What the model records is what reached it; what tmux shows is what the
//! person saw. Qwen's private home is the probe's ([`gatehouse_adapter_qwen::probe::private`]):
//! approval mode `default`, and Qwen's own file search instead of the bundled ripgrep, which npm
//! installs without its executable bit.
//!
//! Without Qwen Code installed these tests are skipped locally, and fail in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gatehouse_adapter_qwen::install::QWEN_WAIT_SECONDS;
use gatehouse_adapter_qwen::probe::private::{offline_environment, write_private_settings};
use gatehouse_adapter_qwen::probe::{scripted_model, APPROVAL_PROMPT_TEXT, READY_TEXT};
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

/// How long Qwen may take to start on a busy machine; it took about 15 seconds here.
const START_DEADLINE: Duration = Duration::from_secs(90);

/// Qwen's private home: its settings file.
struct QwenHome {
    settings: PathBuf,
}

/// Qwen at `bin` in the sandbox's HOME (with the probe's private settings), XDG folders and
/// socket, so the hook finds the gateway and the record.
fn private_qwen(bin: &Path, gateway: &Gateway, fake: &ScriptedModel) -> Agent<QwenHome> {
    let env = sandbox_env(gateway, true);
    let home = gateway.home();
    write_private_settings(&home, None).unwrap();
    let workspace = workspace_in(gateway.sandbox.folder.path());
    let path = std::env::var("PATH").unwrap_or_default();
    Agent {
        terminal: AgentTerminal::new(
            "qwen",
            bin,
            workspace,
            offline_environment(&home, &fake.base_url(), &path),
            &env,
            START_DEADLINE,
        ),
        home: QwenHome {
            settings: home.join(".qwen/settings.json"),
        },
    }
}

/// The kit's world with a private Qwen home whose hooks `gatehouse install qwen` wrote.
type World = AgentWorld<Agent<QwenHome>>;

impl World {
    fn new(script: &[&str]) -> Option<World> {
        let world = World::for_agent(
            &gatehouse_adapter_qwen::AGENT,
            ("GATEHOUSE_QWEN_BIN", "qwen"),
            || scripted_model(write_calls(script)).unwrap(),
            private_qwen,
        )?;
        let stdout = world.install(&[]);
        let said = [
            "held for up to 40 s",
            "60 s",
            "approval mode `auto`",
            "leaves your mode",
        ];
        crate::common::assert_says_all("install", &stdout, &said);
        let settings: Value =
            serde_json::from_slice(&std::fs::read(&world.agent.home.settings).unwrap()).unwrap();
        assert_eq!(
            settings["tools"]["approvalMode"], "default",
            "install keeps the person's settings"
        );
        let hook = &settings["hooks"]["PermissionRequest"][0]["hooks"][0];
        assert_holding_hook(hook, 40, 55, "seconds, under Qwen's 60");
        Some(world)
    }

    /// Starts Qwen in tmux (keeping the `TMUX` variables its hooks report) and waits for its
    /// input box; dropping the terminal ends Qwen with `/quit`.
    fn start(&self) -> QuittingTmux {
        self.agent
            .start_quitting(READY_TEXT, gatehouse_adapter_qwen::probe::SCREEN)
    }

    /// Submits a turn and returns the prompt the gateway lists for it: the command whole, from
    /// the pane Qwen runs in.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.prompt_for_writing_in_its_pane(tmux, name, "run_shell_command", DEADLINE)
    }

    /// Answers Yes in Qwen's dialog ("1. Yes, allow once" is selected) and waits for the command
    /// to run.
    fn yes_in_qwen(&self, tmux: &Tmux, name: &str) {
        self.yes_in_the_terminal(tmux, name, APPROVAL_PROMPT_TEXT, DEADLINE);
    }
}

#[test]
fn read_only_until_probed_qwens_dialog_decides_and_its_answers_withdraw_the_prompt() {
    let Some(world) = World::new(&["yes", "esc"]) else {
        return;
    };
    world.unverified_until_probed("Qwen Code");
    let tmux = world.start();

    // Yes in Qwen's dialog: the command runs, and PostToolUse withdraws the prompt. Esc in
    // Qwen's dialog: the call is cancelled, PostToolBatch says so, and the prompt goes.
    let prompt_for = |name: &str| world.prompt_for(&tmux, name);
    let screens = (APPROVAL_PROMPT_TEXT, READY_TEXT);
    world.read_only_yes_and_esc_in_the_terminal(&tmux, prompt_for, screens, DEADLINE);

    // `uninstall qwen` removes gatehouse's entries and only those.
    let settings = world.uninstall_removes_the_hooks(&world.agent.home.settings);
    assert_eq!(settings["tools"]["approvalMode"], "default", "{settings}");
    assert_eq!(settings["security"]["auth"]["selectedType"], "openai");
}

#[test]
fn the_probe_unlocks_once_and_deny_a_release_hands_back_at_once_and_without_a_gateway_qwen_decides()
{
    let Some(mut world) = World::new(&["once", "deny", "release", "down"]) else {
        return;
    };
    world.probe(&world.agent.bin);
    let shell = world.wait_until_verified("Qwen Code 0.24.4");
    assert_eq!(shell["tool"], "run_shell_command");
    let evidence = shell["actions"][0]["evidence"].as_str().unwrap();
    assert!(evidence.contains("answer within 40 s"), "{evidence}");
    assert!(
        shell["actions"][2]["evidence"]
            .as_str()
            .unwrap()
            .contains("ignores a hook's \"always\""),
        "{shell}"
    );

    let tmux = world.start();
    // Once from the gateway: Qwen shows no dialog of its own, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    let screens = (APPROVAL_PROMPT_TEXT, READY_TEXT);
    world.once_offered_and_from_the_gateway_runs_it(&tmux, &prompt, screens, DEADLINE);

    // Deny with a message: the command does not run and the model reads exactly the message.
    let prompt = world.prompt_for(&tmux, "deny");
    let output = world.deny_from_the_gateway(&prompt, "deny", "use make clean instead", DEADLINE);
    assert_eq!(output, "use make clean instead");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A release hands the prompt back at once, long before the hold's end: Qwen's own dialog
    // appears, and Yes there runs the command.
    let prompt = world.prompt_for(&tmux, "release");
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    let released_at = Instant::now();
    let released = world
        .gateway
        .run(&["release", prompt["id"].as_str().unwrap()]);
    assert!(released.status.success(), "{released:?}");
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    assert!(
        released_at.elapsed() < Duration::from_secs(QWEN_WAIT_SECONDS),
        "Qwen's dialog came only after {:?}",
        released_at.elapsed()
    );
    world.yes_in_qwen(&tmux, "release");
    refused(&world.answer(&prompt["id"], &["once"]), "released");
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // The gateway down: the hook leaves it to Qwen at once, as if gatehouse were not installed.
    let within = Duration::from_secs(QWEN_WAIT_SECONDS);
    world.with_the_gateway_down_the_dialog_asks_at_once(
        &tmux,
        APPROVAL_PROMPT_TEXT,
        within,
        DEADLINE,
    );
}

/// A passing probe record for Qwen Code 0.24.4, as `gatehouse probe qwen` writes it (the kit's
/// record, `qwen-probe.json`).
pub(crate) fn write_qwen_record(gateway: &Gateway) {
    write_passing_record(gateway, "qwen", "0.24.4", "/nonexistent/qwen");
}

/// Qwen Code 0.24.4's PermissionRequest for `command` in `session`.
pub(crate) fn qwen_permission_request(session: &str, command: &str) -> Vec<u8> {
    let captured = "crates/adapter-qwen/tests/data/qwen-code-0.24.4/PermissionRequest.shell.json";
    fed_hook::captured_event(captured, session, command)
}

/// Without Qwen itself (this runs everywhere): a hostile command from Qwen is listed with its
/// control and bidi characters as escapes; a version variable that is not a version unlocks
/// nothing; the version Qwen names unlocks the prompt, and a deny reaches the hook's stdout as
/// Qwen's deny; input that is not an event leaves Qwen alone, with exit 0 and nothing printed.
#[test]
fn hostile_qwen_text_is_shown_as_escapes_and_only_the_probed_version_is_answerable() {
    let gateway = Gateway::start();
    write_qwen_record(&gateway);
    // No `qwen` on this PATH: what the hook reports is all the gateway learns.
    let path = [("PATH", "/usr/bin:/bin")];
    let forged = gateway.spawn_hook(
        "qwen",
        &qwen_permission_request("forged", fed_hook::HOSTILE_COMMAND),
        &[path[0], ("QWEN_CODE_STARTUP_VERSION", "0.24.4; rm -rf /")],
    );
    fed_hook::hostile_command_is_listed_escaped(&gateway, forged, DEADLINE);

    let probed = gateway.spawn_hook(
        "qwen",
        &qwen_permission_request("probed", "printf fine > fine.txt"),
        &[path[0], ("QWEN_CODE_STARTUP_VERSION", "0.24.4")],
    );
    let verdict = json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest",
        "decision": { "behavior": "deny", "message": "not today" } } });
    fed_hook::the_probed_prompt_denied_prints(&gateway, probed, verdict, DEADLINE);

    fed_hook::not_an_event_is_left_alone(&gateway, "qwen", "PermissionRequest", &path, DEADLINE);
}
