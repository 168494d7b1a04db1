//! `gatehouse console` end to end: the real binary in a tmux window, against a real gateway, with
//! real `gatehouse hook claude` processes holding prompts. Keys go in with `send-keys`; the screen
//! comes back with `capture-pane`; every wait polls a condition up to a deadline.

use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{binary, claude_fixture, finish, Gateway, Sandbox};

#[path = "console_screens.rs"]
mod screens;

const SCREEN_DEADLINE: Duration = Duration::from_secs(20);
const HOOK_EXIT: Duration = Duration::from_secs(10);

/// The key hints the console shows once the list has settled under a Bash prompt.
const BASH_KEYS_READY: &str = "o allow once · d deny · r release";

/// A private tmux server running `gatehouse console` against one sandbox, killed when dropped.
struct ConsoleWindow {
    server: String,
}

impl ConsoleWindow {
    fn open(sandbox: &Sandbox) -> Self {
        Self::open_sized(sandbox, (200, 50))
    }

    /// Opens the console in a tmux window of `(width, height)` cells.
    fn open_sized(sandbox: &Sandbox, (width, height): (u16, u16)) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let server = format!(
            "gatehouse-console-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let folder = sandbox.folder.path();
        // The console's own environment mirrors `Sandbox::command`; after it exits, the window
        // stays open with its exit status so that a failing test can show it.
        let console = format!(
            "env HOME='{}' XDG_CONFIG_HOME='{}' XDG_RUNTIME_DIR='{}' GATEHOUSE_SOCKET='{}' '{}' console; echo \"console exited: $?\"; sleep 600",
            sandbox.home().display(),
            folder.join("config").display(),
            folder.join("run").display(),
            sandbox.socket().display(),
            binary().display(),
        );
        let window = ConsoleWindow { server };
        let (width, height) = (width.to_string(), height.to_string());
        let started = window.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &width,
            "-y",
            &height,
            "-s",
            "console",
            &console,
        ]);
        assert!(
            started.status.success(),
            "tmux starts: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        window
    }

    fn tmux(&self, arguments: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.server)
            .args(arguments)
            .stdin(Stdio::null())
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "console"]).stdout)
            .into_owned()
    }

    /// Sends tmux key names, such as `o`, `Down` or `Enter`.
    fn press(&self, keys: &[&str]) {
        let mut arguments = vec!["send-keys", "-t", "console"];
        arguments.extend_from_slice(keys);
        assert!(self.tmux(&arguments).status.success());
    }

    /// Types text literally.
    fn type_text(&self, text: &str) {
        assert!(self
            .tmux(&["send-keys", "-t", "console", "-l", text])
            .status
            .success());
    }

    /// Polls the screen until `condition` holds, and returns that screen.
    fn wait_for(&self, what: &str, condition: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if condition(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < SCREEN_DEADLINE,
                "timed out after {SCREEN_DEADLINE:?} waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for_text(&self, text: &str) -> String {
        self.wait_for(&format!("`{text}` on screen"), |screen| {
            screen.contains(text)
        })
    }
}

