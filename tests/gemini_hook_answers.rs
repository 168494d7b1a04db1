//! The answerable Gemini hook (`gatehouse hook gemini BeforeTool`) never prints nothing: with
//! gatehouse's allow policy, Gemini CLI runs a shell command unasked when its BeforeTool hook
//! prints nothing, fails or times out. So on every path without a verdict it prints
//! `{"decision":"ask"}` (Gemini's own dialog) and exits 0: no gateway, a killed gateway, a
//! wedged one (SIGSTOP, before and during the hold), input that is not an event, too large or
//! too deep, no HOME, a panic, a release, a withdrawal, its own deadline (stdin that never
//! ends). A verdict is printed alone: `{}` for once, a deny with its reason. The watching hooks
//! (`gatehouse hook gemini`, no event word) still print nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{finish, spawn_fed, wait_for, Gateway, Reaped, Sandbox};

const ASK: &str = "{\"decision\":\"ask\"}\n";

/// Generous, for a busy machine; the hook's own budgets are 2 s per call.
const DEADLINE: Duration = Duration::from_secs(30);

pub(crate) fn before_tool() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "crates/adapter-gemini/tests/data/gemini-cli-0.61.0/BeforeTool.shell-policy-allow.json",
    );
    std::fs::read(path).expect("the captured BeforeTool event")
}

/// A sandbox where Gemini is answerable: `install gemini --answerable --yes` (the policy in its
/// HOME), a passing probe record for 0.61.0, and a `gemini` on the hook's PATH that says 0.61.0.
pub(crate) struct Answerable {
    bin: PathBuf,
}

