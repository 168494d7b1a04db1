//! End-to-end: the real Kilo Code CLI (npm `@kilocode/cli`, pinned in package.json) in tmux,
//! offline, against the family's scripted chat-completions API on loopback as its provider,
//! with gatehouse's OpenCode plugin installed by `gatehouse install kilo` and a real `gatehouse
//! serve`. What the fake records is what reached the model; what tmux shows is what the person
//! saw.
//!
//! Kilo's private home and configuration are set up here with the adapter's own helpers (its
//! probe's): its configuration folder in the sandbox's `XDG_CONFIG_HOME` (`kilo.json` and
//! `@kilocode/plugin`, so that Kilo does not wait for npm at start), where `install` puts the
//! plugin; its `HOME` and `TMPDIR` a folder of its own, removed with whatever still runs there;
//! and the sandbox's state folder, where the hook finds the probe record.
//!
//! Without Kilo installed these tests are skipped locally, and fail in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_adapter_opencode::kilo::{self, probe};
use gatehouse_adapter_opencode::probe::model::{self, ScriptedCall};
use gatehouse_adapter_opencode::probe::{
    PERMISSION_PROMPT_TEXT, QUESTION_PROMPT_TEXT, REJECTED_WITH_FEEDBACK,
};
use serde_json::Value;

use crate::common::Gateway;
use crate::support::leftovers;
use crate::support::opencode_family::{cat_calls, config_files, Family};
use crate::support::scenarios::write_calls;
use crate::support::tmux::Tmux;
use crate::support::world::{refused, sandbox_env, workspace_in, Agent, AgentTerminal, AgentWorld};

/// Generous: Kilo starts slowly (15 to 25 s idle) and this machine is busy.
const DEADLINE: Duration = Duration::from_secs(60);
const START_DEADLINE: Duration = Duration::from_secs(180);

/// What Kilo says and shows where the family's scenarios look.
const KILO: Family = Family {
    name: "Kilo",
    is_ready: probe::is_ready,
    permission_prompt: PERMISSION_PROMPT_TEXT,
    question_prompt: QUESTION_PROMPT_TEXT,
    always_confirmation: "Always allow",
    always_answer: &["always", "--scope", "user"],
    deadline: DEADLINE,
};

/// Kilo's private home: its own `HOME` (and `TMPDIR` inside it), removed with whatever still
/// runs there, and its configuration folder, where `install` adds the plugin.
struct KiloHome {
    home: PathBuf,
    config: PathBuf,
}

type KiloEnv = Agent<KiloHome>;

impl KiloEnv {
    fn new(bin: &Path, gateway: &Gateway, fake_base_url: &str) -> KiloEnv {
        let root = gateway.sandbox.folder.path();
        let workspace = workspace_in(root);
        let home = root.join("kilo-home");
        std::fs::create_dir_all(&home).unwrap();
        let config = root.join("config").join("kilo");
        let package = probe::CONFIG
            .find_plugin_package(&bin.canonicalize().unwrap())
            .unwrap_or_else(|error| panic!("{error}"));
        probe::CONFIG
            .write_config(&config, fake_base_url, &package)
            .unwrap();
        let path = std::env::var("PATH").unwrap_or_default();
        let mut base = probe::CONFIG.offline_environment(&home, &path).unwrap();
        // The hook finds the probe record, its spool and version cache in the sandbox's state.
        base.push((
            "XDG_STATE_HOME".into(),
            gateway.home().join(".local/state").display().to_string(),
        ));
        let env = sandbox_env(gateway, false);
        Agent {
            terminal: AgentTerminal::new("kilo", bin, workspace, base, &env, START_DEADLINE),
            home: KiloHome { home, config },
        }
    }

    /// Starts Kilo in tmux, with the `TMUX` and `TMUX_PANE` a person's terminal has, and waits
    /// until it is ready for a message.
    fn start(&self) -> Tmux {
        let tmux = self.launch(true);
        tmux.wait_for_screen(START_DEADLINE, "Kilo to be ready", probe::is_ready);
        tmux
    }
}

