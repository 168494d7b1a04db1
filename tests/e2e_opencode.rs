//! End-to-end: the real OpenCode (npm `opencode-ai`, pinned in package.json) in tmux, offline,
//! against the probe's scripted chat-completions API on loopback as its provider, with
//! gatehouse's plugin installed by `gatehouse install opencode` and a real `gatehouse serve`.
//! What the fake records is what reached the model; what tmux shows is what the person saw.
//!
//! OpenCode's private home and configuration are set up here with the adapter's own helpers (the
//! probe's): its configuration folder in the sandbox's `XDG_CONFIG_HOME`, where `install` puts
//! the plugin; its `HOME` a folder of its own, removed with whatever still runs there; and the
//! sandbox's state folder, where the hook finds the probe record.
//!
//! Without OpenCode installed these tests are skipped locally, and fail in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_adapter_opencode::probe::model::{self, ScriptedCall};
use gatehouse_adapter_opencode::probe::{
    self, find_plugin_package, offline_environment, write_config, PERMISSION_PROMPT_TEXT,
    QUESTION_PROMPT_TEXT, REJECTED_WITH_FEEDBACK,
};
use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};
use crate::support::leftovers;
use crate::support::opencode_family::{cat_calls, config_files, Family};
use crate::support::tmux::Tmux;
use crate::support::world::{refused, sandbox_env, workspace_in, Agent, AgentTerminal, AgentWorld};

/// Generous: OpenCode starts slowly on a busy machine.
const DEADLINE: Duration = Duration::from_secs(60);
const START_DEADLINE: Duration = Duration::from_secs(120);

fn call(name: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("call_{name}"),
        command: format!("printf {name} > {name}.txt"),
        reason: String::new(),
    }
}

fn calls(names: &[&str]) -> Vec<ScriptedCall> {
    names.iter().map(|name| call(name)).collect()
}

/// What OpenCode says and shows where the family's scenarios look.
const OPENCODE: Family = Family {
    name: "OpenCode",
    is_ready: probe::is_ready,
    permission_prompt: PERMISSION_PROMPT_TEXT,
    question_prompt: QUESTION_PROMPT_TEXT,
    always_confirmation: "This will allow the following patterns until OpenCode is restarted",
    always_answer: &["always"],
    deadline: DEADLINE,
};

/// OpenCode's private home: its own `HOME`, removed with whatever still runs there, and the
/// plugin `install` adds to its configuration folder.
struct OpenCodeHome {
    home: PathBuf,
    plugin: PathBuf,
}

/// A private OpenCode: its workspace, its own `HOME`, its configuration folder in the sandbox's
/// `XDG_CONFIG_HOME` (the scripted provider and `@opencode-ai/plugin`; `install` adds the plugin).
type OpenCodeEnv = Agent<OpenCodeHome>;

impl OpenCodeEnv {
    fn new(bin: &Path, gateway: &Gateway, fake_base_url: &str) -> OpenCodeEnv {
        let root = gateway.sandbox.folder.path();
        let workspace = workspace_in(root);
        let home = root.join("opencode-home");
        std::fs::create_dir_all(&home).unwrap();
        let config = root.join("config").join("opencode");
        let opencode = bin.canonicalize().unwrap();
        let package = find_plugin_package(&opencode).unwrap_or_else(|error| panic!("{error}"));
        write_config(&config, fake_base_url, &package).unwrap();
        let path = std::env::var("PATH").unwrap_or_default();
        let mut base = offline_environment(&home, &path);
        // The hook finds the probe record, its spool and version cache in the sandbox's state.
        base.push((
            "XDG_STATE_HOME".into(),
            gateway.home().join(".local/state").display().to_string(),
        ));
        let env = sandbox_env(gateway, false);
        Agent {
            terminal: AgentTerminal::new("opencode", bin, workspace, base, &env, START_DEADLINE),
            home: OpenCodeHome {
                home,
                plugin: config.join("plugin").join("gatehouse.js"),
            },
        }
    }

    /// Starts OpenCode in tmux, with the `TMUX` and `TMUX_PANE` a person's terminal has, and
    /// waits until it is ready for a message.
    fn start(&self) -> Tmux {
        let tmux = self.launch(true);
        tmux.wait_for_screen(START_DEADLINE, "OpenCode to be ready", probe::is_ready);
        tmux
    }
}

impl Drop for OpenCodeHome {
    /// OpenCode (and a hook it started) may outlive its terminal by a moment.
    fn drop(&mut self) {
        leftovers::end_processes_and_remove(&self.home, Duration::from_secs(5));
    }
}

type World = AgentWorld<OpenCodeEnv>;

impl World {
    fn new(script: Vec<ScriptedCall>) -> Option<World> {
        let world = World::for_agent(
            &gatehouse_adapter_opencode::AGENT,
            ("GATEHOUSE_OPENCODE_BIN", "opencode"),
            || model::start(script).unwrap(),
            |bin, gateway, fake| OpenCodeEnv::new(bin, gateway, &fake.base_url()),
        )?;
        let before = world.config_files();
        let printed = world.install(&[]);
        assert!(printed.contains("gatehouse.js"), "{printed}");
        let plugin = std::fs::read_to_string(&world.agent.home.plugin).unwrap();
        assert!(plugin.starts_with("// gatehouse's OpenCode plugin:"));
        let mut expected = before;
        expected.push("plugin/gatehouse.js".into());
        expected.sort();
        assert_eq!(world.config_files(), expected, "install adds one file");
        Some(world)
    }

