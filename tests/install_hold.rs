//! `gatehouse install AGENT --hold SECONDS` for the agents that show no dialog of their own while
//! gatehouse holds their prompt (issue 26: "Codex's and the other holding agents' hold is
//! configurable per agent, with the default explained"). The wait goes into the hook command
//! the agent runs; the hold a prompt shows (`hold_ends_at`, `list`) comes from the wait that hook
//! asks the gateway for, so here the command `install codex --hold 120` wrote is run as Codex
//! runs it (`sh -c`), with Codex's captured PermissionRequest on stdin, and the prompt it
//! registers says 120 s. Also: a wait above an agent's longest is refused with the reason, an
//! agent whose own prompt stays live refuses `--hold`, and `--help` lists each holding agent's
//! default and longest from the registry.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use gatehouse_core::Timestamp;
use serde_json::Value;

use crate::common::{spawn_fed, Gateway, Sandbox};
use crate::support::world::write_passing_record;

const DEADLINE: Duration = Duration::from_secs(30);

fn millis(value: &Value) -> u64 {
    Timestamp::parse_rfc3339(value.as_str().unwrap_or_default())
        .unwrap_or_else(|| panic!("an RFC 3339 timestamp: {value}"))
        .unix_millis()
}

fn codex_hooks(sandbox: &Sandbox) -> PathBuf {
    sandbox.home().join(".codex/hooks.json")
}

/// The command and timeout of the PermissionRequest hook in Codex's hooks file.
fn permission_request_hook(hooks: &Path) -> (String, u64) {
    let written: Value = serde_json::from_slice(&std::fs::read(hooks).unwrap()).unwrap();
    let entry = &written["hooks"]["PermissionRequest"][0]["hooks"][0];
    (
        entry["command"].as_str().expect("a command").to_owned(),
        entry["timeout"].as_u64().expect("a timeout"),
    )
}

/// The folder of the pinned agents' commands; `None` (a skip that fails under CI) without it.
fn agents_bin() -> Option<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/.bin");
    if folder.join("codex").is_file() {
        return Some(folder);
    }
    crate::common::cannot_run("node_modules/.bin/codex is missing; run `npm ci` (.ci/run does)");
    None
}

/// Kills a process group when dropped.
struct GroupKilledOnDrop(u32);

impl Drop for GroupKilledOnDrop {
    fn drop(&mut self) {
        // SAFETY: kill has no memory preconditions; the group is the test's own child's.
        unsafe {
            libc::kill(-(self.0 as i32), libc::SIGKILL);
        }
    }
}

#[test]
fn a_codex_hook_installed_with_hold_120_holds_its_prompt_for_120_seconds() {
    let Some(agents) = agents_bin() else {
        return;
    };
    let gateway = Gateway::start();
    let installed = gateway.run(&["install", "codex", "--hold", "120"]);
    let said = String::from_utf8_lossy(&installed.stdout);
    assert!(installed.status.success(), "{installed:?}");
    assert!(said.contains("held for up to 120 s"), "{said}");
    let (command, timeout) = permission_request_hook(&codex_hooks(&gateway));
    assert!(
        command.starts_with("GATEHOUSE_HOOK__WAIT_SECONDS=120 "),
        "{command}"
    );
    assert_eq!(timeout, 150, "Codex's timeout is the wait and 30 s more");
    // The wait chosen is current for doctor (and setup), and an install without --hold keeps it.
    let doctor = String::from_utf8_lossy(&gateway.run(&["doctor"]).stdout).into_owned();
    assert!(
        doctor
            .lines()
            .any(|line| line.starts_with("ok   codex hooks      current")),
        "{doctor}"
    );
    let again = gateway.run(&["install", "codex"]);
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("nothing to change"),
        "{again:?}"
    );

    // A prompt of the Codex version on PATH is held, once a probe passed for it.
    write_passing_record(&gateway, "codex", "0.171.0", "/nonexistent/codex");
    let event = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates/adapter-codex/tests/data/codex-0.171.0/PermissionRequest-Bash.json"),
    )
    .unwrap();
    let mut sh = gateway.program("sh");
    sh.arg("-c")
        .arg(&command)
        .env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", agents.display()),
        )
        .process_group(0);
    let hook = spawn_fed(sh, &event);
    // sh runs the hook as its child: the whole group goes when the test ends, however it ends.
    let _group = GroupKilledOnDrop(hook.id());
    let prompt = gateway.wait_for_prompt(DEADLINE, "the Codex prompt", |prompt| {
        prompt["adapter"] == "codex"
    });
    assert_eq!(prompt["actions"][0], "once", "held, not watched: {prompt}");
    let held_for = millis(&prompt["hold_ends_at"]) - millis(&prompt["created_at"]);
    assert!(
        (110_000..=120_000).contains(&held_for),
        "{held_for} ms: {prompt}"
    );
    // `list` counts down from 2m 0s; Codex's default of 60 s would show 1m 0s at most.
    let list = gateway.list_text();
    assert!(
        ["2m 0s", "1m 5", "1m 4"]
            .iter()
            .any(|left| list.contains(&format!("held: answer within {left}"))),
        "{list}"
    );
}

#[test]
fn a_hold_longer_than_the_agents_longest_or_for_an_agent_that_does_not_hold_is_refused() {
    let sandbox = Sandbox::new();
    let qwen = sandbox.run(&["install", "qwen", "--hold", "45"]);
    let said = String::from_utf8_lossy(&qwen.stderr);
    assert_eq!(qwen.status.code(), Some(1), "{qwen:?}");
    assert!(
        said.contains("--hold 45 is longer than 44 seconds")
            && said.contains("Qwen Code gives up on its hook at 60 s"),
        "{said}"
    );
    assert!(!sandbox.home().join(".qwen").exists(), "nothing written");

    let claude = sandbox.run(&["install", "claude", "--hold", "30"]);
    let said = String::from_utf8_lossy(&claude.stderr);
    assert_eq!(claude.status.code(), Some(1), "{claude:?}");
    assert!(
        said.contains("Claude Code shows its own prompt") && said.contains("drop it"),
        "{said}"
    );

    let gemini = sandbox.run(&["install", "gemini", "--hold", "30"]);
    let said = String::from_utf8_lossy(&gemini.stderr);
    assert_eq!(gemini.status.code(), Some(1), "{gemini:?}");
    assert!(
        said.contains("--hold does not apply to Gemini CLI") && said.contains("180 s"),
        "{said}"
    );
    assert!(!sandbox.home().join(".gemini").exists(), "nothing written");
}

#[test]
fn install_help_lists_each_holding_agents_default_and_longest_hold() {
    let help = Sandbox::new()
        .command(&["install", "--help"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let held: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Held prompts, by agent"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let by_agent = |id: &str| {
        held.iter()
            .find(|line| line.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("{id} in {held:?}: {help}"))
            .to_string()
    };
    assert!(by_agent("codex").ends_with("60 s by default, at most 600 s"));
    assert!(by_agent("copilot").ends_with("60 s by default, at most 600 s"));
    assert!(by_agent("qwen").ends_with("40 s by default, at most 44 s"));
    assert!(by_agent("droid").ends_with("40 s by default, at most 600 s"));
    assert!(by_agent("gemini").ends_with("170 s when answerable, fixed (not --hold)"));
    assert!(
        !held.iter().any(|line| line.starts_with("claude ")),
        "{held:?}"
    );
}