impl Answerable {
    pub(crate) fn prepare(sandbox: &Sandbox) -> Answerable {
        let output = sandbox.run(&["install", "gemini", "--answerable", "--yes"]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let bin = sandbox.folder.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let gemini = bin.join("gemini");
        std::fs::write(&gemini, "#!/bin/sh\necho 0.61.0\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&gemini, std::fs::Permissions::from_mode(0o755)).unwrap();
        let record = serde_json::json!({
            "gemini_version": "0.61.0",
            "gemini_executable": gemini,
            "probed_at": "2026-12-01T03:00:00Z",
            "passed": true,
            "cases": [],
            "gatehouse_version": "0.1.0",
        });
        let state = sandbox.home().join(".local/state/gatehouse");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("gemini-probe.json"), record.to_string()).unwrap();
        Answerable { bin }
    }

    pub(crate) fn path(&self) -> String {
        format!("{}:/usr/bin:/bin", self.bin.display())
    }
}

/// Starts the answerable hook with `stdin` (closed after it is written).
fn spawn(sandbox: &Sandbox, path: &str, stdin: &[u8], env: &[(&str, &str)]) -> Reaped {
    let env: Vec<(&str, &str)> = std::iter::once(("PATH", path))
        .chain(env.iter().copied())
        .collect();
    sandbox.spawn_fed(&["hook", "gemini", "BeforeTool"], &env, stdin)
}

/// Extra variables for one hook run.
type Environment = Vec<(&'static str, &'static str)>;

fn assert_asks(output: &Output, case: &str) {
    assert_eq!(output.status.code(), Some(0), "{case}: {output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        ASK,
        "{case}: stderr {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn signal(gateway: &Gateway, signal: libc::c_int) {
    // SAFETY: kill only sends a signal, to the gateway this test started and still owns.
    unsafe { libc::kill(gateway.pid() as libc::pid_t, signal) };
}

/// The one pending prompt, once listed.
fn the_prompt(gateway: &Gateway) -> Value {
    gateway.wait_for_pending_within(1, DEADLINE).remove(0)
}

#[test]
fn without_any_gateway_bad_input_or_home_the_hook_asks() {
    let sandbox = Sandbox::new();
    let answerable = Answerable::prepare(&sandbox);
    let path = answerable.path();
    let event = before_tool();
    let mut too_deep = "[".repeat(200_000);
    too_deep.push_str(&"]".repeat(200_000));
    let notification = br#"{"hook_event_name":"Notification","session_id":"s","notification_type":"ToolPermission","details":{"type":"exec","command":"ls"}}"#;
    let cases: Vec<(&str, Vec<u8>, Environment)> = vec![
        ("no gateway", event.clone(), vec![]),
        ("not JSON", b"garbage\x00\xff".to_vec(), vec![]),
        ("empty", Vec::new(), vec![]),
        ("JSON but no event", b"{}".to_vec(), vec![]),
        ("another event", notification.to_vec(), vec![]),
        ("huge", vec![b' '; 3 * 1024 * 1024], vec![]),
        ("too deep", too_deep.into_bytes(), vec![]),
        (
            "a panic",
            event.clone(),
            vec![("GATEHOUSE_TEST_PANIC_IN_HOOK", "1")],
        ),
        (
            "a config that does not parse",
            event.clone(),
            vec![("GATEHOUSE_HOOK__WAIT_SECONDS", "soon")],
        ),
    ];
    for (case, stdin, env) in cases {
        assert_asks(
            &finish(spawn(&sandbox, &path, &stdin, &env), DEADLINE),
            case,
        );
    }
    // No HOME, no XDG folders at all.
    let mut command = sandbox.command(&["hook", "gemini", "BeforeTool"]);
    command
        .env_remove("HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_RUNTIME_DIR")
        .env("PATH", &path);
    assert_asks(&finish(spawn_fed(command, &event), DEADLINE), "no HOME");

    // The watching hooks still print nothing: Gemini reads their silence as no opinion.
    let watching = sandbox.spawn_fed(&["hook", "gemini"], &[("PATH", &path)], &event);
    let output = finish(watching, DEADLINE);
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty(), "{output:?}");
}

#[test]
fn the_hook_answers_at_its_own_deadline_whatever_it_waits_for() {
    let sandbox = Sandbox::new();
    let answerable = Answerable::prepare(&sandbox);
    // Stdin that never ends: the hook is stuck reading, and its watchdog answers.
    let mut command = sandbox.command(&["hook", "gemini", "BeforeTool"]);
    command
        .env("PATH", answerable.path())
        .env("GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS", "1500")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let output = finish(child, DEADLINE);
    drop(stdin);
    assert_asks(&output, "stdin that never ends");
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_killed_or_wedged_gateway_gets_geminis_dialog() {
    let mut gateway = Gateway::start();
    let answerable = Answerable::prepare(&gateway.sandbox);
    let path = answerable.path();
    let event = before_tool();

    // Wedged before the hook comes: it accepts the connection and never says hello.
    signal(&gateway, libc::SIGSTOP);
    let started = Instant::now();
    let output = finish(spawn(&gateway.sandbox, &path, &event, &[]), DEADLINE);
    signal(&gateway, libc::SIGCONT);
    assert_asks(&output, "gateway stopped before the hook");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );

    // Wedged while it holds the prompt: the hook's hold ends at its wait, and it asks.
    let hook = spawn(
        &gateway.sandbox,
        &path,
        &event,
        &[("GATEHOUSE_HOOK__WAIT_SECONDS", "3")],
    );
    let prompt = the_prompt(&gateway);
    assert_eq!(
        prompt["actions"],
        serde_json::json!(["once", "deny"]),
        "{prompt}"
    );
    signal(&gateway, libc::SIGSTOP);
    let output = finish(hook, DEADLINE);
    signal(&gateway, libc::SIGCONT);
    assert_asks(&output, "gateway stopped during the hold");
    wait_for(DEADLINE, "the expired prompt to leave the list", || {
        gateway.list().is_empty()
    });

    // Killed while it holds the prompt: the hook waits for a gateway until its wait ends, then
    // asks.
    let hook = spawn(
        &gateway.sandbox,
        &path,
        &event,
        &[("GATEHOUSE_HOOK__WAIT_SECONDS", "4")],
    );
    the_prompt(&gateway);
    gateway.kill();
    assert_asks(&finish(hook, DEADLINE), "gateway killed during the hold");

    // Killed before: no socket to reach.
    assert_asks(
        &finish(spawn(&gateway.sandbox, &path, &event, &[]), DEADLINE),
        "gateway killed",
    );
}

/// A gateway that says hello back and then never says it registered the hold: the answerable
/// hook asks after one call budget (2 s), not at the end of its 170 s hold.
#[test]
fn a_gateway_that_says_hello_but_never_takes_the_hold_gets_geminis_dialog_at_once() {
    use std::io::{BufRead, BufReader};
    let sandbox = Sandbox::new();
    let answerable = Answerable::prepare(&sandbox);
    std::fs::create_dir_all(sandbox.socket().parent().unwrap()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(sandbox.socket()).unwrap();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut lines = BufReader::new(stream.try_clone().unwrap());
        let mut hello = String::new();
        lines.read_line(&mut hello).unwrap();
        let hello: Value = serde_json::from_str(&hello).unwrap();
        let reply = serde_json::json!({
            "jsonrpc": "2.0", "id": hello["id"],
            "result": {"protocol": gatehouse_host_ipc::PROTOCOL_VERSION, "server": "takes no holds", "adapters": []},
        });
        (&stream)
            .write_all(format!("{reply}\n").as_bytes())
            .unwrap();
        // Reads the hold, and every later byte, until the hook leaves; answers nothing.
        let mut ignored = String::new();
        while lines.read_line(&mut ignored).is_ok_and(|read| read > 0) {
            ignored.clear();
        }
    });
    let started = Instant::now();
    let output = finish(
        spawn(&sandbox, &answerable.path(), &before_tool(), &[]),
        DEADLINE,
    );
    assert_asks(&output, "a gateway that takes no holds");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("did not"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    server.join().unwrap();
}

#[test]
fn a_verdict_is_printed_alone_and_a_release_or_withdrawal_asks() {
    let gateway = Gateway::start();
    let answerable = Answerable::prepare(&gateway.sandbox);
    let path = answerable.path();
    let event = before_tool();
    let answer = |id: &Value, words: &[&str]| {
        let id = id.as_str().unwrap();
        let mut arguments = vec!["answer", id];
        arguments.extend_from_slice(words);
        let output = gateway.run(&arguments);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };

    let hook = spawn(&gateway.sandbox, &path, &event, &[]);
    let prompt = the_prompt(&gateway);
    assert_eq!(prompt["tool"], "run_shell_command");
    assert_eq!(prompt["summary"], "printf gemini > gemini-proof.txt");
    assert_eq!(
        prompt["input"]["command"],
        "printf gemini > gemini-proof.txt"
    );
    answer(&prompt["id"], &["once"]);
    let output = finish(hook, DEADLINE);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "{}\n");

