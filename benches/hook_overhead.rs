//! Benchmark: what a hook costs per tool call, against a C floor, and how long the command line
//! takes.
//!
//! Run with `cargo bench --bench hook_overhead` (docs/PERFORMANCE.md has results). It starts a
//! release `gatehouse serve` on the default socket of a temporary `XDG_RUNTIME_DIR`, installs
//! the hooks with `gatehouse install` into temporary settings files, and runs the commands it
//! wrote as an agent runs them: through `sh -c`, with an agent's environment (a `HOME`, a
//! `PATH`, an `XDG_RUNTIME_DIR`, no `GATEHOUSE_SOCKET`), the event on stdin. Interleaved in one
//! run, so the machine's noise falls on all alike, it measures spawn to exit of:
//! - the hook `gatehouse install` writes (`gatehouse-hook`), the one it wrote before the hook
//!   had an executable of its own (`gatehouse hook`, which it still writes when `gatehouse` was
//!   copied alone), and `benches/c_hook.c` (compiled with `cc -O2`), the cheapest hook that does
//!   the same work;
//! - for a Claude Code `PostToolUse` event (observed), a Codex `PermissionRequest` (a held
//!   prompt: registered, and answered `watched` at once, since nothing is offered for Codex
//!   before a probe), each with the gateway up, and the observation with the gateway down
//!   (spooled);
//! - each of those also without the shell (the command's words run directly): the hook alone;
//! - `benches/python_hook.py`, also with `python3 -S`; `gatehouse status` and `gatehouse list`.
//!
//! Goals (issue 27): each hook's median at most 1.2 times the C floor's, its p99 at most 1.5
//! times, as the agent runs it. `GATEHOUSE_BENCH_BASELINE=/path/to/gatehouse` adds the hooks
//! another build installs (an earlier commit's, say), measured in the same rounds.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ROUNDS: usize = 300;

mod common;

use common::{count_from_env, hook_command, quantiles, start_serve, time_to_exit};

/// The goals: a hook's median and p99 against the C floor's.
const MEDIAN_GOAL: f64 = 1.2;
const P99_GOAL: f64 = 1.5;

