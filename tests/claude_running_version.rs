//! Claude Code's per-version unlocks (edits, `always`, plans) follow the Claude Code that runs the
//! hook, not the `claude` the gateway finds installed. The gateway here finds a fake `claude`
//! of the probed version first on its PATH; the hook runs under another fake `claude` (a script
//! that sets `CLAUDE_PID` to itself, as Claude Code does, and runs `gatehouse hook claude` as its
//! child). Under another version, an edit is read-only and says why, and a Bash prompt offers no
//! `always`; under the probed version, they offer what the probe unlocked.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{binary, claude_fixture, wait_for, Sandbox};
use crate::support::spawn_fed;

const PROBED: &str = "2.1.332";
const DEADLINE: Duration = Duration::from_secs(20);

/// An executable `claude` in `folder` that prints `version` for `--version` and otherwise runs
/// gatehouse's hook as its child, with `CLAUDE_PID` naming itself.
fn fake_claude(folder: &Path, version: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(folder).unwrap();
    let path = folder.join("claude");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n\
             if [ \"$1\" = --version ]; then echo '{version} (Claude Code)'; exit 0; fi\n\
             CLAUDE_PID=$$ \"$GATEHOUSE_TEST_BINARY\" hook claude\n\
             status=$?\n\
             exit $status\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A gateway whose PATH finds the installed fake `claude` first; stopped when dropped.
struct World {
    sandbox: Sandbox,
    gateway: Child,
}

impl World {
    fn start() -> World {
        let sandbox = Sandbox::new();
        let installed = fake_claude(&sandbox.folder.path().join("installed"), PROBED);
        // A passing record for the installed version, as `gatehouse probe claude` writes it.
        crate::e2e_claude_more::write_record(&sandbox, &installed, PROBED);
        let path = format!(
            "{}:{}",
            installed.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let gateway = sandbox
            .command(&["serve"])
            .env("PATH", path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts");
        let world = World { sandbox, gateway };
        wait_for(
            DEADLINE,
            "the gateway to unlock edits for its claude",
            || {
                let status = world.sandbox.run(&["status", "--json"]);
                let status: Value = serde_json::from_slice(&status.stdout).unwrap_or(Value::Null);
                status["adapters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|adapter| adapter["adapter"] == "claude")
                    .flat_map(|adapter| adapter["rules"].as_array().cloned().unwrap_or_default())
                    .any(|rule| rule["tool"] == "Write" && rule["actions"][0]["verified"] == true)
            },
        );
        world
    }

    /// Runs `event` through the hook under a fake Claude Code of `version`, in a process group
    /// of its own that is killed if the test ends first.
    fn hook_under(&self, version: &str, event: &Value) -> HookUnderClaude {
        let running = fake_claude(
            &self
                .sandbox
                .folder
                .path()
                .join(format!("running-{version}")),
            version,
        );
        let mut command = self.sandbox.program(&running);
        command
            .process_group(0)
            .env("GATEHOUSE_TEST_BINARY", binary());
        let child = spawn_fed(&mut command, event.to_string().as_bytes());
        HookUnderClaude(Some(child))
    }

    /// Runs Claude Code's `fixture` event (for `session`) through the hook under a fake Claude
    /// Code of `version`, and returns it with the prompt listed for it.
    fn listed_under(
        &self,
        version: &str,
        fixture: &str,
        session: &str,
    ) -> (HookUnderClaude, Value) {
        let hook = self.hook_under(version, &event(fixture, session));
        let prompt = self.sandbox.wait_for_pending_within(1, DEADLINE).remove(0);
        (hook, prompt)
    }

    /// An edit (for `session`) under the probed version: listed answerable, with `always`.
    fn an_edit_answerable_under_the_probed_version(
        &self,
        session: &str,
    ) -> (HookUnderClaude, Value) {
        let (hook, prompt) = self.listed_under(PROBED, "PermissionRequest-Write", session);
        let actions = json!(["once", "deny", "always"]);
        assert_eq!(prompt["actions"], actions, "{prompt}");
        (hook, prompt)
    }

    /// Answers `prompt` with `once`, which must succeed, and returns what the hook did.
    fn once_and_finish(&self, prompt: &Value, hook: HookUnderClaude) -> Output {
        let answered = self
            .sandbox
            .run(&["answer", prompt["id"].as_str().unwrap(), "once"]);
        assert!(answered.status.success(), "{answered:?}");
        hook.finish()
    }

    fn release(&self, prompt: &Value) {
        let released = self
            .sandbox
            .run(&["release", prompt["id"].as_str().unwrap()]);
        assert!(released.status.success(), "{released:?}");
    }
}

/// The fake Claude Code and the hook it runs; the whole group is killed when dropped unfinished.
struct HookUnderClaude(Option<Child>);

impl HookUnderClaude {
    fn finish(mut self) -> Output {
        let child = self.0.as_mut().expect("not finished yet");
        wait_for(DEADLINE, "the hook under the fake claude to exit", || {
            child
                .try_wait()
                .expect("the child can be waited on")
                .is_some()
        });
        let child = self.0.take().expect("not finished yet");
        child.wait_with_output().expect("the child's output")
    }
}

impl Drop for HookUnderClaude {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            // SAFETY: kill only sends a signal, to the process group this test started.
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.wait();
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.gateway.kill();
        let _ = self.gateway.wait();
    }
}

fn event(fixture: &str, session: &str) -> Value {
    let mut event = claude_fixture(fixture);
    event["session_id"] = json!(session);
    event
}

#[test]
fn an_edit_under_another_claude_code_version_is_read_only_and_says_which() {
    let world = World::start();
    let (hook, prompt) = world.listed_under("9.9.9", "PermissionRequest-Write", "other-version");
    assert_eq!(prompt["actions"], json!([]), "{prompt}");
    let why = prompt["read_only_reason"].as_str().unwrap_or_default();
    assert!(
        why.contains("the probe passed for Claude Code 2.1.332, but Claude Code 9.9.9 is in use"),
        "{why}"
    );
    world.release(&prompt);
    let output = hook.finish();
    assert!(output.status.success());
    assert!(output.stdout.is_empty(), "{output:?}");
}

#[test]
fn a_bash_prompt_under_another_version_offers_no_always() {
    let world = World::start();
    let (hook, prompt) = world.listed_under(
        "9.9.9",
        "PermissionRequest-Bash-addRules",
        "other-version-bash",
    );
    assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
    assert!(prompt.get("suggestions").is_none(), "{prompt}");
    world.release(&prompt);
    assert!(hook.finish().stdout.is_empty());
}

#[test]
fn an_edit_under_the_probed_version_is_answerable_and_delivered() {
    let world = World::start();
    let (hook, prompt) = world.an_edit_answerable_under_the_probed_version("probed-version");
    assert!(prompt["read_only_reason"].is_null(), "{prompt}");
    let output = world.once_and_finish(&prompt, hook);
    let verdict: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "a verdict on stdout: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(
        verdict["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
}

/// The record changes after the prompt was listed answerable (a new probe of another version):
/// the hook's own check, the same rule on the record as it is now, refuses the verdict, prints
/// nothing, and the audit log says what happened.
#[test]
fn a_verdict_the_record_no_longer_allows_is_not_delivered_and_the_log_says_why() {
    let world = World::start();
    let (hook, prompt) = world.an_edit_answerable_under_the_probed_version("record-changed");
    let record_path = world
        .sandbox
        .home()
        .join(".local/state/gatehouse/claude-probe.json");
    let mut record: Value = serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
    record["claude_version"] = json!("2.1.333");
    std::fs::write(&record_path, record.to_string()).unwrap();
    let output = world.once_and_finish(&prompt, hook);
    assert!(output.status.success());
    assert!(output.stdout.is_empty(), "nothing delivered: {output:?}");
    wait_for(DEADLINE, "the log to say the hook did not deliver", || {
        let log = world.sandbox.run(&["log", "--json"]);
        String::from_utf8_lossy(&log.stdout).contains("the hook did not deliver the verdict")
    });
}
