//! End-to-end: the real pi (npm `@mariozechner/pi-coding-agent`, pinned in package.json) in
//! tmux, offline (`PI_OFFLINE=1`, no version check, no telemetry, a private `TMPDIR`), against
//! the kit's scripted chat-completions model on loopback as its provider, with gatehouse's
//! extension installed by `gatehouse install pi` and a real `gatehouse serve`. What the model
//! records is what reached it; what tmux shows is what the person saw. pi's private home is the
//! probe's ([`gatehouse_adapter_pi::probe::private`]) in the sandbox's HOME, where `install`
//! writes the extension; every test starts pi with that extension, so it loads in the pinned pi
//! (a broken one stops pi at start).
//!
//! Without pi installed these tests are skipped locally, and fail in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_adapter_pi::install::{EXTENSION_FILE_NAME, TOOLS_VARIABLE};
use gatehouse_adapter_pi::probe::private::{
    agent_folder, offline_environment, write_private_settings,
};
use gatehouse_adapter_pi::probe::{self, DIALOG_TEXT, READY_TEXT};
use gatehouse_harness::model::{ScriptedCall, ScriptedModel};
use serde_json::{json, Value};

use crate::common::Gateway;
use crate::support::scenarios::{hostile_call, write_call, write_calls};
use crate::support::tmux::Tmux;
use crate::support::world::{
    sandbox_env, workspace_in, Agent, AgentTerminal, AgentWorld, QuittingTmux,
};

const DEADLINE: Duration = Duration::from_secs(60);

/// How long pi may take to start on a busy machine; it took about 3 seconds here.
const START_DEADLINE: Duration = Duration::from_secs(90);

/// What pi tells the model when its dialog says No (the extension's words).
const DENIED_IN_DIALOG: &str = "The person denied this tool call in pi's dialog.";

/// pi's private home: its user folder, which holds the extensions folder `install` writes into.
struct PiHome {
    agent_folder: PathBuf,
}

impl PiHome {
    fn extension(&self) -> PathBuf {
        self.agent_folder
            .join("extensions")
            .join(EXTENSION_FILE_NAME)
    }

    /// The files of pi's user folder, relative to it, leaving out what pi writes as it runs (its
    /// sessions, its helper programs' folder).
    fn files(&self) -> Vec<String> {
        let mut files = Vec::new();
        let mut folders = vec![self.agent_folder.clone()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                let relative = path.strip_prefix(&self.agent_folder).unwrap();
                if relative.starts_with("sessions") || relative.starts_with("bin") {
                    continue;
                }
                if path.is_dir() {
                    folders.push(path);
                } else {
                    files.push(relative.display().to_string());
                }
            }
        }
        files.sort();
        files
    }
}

/// pi at `bin` in the sandbox's HOME (the scripted model as its provider), XDG folders and
/// socket, so the hook finds the gateway and the probe record.
fn private_pi(bin: &Path, gateway: &Gateway, fake: &ScriptedModel) -> Agent<PiHome> {
    let env = sandbox_env(gateway, true);
    let home = gateway.home();
    let workspace = workspace_in(gateway.sandbox.folder.path());
    write_private_settings(&home, &fake.base_url()).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    Agent {
        terminal: AgentTerminal::new(
            "pi",
            bin,
            workspace,
            offline_environment(&home, &path),
            &env,
            START_DEADLINE,
        ),
        home: PiHome {
            agent_folder: agent_folder(&home),
        },
    }
}

/// The kit's world with a private pi home whose extension `gatehouse install pi` wrote.
type World = AgentWorld<Agent<PiHome>>;