    let hook = spawn(&gateway.sandbox, &path, &event, &[]);
    let prompt = the_prompt(&gateway);
    answer(&prompt["id"], &["deny", "--message", "use make clean"]);
    let output = finish(hook, DEADLINE);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "{\"decision\":\"deny\",\"reason\":\"use make clean\"}\n"
    );

    let hook = spawn(&gateway.sandbox, &path, &event, &[]);
    let prompt = the_prompt(&gateway);
    let released = gateway.run(&["release", prompt["id"].as_str().unwrap()]);
    assert!(released.status.success());
    assert_asks(&finish(hook, DEADLINE), "released");

    // Withdrawn: the person's next message (BeforeAgent) ends the turn whose prompt was held.
    let hook = spawn(&gateway.sandbox, &path, &event, &[]);
    let prompt = the_prompt(&gateway);
    let session = prompt["session"].as_str().unwrap().to_owned();
    let before_agent = serde_json::json!({
        "session_id": session, "cwd": "/home/dev/project", "hook_event_name": "BeforeAgent",
        "prompt": "next",
    });
    let observer = gateway
        .sandbox
        .spawn_hook("gemini", before_agent.to_string().as_bytes(), &[]);
    let observed = finish(observer, DEADLINE);
    assert!(observed.stdout.is_empty(), "a watching hook prints nothing");
    assert_asks(&finish(hook, DEADLINE), "withdrawn");
}

#[test]
fn without_the_policy_or_a_probe_the_hook_asks_at_once_and_lists_nothing() {
    let gateway = Gateway::start();
    let answerable = Answerable::prepare(&gateway.sandbox);
    let event = before_tool();
    let policy = gateway.home().join(".gemini/policies/gatehouse.toml");
    std::fs::remove_file(&policy).unwrap();
    assert_asks(
        &finish(
            spawn(&gateway.sandbox, &answerable.path(), &event, &[]),
            DEADLINE,
        ),
        "no policy",
    );
    // A record for another version: read-only, so the dialog decides.
    let output = gateway.run(&["install", "gemini", "--answerable", "--yes"]);
    assert!(output.status.success());
    let gemini = answerable.bin.join("gemini");
    std::fs::write(&gemini, "#!/bin/sh\necho 0.62.0\n").unwrap();
    assert_asks(
        &finish(
            spawn(&gateway.sandbox, &answerable.path(), &event, &[]),
            DEADLINE,
        ),
        "another version",
    );
    assert!(gateway.list().is_empty());
}

