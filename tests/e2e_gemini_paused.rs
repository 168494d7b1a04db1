//! End-to-end: the real Gemini CLI, answerable, run as a job of an interactive bash in tmux,
//! suspended with its own Ctrl+Z (pressed twice; Gemini sends SIGTSTP to its whole process group,
//! the hook with it) while gatehouse's BeforeTool hook holds a shell command, past the hook's
//! deadline, then resumed with bash's `fg` (issue 25). (tmux continues a pane's own program at once
//! when it stops, so Gemini runs under a shell with job control, as a person runs it.) Gemini runs
//! a shell command unasked when its BeforeTool hook times out (the allow policy), and on SIGCONT
//! Node fires an overdue timer at once, racing the hook's answer: so Gemini's own hook timeout must
//! never be due before the hook has answered. Whatever the pause, the command does not run: Gemini
//! shows its own dialog, and the audit log says the prompt expired with no verdict delivered.
//!
//! The hook's deadline is shortened for the test (`GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS`, debug
//! builds only, in Gemini's environment and so in its hooks'). Without Gemini CLI installed this
//! test is skipped locally, and fails in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use gatehouse_adapter_gemini::install::ANSWER_EVENT;
use gatehouse_adapter_gemini::probe::still_typed;

use crate::common::{wait_for, Gateway};
use crate::support::gemini_env::{
    fake_gemini, find_gemini_bin, GeminiEnv, DIALOG_TEXT, READY_TEXT, START_DEADLINE,
};
use crate::support::tmux::Tmux;
use crate::support::world::{required_bin, sandbox_env, write_passing_record};

const DEADLINE: Duration = Duration::from_secs(30);

/// The hook's deadline in these tests; it holds a prompt 10 s less (3 s).
const HOOK_DEADLINE: Duration = Duration::from_millis(13_000);

/// The BeforeTool timeout an older gatehouse wrote, scaled down as the hook's deadline is: it
/// wrote 240 s for a 180 s deadline, a timeout Gemini reaches while it is stopped.
const OLDER_GATEHOUSES_TIMEOUT: Duration = Duration::from_millis(15_000);

const COMMAND: &str = "printf unasked > unasked.txt";

/// A real Gemini in tmux, installed answerable with a passing probe record for its version,
/// its hooks' deadline shortened.
struct PausedWorld {
    tmux: Tmux,
    env: GeminiEnv,
    gateway: Gateway,
    _fake: gatehouse_harness::model::ScriptedModel,
}

impl PausedWorld {
    /// `edit_settings` runs on Gemini's settings after `install gemini --answerable --yes`,
    /// before Gemini starts.
    fn start(edit_settings: impl FnOnce(&Path)) -> Option<PausedWorld> {
        let bin = required_bin("Gemini CLI", find_gemini_bin())?;
        let gateway = Gateway::start();
        let fake = fake_gemini(COMMAND);
        let mut env = sandbox_env(&gateway, true);
        env.push((
            "GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS",
            HOOK_DEADLINE.as_millis().to_string(),
        ));
        let folder = gateway.sandbox.folder.path();
        let gemini = GeminiEnv::new(&bin, folder, &gateway.home(), &fake, &env);
        let installed = gateway.run(&["install", "gemini", "--answerable", "--yes"]);
        assert!(
            installed.status.success(),
            "{}{}",
            String::from_utf8_lossy(&installed.stdout),
            String::from_utf8_lossy(&installed.stderr)
        );
        write_passing_record(&gateway, "gemini", "0.61.0", bin.to_str().unwrap());
        edit_settings(&settings_of(&gateway));
        let tmux = start_in_a_shell(&gemini);
        Some(PausedWorld {
            tmux,
            env: gemini,
            gateway,
            _fake: fake,
        })
    }

    fn submit(&self, message: &str) {
        self.env.submit_surely(&self.tmux, message, still_typed);
    }

    fn ran_unasked(&self) -> bool {
        self.env.marker("unasked.txt").exists()
    }

    /// Gemini's process group, the foreground job of the pane's bash: Gemini (which starts
    /// itself again as a child node process), its children and the hooks they run.
    fn process_group(&self) -> libc::pid_t {
        let shell = self.tmux.pane_pid().expect("the pane's shell");
        let stat = std::fs::read_to_string(format!("/proc/{shell}/stat")).unwrap();
        // `PID (COMMAND) STATE PPID PGRP SESSION TTY_NR TPGID ...`
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let group: libc::pid_t = fields[5].parse().unwrap();
        assert!(group > 0 && group != shell as libc::pid_t, "{stat}");
        group
    }