impl World {
    fn new(script: Vec<ScriptedCall>) -> Option<World> {
        let world = World::for_agent(
            &gatehouse_adapter_pi::AGENT,
            ("GATEHOUSE_PI_BIN", "pi"),
            || probe::start_model(script).unwrap(),
            private_pi,
        )?;
        let before = world.agent.home.files();
        let stdout = world.install(&[]);
        let said = [
            EXTENSION_FILE_NAME,
            "bash, write, edit",
            "gatehouse probe pi",
            TOOLS_VARIABLE,
        ];
        crate::common::assert_says_all("install", &stdout, &said);
        let mut expected = before;
        expected.push(format!("extensions/{EXTENSION_FILE_NAME}"));
        expected.sort();
        assert_eq!(world.agent.home.files(), expected, "install adds one file");
        let extension = world.agent.home.extension();
        assert!(std::fs::read_to_string(&extension)
            .unwrap()
            .starts_with("// gatehouse's pi extension:"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&extension).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
        Some(world)
    }

    /// Starts pi in tmux (keeping the `TMUX` variables its hook reports) and waits for its
    /// input box: the extension loaded. Dropping the terminal ends pi with Ctrl-D.
    fn start(&self) -> QuittingTmux {
        let tmux = self.agent.launch(true);
        let screen = tmux.wait_for_screen(START_DEADLINE, "pi to be ready", probe::is_ready);
        assert!(!screen.contains("Failed to load extension"), "{screen}");
        QuittingTmux::new(tmux, probe::SCREEN)
    }

    /// Submits a turn and returns the prompt the gateway lists for it: the command whole, from
    /// the pane pi runs in.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        let prompt = self.prompt_for_writing(tmux, name, Some("bash"), DEADLINE);
        assert_eq!(prompt["terminal"]["tmux_pane"], tmux.pane_id(), "{prompt}");
        prompt
    }

    fn wait_until_ready(&self, tmux: &Tmux) {
        tmux.wait_for_screen(DEADLINE, "pi to finish the turn", probe::is_ready);
    }

    /// What `gatehouse status` prints.
    fn status_text(&self) -> String {
        String::from_utf8_lossy(&self.gateway.run(&["status"]).stdout).into_owned()
    }
}

#[test]
fn read_only_until_probed_pis_dialog_decides_shows_hostile_text_as_escapes_and_uninstall_removes_the_extension(
) {
    let mut script = write_calls(&["yes", "no"]);
    script.push(hostile_call());
    let Some(world) = World::new(script) else {
        return;
    };
    world.unverified_until_probed("pi");
    let tmux = world.start();

    // Yes in pi's dialog: the command runs, and the extension settles the read-only prompt.
    let prompt = world.prompt_for(&tmux, "yes");
    let list = world.gateway.list_text();
    let said = ["printf yes > yes.txt", "gatehouse probe pi"];
    crate::common::assert_says_all("list", &list, &said);
    let texts = (DIALOG_TEXT, READY_TEXT);
    world.read_only_and_enter_in_the_terminal_withdraws_it(&tmux, &prompt, "yes", texts, DEADLINE);

    // Esc in pi's dialog is No: not run, the model reads why, and the prompt goes.
    let prompt = world.prompt_for(&tmux, "no");
    world.esc_in_the_terminal(&tmux, DIALOG_TEXT, DEADLINE);
    assert_eq!(world.output_for("call_no", DEADLINE), DENIED_IN_DIALOG);
    assert_eq!(world.written_by("no"), None);
    world.withdrawn(
        &prompt,
        "the prompt denied in pi's dialog to go",
        "once",
        DEADLINE,
    );
    world.wait_until_ready(&tmux);

    // The model's escapes reach neither pi's terminal nor gatehouse's list as escapes to run:
    // both show them as text, and the prompt keeps the command exact.
    world.agent.submit(&tmux, "please write hostile.txt");
    let (prompt, screen) = world.hostile_call_is_listed_as_text(&tmux, DIALOG_TEXT, DEADLINE);
    assert!(screen.contains("\\e[2J\\u{202e}gone"), "{screen}");
    world.esc_in_the_terminal(&tmux, DIALOG_TEXT, DEADLINE);
    world.withdrawn(&prompt, "the hostile prompt to go", "once", DEADLINE);
    assert_eq!(world.written_by("hostile"), None);
    world.wait_until_ready(&tmux);
    drop(tmux);

    // Uninstall removes exactly the extension.
    let installed = world.agent.home.files();
    let uninstalled = world.gateway.run(&["uninstall", "pi"]);
    assert!(uninstalled.status.success(), "{uninstalled:?}");
    let left: Vec<String> = installed
        .into_iter()
        .filter(|file| *file != format!("extensions/{EXTENSION_FILE_NAME}"))
        .collect();
    assert_eq!(world.agent.home.files(), left);
}