#[test]
fn esc_in_gemini_while_the_hook_holds_withdraws_the_prompt() {
    let gateway = Gateway::start();
    let answerable = Answerable::prepare(&gateway.sandbox);
    // Gemini appends this line to the session's transcript the moment Esc is pressed (0.61.0).
    let transcript = gateway.sandbox.folder.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"content\":[{\"text\":\"go\"}]}\n",
    )
    .unwrap();
    let mut event: Value = serde_json::from_slice(&before_tool()).unwrap();
    event["transcript_path"] = transcript.display().to_string().into();
    let hook = spawn(
        &gateway.sandbox,
        &answerable.path(),
        event.to_string().as_bytes(),
        &[],
    );
    let prompt = the_prompt(&gateway);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    file.write_all(b"{\"id\":\"f5\",\"timestamp\":\"2026-12-01T17:42:08.716Z\",\"type\":\"info\",\"content\":\"Request cancelled.\"}\n")
        .unwrap();
    assert_asks(&finish(hook, DEADLINE), "cancelled in Gemini");
    wait_for(DEADLINE, "the cancelled prompt to leave the list", || {
        gateway.list().is_empty()
    });
    let late = gateway.answer(&prompt, &["once"]);
    assert!(!late.status.success(), "a late answer is refused");
}

#[test]
fn a_hook_terminated_while_it_holds_still_asks() {
    signalled_while_holding_asks(&[
        ("SIGTERM", libc::SIGTERM),
        ("SIGHUP", libc::SIGHUP),
        ("SIGINT", libc::SIGINT),
    ]);
}

/// For each of `signals`: a hook that holds a prompt is sent it, prints `ask` and its prompt
/// is withdrawn.
fn signalled_while_holding_asks(signals: &[(&str, libc::c_int)]) {
    let gateway = Gateway::start();
    let answerable = Answerable::prepare(&gateway.sandbox);
    for &(name, signal) in signals {
        let hook = spawn(&gateway.sandbox, &answerable.path(), &before_tool(), &[]);
        the_prompt(&gateway);
        // SAFETY: kill only sends a signal, to the hook this test started and still owns.
        unsafe { libc::kill(hook.id() as libc::pid_t, signal) };
        assert_asks(&finish(hook, DEADLINE), name);
        wait_for(
            DEADLINE,
            "the prompt of the hook that left to be withdrawn",
            || gateway.list().is_empty(),
        );
    }
}

/// Every signal whose default action ends the hook silently and that can be sent to it, beyond
/// SIGTERM, SIGHUP and SIGINT: each still gets `ask` (no output would run the command unasked).
#[test]
fn a_hook_sent_any_catchable_terminating_signal_while_it_holds_still_asks() {
    signalled_while_holding_asks(&[
        ("SIGQUIT", libc::SIGQUIT),
        ("SIGUSR1", libc::SIGUSR1),
        ("SIGUSR2", libc::SIGUSR2),
        ("SIGALRM", libc::SIGALRM),
        ("SIGTRAP", libc::SIGTRAP),
        ("SIGABRT", libc::SIGABRT),
        ("SIGXCPU", libc::SIGXCPU),
        ("SIGXFSZ", libc::SIGXFSZ),
        ("SIGVTALRM", libc::SIGVTALRM),
        ("SIGPROF", libc::SIGPROF),
        ("SIGSYS", libc::SIGSYS),
        ("SIGIO", libc::SIGIO),
        ("SIGSTKFLT", libc::SIGSTKFLT),
        ("SIGPWR", libc::SIGPWR),
        ("SIGRTMIN", libc::SIGRTMIN()),
        ("SIGRTMAX", libc::SIGRTMAX()),
    ]);
}