impl Drop for ConsoleWindow {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

fn verdict(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "the hook always exits 0: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "the hook printed a verdict, not {:?}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The key-hint line: the line right after the detail pane's bottom border.
fn key_line(screen: &str) -> &str {
    let lines: Vec<&str> = screen.lines().collect();
    let bottom = lines
        .iter()
        .rposition(|line| line.starts_with('└'))
        .expect("the detail pane is drawn");
    lines.get(bottom + 1).copied().unwrap_or_default()
}

#[test]
fn keys_answer_held_prompts_and_each_hook_prints_its_verdict() {
    let gateway = Gateway::start();
    let console = ConsoleWindow::open(&gateway);
    console.wait_for_text("connected to gatehouse");

    let (bash_hook, _) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    console.wait_for("the Bash prompt, settled", |screen| {
        screen.contains("printf hi > hi.txt") && key_line(screen).starts_with(BASH_KEYS_READY)
    });
    console.press(&["o"]);
    assert_eq!(
        verdict(&finish(bash_hook, HOOK_EXIT)),
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}})
    );
    console.wait_for_text("Allowed once: printf hi > hi.txt");

    let (question_hook, _) =
        gateway.hold_claude(&claude_fixture("PermissionRequest-AskUserQuestion"));
    console.wait_for_text("Which color?");
    console.press(&["Down"]);
    console.wait_for("the question, selected", |screen| {
        key_line(screen).starts_with("a answer")
    });
    console.press(&["a"]);
    console.wait_for_text("( ) Blue: cool");
    console.press(&["Down", "Space"]);
    console.wait_for_text("(•) Blue: cool");
    console.press(&["Enter"]);
    let decision = &verdict(&finish(question_hook, HOOK_EXIT))["hookSpecificOutput"]["decision"];
    assert_eq!(
        decision["updatedInput"]["answers"],
        json!({"Which color?": "Blue"})
    );
    // Answered here, it is done with: the cursor moves on (here to nothing), never "GONE".
    let screen = console.wait_for("the answered question, said so", |screen| {
        screen.contains("Answered: Blue (Which color?)")
    });
    assert!(!screen.contains("GONE"), "{screen}");

    let (deny_hook, _) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    console.wait_for_text("printf hi > hi.txt");
    console.press(&["Down"]);
    console.wait_for("the new Bash prompt, selected", |screen| {
        key_line(screen).starts_with(BASH_KEYS_READY)
    });
    console.press(&["d"]);
    console.wait_for_text("Deny message (optional):");
    console.type_text("use make clean");
    console.press(&["Enter"]);
    let decision = &verdict(&finish(deny_hook, HOOK_EXIT))["hookSpecificOutput"]["decision"];
    assert_eq!(
        decision,
        &json!({"behavior": "deny", "message": "use make clean"})
    );
    console.wait_for_text("Denied (\"use make clean\")");
}

#[test]
fn a_prompt_withdrawn_while_selected_cannot_be_answered() {
    let gateway = Gateway::start();
    let console = ConsoleWindow::open(&gateway);
    console.wait_for_text("connected to gatehouse");
    let (mut withdrawn_hook, withdrawn) =
        gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let (other_hook, other) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    console.wait_for("both prompts, the first selected and settled", |screen| {
        screen.contains("2 pending prompts") && key_line(screen).starts_with(BASH_KEYS_READY)
    });

    // Claude Code ends a waiting hook with SIGTERM when the person answers in the terminal.
    unsafe { libc::kill(withdrawn_hook.id() as i32, libc::SIGTERM) };
    withdrawn_hook.wait().unwrap();
    console.wait_for_text("GONE: withdrawn");
    console.press(&["o"]);
    let screen = console.wait_for_text("That prompt has gone");
    assert!(screen.contains("nothing was sent"), "{screen}");

    let pending = gateway.list();
    assert_eq!(
        pending.len(),
        1,
        "the other prompt was not answered: {pending:?}"
    );
    assert_eq!(pending[0]["id"], other["id"]);
    assert_ne!(pending[0]["id"], withdrawn["id"]);
    let mut other_hook = other_hook;
    assert!(
        other_hook.try_wait().unwrap().is_none(),
        "the other hook still waits for a verdict"
    );
    let _ = other_hook.kill();
}

/// A second `gatehouse serve` on the same sandbox, stopped when dropped.
struct RestartedGateway(Child);

impl Drop for RestartedGateway {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_console_survives_a_gateway_restart() {
    let mut gateway = Gateway::start();
    let console = ConsoleWindow::open(&gateway);
    console.wait_for_text("connected to gatehouse");
    gateway.kill();
    console.wait_for_text("THE GATEWAY IS GONE");

    let serve = gateway.spawn_quiet(&["serve"], Stdio::null());
    let _restarted = RestartedGateway(serve);
    crate::common::wait_for(SCREEN_DEADLINE, "the restarted gateway", || {
        gateway.run(&["status"]).status.success()
    });
    console.wait_for_text("connected to gatehouse");

    let (hook, _) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    console.wait_for("the Bash prompt, settled", |screen| {
        key_line(screen).starts_with(BASH_KEYS_READY)
    });
    console.press(&["o"]);
    assert_eq!(
        verdict(&finish(hook, HOOK_EXIT))["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
}
