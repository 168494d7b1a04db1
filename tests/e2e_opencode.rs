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
use crate::support::tmux::Tmux;
use crate::support::world::{
    adapter_rule, refused, sandbox_env, workspace_in, Agent, AgentTerminal, AgentWorld,
};

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

/// What every bash prompt's preview says of `always`.
const ALWAYS_WITHHELD: &str = "always: not offered, because OpenCode checks a bash pattern only against the commands it finds in a script";

/// `cat README.md`, then a `cat` whose `${x:-`…`}` runs `touch ran`: OpenCode's parser finds
/// only the `cat` command in it, so its `cat *` (an `always` for the first) would run it unasked.
fn cat_calls() -> Vec<ScriptedCall> {
    [
        ("call_readme", "cat README.md"),
        ("call_expansion", EXPANSION),
    ]
    .into_iter()
    .map(|(call_id, command)| ScriptedCall {
        call_id: call_id.into(),
        command: command.into(),
        reason: String::new(),
    })
    .collect()
}

/// The command that runs `touch ran` where OpenCode sees only `cat`.
const EXPANSION: &str = "cat ${x:-`touch ran`}";

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

    /// The files of OpenCode's configuration folder, relative to it (`node_modules` is a link,
    /// not followed).
    fn config_files(&self) -> Vec<String> {
        let root = self.agent.home.plugin.parent().unwrap().parent().unwrap();
        let mut files = Vec::new();
        let mut folders = vec![root.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                    folders.push(path);
                } else {
                    files.push(path.strip_prefix(root).unwrap().display().to_string());
                }
            }
        }
        files.sort();
        files
    }

    /// Submits a turn and returns the one prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.prompt_for_writing(tmux, name, Some("bash"), DEADLINE)
    }

    /// Answers "Allow once" (selected) in OpenCode's own prompt and waits for the command to run.
    fn allow_once_in_the_terminal(&self, tmux: &Tmux, name: &str) {
        self.yes_in_the_terminal(tmux, name, PERMISSION_PROMPT_TEXT, DEADLINE);
    }

    fn wait_until_ready(&self, tmux: &Tmux) {
        tmux.wait_for_screen(DEADLINE, "OpenCode to finish the turn", probe::is_ready);
    }

    /// The scripted [`cat_calls`]: the prompt for `cat README.md` offers no `always` and says
    /// why, an `always` is refused, and `once` runs it; then the next cat command, which
    /// OpenCode's `cat *` would have run unasked, is listed again, and denied it never runs.
    fn once_for_cat_then_the_expansion_is_asked_again(&self, tmux: &Tmux) {
        std::fs::write(self.agent.marker("README.md"), "read me\n").unwrap();
        self.agent.submit(tmux, "please read README.md");
        let prompt = self.the_one_listed(tmux, DEADLINE);
        assert_eq!(prompt["summary"], "cat README.md");
        assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
        assert_eq!(prompt["suggestions"], Value::Null, "{prompt}");
        let preview = prompt["preview"]["text"].as_str().unwrap();
        assert!(preview.contains(ALWAYS_WITHHELD), "{preview}");
        assert!(
            preview.contains("`cat *` would let a script run any code"),
            "{preview}"
        );
        assert!(!preview.contains("only reads files"), "{preview}");
        refused(
            &self.answer(&prompt["id"], &["always"]),
            "action_not_offered",
        );
        assert!(self.answer(&prompt["id"], &["once"]).status.success());
        let output = self.output_for("call_readme", DEADLINE);
        assert!(output.contains("read me"), "{output}");
        self.wait_until_ready(tmux);

        self.agent.submit(tmux, "please read it once more");
        let again = self.the_one_listed(tmux, DEADLINE);
        assert_eq!(again["summary"], EXPANSION, "asked again");
        assert!(
            !self.agent.marker("ran").exists(),
            "ran before it was answered"
        );
        let denied = self.answer(&again["id"], &["deny", "--message", "not that one"]);
        assert!(denied.status.success(), "{denied:?}");
        let output = self.output_for("call_expansion", DEADLINE);
        assert!(output.contains("not that one"), "{output}");
        self.wait_until_ready(tmux);
        assert!(!self.agent.marker("ran").exists(), "ran though denied");
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
    assert!(preview.contains(ALWAYS_WITHHELD), "{preview}");
    assert_eq!(prompt["terminal"]["tmux_pane"], tmux.pane_id(), "{prompt}");
    let listed = world.gateway.list_text();
    assert!(listed.contains("always: not offered"), "{listed}");
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");

    world.allow_once_in_the_terminal(&tmux, "tui");
    let what = "the prompt answered in OpenCode to be withdrawn";
    world.withdrawn(&prompt, what, "deny", DEADLINE);

    // Uninstall removes exactly the plugin file.
    let installed = world.config_files();
    let uninstalled = world.gateway.run(&["uninstall", "opencode"]);
    assert!(uninstalled.status.success(), "{uninstalled:?}");
    let left: Vec<String> = installed
        .into_iter()
        .filter(|file| file != "plugin/gatehouse.js")
        .collect();
    assert_eq!(world.config_files(), left);
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
    script.extend(cat_calls());
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
    let bash = adapter_rule(&world.gateway, world.adapter, Some("bash"));
    let always = bash["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|flag| flag["action"] == "always")
        .unwrap();
    assert_eq!(always["verified"], false, "{bash}");
    let evidence = always["evidence"].as_str().unwrap();
    assert!(
        evidence.starts_with("OpenCode checks a bash pattern only against the commands it finds"),
        "{evidence}"
    );
    let tmux = world.agent.start();

    // Once from the gateway: the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    world.output_for("call_once", DEADLINE);
    assert_eq!(world.written_by("once").as_deref(), Some("once"));
    world.wait_until_ready(&tmux);
    wait_for(DEADLINE, "nothing to be listed", || {
        world.gateway.list().is_empty()
    });

    // Reject with a message: not run, and the model reads the message.
    let prompt = world.prompt_for(&tmux, "reject");
    let output = world.deny_from_the_gateway(&prompt, "reject", "use a dry run first", DEADLINE);
    assert_eq!(
        output,
        format!("{REJECTED_WITH_FEEDBACK}use a dry run first")
    );
    world.wait_until_ready(&tmux);

    // OpenCode's own prompt stays live while gatehouse holds: answered there first, the
    // gateway's prompt is withdrawn at once and a late answer is refused.
    let prompt = world.prompt_for(&tmux, "first");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    world.allow_once_in_the_terminal(&tmux, "first");
    let what = "the prompt answered in OpenCode to be withdrawn";
    world.withdrawn(&prompt, what, "deny", Duration::from_secs(10));
    world.wait_until_ready(&tmux);

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
    world.agent.submit(&tmux, "please ask me");
    let question = world.the_one_listed(&tmux, DEADLINE);
    assert_eq!(question["kind"], "question");
    assert_eq!(question["actions"], json!(["answer"]));
    assert_eq!(question["questions"][0]["options"][0]["label"], "Red");
    tmux.wait_for_text(QUESTION_PROMPT_TEXT, DEADLINE);
    let answered = world.answer(&question["id"], &["--pick", "q1=Blue"]);
    assert!(answered.status.success(), "{answered:?}");
    let output = world.output_for("call_question_color", DEADLINE);
    assert!(output.contains(r#""Which color?"="Blue""#), "{output}");
    world.wait_until_ready(&tmux);

    // No always for bash: `once` for `cat README.md`, and the next cat command is asked again.
    world.once_for_cat_then_the_expansion_is_asked_again(&tmux);

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
    let Some(world) = World::new(cat_calls()) else {
        return;
    };
    let tmux = world.agent.start();
    std::fs::write(world.agent.marker("README.md"), "read me\n").unwrap();
    world.agent.submit(&tmux, "please read README.md");
    let prompt = world.the_one_listed(&tmux, DEADLINE);
    assert_eq!(prompt["summary"], "cat README.md");
    tmux.wait_for_text(PERMISSION_PROMPT_TEXT, DEADLINE);
    // "Allow always" is right of the selected "Allow once"; OpenCode asks to confirm the pattern.
    tmux.send_keys(&["Right"]);
    tmux.send_keys(&["Enter"]);
    let confirm = tmux.wait_for_text(
        "This will allow the following patterns until OpenCode is restarted",
        DEADLINE,
    );
    assert!(confirm.contains("- cat *"), "{confirm}");
    tmux.send_keys(&["Enter"]);
    let output = world.output_for("call_readme", DEADLINE);
    assert!(output.contains("read me"), "{output}");
    let what = "the prompt answered in OpenCode to be withdrawn";
    world.withdrawn(&prompt, what, "deny", DEADLINE);
    world.wait_until_ready(&tmux);

    // The next command runs `touch ran` (and then `cat` with no file), asked nowhere.
    world.agent.submit(&tmux, "please read it once more");
    wait_for(DEADLINE, "OpenCode to run `touch ran` unasked", || {
        world.agent.marker("ran").exists()
    });
    assert!(world.gateway.list().is_empty(), "nothing was asked");
    let log = String::from_utf8_lossy(&world.gateway.run(&["log", "--json"]).stdout).into_owned();
    assert!(
        !log.contains(&format!(r#""summary":"{EXPANSION}""#)),
        "OpenCode asked for it after all: {log}"
    );
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