/// A Gemini policy whose hook Gemini would not run is a danger: a hook disabled by name
/// (`hooksConfig.disabled`, as `/hooks disable gatehouse-answer` writes it) refuses the
/// answerable install with nothing written, and after it makes `status` say DANGER; a project
/// that disables it is named when `status` runs there; a `gatehouse.toml` edited by hand keeps
/// the hook on uninstall, and without the hook is a DANGER whatever its text.
#[test]
fn a_policy_whose_hook_gemini_would_not_run_is_a_danger_in_status() {
    let gateway = Gateway::start();
    let home = gateway.home();
    let settings = home.join(".gemini/settings.json");
    let policy = home.join(".gemini/policies/gatehouse.toml");
    let no_system = gateway
        .sandbox
        .folder
        .path()
        .join("no-system-settings.json");
    let run_in = |folder: &Path, arguments: &[&str]| {
        gateway
            .sandbox
            .command(arguments)
            .env("GEMINI_CLI_SYSTEM_SETTINGS_PATH", &no_system)
            .current_dir(folder)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let both = |output: &Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let folder = gateway.sandbox.folder.path().to_path_buf();
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let disabled = r#"{"hooksConfig": {"disabled": ["gatehouse-answer"]}}"#;
    std::fs::write(&settings, disabled).unwrap();
    let refused = run_in(&folder, &["install", "gemini", "--answerable", "--yes"]);
    assert!(!refused.status.success(), "{}", both(&refused));
    assert!(
        both(&refused).contains("hooksConfig.disabled"),
        "{}",
        both(&refused)
    );
    assert!(!policy.exists());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), disabled);

    // Installed, then disabled by name: status says DANGER.
    std::fs::write(&settings, "{}").unwrap();
    let answerable = Answerable::prepare(&gateway.sandbox);
    let mut written: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    written["hooksConfig"]["disabled"] = serde_json::json!(["gatehouse-answer"]);
    std::fs::write(&settings, written.to_string()).unwrap();
    let status = both(&run_in(&folder, &["status"]));
    assert!(
        status.contains("DANGER") && status.contains("hooksConfig.disabled"),
        "{status}"
    );
    written["hooksConfig"]
        .as_object_mut()
        .unwrap()
        .remove("disabled");
    std::fs::write(&settings, written.to_string()).unwrap();

    // A project that disables it: named when status runs there.
    let project = folder.join("project");
    std::fs::create_dir_all(project.join(".gemini")).unwrap();
    std::fs::write(project.join(".gemini/settings.json"), disabled).unwrap();
    let status = both(&run_in(&project, &["status"]));
    assert!(
        status.contains("DANGER") && status.contains("project"),
        "{status}"
    );

    // An edited policy: uninstall keeps the hook and says what to remove.
    let edited = format!("# my note\n{}", std::fs::read_to_string(&policy).unwrap());
    std::fs::write(&policy, &edited).unwrap();
    let removed = run_in(&folder, &["uninstall", "gemini"]);
    assert!(removed.status.success(), "{}", both(&removed));
    assert!(both(&removed).contains("by hand"), "{}", both(&removed));
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), edited);
    assert!(std::fs::read_to_string(&settings)
        .unwrap()
        .contains("gatehouse-hook' gemini BeforeTool"));
    // The hook gone by hand: DANGER, whatever the policy's text.
    std::fs::write(&settings, "{}").unwrap();
    let status = both(&run_in(&folder, &["status"]));
    assert!(
        status.contains("DANGER") && status.contains("gatehouse.toml"),
        "{status}"
    );
    drop(answerable);
}

/// A long, multi-line shell command, as a model may ask Gemini to run it.
const LONG_COMMAND: &str = "for f in *.log; do\n  gzip \"$f\" && echo \"done $f\"\ndone; rm -rf /tmp/build-cache-with-a-long-name-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-and-its-tail";

/// A held BeforeTool prompt of [`LONG_COMMAND`].
fn hold_long_command(gateway: &Gateway, answerable: &Answerable) -> (Reaped, Value) {
    let mut event: Value = serde_json::from_slice(&before_tool()).unwrap();
    event["tool_input"]["command"] = LONG_COMMAND.into();
    event["tool_input"]["description"] = "compress the logs and clean up".into();
    let hook = spawn(
        &gateway.sandbox,
        &answerable.path(),
        event.to_string().as_bytes(),
        &[],
    );
    (hook, the_prompt(gateway))
}