/// After `gatehouse probe pi`: `status` says what pi allows and why; `once` from the gateway
/// closes pi's dialog and runs the command; a deny blocks it and the model reads the reason; a
/// Yes in pi's dialog first withdraws the gateway's prompt, and a late answer is refused.
#[test]
fn after_the_probe_once_runs_deny_reaches_the_model_and_pis_dialog_answered_first_withdraws_the_prompt(
) {
    let Some(world) = World::new(write_calls(&["once", "deny", "first"])) else {
        return;
    };
    world.probe(&world.agent.bin);
    let shell = world.wait_until_verified("pi 0.73.1");
    assert_eq!(shell["tool"], "bash");
    let status = world.status_text();
    let pi = status.split("pi (pi)\n").nth(1).unwrap_or_default();
    assert!(
        pi.lines()
            .any(|line| line.contains("permission bash") && line.trim_end().ends_with("once, deny"))
            && pi.contains("the probe proves bash prompts only; answer the others in pi's dialog"),
        "status says what pi allows and why: {status}"
    );
    let tmux = world.start();

    // Once from the gateway: pi's dialog, live meanwhile, closes, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
    let list = world.gateway.list_text();
    assert!(
        list.contains("then only pi's own prompt can answer it"),
        "{list}"
    );
    tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    assert_eq!(world.output_for("call_once", DEADLINE), "(no output)");
    assert_eq!(world.written_by("once").as_deref(), Some("once"));
    tmux.wait_for_text_gone(DIALOG_TEXT, DEADLINE);
    world.wait_until_ready(&tmux);
    assert!(world.gateway.list().is_empty());

    // Deny with a message: not run, pi's dialog closes, and the model reads the reason.
    let prompt = world.prompt_for(&tmux, "deny");
    let output = world.deny_from_the_gateway(&prompt, "deny", "use a dry run first", DEADLINE);
    assert_eq!(output, "use a dry run first");
    tmux.wait_for_text_gone(DIALOG_TEXT, DEADLINE);
    world.wait_until_ready(&tmux);

    // Yes in pi's dialog first: the command runs, the held prompt is withdrawn at once, and a
    // late answer from the gateway is refused.
    let prompt = world.prompt_for(&tmux, "first");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    world.yes_in_the_terminal(&tmux, "first", DIALOG_TEXT, DEADLINE);
    world.withdrawn(
        &prompt,
        "the prompt answered in pi's dialog to go",
        "deny",
        DEADLINE,
    );
    assert_eq!(world.written_by("first").as_deref(), Some("first"));
    world.wait_until_ready(&tmux);
}

/// A tool outside the set chosen at install runs as pi runs it, unasked and never listed; and
/// with the gateway down, pi's dialog asks as if gatehouse were not there, and decides.
#[test]
fn a_tool_outside_the_chosen_set_is_not_held_and_with_the_gateway_down_pis_dialog_decides() {
    let Some(mut world) = World::new(vec![write_call("outside"), write_call("down")]) else {
        return;
    };
    let stdout = world.install(&[(TOOLS_VARIABLE, Path::new("write,edit"))]);
    assert!(stdout.contains("for each call of write, edit"), "{stdout}");
    {
        let tmux = world.start();
        world.agent.submit(&tmux, "please write outside.txt");
        assert_eq!(world.output_for("call_outside", DEADLINE), "(no output)");
        assert_eq!(world.written_by("outside").as_deref(), Some("outside"));
        world.wait_until_ready(&tmux);
        assert!(!tmux.screen().contains(DIALOG_TEXT));
        let log = world.gateway.log_text();
        assert!(!log.contains("outside.txt"), "never listed: {log}");
    }

    let stdout = world.install(&[(TOOLS_VARIABLE, Path::new("bash,write,edit"))]);
    assert!(
        stdout.contains("for each call of bash, write, edit"),
        "{stdout}"
    );
    world.gateway.kill();
    let tmux = world.start();
    world.agent.submit(&tmux, "please write down.txt");
    world.yes_in_the_terminal(&tmux, "down", DIALOG_TEXT, DEADLINE);
    world.wait_until_ready(&tmux);
    // pi lists its extensions at start (`gatehouse.ts` among them), so gatehouse shows there;
    // what counts is that pi's dialog asked at once and decided.
}