    /// Suspends Gemini with its own key, Ctrl+Z twice, which stops its whole process group,
    /// the hook with it, until `fg` (or the guard, dropped).
    fn suspend_gemini(&self) -> StoppedGroup {
        let group = self.process_group();
        self.tmux.send_keys(&["C-z"]);
        self.tmux.wait_for_text("again to suspend", DEADLINE);
        self.tmux.send_keys(&["C-z"]);
        let stopped = StoppedGroup {
            group,
            continued: false,
        };
        wait_for(DEADLINE, "Gemini and its hook to be stopped", || {
            stopped.all_stopped()
        });
        stopped
    }

    /// Stops Gemini's whole process group with SIGTSTP, what Gemini's Ctrl+Z sends it (Gemini
    /// takes no Ctrl+Z while its dialog is up), until `fg` (or the guard, dropped).
    fn stop_gemini(&self) -> StoppedGroup {
        let group = self.process_group();
        // SAFETY: kill only sends a signal, to the process group of the Gemini this test started.
        assert_eq!(unsafe { libc::kill(-group, libc::SIGTSTP) }, 0);
        let stopped = StoppedGroup {
            group,
            continued: false,
        };
        wait_for(DEADLINE, "Gemini and its hook to be stopped", || {
            stopped.all_stopped()
        });
        stopped
    }

    /// Resumes Gemini with bash's `fg`.
    fn resume_gemini(&self, mut stopped: StoppedGroup) {
        self.tmux.wait_for_text(SHELL_PROMPT, DEADLINE);
        self.tmux.send_text("fg");
        self.tmux.send_keys(&["Enter"]);
        wait_for(DEADLINE, "Gemini to run again", || !stopped.all_stopped());
        stopped.continued = true;
    }

    /// Waits until Gemini shows its dialog for the command, or the command ran; returns the
    /// screen.
    fn dialog_or_the_command(&self) -> String {
        let mut screen = String::new();
        wait_for(DEADLINE, "Gemini's dialog, or the command to run", || {
            screen = self.tmux.screen();
            screen.contains(DIALOG_TEXT) || self.ran_unasked()
        });
        screen
    }

    /// The audit log's records of the prompt `id`, oldest first.
    fn audit_of(&self, id: &Value) -> Vec<Value> {
        self.gateway
            .audit_log()
            .into_iter()
            .filter(|record| record["event"]["id"] == *id || record["event"]["prompt"]["id"] == *id)
            .collect()
    }
}

/// The prompt of `bash --norc` (`bash-5.2# `, say).
const SHELL_PROMPT: &str = "bash-";

/// Starts an interactive bash in tmux with Gemini's environment, and in it Gemini, as a job,
/// and waits for Gemini's input box.
fn start_in_a_shell(gemini: &GeminiEnv) -> Tmux {
    let terminal = &gemini.terminal;
    let env: Vec<(&str, &str)> = terminal
        .env
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let tmux = Tmux::start(
        terminal.name,
        &terminal.workspace,
        &env,
        &["bash", "--norc", "--noprofile", "-i"],
    );
    tmux.wait_for_text(SHELL_PROMPT, DEADLINE);
    let bin = terminal.bin.to_str().expect("a UTF-8 path to Gemini");
    tmux.send_text(&format!("'{}'", bin.replace('\'', "'\\''")));
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text(READY_TEXT, START_DEADLINE);
    tmux
}

/// Gemini's stopped process group, continued when dropped (a failing test leaves no stopped
/// process behind).
struct StoppedGroup {
    group: libc::pid_t,
    continued: bool,
}

impl StoppedGroup {
    /// Whether every live process of the group is stopped, as `/proc` says (a zombie, a child
    /// that exited and is not yet reaped, runs nothing).
    fn all_stopped(&self) -> bool {
        processes_of(self.group)
            .iter()
            .all(|state| ["T", "t", "Z", "X"].contains(&state.as_str()))
    }
}

impl Drop for StoppedGroup {
    fn drop(&mut self) {
        if !self.continued {
            // SAFETY: kill only sends a signal, to the process group of the Gemini this test
            // started.
            unsafe { libc::kill(-self.group, libc::SIGCONT) };
        }
    }
}

/// The state letter (`/proc/PID/stat`'s third field) of every process in `group`.
fn processes_of(group: libc::pid_t) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter_map(|stat| {
            // `PID (COMMAND) STATE PPID PGRP ...`: COMMAND may hold anything but its last `)`.
            let rest = &stat[stat.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split(' ').collect();
            (fields.get(2)?.parse::<libc::pid_t>().ok()? == group).then(|| fields[0].to_owned())
        })
        .collect()
}

fn settings_of(gateway: &Gateway) -> PathBuf {
    gateway.home().join(".gemini/settings.json")
}

