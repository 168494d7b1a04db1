//! The hook never blocks the agent: whatever it is given (arguments that do not parse, an empty
//! or unusable socket path, settings that do not parse, a panic), it exits 0, prints nothing on
//! stdout, and says what went wrong in one line on stderr. Claude Code reads exit 2 as "block".
//! Each holds for both commands that run the hook, `gatehouse hook` and `gatehouse-hook`.

use std::process::Output;

use crate::common::{claude_bash, claude_fixture, HookProgram, Sandbox};

/// `program` with `arguments` (as `gatehouse` takes them, see [`HookProgram::words`]).
fn run_hook(
    sandbox: &Sandbox,
    program: HookProgram,
    arguments: &[&str],
    env: &[(&str, &str)],
    stdin: &[u8],
) -> Output {
    sandbox
        .spawn_hook_program(program, arguments, env, stdin)
        .wait_with_output()
        .expect("the hook's output")
}

/// `gatehouse hook claude` (or `gatehouse-hook claude`) with Claude Code's captured Bash
/// prompt, under `env`.
fn run_claude_hook(sandbox: &Sandbox, program: HookProgram, env: &[(&str, &str)]) -> Output {
    run_hook(
        sandbox,
        program,
        &["hook", "claude"],
        env,
        &permission_request(),
    )
}

/// Exit 0, nothing on stdout, one line on stderr that contains `expected`.
fn assert_left_to_the_agent(output: &Output, expected: &str, case: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{case}: exit 0, got {:?}; stderr: {stderr}",
        output.status
    );
    assert!(
        output.stdout.is_empty(),
        "{case}: nothing on stdout, got {:?}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(
        stderr.lines().count(),
        1,
        "{case}: one line on stderr, got {stderr:?}"
    );
    assert!(
        stderr.contains(expected),
        "{case}: stderr should mention {expected:?}: {stderr}"
    );
}

fn permission_request() -> Vec<u8> {
    claude_fixture("PermissionRequest-Bash")
        .to_string()
        .into_bytes()
}

#[test]
fn an_empty_socket_variable_means_the_default_socket() {
    let sandbox = Sandbox::new();
    for program in HookProgram::BOTH {
        let output = run_claude_hook(&sandbox, program, &[("GATEHOUSE_SOCKET", "")]);
        assert_left_to_the_agent(
            &output,
            "no gateway",
            &format!("{program}: GATEHOUSE_SOCKET="),
        );
    }
    let status = sandbox
        .command(&["status"])
        .env("GATEHOUSE_SOCKET", "")
        .output()
        .unwrap();
    assert_eq!(
        status.status.code(),
        Some(1),
        "other commands take it as unset too"
    );
    assert!(String::from_utf8_lossy(&status.stderr).contains("gatehouse serve"));
}

#[test]
fn arguments_that_do_not_parse_leave_the_agent_alone() {
    let sandbox = Sandbox::new();
    let cases: [&[&str]; 8] = [
        &["hook", "claude", "--bogus"],
        &["hook", "--bogus", "claude"],
        &["--bogus", "hook", "claude"],
        &["hook"],
        &["hook", "claude", "extra"],
        &["--socket", "/tmp/x.sock", "hook", "claude", "--wait", "5"],
        // `gatehouse --socket $S hook claude` with S unset: --socket swallows `hook`.
        &["--socket", "hook", "claude"],
        &["--", "hook", "claude"],
    ];
    for program in HookProgram::BOTH {
        for arguments in cases {
            let arguments = program.words(arguments);
            let output = run_hook(&sandbox, program, &arguments, &[], &permission_request());
            assert_left_to_the_agent(
                &output,
                "leaving this to the agent",
                &format!("{program} {}", arguments.join(" ")),
            );
        }
    }
}

