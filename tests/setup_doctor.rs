//! `gatehouse setup`, `gatehouse doctor`, `completions` and `man`, in a sandboxed home with the
//! real pinned agents (Claude Code and Codex from node_modules) as the only ones on `PATH`.
//! Setup installs exactly those agents' hooks, asks for each at a terminal, changes nothing the
//! second time or without a terminal and `--yes`; it starts the user service through a fake
//! `systemctl` of the test's own (the machine's systemd is never reached: the sandbox's runtime
//! folder has no user manager unless the test makes one up). Doctor fails the gateway when it is
//! down and a hook that names another gatehouse binary, with the command that fixes each.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::{binary, wait_for, Gateway, Sandbox};
use crate::support::tmux::Tmux;

/// The agents the tests put on `PATH`, by their command names.
const AGENTS: [&str; 2] = ["claude", "codex"];

/// The folders a `PATH` with no agent on it needs (the agents are Node programs).
const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A folder with `AGENTS` from node_modules/.bin in it, for `PATH`; `None` (a skip that fails
/// under CI) when they are not installed.
fn agents_folder(sandbox: &Sandbox) -> Option<PathBuf> {
    let folder = sandbox.folder.path().join("agents");
    std::fs::create_dir_all(&folder).unwrap();
    for name in AGENTS {
        let installed = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("node_modules/.bin")
            .join(name);
        if !installed.is_file() {
            crate::common::cannot_run(&format!(
                "{} is missing; run `npm ci` (.ci/run does)",
                installed.display()
            ));
            return None;
        }
        std::os::unix::fs::symlink(&installed, folder.join(name)).unwrap();
    }
    Some(folder)
}

fn path_with(folders: &[&Path]) -> String {
    let mut path: Vec<String> = folders
        .iter()
        .map(|folder| folder.display().to_string())
        .collect();
    path.push(SYSTEM_PATH.to_owned());
    path.join(":")
}

/// `gatehouse ARGUMENTS` in the sandbox with `path` as `PATH`, no stdin, and lines as wide as
/// they come (so that snapshots do not depend on how long the temporary folder's name is).
fn run(sandbox: &Sandbox, path: &str, arguments: &[&str]) -> Output {
    sandbox
        .command(arguments)
        .env("PATH", path)
        .env("COLUMNS", "400")
        .stdin(Stdio::null())
        .output()
        .expect("gatehouse runs")
}

/// `doctor`'s lines without those of agents that are not installed, with a reason or without one
/// (an agent with no probe says only "not installed"; one a line, as many as the
/// registry has agents not on `PATH`, so that adding an agent changes no snapshot); panics
/// unless there is at least one, for Copilot CLI, which no test puts on `PATH`.
fn installed_only(text: &str) -> String {
    assert!(
        text.contains("-    copilot          not installed (no `copilot` on PATH)"),
        "{text}"
    );
    text.lines()
        .filter(|line| {
            let not_installed =
                line.ends_with(" not installed") || line.contains(" not installed (");
            !(line.starts_with("-    ") && not_installed)
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// `text` with the sandbox's folder, this binary and process ids replaced by stable words.
fn redacted(sandbox: &Sandbox, text: &str) -> String {
    let own = binary().canonicalize().unwrap();
    let mut text = text
        .replace(&own.display().to_string(), "[GATEHOUSE]")
        .replace(&sandbox.folder.path().display().to_string(), "[SANDBOX]");
    while let Some(start) = text.find("(pid ").map(|at| at + "(pid ".len()) {
        let digits = text[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        if digits == 0 {
            break;
        }
        text.replace_range(start..start + digits, "[PID]");
    }
    text
}

/// Every file below `folder`, with its bytes.
fn files_below(folder: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                found.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    found.sort();
    found
}

fn settings_of(sandbox: &Sandbox) -> [PathBuf; 2] {
    [
        sandbox.home().join(".claude/settings.json"),
        sandbox.home().join(".codex/hooks.json"),
    ]
}

#[test]
fn setup_yes_installs_the_hooks_of_exactly_the_agents_on_path_and_a_second_run_changes_nothing() {
    let sandbox = Sandbox::new();
    let Some(agents) = agents_folder(&sandbox) else {
        return;
    };
    let path = path_with(&[&agents]);
    let first = run(&sandbox, &path, &["setup", "--yes"]);
    assert!(first.status.success(), "{first:?}");
    let said = stdout(&first);
    crate::common::assert_says_all(
        "setup --yes",
        &said,
        &[
            "Claude Code 2.1.332",
            "Codex 0.171.0",
            "added the PermissionRequest hook",
            "2 changes made",
            // No systemd user manager in the sandbox: how to run the gateway by hand.
            "No gateway runs, and no user service here",
            "`gatehouse serve`",
            // What each agent's probe unlocks, from the registry's flags.
            "Until `gatehouse probe claude` has checked this Claude Code, these are answered only in its terminal: always for Bash, Write, Edit, MultiEdit and plans.",
            "Until `gatehouse probe codex` has checked this Codex",
            "start `gatehouse web`",
        ],
    );
    let [claude, codex] = settings_of(&sandbox);
    let own = binary().canonicalize().unwrap().display().to_string();
    for (settings, agent) in [(&claude, "claude"), (&codex, "codex")] {
        let text = std::fs::read_to_string(settings).unwrap();
        // The hook executable beside this binary.
        assert!(text.contains(&format!("{own}-hook' {agent}")), "{text}");
    }
    // Exactly those two agents' settings: the others are not on PATH.
    let written: Vec<PathBuf> = files_below(&sandbox.home())
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| !path.to_string_lossy().contains(".gatehouse-backup"))
        .filter(|path| !path.starts_with(sandbox.home().join(".local/state")))
        .collect();
    assert_eq!(written, settings_of(&sandbox).to_vec());

    let before = files_below(sandbox.folder.path());
    let second = run(&sandbox, &path, &["setup", "--yes"]);
    assert!(second.status.success(), "{second:?}");
    let said = stdout(&second);
    crate::common::assert_says_all(
        "a second setup",
        &said,
        &[
            "hooks are in place in ~/.claude/settings.json",
            "hooks are in place in ~/.codex/hooks.json",
            "Everything is in place; setup changed nothing.",
        ],
    );
    assert!(!said.contains("added the"), "{said}");
    assert_eq!(
        files_below(sandbox.folder.path()),
        before,
        "a second setup writes nothing"
    );
}

#[test]
fn setup_without_yes_and_without_a_terminal_changes_nothing() {
    let sandbox = Sandbox::new();
    let Some(agents) = agents_folder(&sandbox) else {
        return;
    };
    let before = files_below(sandbox.folder.path());
    let output = run(&sandbox, &path_with(&[&agents]), &["setup"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    crate::common::assert_says_all(
        "setup with no terminal",
        &stdout(&output),
        &[
            // What it would do is shown ...
            "installing them changes it so (tried on a copy)",
            "added the PermissionRequest hook",
            // ... and nothing is done.
            "Nothing was changed",
            "gatehouse setup --yes",
        ],
    );
    assert_eq!(files_below(sandbox.folder.path()), before);
}

#[test]
fn setup_asks_for_each_agent_and_installs_only_those_accepted() {
    let sandbox = Sandbox::new();
    let Some(agents) = agents_folder(&sandbox) else {
        return;
    };
    let folder = sandbox.folder.path();
    let environment = [
        ("PATH", path_with(&[&agents])),
        ("HOME", sandbox.home().display().to_string()),
        (
            "XDG_CONFIG_HOME",
            folder.join("config").display().to_string(),
        ),
        ("XDG_RUNTIME_DIR", folder.join("run").display().to_string()),
        ("GATEHOUSE_SOCKET", sandbox.socket().display().to_string()),
    ];
    let environment: Vec<(&str, &str)> = environment
        .iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect();
    let own = binary().display().to_string();
    let terminal = Tmux::start(
        "setup",
        folder,
        &environment,
        &[&own, "setup", "--no-service"],
    );
    let deadline = Duration::from_secs(60);
    terminal.wait_for_text("Install gatehouse's hooks for Claude Code? [y/N]", deadline);
    terminal.send_text("y");
    terminal.send_keys(&["Enter"]);
    terminal.wait_for_text("Install gatehouse's hooks for Codex? [y/N]", deadline);
    terminal.send_keys(&["Enter"]);
    wait_for(deadline, "setup to finish", || terminal.is_dead());
    let screen = terminal.screen();
    assert!(screen.contains("1 change made, 1 declined"), "{screen}");
    let [claude, codex] = settings_of(&sandbox);
    assert!(claude.exists(), "{screen}");
    assert!(!codex.exists(), "Codex was declined: {screen}");
}

/// A `systemctl` of the test's own: it logs its arguments and keeps "enabled" in a file.
fn fake_systemctl(folder: &Path) -> (PathBuf, PathBuf) {
    let log = folder.join("systemctl.log");
    let enabled = folder.join("systemctl.enabled");
    let script = format!(
        r#"#!/bin/sh
echo "$*" >> '{log}'
case "$2" in
  is-enabled) if [ -e '{enabled}' ]; then echo enabled; else echo disabled; exit 1; fi ;;
  is-active) if [ -e '{enabled}' ]; then echo active; else echo inactive; exit 3; fi ;;
  enable) : > '{enabled}' ;;
esac
"#,
        log = log.display(),
        enabled = enabled.display()
    );
    let bin = folder.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    // A shell writes the script, so that no child forked meanwhile by another test thread
    // inherits it open for writing ("Text file busy").
    let mut writer = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(bin.join("systemctl"))
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut writer.stdin.take().unwrap(), script.as_bytes()).unwrap();
    assert!(writer.wait().unwrap().success());
    (bin, log)
}

#[test]
fn setup_installs_and_starts_the_user_service_once() {
    let sandbox = Sandbox::new();
    // A systemd user manager, as far as setup can tell: its private socket's path exists.
    let runtime = sandbox.folder.path().join("run");
    std::fs::create_dir_all(runtime.join("systemd")).unwrap();
    std::fs::write(runtime.join("systemd/private"), "").unwrap();
    let (bin, log) = fake_systemctl(sandbox.folder.path());
    let path = path_with(&[&bin]);

    let first = run(&sandbox, &path, &["setup", "--yes"]);
    assert!(first.status.success(), "{first:?}");
    crate::common::assert_says_all(
        "setup --yes",
        &stdout(&first),
        &[
            "No agent gatehouse knows is on PATH.",
            "Installing it as a user service would:",
            "gatehouse.socket is enabled and listening",
            "1 change made",
        ],
    );
    let units = sandbox.folder.path().join("config/systemd/user");
    let service = std::fs::read_to_string(units.join("gatehouse.service")).unwrap();
    assert!(service.contains("serve\n"), "{service}");
    assert!(units.join("gatehouse.socket").exists());
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        calls.contains("--user daemon-reload\n--user enable --now gatehouse.socket\n"),
        "{calls}"
    );

    let second = run(&sandbox, &path, &["setup", "--yes"]);
    assert!(second.status.success(), "{second:?}");
    let said = stdout(&second);
    assert!(
        said.contains("In place: gatehouse.socket is enabled and listening"),
        "{said}"
    );
    assert!(said.contains("Everything is in place"), "{said}");
    let again = std::fs::read_to_string(&log).unwrap();
    let new_calls = &again[calls.len()..];
    assert!(
        new_calls
            .lines()
            .all(|call| call.starts_with("--user is-enabled ")
                || call.starts_with("--user is-active ")),
        "only questions the second time: {new_calls}"
    );
}

#[test]
fn doctor_fails_the_gateway_when_it_is_down_with_the_command_that_starts_it() {
    let sandbox = Sandbox::new();
    let output = run(&sandbox, SYSTEM_PATH, &["doctor"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    insta::assert_snapshot!(installed_only(&redacted(&sandbox, &stdout(&output))), @r#"
    FAIL gateway          no gateway answers on [SANDBOX]/run/gatehouse.sock
                          fix: gatehouse serve
    -    web page         `gatehouse web` is not running
                          fix: gatehouse web
    -    paired devices   no browser is paired
    -    push test        no paired browser gets pushes ("Notify me" on the page)
    "#);
    let json = run(&sandbox, SYSTEM_PATH, &["doctor", "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["checks"][0]["check"], "gateway");
    assert_eq!(report["checks"][0]["status"], "fail");
    assert_eq!(report["checks"][0]["fix"], "gatehouse serve");
}

#[test]
fn doctor_passes_the_gateway_and_hooks_and_finds_a_hook_of_another_binary_outdated() {
    let gateway = Gateway::start();
    let Some(agents) = agents_folder(&gateway) else {
        return;
    };
    let path = path_with(&[&agents]);
    let setup = run(&gateway, &path, &["setup", "--yes", "--no-service"]);
    assert!(setup.status.success(), "{setup:?}");

    let output = run(&gateway, &path, &["doctor"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "warnings do not fail: {output:?}"
    );
    insta::assert_snapshot!(installed_only(&redacted(&gateway, &stdout(&output))), @r#"
    ok   gateway          up on [SANDBOX]/run/gatehouse.sock (pid [PID], started by gatehouse serve)
    ok   claude hooks     current in ~/.claude/settings.json
    warn claude probe     no probe has checked that this Claude Code honours gatehouse's answers
                          fix: gatehouse probe claude
    ok   codex hooks      current in ~/.codex/hooks.json
    warn codex probe      no probe has checked that this Codex honours gatehouse's answers
                          fix: gatehouse probe codex
    -    web page         `gatehouse web` is not running
                          fix: gatehouse web
    -    paired devices   no browser is paired
    -    push test        no paired browser gets pushes ("Notify me" on the page)
    "#);

    // The hooks of an older gatehouse, somewhere else.
    let [claude, _] = settings_of(&gateway);
    let own = binary().canonicalize().unwrap().display().to_string();
    let text = std::fs::read_to_string(&claude).unwrap();
    std::fs::write(&claude, text.replace(&own, "/opt/old/gatehouse")).unwrap();
    let output = run(&gateway, &path, &["doctor"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let said = redacted(&gateway, &stdout(&output));
    let line = said
        .lines()
        .skip_while(|line| !line.contains("claude hooks"))
        .take(2)
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(line, @r"
    FAIL claude hooks     outdated in ~/.claude/settings.json (an install here updated the PermissionRequest hook, updated the PostToolUse hook, updated the Stop hook, updated the SessionEnd hook)
                          fix: gatehouse install claude
    ");

    // The one command it names fixes it.
    let fixed = run(&gateway, &path, &["install", "claude"]);
    assert!(fixed.status.success(), "{fixed:?}");
    let output = run(&gateway, &path, &["doctor"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(stdout(&output).contains("ok   claude hooks     current"));
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line_s_definitions() {
    let sandbox = Sandbox::new();
    let bash = sandbox.run_successfully(&["completions", "bash"]);
    let script = stdout(&bash);
    for word in [
        "setup",
        "doctor",
        "serve",
        "status",
        "list",
        "show",
        "watch",
        "answer",
        "release",
        "install",
        "hook",
        "probe",
        "remote",
        "web",
        "completions",
        "man",
    ] {
        assert!(
            script.contains(&format!(" {word} ")) || script.contains(&format!(" {word}\"")),
            "bash completes {word}"
        );
    }
    assert!(script.contains("complete -F"), "a bash completion script");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let output = sandbox.run_successfully(&["completions", shell]);
        assert!(stdout(&output).contains("doctor"), "{shell}");
    }
    let refused = sandbox.run(&["completions", "tcsh"]);
    assert!(!refused.status.success());
    let man = stdout(&sandbox.run_successfully(&["man"]));
    assert!(
        man.starts_with(".ie"),
        "roff: {}",
        &man[..man.len().min(80)]
    );
    crate::common::assert_says_all(
        "the man page",
        &man,
        &[".TH gatehouse 1", "setup", "doctor"],
    );
}

/// A stopped gateway accepts the connection (the kernel does) and never answers: doctor says so
/// within its deadline instead of waiting for ever.
#[test]
fn doctor_fails_a_stopped_gateway_within_its_deadline() {
    let gateway = Gateway::start();
    let pid = gateway.pid() as libc::pid_t;
    // SAFETY: kill only sends a signal, to the gateway this test started and still owns.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let started = std::time::Instant::now();
    let output = run(&gateway, SYSTEM_PATH, &["doctor", "--json"]);
    let took = started.elapsed();
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let gateway_check = &report["checks"][0];
    assert_eq!(gateway_check["status"], "fail");
    let message = gateway_check["message"].as_str().unwrap();
    assert!(message.contains("did not answer within 5 s"), "{message}");
    assert!(took < Duration::from_secs(60), "doctor took {took:?}");
}