fn main() {
    let rounds = count_from_env("GATEHOUSE_BENCH_ROUNDS", ROUNDS);
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gatehouse"));
    let folder = std::env::temp_dir().join(format!("gatehouse-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    for sub in [
        "home",
        "home-down",
        "run",
        "down",
        "settings",
        "only-gatehouse",
    ] {
        std::fs::create_dir_all(folder.join(sub)).unwrap();
    }
    let Some(c_hook) = compile_c_hook(&folder) else {
        eprintln!(
            "the C floor cannot be measured: `cc -O2 benches/c_hook.c` failed or there is no cc"
        );
        std::process::exit(1);
    };
    // The gateway on the default socket of `run`, where the hooks find it by themselves.
    let socket = folder.join("run/gatehouse/gatehouse.sock");
    let mut gateway = start_serve(&binary, &folder, &socket);

    // What `gatehouse install` writes: beside `gatehouse-hook` (as cargo builds and installs
    // them), and for a `gatehouse` copied alone (the command of settings written before).
    let only_gatehouse = folder.join("only-gatehouse/gatehouse");
    std::fs::copy(&binary, &only_gatehouse).unwrap();
    let install = |program: &Path, agent: &str, event: &str| {
        installed_command(program, agent, event, &folder)
    };
    // The C floor first: every hook is compared with it.
    let mut hooks = vec![
        Hook {
            name: "C floor".into(),
            observe: shell_quoted(&c_hook),
            hold: shell_quoted(&c_hook),
        },
        Hook {
            name: "gatehouse-hook".into(),
            observe: install(&binary, "claude", "PostToolUse"),
            hold: install(&binary, "codex", "PermissionRequest"),
        },
        Hook {
            name: "gatehouse hook".into(),
            observe: install(&only_gatehouse, "claude", "PostToolUse"),
            hold: install(&only_gatehouse, "codex", "PermissionRequest"),
        },
    ];
    assert!(
        hooks[1].observe.contains("gatehouse-hook' claude"),
        "install writes the hook executable: {}",
        hooks[1].observe
    );
    assert!(
        hooks[2].observe.ends_with("gatehouse' hook claude"),
        "install without the hook executable writes `gatehouse hook`: {}",
        hooks[2].observe
    );
    // Another build to compare with, such as one of an earlier commit: the hooks it installs.
    if let Some(baseline) = std::env::var_os("GATEHOUSE_BENCH_BASELINE") {
        let baseline = PathBuf::from(baseline);
        hooks.push(Hook {
            name: format!("baseline ({})", baseline.display()),
            observe: install(&baseline, "claude", "PostToolUse"),
            hold: install(&baseline, "codex", "PermissionRequest"),
        });
    }

    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let observed = std::fs::read(
        data.join("adapter-claude/tests/data/claude-code-2.1.332/PostToolUse-Bash.json"),
    )
    .unwrap();
    let held = std::fs::read(
        data.join("adapter-codex/tests/data/codex-0.171.0/PermissionRequest-Bash.json"),
    )
    .unwrap();
    let python_hook = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/python_hook.py");
    let python = python_interpreter();
    // The Python hook says hello in the build's protocol, as the C floor does.
    let protocol = gatehouse_host_ipc::PROTOCOL_VERSION.to_string();

    let cases = [
        Case {
            name: "observed, gateway up",
            command: |hook| &hook.observe,
            stdin: &observed,
            home: "home",
            runtime: "run",
        },
        Case {
            name: "held prompt registered, gateway up",
            command: |hook| &hook.hold,
            stdin: &held,
            home: "home",
            runtime: "run",
        },
        Case {
            name: "observed, gateway down",
            command: |hook| &hook.observe,
            stdin: &observed,
            home: "home-down",
            runtime: "down",
        },
    ];
    // samples[case][hook][shell or not]
    let mut samples =
        vec![
            vec![[Vec::with_capacity(rounds), Vec::with_capacity(rounds)]; hooks.len()];
            cases.len()
        ];
    let mut python_up = Vec::with_capacity(rounds);
    let mut python_bare_up = Vec::with_capacity(rounds);
    let mut status = Vec::with_capacity(rounds);
    let mut list = Vec::with_capacity(rounds);
    // First, while no prompt is pending (the held prompts are only watched, and stay listed).
    for _ in 0..rounds {
        status.push(time_to_exit(
            hook_command(&binary, &folder, &socket).arg("status"),
            b"",
        ));
        list.push(time_to_exit(
            hook_command(&binary, &folder, &socket).arg("list"),
            b"",
        ));
    }
    for _ in 0..rounds {
        for (index_of_case, case) in cases.iter().enumerate() {
            let environment = AgentEnvironment {
                home: folder.join(case.home),
                runtime: folder.join(case.runtime),
            };
            for (index, hook) in hooks.iter().enumerate() {
                let command = (case.command)(hook);
                let [shell, direct] = &mut samples[index_of_case][index];
                shell.push(time_to_exit(
                    &mut environment.through_shell(command),
                    case.stdin,
                ));
                direct.push(time_to_exit(&mut environment.direct(command), case.stdin));
            }
        }
        python_up.push(time_to_exit(
            hook_command(&python, &folder, &socket)
                .env("GATEHOUSE_BENCH_PROTOCOL", &protocol)
                .arg(&python_hook),
            &observed,
        ));
        python_bare_up.push(time_to_exit(
            hook_command(&python, &folder, &socket)
                .env("GATEHOUSE_BENCH_PROTOCOL", &protocol)
                .arg("-S")
                .arg(&python_hook),
            &observed,
        ));
    }
    let _ = gateway.kill();
    let _ = gateway.wait();
    let _ = std::fs::remove_dir_all(&folder);

    println!("hook overhead, {rounds} rounds each, interleaved (spawn to exit), as `gatehouse install` writes the hooks:");
    for hook in &hooks {
        println!("  {:<15} observed: {}", hook.name, hook.observe);
        println!("  {:<15} held:     {}", "", hook.hold);
    }
    let mut all_met = true;
    for (case, Case { name, .. }) in cases.iter().enumerate() {
        for (way, how) in [
            (0, "through sh -c, as the agent runs it"),
            (1, "the hook alone, no shell"),
        ] {
            println!("{name}, {how}:");
            let measured: Vec<(f64, f64)> = hooks
                .iter()
                .enumerate()
                .map(|(index, hook)| report(&hook.name, &mut samples[case][index][way]))
                .collect();
            let floor = measured[0];
            for ((median, p99), hook) in measured.iter().zip(&hooks).skip(1) {
                let (median_ratio, p99_ratio) = (median / floor.0, p99 / floor.1);
                let met = median_ratio <= MEDIAN_GOAL && p99_ratio <= P99_GOAL;
                if way == 0 && hook.name == "gatehouse-hook" {
                    all_met &= met;
                }
                println!(
                    "    {:<15} / C floor: median {median_ratio:.2}x, p99 {p99_ratio:.2}x (goal {MEDIAN_GOAL}x and {P99_GOAL}x: {})",
                    hook.name,
                    verdict(met)
                );
            }
        }
    }
    println!(
        "goal: gatehouse-hook, as the agent runs it, within {MEDIAN_GOAL}x (median) and {P99_GOAL}x (p99) of the C floor in every case: {}",
        verdict(all_met)
    );
    println!("other commands (GATEHOUSE_SOCKET set; status and list before the hooks, with no prompt pending):");
    report(
        "python3 hook (parse JSON, connect, observe)",
        &mut python_up,
    );
    report(
        "the same with python3 -S (no site packages)",
        &mut python_bare_up,
    );
    report("gatehouse status", &mut status);
    report("gatehouse list", &mut list);
}

/// One case of the benchmark: the event, which of a hook's commands runs it, and the agent's
/// HOME and runtime folder (gateway up or down) under the bench's folder.
struct Case<'a> {
    name: &'static str,
    command: fn(&Hook) -> &str,
    stdin: &'a [u8],
    home: &'static str,
    runtime: &'static str,
}

