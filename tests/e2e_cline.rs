//! End-to-end: the real Cline CLI (npm `cline`, pinned in package.json) in tmux (`cline -i`),
//! offline (no update check, no telemetry), against the kit's scripted chat-completions model on
//! loopback as its OpenAI-compatible provider, with gatehouse's hook files installed by
//! `gatehouse install cline` and a real `gatehouse serve`. What the model records is what reached
//! it; what tmux shows is what the person saw. Cline's private home is the crate's
//! ([`gatehouse_adapter_cline::private`]) in the sandbox's HOME, with "Auto-approve all" saved
//! off, so that Cline asks; each test gives Cline's hub daemon a port of its own and ends it by
//! its process id (it outlives the TUI).
//!
//! Cline is watched: its prompts are listed read-only and answered in its own dialog.
//!
//! Without Cline installed these tests are skipped locally, and fail in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gatehouse_adapter_cline::auto_approve::AutoApprove;
use gatehouse_adapter_cline::events::{ASKED_IN_CLINE, RUNS_UNASKED, SHELL_TOOL};
use gatehouse_adapter_cline::install::{file_name, EVENTS};
use gatehouse_adapter_cline::private::{
    self, hub_daemons, offline_environment, write_private_settings, DIALOG_TEXT, SCREEN,
};
use gatehouse_adapter_cline::READ_ONLY_REASON;
use gatehouse_harness::model::ScriptedCall;
use serde_json::{json, Value};

use crate::common::Gateway;
use crate::support::scenarios::{hostile_call, write_call, write_calls};
use crate::support::tmux::Tmux;
use crate::support::world::{
    find_bin, poll_until, refused, required_bin, sandbox_env, workspace_in, Agent, AgentTerminal,
    AgentWorld, QuittingTmux,
};

const DEADLINE: Duration = Duration::from_secs(60);

/// How long Cline may take to start on a busy machine; it took about 3 seconds here.
const START_DEADLINE: Duration = Duration::from_secs(90);

/// What Cline tells the model after a Deny in its dialog.
const REJECTED: &str = "This tool call was rejected by the user and not executed.";

/// Cline's private home: its hooks folder, and its hub daemon's port, whose daemon is ended
/// when the home goes (after the TUI, before the gateway and the sandbox).
struct ClineHome {
    hooks: PathBuf,
    hub_port: u16,
}