#[test]
fn list_and_show_print_a_gemini_command_whole() {
    let gateway = Gateway::start();
    let answerable = Answerable::prepare(&gateway.sandbox);
    let (_hook, prompt) = hold_long_command(&gateway, &answerable);
    let listed = gateway.run(&["list"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("run_shell_command") && listed.contains("once,deny"),
        "{listed}"
    );
    for line in LONG_COMMAND.lines() {
        assert!(listed.contains(line.trim()), "{line:?} in:\n{listed}");
    }
    assert!(
        listed.contains("description: compress the logs and clean up"),
        "{listed}"
    );
    let shown = gateway.run(&["show", prompt["id"].as_str().unwrap()]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("-and-its-tail"), "{shown}");
}

#[test]
fn the_web_page_shows_a_gemini_command_whole_and_answers_it() {
    use crate::common::web_front::{card, Front, Paired};
    use crate::support::browser::{Browser, Theme};
    let Some(front) = Front::start() else {
        return;
    };
    let answerable = Answerable::prepare(&front.sandbox);
    let (hook, prompt) = hold_long_command(&front, &answerable);
    let id = crate::common::id_of(&prompt);
    front.with_paired(
        Browser::phone(Theme::Light),
        "gemini phone",
        async |phone| {
            let card = card(&id);
            phone.wait_for(&format!("{card} [data-input]")).await;
            let expand = format!("{card} [data-expand]");
            if phone.count(&expand).await > 0 {
                phone.click(&expand).await;
            }
            let command = phone.text(&format!("{card} [data-input]")).await;
            assert!(
                command.contains("gzip") && command.contains("-and-its-tail"),
                "{command}"
            );
            assert!(phone
                .text(&format!("{card} [data-field='description']"))
                .await
                .contains("compress the logs"));
            assert_eq!(
                phone.count(&format!("{card} [data-action='once']")).await,
                1
            );
            assert_eq!(
                phone.count(&format!("{card} [data-action='deny']")).await,
                1
            );
            phone.click(&format!("{card} [data-action='once']")).await;
        },
    );
    let output = finish(hook, DEADLINE);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "{}\n");
}

#[test]
fn a_held_prompt_is_held_less_than_the_hooks_deadline_whatever_the_configured_wait() {
    let gateway = Gateway::start();
    let answerable = Answerable::prepare(&gateway.sandbox);
    // The configured wait is 10 minutes; the deadline (shortened here to 13 s) keeps 10 s spare,
    // so the hold ends after about 3 s, with `ask`, long before the watchdog would answer.
    let started = Instant::now();
    let hook = spawn(
        &gateway.sandbox,
        &answerable.path(),
        &before_tool(),
        &[
            ("GATEHOUSE_HOOK__WAIT_SECONDS", "600"),
            ("GATEHOUSE_TEST_HOOK_ANSWER_WITHIN_MS", "13000"),
        ],
    );
    the_prompt(&gateway);
    assert_asks(&finish(hook, DEADLINE), "the hold's end");
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
    wait_for(DEADLINE, "the expired prompt to leave the list", || {
        gateway.list().is_empty()
    });
}

#[test]
fn answerable_is_installed_only_after_the_price_is_said_and_accepted() {
    let sandbox = Sandbox::new();
    let policy = sandbox.home().join(".gemini/policies/gatehouse.toml");
    let settings = sandbox.home().join(".gemini/settings.json");
    // No terminal to confirm on and no --yes: the price is printed, and nothing is written.
    let refused = sandbox.run(&["install", "gemini", "--answerable"]);
    assert_eq!(refused.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&refused.stdout);
    assert!(
        stdout.contains("UNASKED") && stdout.contains("SIGKILL"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--yes"));
    assert!(!policy.exists() && !settings.exists());
    // --yes needs --answerable; the plain install is as before.
    assert!(!sandbox
        .run(&["install", "gemini", "--yes"])
        .status
        .success());
    let plain = sandbox.run(&["install", "gemini"]);
    assert!(plain.status.success());
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("UNASKED"));
    assert!(!policy.exists());
    // Accepted: the hook, then the policy; uninstall removes the policy first.
    let accepted = sandbox.run(&["install", "gemini", "--answerable", "--yes"]);
    assert!(accepted.status.success());
    assert!(policy.exists());
    let removed = sandbox.run(&["uninstall", "gemini"]);
    let stdout = String::from_utf8_lossy(&removed.stdout);
    let policy_line = stdout.find("removed gatehouse's policy").unwrap();
    let hook_line = stdout.find("removed the BeforeTool hook").unwrap();
    assert!(policy_line < hook_line, "{stdout}");
    assert!(!policy.exists());
    // Another agent has no answerable install.
    let other = sandbox.run(&["install", "codex", "--answerable", "--yes"]);
    assert!(!other.status.success());
    assert!(String::from_utf8_lossy(&other.stderr).contains("no answerable install"));
}