    /// OpenCode's configuration folder.
    fn config(&self) -> &Path {
        self.agent.home.plugin.parent().unwrap().parent().unwrap()
    }

    /// The files of OpenCode's configuration folder, relative to it.
    fn config_files(&self) -> Vec<String> {
        config_files(self.config())
    }

    /// Submits a turn and returns the one prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.family_prompt_for(&OPENCODE, tmux, name)
    }

    /// Answers "Allow once" (selected) in OpenCode's own prompt and waits for the command to run.
    fn allow_once_in_the_terminal(&self, tmux: &Tmux, name: &str) {
        self.family_allow_once_in_the_terminal(&OPENCODE, tmux, name);
    }

    fn wait_until_ready(&self, tmux: &Tmux) {
        self.family_ready(&OPENCODE, tmux);
    }
}

#[test]
fn read_only_until_probed_opencodes_prompt_decides_and_its_answer_withdraws_the_prompt() {
    let Some(world) = World::new(calls(&["tui"])) else {
        return;
    };
    world.unverified_until_probed("OpenCode");
    let tmux = world.agent.start();

    let prompt = world.prompt_for(&tmux, "tui");
    world.assert_read_only_until_probed(&prompt);
    // What OpenCode would do with each answer is shown, and where it runs: no `always` for a
    // bash command, and why.
    let preview = prompt["preview"]["text"].as_str().unwrap();
    assert!(preview.contains(&OPENCODE.always_withheld()), "{preview}");
    assert_eq!(prompt["terminal"]["tmux_pane"], tmux.pane_id(), "{prompt}");
    let listed = world.gateway.list_text();
    assert!(listed.contains("always: not offered"), "{listed}");
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");

    world.allow_once_in_the_terminal(&tmux, "tui");
    world.family_withdrawn(&OPENCODE, &prompt, "deny", DEADLINE);

    // Uninstall removes exactly the plugin file.
    world.uninstall_removes_exactly_the_plugin(world.config());
}

#[test]
fn with_the_gateway_down_opencodes_prompt_works_as_if_gatehouse_were_not_installed() {
    let Some(mut world) = World::new(calls(&["down"])) else {
        return;
    };
    world.gateway.kill();
    let tmux = world.agent.start();
    world.agent.submit(&tmux, "please write down.txt");
    world.allow_once_in_the_terminal(&tmux, "down");
    world.wait_until_ready(&tmux);
    let screen = tmux.screen();
    assert!(!screen.to_lowercase().contains("gatehouse"), "{screen}");
}

/// After `gatehouse probe opencode`: `once` from the gateway runs the command, a reject reaches
/// the model with its message, an answer in OpenCode's own prompt first withdraws the gateway's
/// at once (the first answer wins), one reject of two waiting requests rejects both (as the
/// prompts say) and withdraws the other, a question is answered from gatehouse, and `always` is
/// never offered for a bash command, with the reason: after `cat README.md`, the model's
/// ``cat ${x:-`touch ran`}`` (which OpenCode's `cat *` would run unasked) is asked again, and
/// denied it never runs. OpenCode ending while a prompt is held withdraws it.
#[test]
fn after_the_probe_once_reject_the_terminal_first_two_waiting_a_question_and_no_always_for_bash() {
    let mut script = calls(&["once", "reject", "first"]);
    script.push(model::pair_call(
        "two",
        "printf pair1 > pair1.txt",
        "printf pair2 > pair2.txt",
    ));
    script.push(model::question_call("color", "Which color?"));
    script.extend(cat_calls(false));
    script.push(ScriptedCall {
        call_id: "call_bye".into(),
        command: "touch bye.txt".into(),
        reason: String::new(),
    });
    let Some(world) = World::new(script) else {
        return;
    };
    let probed = world.probe(&world.agent.bin);
    assert!(probed.contains("case question:"), "{probed}");
    world.wait_until_verified("OpenCode 1.18.33");
    // `status` says the truth of bash's always: not verified, and why.
    world.bash_always_is_not_verified(&OPENCODE);
    let tmux = world.agent.start();

    // Once from the gateway runs the command; a reject reaches the model with its message;
    // OpenCode's own prompt stays live while gatehouse holds: answered there first, the
    // gateway's prompt is withdrawn at once and a late answer is refused.
    world.family_once_reject_and_the_terminal_first(
        &OPENCODE,
        &tmux,
        REJECTED_WITH_FEEDBACK,
        "deny",
    );

    // Two requests wait at once (two calls in one answer). One reject rejects both, as each
    // prompt says, and the other one's prompt is withdrawn from gatehouse.
    world.agent.submit(&tmux, "please write two files");
    let pending = world.gateway.wait_for_pending_within(2, DEADLINE);
    for prompt in &pending {
        assert_eq!(prompt["actions"], json!(["once", "deny"]));
        let preview = prompt["preview"]["text"].as_str().unwrap();
        assert!(
            preview.contains("rejects every other request of this session still waiting"),
            "{preview}"
        );
    }
    let first = pending
        .iter()
        .find(|prompt| prompt["summary"] == "printf pair1 > pair1.txt")
        .expect("the first call's prompt");
    let rejected = world.answer(&first["id"], &["deny", "--message", "neither of them"]);
    assert!(rejected.status.success(), "{rejected:?}");
    wait_for(
        DEADLINE,
        "the other request's prompt to be withdrawn",
        || world.gateway.list().is_empty(),
    );
    world.wait_until_ready(&tmux);
    assert_eq!(world.written_by("pair1"), None);
    assert_eq!(world.written_by("pair2"), None);

    // A question, answered from gatehouse.
    world.family_question_answered_from_gatehouse(&OPENCODE, &tmux);

    // No always for bash: `once` for `cat README.md`, and the next cat command is asked again.
    world.once_for_cat_then_the_expansion_is_asked_again(&OPENCODE, &tmux);

    // OpenCode ends while gatehouse holds a prompt: the plugin ends its hook, and the prompt is
    // withdrawn rather than left answerable for nobody.
    world.agent.submit(&tmux, "please touch bye.txt");
    let prompt = world.the_one_listed(&tmux, DEADLINE);
    assert_eq!(prompt["summary"], "touch bye.txt");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    wait_for(DEADLINE, "OpenCode to exit", || {
        // A key may be dropped while OpenCode draws; a dead pane takes none (no assertion).
        if !tmux.is_dead() {
            tmux.terminal().send_keys(&["C-c"]);
        }
        tmux.is_dead()
    });
    world.withdrawn(&prompt, "the held prompt to be withdrawn", "once", DEADLINE);
    assert_eq!(world.written_by("bye"), None);
}