impl ClineHome {
    /// The files in the hooks folder, by name.
    fn hook_files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.hooks)
            .map(|entries| {
                entries
                    .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

impl Drop for ClineHome {
    fn drop(&mut self) {
        end_hub_daemons(self.hub_port);
    }
}

/// Ends every Cline hub daemon on `port` by its process id: SIGTERM, then SIGKILL after 10 s.
fn end_hub_daemons(port: u16) {
    let signal = |signal: libc::c_int| {
        for pid in hub_daemons(port) {
            // SAFETY: kill only sends a signal, to a hub daemon this test's Cline started
            // (found by the port this test chose).
            unsafe { libc::kill(pid as libc::pid_t, signal) };
        }
    };
    signal(libc::SIGTERM);
    let started = Instant::now();
    while !hub_daemons(port).is_empty() {
        if started.elapsed() > Duration::from_secs(10) {
            signal(libc::SIGKILL);
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "Cline's hub daemon on port {port} did not end"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A loopback port no one listens on now, for Cline's hub daemon.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The kit's world with a private Cline home whose hook files `gatehouse install cline` wrote.
type World = AgentWorld<Agent<ClineHome>>;

impl World {
    /// The world with Cline's "Auto-approve all" saved as `auto_approve`.
    fn new(script: Vec<ScriptedCall>, auto_approve: AutoApprove) -> Option<World> {
        let found = find_bin("GATEHOUSE_CLINE_BIN", "cline", || None);
        let bin = required_bin("Cline CLI", found)?;
        let gateway = Gateway::start();
        let fake = private::start_model(script).unwrap();
        let agent = private_cline(&bin, &gateway, &fake.base_url(), auto_approve);
        let world = AgentWorld {
            agent,
            adapter: "cline",
            gateway,
            fake,
        };
        assert!(world.agent.home.hook_files().is_empty());
        let stdout = world.install(&[]);
        let said = [
            "gatehouse's PreToolUse hook file",
            "beside it for PostToolUse, TaskComplete, TaskCancel, TaskError, SessionShutdown",
            "read-only",
            "[y] Approve, [n] Deny",
            "\"Auto-approve all\" on",
            "Shift+Tab",
            "--auto-approve false",
            match auto_approve {
                AutoApprove::Off => "Its saved setting here is off, so Cline asks.",
                AutoApprove::On => {
                    "Its saved setting here is on (or not saved yet), so Cline asks nothing"
                }
            },
        ];
        crate::common::assert_says_all("install", &stdout, &said);
        let mut expected: Vec<String> = EVENTS.iter().map(|event| file_name(event)).collect();
        expected.sort();
        assert_eq!(world.agent.home.hook_files(), expected, "one file an event");
        use std::os::unix::fs::PermissionsExt;
        for name in &expected {
            let path = world.agent.home.hooks.join(name);
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(
                mode & 0o777,
                0o600,
                "{name}: owner-only, not executable: {mode:o}"
            );
        }
        Some(world)
    }

    /// Starts `cline -i` in tmux (keeping the `TMUX` variables its hooks report) and waits for
    /// its input box; dropping the terminal ends Cline with `/exit`.
    fn start(&self) -> QuittingTmux {
        let terminal = &self.agent.terminal;
        let env: Vec<(&str, &str)> = terminal
            .env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let mut command = vec![terminal.bin.to_str().unwrap()];
        command.extend(SCREEN.arguments);
        let tmux =
            Tmux::start_keeping_tmux_variables(terminal.name, &terminal.workspace, &env, &command);
        self.wait_until_ready(&tmux, START_DEADLINE);
        QuittingTmux::new(tmux, SCREEN)
    }

    fn wait_until_ready(&self, tmux: &Tmux, deadline: Duration) {
        tmux.wait_for_screen(deadline, "Cline to be ready", |screen| {
            SCREEN.is_ready(screen)
        });
    }

    /// Types `message` and sends it, pressing Enter again while Cline has not taken it.
    fn submit(&self, tmux: &Tmux, message: &str) {
        self.agent
            .submit_surely(tmux, message, private::still_typed);
    }

    /// Submits "please write NAME.txt" and returns the one prompt listed for it: read-only with
    /// the reason, from the pane Cline runs in; Cline's dialog shows meanwhile.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.submit(tmux, &format!("please write {name}.txt"));
        let prompt = self.the_one_listed(tmux, DEADLINE);
        assert_eq!(prompt["tool"], SHELL_TOOL, "{prompt}");
        assert_eq!(prompt["summary"], format!("printf {name} > {name}.txt"));
        assert_eq!(prompt["actions"], json!([]), "read-only: {prompt}");
        assert_eq!(prompt["read_only_reason"], ASKED_IN_CLINE, "{prompt}");
        assert_eq!(prompt["terminal"]["tmux_pane"], tmux.pane_id(), "{prompt}");
        tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
        refused(&self.answer(&prompt["id"], &["once"]), "read_only");
        refused(&self.answer(&prompt["id"], &["deny"]), "read_only");
        prompt
    }

    /// Presses `key` in Cline's dialog until it goes.
    fn press_in_dialog(&self, tmux: &Tmux, key: &str) {
        tmux.press_until_gone(&[key], DIALOG_TEXT, Duration::from_secs(2), DEADLINE);
    }

    /// What `gatehouse status` prints.
    fn status_text(&self) -> String {
        String::from_utf8_lossy(&self.gateway.run(&["status"]).stdout).into_owned()
    }
}

/// Cline at `bin` in the sandbox's HOME (the scripted model at `base_url` as its provider,
/// "Auto-approve all" saved as `auto_approve`), XDG folders and socket, so the hook finds the gateway.
fn private_cline(
    bin: &Path,
    gateway: &Gateway,
    base_url: &str,
    auto_approve: AutoApprove,
) -> Agent<ClineHome> {
    let env = sandbox_env(gateway, true);
    let home = gateway.home();
    let workspace = workspace_in(gateway.sandbox.folder.path());
    write_private_settings(&home, base_url, auto_approve).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let hub_port = free_port();
    Agent {
        terminal: AgentTerminal::new(
            "cline",
            bin,
            workspace,
            offline_environment(&home, &path, hub_port),
            &env,
            START_DEADLINE,
        ),
        home: ClineHome {
            hooks: home.join(".cline/hooks"),
            hub_port,
        },
    }
}

/// `status` says what Cline allows and why; a prompt is listed read-only with the reason while
/// Cline's dialog asks; Approve there runs the command and withdraws it, Deny does not run it and
/// withdraws it too; a command's escapes show as text; uninstall removes exactly the hook files.
#[test]
fn watched_read_only_clines_dialog_answers_withdraw_it_and_hostile_text_shows_as_escapes() {
    let mut script = write_calls(&["yes", "no"]);
    script.push(hostile_call());
    let Some(world) = World::new(script, AutoApprove::Off) else {
        return;
    };
    let flags = world.flags();
    assert_eq!(
        flags["tool"],
        Value::Null,
        "one rule for every tool: {flags}"
    );
    assert!(
        flags["actions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|flag| flag["verified"] == false && flag["evidence"] == READ_ONLY_REASON),
        "{flags}"
    );
    let status = world.status_text();
    let cline = status
        .split("Cline CLI (cline)\n")
        .nth(1)
        .unwrap_or_default();
    let first = cline.lines().next().unwrap_or_default();
    assert!(
        first.contains("permission (any tool)")
            && first.contains(
                "read-only: Cline's hooks cannot allow a call, only cancel the whole turn"
            ),
        "status says what Cline allows and why: {status}"
    );
    let tmux = world.start();

    // Approve in Cline's dialog: the command runs, and the prompt is withdrawn.
    let prompt = world.prompt_for(&tmux, "yes");
    let list = world.gateway.list_text();
    let said = ["printf yes > yes.txt", "answer [y] Approve or [n] Deny"];
    crate::common::assert_says_all("list", &list, &said);
    assert_eq!(
        world.written_by("yes"),
        None,
        "not run before the dialog's answer"
    );
    world.press_in_dialog(&tmux, "y");
    let output = world.output_for("call_yes", DEADLINE);
    assert!(output.contains(r#""success":true"#), "{output}");
    assert_eq!(world.written_by("yes").as_deref(), Some("yes"));
    world.withdrawn(
        &prompt,
        "the prompt approved in Cline's dialog to go",
        "once",
        DEADLINE,
    );
    world.wait_until_ready(&tmux, DEADLINE);

    // Deny in Cline's dialog: not run, the model reads Cline's words, and the prompt goes too.
    let prompt = world.prompt_for(&tmux, "no");
    world.press_in_dialog(&tmux, "n");
    let output = world.output_for("call_no", DEADLINE);
    assert!(output.contains(REJECTED), "{output}");
    assert_eq!(world.written_by("no"), None);
    world.withdrawn(
        &prompt,
        "the prompt denied in Cline's dialog to go",
        "once",
        DEADLINE,
    );
    world.wait_until_ready(&tmux, DEADLINE);

    // The model's escapes reach gatehouse's list as text, not as escapes to run, and the
    // prompt keeps the command exact.
    world.submit(&tmux, "please write hostile.txt");
    let (prompt, _) = world.hostile_call_is_listed_as_text(&tmux, DIALOG_TEXT, DEADLINE);
    assert_eq!(prompt["actions"], json!([]));
    world.press_in_dialog(&tmux, "n");
    world.withdrawn(&prompt, "the hostile prompt to go", "once", DEADLINE);
    assert_eq!(world.written_by("hostile"), None);
    world.wait_until_ready(&tmux, DEADLINE);
    drop(tmux);

    // Uninstall removes exactly the hook files.
    let uninstalled = world.gateway.run(&["uninstall", "cline"]);
    assert!(uninstalled.status.success(), "{uninstalled:?}");
    assert!(world.agent.home.hook_files().is_empty());
}

/// The hook never delays Cline's dialog, whatever the gateway does: with the gateway stopped
/// (SIGSTOP), Cline asks at once and its Approve runs the command (once the gateway goes on, a
/// late prompt is read-only, and the next turn's end withdraws it); with the gateway gone, Cline
/// asks and decides as if gatehouse were not installed.
#[test]
fn with_the_gateway_stopped_or_down_clines_dialog_asks_at_once_and_decides() {
    let script = write_calls(&["stopped", "after", "down"]);
    let Some(mut world) = World::new(script, AutoApprove::Off) else {
        return;
    };
    let tmux = world.start();

    let pid = world.gateway.pid() as libc::pid_t;
    // SAFETY: kill only sends a signal, to the gateway this test started and still owns.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    world.submit(&tmux, "please write stopped.txt");
    let asked = Instant::now();
    tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
    let waited = asked.elapsed();
    assert!(
        waited < Duration::from_secs(20),
        "Cline's dialog came {waited:?} after the message, with the gateway stopped"
    );
    world.press_in_dialog(&tmux, "y");
    world.output_for("call_stopped", DEADLINE);
    assert_eq!(world.written_by("stopped").as_deref(), Some("stopped"));
    world.wait_until_ready(&tmux, DEADLINE);
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    // What the stopped gateway took in meanwhile is read-only, and the end of the next turn
    // (a Deny in Cline's dialog) withdraws it, if it is still listed: the hook registers a
    // watched prompt with no `held_since`, so the call's end, read first, may not settle it.
    world.submit(&tmux, "please write after.txt");
    let mut listed = Vec::new();
    let after = poll_until(DEADLINE, || {
        listed = world.gateway.list();
        listed
            .iter()
            .any(|prompt| prompt["summary"] == "printf after > after.txt")
    });
    assert!(
        after,
        "the next prompt listed: {listed:?}; Cline's screen:\n{}",
        tmux.screen()
    );
    assert!(
        listed.iter().all(|prompt| prompt["actions"] == json!([])),
        "all read-only: {listed:?}"
    );
    tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
    world.press_in_dialog(&tmux, "n");
    world.output_for("call_after", DEADLINE);
    crate::support::wait_until(DEADLINE, "nothing listed after the turn", || {
        world.gateway.list().is_empty()
    });
    world.wait_until_ready(&tmux, DEADLINE);

    world.gateway.kill();
    world.submit(&tmux, "please write down.txt");
    tmux.wait_for_text(DIALOG_TEXT, DEADLINE);
    assert_eq!(world.written_by("down"), None, "asked first");
    world.press_in_dialog(&tmux, "y");
    world.output_for("call_down", DEADLINE);
    assert_eq!(world.written_by("down").as_deref(), Some("down"));
    world.wait_until_ready(&tmux, DEADLINE);
}

/// With "Auto-approve all" on, as a fresh Cline starts, Cline runs the call without asking,
/// with or without gatehouse, and gatehouse says so in the prompt it lists for it, which the
/// call's end withdraws.
#[test]
fn with_auto_approve_on_cline_runs_the_call_unasked_and_gatehouse_says_so() {
    let Some(world) = World::new(vec![write_call("unasked")], AutoApprove::On) else {
        return;
    };
    let tmux = world.start();
    world.submit(&tmux, "please write unasked.txt");
    world.output_for("call_unasked", DEADLINE);
    assert_eq!(world.written_by("unasked").as_deref(), Some("unasked"));
    world.wait_until_ready(&tmux, DEADLINE);
    let mut log = Vec::new();
    let withdrawn = poll_until(DEADLINE, || {
        log = world.gateway.audit_log();
        log.iter()
            .any(|record| record["event"]["state"] == "withdrawn")
    });
    assert!(withdrawn, "the prompt to be added and withdrawn: {log:?}");
    let added: Vec<&Value> = log
        .iter()
        .filter(|record| record["event"]["type"] == "added")
        .collect();
    assert_eq!(added.len(), 1, "{log:?}");
    let prompt = &added[0]["event"]["prompt"];
    assert_eq!(
        prompt["summary"], "printf unasked > unasked.txt",
        "{prompt}"
    );
    assert_eq!(prompt["read_only_reason"], RUNS_UNASKED, "{prompt}");
    assert!(world.gateway.list().is_empty());
}