impl Drop for KiloHome {
    /// Kilo (and a hook it started) may outlive its terminal by a moment.
    fn drop(&mut self) {
        leftovers::end_processes_and_remove(&self.home, Duration::from_secs(5));
    }
}

type World = AgentWorld<KiloEnv>;

impl World {
    fn new(script: Vec<ScriptedCall>) -> Option<World> {
        let world = World::for_agent(
            &kilo::AGENT,
            ("GATEHOUSE_KILO_BIN", "kilo"),
            || probe::start(script).unwrap(),
            |bin, gateway, fake| KiloEnv::new(bin, gateway, &fake.base_url()),
        )?;
        let before = world.config_files();
        let printed = world.install(&[]);
        assert!(printed.contains("kilo/plugin/gatehouse.js"), "{printed}");
        let plugin = std::fs::read_to_string(world.plugin()).unwrap();
        assert!(plugin.starts_with("// gatehouse's Kilo plugin:"));
        assert!(plugin.contains(r#"const ADAPTER = "kilo""#));
        let mut expected = before;
        expected.push("plugin/gatehouse.js".into());
        expected.sort();
        assert_eq!(world.config_files(), expected, "install adds one file");
        Some(world)
    }

    fn plugin(&self) -> PathBuf {
        self.agent.home.config.join("plugin/gatehouse.js")
    }

    /// The files of Kilo's configuration folder, relative to it.
    fn config_files(&self) -> Vec<String> {
        config_files(&self.agent.home.config)
    }

    /// Kilo's `permission.bash` in its kilo.json, as it is now.
    fn bash_permission(&self) -> Value {
        let text = std::fs::read_to_string(self.agent.home.config.join("kilo.json")).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["permission"]["bash"].clone()
    }

    /// Submits a turn and returns the one prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.family_prompt_for(&KILO, tmux, name)
    }

    /// Answers "Allow once" (selected) in Kilo's own prompt and waits for the command to run.
    fn allow_once_in_the_terminal(&self, tmux: &Tmux, name: &str) {
        self.family_allow_once_in_the_terminal(&KILO, tmux, name);
    }

    fn wait_until_ready(&self, tmux: &Tmux) {
        self.family_ready(&KILO, tmux);
    }
}

/// (1) Before `gatehouse probe kilo`: `status` says Kilo is read-only and names the probe; a
/// `bash` prompt is listed read-only with the reason, shows what Kilo does with each answer
/// (no `always` for bash, and why) and where it runs; `once` is refused; Kilo's own prompt
/// decides, and its answer withdraws gatehouse's. Uninstall removes exactly the plugin file.
#[test]
fn read_only_until_probed_kilos_prompt_decides_and_its_answer_withdraws_the_prompt() {
    let Some(world) = World::new(write_calls(&["tui"])) else {
        return;
    };
    world.unverified_until_probed("Kilo Code CLI");
    let status = String::from_utf8_lossy(&world.gateway.run(&["status"]).stdout).into_owned();
    assert!(
        status.contains("this Kilo honours gatehouse's answers"),
        "{status}"
    );
    let tmux = world.agent.start();

    let prompt = world.prompt_for(&tmux, "tui");
    world.assert_read_only_until_probed(&prompt);
    assert_eq!(prompt["adapter"], "kilo");
    let preview = prompt["preview"]["text"].as_str().unwrap();
    assert!(preview.contains(&KILO.always_withheld()), "{preview}");
    assert_eq!(prompt["terminal"]["tmux_pane"], tmux.pane_id(), "{prompt}");
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");

    world.allow_once_in_the_terminal(&tmux, "tui");
    world.family_withdrawn(&KILO, &prompt, "deny", DEADLINE);
    world.wait_until_ready(&tmux);

    // Uninstall removes exactly the plugin file (Kilo wrote files of its own meanwhile).
    world.uninstall_removes_exactly_the_plugin(&world.agent.home.config);
}

/// Why gatehouse offers no `always` for bash, shown with the real Kilo: answered "Allow always"
/// in Kilo's own prompt for `cat README.md`, Kilo saves `cat *` in kilo.json, and the next
/// command, ``cat ${x:-`touch ran`}``, runs `touch ran` with no prompt at all. Should a later Kilo
/// ask again, this fails: then the reason every bash prompt gives is no longer true.
#[test]
fn kilos_own_always_for_cat_lets_a_script_run_unasked_which_is_why_gatehouse_offers_none() {
    let Some(world) = World::new(cat_calls(true)) else {
        return;
    };
    let tmux = world.agent.start();
    world.always_for_cat_in_the_terminal(&KILO, &tmux);
    assert_eq!(
        world.bash_permission()["cat *"],
        "allow",
        "Kilo saved the rule"
    );
    world.the_expansion_runs_unasked(&KILO, &tmux);
}

/// (4) With the gateway down Kilo's own prompt decides, as if gatehouse were not installed.
#[test]
fn with_the_gateway_down_kilos_prompt_works_as_if_gatehouse_were_not_installed() {
    let Some(mut world) = World::new(write_calls(&["down"])) else {
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

/// (2) and (3), after `gatehouse probe kilo`: `once` from the gateway runs the command; a
/// reject reaches the model with its message; an answer in Kilo's own prompt first withdraws the
/// gateway's at once and a late answer from gatehouse is refused (the first answer wins); a
/// question is answered from gatehouse; and `always` is never offered for a bash command, with
/// the reason: after `cat README.md`, the model's ``cat ${x:-`touch ran`}`` (which Kilo's `cat *`,
/// saved in kilo.json, would run unasked in every project) is asked again, and denied it never
/// runs; kilo.json keeps no rule. Kilo ended while a prompt is held withdraws it.
#[test]
fn after_the_probe_once_reject_the_terminal_first_a_question_and_no_always_for_bash() {
    let mut script = write_calls(&["once", "reject", "first"]);
    script.push(model::question_call("color", "Which color?"));
    script.extend(cat_calls(true));
    script.push(ScriptedCall {
        call_id: "call_bye".into(),
        command: "touch bye.txt".into(),
        reason: "touch bye.txt".into(),
    });
    let Some(world) = World::new(script) else {
        return;
    };
    world.probe_with_cases(
        &world.agent.bin,
        &["allow", "deny", "no-verdict", "question"],
    );
    world.wait_until_verified("Kilo 7.7.7");
    // `status` says the truth of bash's always: not verified, and why.
    world.bash_always_is_not_verified(&KILO);
    let status = String::from_utf8_lossy(&world.gateway.run(&["status"]).stdout).into_owned();
    assert!(
        status.contains("the probe proves bash prompts only; answer the others in Kilo's terminal"),
        "{status}"
    );
    let tmux = world.agent.start();

    // Once from the gateway runs the command; a reject reaches the model with its message;
    // Kilo's own prompt stays live while gatehouse holds: answered there first, the gateway's
    // prompt is withdrawn at once and a late answer is refused.
    world.family_once_reject_and_the_terminal_first(&KILO, &tmux, REJECTED_WITH_FEEDBACK, "once");

    // A question, answered from gatehouse.
    world.family_question_answered_from_gatehouse(&KILO, &tmux);

    // No always for bash: `once` for `cat README.md`, and the next cat command is asked again;
    // Kilo saved no rule.
    assert_eq!(world.bash_permission(), "ask");
    world.once_for_cat_then_the_expansion_is_asked_again(&KILO, &tmux);
    assert_eq!(world.bash_permission(), "ask", "Kilo saved no rule");

    // Kilo ends (SIGTERM: Ctrl-C does not end it) while gatehouse holds a prompt: the plugin
    // ends its hook, and the prompt is withdrawn rather than left answerable for nobody.
    world.agent.submit(&tmux, "please touch bye.txt");
    let prompt = world.the_one_listed(&tmux, DEADLINE);
    assert_eq!(prompt["summary"], "touch bye.txt");
    let kilo_pid = prompt["terminal"]["pid"]
        .as_u64()
        .expect("the hook names KILO_PID") as i32;
    // SAFETY: kill only sends a signal, to the Kilo this test started (its hook named it).
    unsafe { libc::kill(kilo_pid, libc::SIGTERM) };
    world.withdrawn(&prompt, "the held prompt to be withdrawn", "once", DEADLINE);
    assert_eq!(world.written_by("bye"), None);
}