/// Why gatehouse offers no `always` for bash, shown with the real OpenCode: answered "Allow
/// always" in OpenCode's own prompt for `cat README.md` (OpenCode's `cat *`), the next command,
/// ``cat ${x:-`touch ran`}``, runs `touch ran` with no prompt at all. Should a later OpenCode ask
/// again, this fails: then the reason every bash prompt gives is no longer true.
#[test]
fn opencodes_own_always_for_cat_lets_a_script_run_unasked_which_is_why_gatehouse_offers_none() {
    let Some(world) = World::new(cat_calls(false)) else {
        return;
    };
    let tmux = world.agent.start();
    world.always_for_cat_in_the_terminal(&OPENCODE, &tmux);
    world.the_expansion_runs_unasked(&OPENCODE, &tmux);
}

/// What the plugin hands the hook is untrusted: a model can put anything in a command, a pattern
/// or a question. Escapes and bidirectional controls are listed made visible, never raw; an
/// event larger than the hook reads is left to OpenCode (nothing printed, nothing listed); the
/// hook exits 0 and prints nothing either way. No OpenCode is needed: this is the plugin's input.
#[test]
fn hostile_text_from_the_plugin_is_listed_escaped_and_a_huge_event_is_left_to_opencode() {
    let gateway = Gateway::start();
    let hostile = "printf ok \u{202e}gnp.exe\u{1b}[2J\u{1b}]0;owned\u{7} > x; rm -rf ~";
    let event = |command: &str, id: &str| {
        json!({ "directory": "/w", "payload": { "id": "evt_1", "type": "permission.asked", "properties": {
            "id": id, "sessionID": "ses_hostile", "permission": "bash",
            "patterns": [command], "metadata": { "command": command },
            "always": ["printf \u{202e} *"], "tool": { "messageID": "m", "callID": "c" } } } })
        .to_string()
    };
    let hook = gateway.spawn_hook("opencode", event(hostile, "per_hostile").as_bytes(), &[]);
    crate::common::finished_silently(hook, DEADLINE, "the hook prints nothing");
    let listed = gateway.wait_for_pending(1);
    assert_eq!(listed[0]["summary"], hostile, "the text is kept whole");
    let list = gateway.list_text();
    assert!(list.contains("rm -rf ~"), "{list}");
    for raw in ['\u{202e}', '\u{1b}', '\u{7}'] {
        assert!(
            !list.contains(raw),
            "{raw:?} reaches the terminal raw: {list:?}"
        );
    }

    // Larger than the hook reads (12 MiB): not held, not listed, nothing printed.
    // The hook stops reading at its bound, so the rest of the write fails, as the plugin's does.
    let huge = event(&"x".repeat(13 * 1024 * 1024), "per_huge");
    let mut hook = gateway
        .command(&["hook", "opencode"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = hook.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(huge.as_bytes());
    });
    let output = crate::common::finish(hook, DEADLINE);
    writer.join().unwrap();
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("larger than"));
    assert_eq!(gateway.list().len(), 1, "only the hostile prompt is listed");
}