/// Sets the `timeout` of gatehouse's answerable BeforeTool entry in the settings at `path`.
fn set_answer_timeout(path: &Path, timeout: Duration) {
    let mut settings: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut set = 0;
    for group in settings["hooks"][ANSWER_EVENT].as_array_mut().unwrap() {
        for entry in group["hooks"].as_array_mut().unwrap() {
            if entry["name"] == "gatehouse-answer" {
                entry["timeout"] = json!(timeout.as_millis() as u64);
                set += 1;
            }
        }
    }
    assert_eq!(set, 1, "gatehouse's one answerable entry: {settings}");
    std::fs::write(path, settings.to_string()).unwrap();
}

/// The answerable entry's `timeout` in the settings at `path`, in milliseconds.
fn answer_timeout(path: &Path) -> Value {
    let settings: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    settings["hooks"][ANSWER_EVENT]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|group| group["hooks"].as_array())
        .flatten()
        .find(|entry| entry["name"] == "gatehouse-answer")
        .map(|entry| entry["timeout"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn gemini_stopped_while_its_hook_holds_past_the_hooks_deadline_runs_nothing_and_shows_its_dialog() {
    let Some(world) = PausedWorld::start(|_| {}) else {
        return;
    };
    world.submit("run it");
    let mut held = None;
    wait_for(DEADLINE, "a held prompt with once and deny", || {
        held = world
            .gateway
            .list()
            .into_iter()
            .find(|prompt| prompt["actions"] == json!(["once", "deny"]));
        held.is_some()
    });
    let held = held.unwrap();
    let stopped_at = Instant::now();
    let stopped = world.suspend_gemini();
    // The gateway's hold (3 s) ends meanwhile; the hook, stopped, cannot answer.
    wait_for(DEADLINE, "the held prompt to expire", || {
        world
            .gateway
            .list()
            .iter()
            .all(|prompt| prompt["id"] != held["id"])
    });
    wait_for(
        DEADLINE,
        "the hook's deadline to pass while stopped",
        || stopped_at.elapsed() > HOOK_DEADLINE + Duration::from_secs(3),
    );
    world.resume_gemini(stopped);
    let screen = world.dialog_or_the_command();
    assert!(!world.ran_unasked(), "the command ran unasked: {screen}");
    assert!(screen.contains(DIALOG_TEXT), "{screen}");

    let states: Vec<Value> = world
        .audit_of(&held["id"])
        .iter()
        .map(|record| record["event"]["state"].clone())
        .collect();
    assert!(states.contains(&json!("expired")), "{states:?}");
    assert!(
        !states.contains(&json!("resolved")) && !states.contains(&json!("delivered")),
        "{states:?}"
    );
}

/// Settings from an older gatehouse, whose BeforeTool timeout Gemini reaches while it is
/// stopped: before this fix the command ran unasked on SIGCONT. Now the hook does not hold with
/// such a timeout: Gemini's dialog comes at once, `status` says the settings are outdated, and
/// `install gemini --answerable` upgrades them.
#[test]
fn gemini_with_an_older_gatehouses_short_hook_timeout_stopped_and_continued_runs_nothing() {
    let Some(world) = PausedWorld::start(|settings| {
        set_answer_timeout(settings, OLDER_GATEHOUSES_TIMEOUT);
    }) else {
        return;
    };
    world.submit("run it");
    let mut listed = None;
    wait_for(DEADLINE, "the shell command to be listed", || {
        listed = world.gateway.list().into_iter().next();
        listed.is_some()
    });
    let stopped_at = Instant::now();
    let stopped = world.stop_gemini();
    wait_for(
        DEADLINE,
        "Gemini's old hook timeout to pass while stopped",
        || stopped_at.elapsed() > OLDER_GATEHOUSES_TIMEOUT + Duration::from_secs(3),
    );
    world.resume_gemini(stopped);
    let screen = world.dialog_or_the_command();
    assert!(!world.ran_unasked(), "the command ran unasked: {screen}");
    assert!(screen.contains(DIALOG_TEXT), "{screen}");
    let listed = listed.unwrap();
    assert_eq!(listed["actions"], json!([]), "not held: {listed}");

    let status = world.gateway.run(&["status"]);
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(
        status.contains("install gemini --answerable") && status.contains("timeout"),
        "{status}"
    );
    let upgraded = world
        .gateway
        .run(&["install", "gemini", "--answerable", "--yes"]);
    assert!(upgraded.status.success(), "{upgraded:?}");
    assert_eq!(
        answer_timeout(&settings_of(&world.gateway)),
        json!(gatehouse_adapter_gemini::install::BEFORE_TOOL_TIMEOUT_SECONDS * 1000)
    );
}