/// One hook's installed commands.
struct Hook {
    name: String,
    observe: String,
    hold: String,
}

/// What an agent's hook runs with: its HOME and its runtime folder (where the gateway's default
/// socket is), PATH, and nothing of gatehouse's.
struct AgentEnvironment {
    home: PathBuf,
    runtime: PathBuf,
}

impl AgentEnvironment {
    fn isolated(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_RUNTIME_DIR", &self.runtime)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    }

    /// `command` as the agent runs it: `sh -c COMMAND`.
    fn through_shell(&self, command: &str) -> Command {
        let mut shell = self.isolated("sh");
        shell.arg("-c").arg(command);
        shell
    }

    /// `command`'s words run directly, its `NAME=value` words set in the environment.
    fn direct(&self, command: &str) -> Command {
        let words = words_of(command);
        let (assignments, words): (Vec<_>, Vec<_>) = words
            .into_iter()
            .partition(|word| word.contains('=') && !word.starts_with('/'));
        let mut direct = self.isolated(&words[0]);
        direct.args(&words[1..]);
        for assignment in assignments {
            let (name, value) = assignment.split_once('=').unwrap();
            direct.env(name, value);
        }
        direct
    }
}

/// The words of a command as `gatehouse install` writes it: single-quoted words and plain ones.
fn words_of(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for character in command.chars() {
        match character {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            ' ' if !quoted => words.extend(word.take()),
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    words
}

fn shell_quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// The command `gatehouse install AGENT` (run as `program`) writes for `event`, in a settings
/// file of its own under `folder`.
fn installed_command(program: &Path, agent: &str, event: &str, folder: &Path) -> String {
    let settings = folder.join("settings").join(format!(
        "{agent}-{}.json",
        program
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
    ));
    let output = Command::new(program)
        .args(["install", agent, "--settings"])
        .arg(&settings)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", folder.join("home"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "gatehouse install {agent}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    written["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no {event} command in {written}"))
        .to_owned()
}

/// Compiles benches/c_hook.c into `folder` for this build's protocol.
fn compile_c_hook(folder: &Path) -> Option<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/c_hook.c");
    let output = folder.join("c_hook");
    let compiled = Command::new("cc")
        .arg("-O2")
        .arg(format!(
            "-DGATEHOUSE_PROTOCOL={}",
            gatehouse_host_ipc::PROTOCOL_VERSION
        ))
        .arg("-o")
        .arg(&output)
        .arg(&source)
        .status()
        .is_ok_and(|status| status.success());
    compiled.then_some(output)
}

/// The real Python interpreter, not a wrapper script such as a pyenv shim in front of it, so the
/// comparison is with Python itself.
fn python_interpreter() -> PathBuf {
    let output = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "missed"
    }
}

/// Prints median, p90 and p99, and returns (median, p99).
fn report(what: &str, samples: &mut [f64]) -> (f64, f64) {
    let [median, p90, p99] = quantiles(samples, [0.5, 0.9, 0.99]);
    println!("  {what:<50} median {median:6.2} ms   p90 {p90:6.2} ms   p99 {p99:6.2} ms");
    (median, p99)
}