#[test]
fn settings_that_do_not_parse_leave_the_agent_alone() {
    let sandbox = Sandbox::new();
    let config = sandbox.folder.path().join("config/gatehouse/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "socket = [unclosed\n[hook\nwait_seconds = 'soon'\n",
    )
    .unwrap();
    for program in HookProgram::BOTH {
        let output = run_claude_hook(&sandbox, program, &[]);
        assert_left_to_the_agent(
            &output,
            "config.toml",
            &format!("{program}: a config file that does not parse"),
        );
    }
    std::fs::remove_file(&config).unwrap();
    for program in HookProgram::BOTH {
        let output = run_claude_hook(
            &sandbox,
            program,
            &[("GATEHOUSE_HOOK__WAIT_SECONDS", "soon")],
        );
        assert_left_to_the_agent(
            &output,
            "leaving this to the agent",
            &format!("{program}: a wait that is not a number"),
        );
    }
}

#[test]
fn an_unusable_socket_path_leaves_the_agent_alone() {
    let sandbox = Sandbox::new();
    let regular_file = sandbox.folder.path().join("not-a-socket");
    std::fs::write(&regular_file, "notes").unwrap();
    let too_long = format!("/tmp/{}/gatehouse.sock", "x".repeat(200));
    let folder = sandbox.folder.path().to_str().unwrap().to_owned();
    for socket in [
        regular_file.to_str().unwrap(),
        too_long.as_str(),
        folder.as_str(),
        "relative/gatehouse.sock",
        " ",
    ] {
        for program in HookProgram::BOTH {
            let output = run_claude_hook(&sandbox, program, &[("GATEHOUSE_SOCKET", socket)]);
            assert_left_to_the_agent(
                &output,
                "leaving this to the agent",
                &format!("{program}: socket {socket:?}"),
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&regular_file).unwrap(), "notes");
}

#[test]
fn a_panic_leaves_the_agent_alone() {
    let sandbox = Sandbox::new();
    for program in HookProgram::BOTH {
        let output = run_claude_hook(&sandbox, program, &[("GATEHOUSE_TEST_PANIC_IN_HOOK", "1")]);
        assert_left_to_the_agent(&output, "internal error", &format!("{program}: a panic"));
    }
}

#[test]
fn help_for_the_hook_goes_to_stderr() {
    let sandbox = Sandbox::new();
    for program in HookProgram::BOTH {
        let output = run_hook(&sandbox, program, &["hook", "--help"], &[], b"");
        assert_eq!(output.status.code(), Some(0), "{program}");
        assert!(output.stdout.is_empty(), "{program}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("Usage"),
            "{program}"
        );
    }
}

#[test]
fn a_large_event_is_held_or_let_go_at_once_never_retried() {
    use std::time::{Duration, Instant};

    let gateway = crate::common::Gateway::start();
    // A 9 MiB command: the hold message carries it once, so it fits in a frame and is held.
    let event = claude_bash(&"x".repeat(9 * 1024 * 1024)).to_string();
    for program in HookProgram::BOTH {
        let hook = gateway.spawn_hook_program(program, &["hook", "claude"], &[], event.as_bytes());
        let prompt = gateway
            .wait_for_pending_within(1, Duration::from_secs(30))
            .remove(0);
        let answered = gateway.run(&["answer", prompt["short_id"].as_str().unwrap(), "deny"]);
        assert!(
            answered.status.success(),
            "{program}: {}",
            String::from_utf8_lossy(&answered.stderr)
        );
        let output = crate::common::finish(hook, Duration::from_secs(30));
        assert_eq!(crate::common::claude_behavior(&output), "deny", "{program}");
        crate::common::wait_for(
            Duration::from_secs(30),
            "the prompt to be delivered",
            || gateway.list().is_empty(),
        );
    }

    // Larger than the hook reads, or larger than a frame once encoded again (each `1e5` is
    // written back as `100000.0`): let go at once, with nothing printed. The second holds
    // millions of values, so the hook lets it go before it parses it (tests/hook_work_bounds.rs);
    // the client's own refusal of a frame too large stays behind that.
    let too_large = {
        let event = claude_bash(&"x".repeat(13 * 1024 * 1024));
        event.to_string().into_bytes()
    };
    let grows_when_encoded = {
        let numbers = vec!["1e5"; 2_500_000].join(",");
        let event = claude_fixture("PermissionRequest-Bash").to_string();
        event
            .replacen(
                "\"tool_input\":{",
                &format!("\"tool_input\":{{\"numbers\":[{numbers}],"),
                1,
            )
            .into_bytes()
    };
    for (case, stdin, expected) in [
        ("too large", too_large, "larger than"),
        ("grows when encoded", grows_when_encoded, "JSON values"),
    ] {
        for program in HookProgram::BOTH {
            // With a wait of 120 s, a hook that retried would run until its deadline; one that
            // gives up at once ends well before (the margin is for a debug build reading 13 MiB).
            let started = Instant::now();
            let output = run_hook(
                &gateway,
                program,
                &["hook", "claude"],
                &[("GATEHOUSE_HOOK__WAIT_SECONDS", "120")],
                &stdin,
            );
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{program}: {case}: let go at once, not retried until the deadline"
            );
            assert_left_to_the_agent(&output, expected, &format!("{program}: {case}"));
        }
    }
    assert!(gateway.list().is_empty(), "nothing is left held");
}
