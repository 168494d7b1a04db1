//! `gatehouse probe qwen`: checks, live, whether the installed Qwen Code honours gatehouse's
//! answers to its permission prompts, and returns the kit's [`ProbeRecord`].
//!
//! The probe runs the real Qwen Code in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME`
//! ([`private`]), a workspace, and the kit's scripted chat-completions model on loopback as its
//! OpenAI-compatible provider, so no account, network or tokens are used and the person's
//! settings are never read or written. The model asks three times to run `printf CASE >
//! gatehouse-probe-CASE.txt` with `run_shell_command`; the kit's standard cases
//! ([`gatehouse_harness::probe`]) judge what happened: allow runs it with no dialog, deny does not
//! and the model reads the message, no verdict leaves Qwen's own dialog in charge.
//!
//! Which hook proves it: the probe's `PermissionRequest` hook is a small shell script that saves
//! the event Qwen wrote on its stdin and prints, before each case, exactly what `gatehouse hook
//! qwen` prints in production ([`crate::verdict::render`]). The saved event is read with
//! [`crate::events::parse`], the production parser, and must name the scripted command.

pub mod private;

use std::fs;
use std::time::{Duration, Instant};

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::HookEvent;
use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::{ScriptedCall, ScriptedModel, Tool};
pub use gatehouse_harness::probe::ProbeOptions;
use gatehouse_harness::probe::{
    self as driver, shell_quote, CommandCase, HookAnswer, PrivateFolder, ProbeError, ProbeHook,
    Seen,
};
use gatehouse_harness::record::ProbeRecord;
use gatehouse_harness::terminal::Terminal;
use serde_json::json;

use crate::{events, verdict, AGENT};

/// Text of Qwen Code 0.24.4's dialog for a shell command.
pub const APPROVAL_PROMPT_TEXT: &str = "Allow execution of";

/// Text of Qwen's empty input box: it is ready for the next message.
pub const READY_TEXT: &str = "Type your message";

/// Qwen's shell tool; the call's reason is its description, which Qwen shows beside the command.
pub const SHELL: Tool = Tool {
    name: events::ANSWERABLE_TOOL,
    arguments: |call| json!({ "command": call.command, "description": call.reason }),
};

/// Starts the kit's scripted chat-completions model with the calls to hand out, in order; its
/// [`ScriptedModel::base_url`] is the value of `OPENAI_BASE_URL`.
pub fn scripted_model(script: Vec<ScriptedCall>) -> std::io::Result<ScriptedModel> {
    ScriptedModel::start(Chat { tool: SHELL }, script)
}

/// Runs the probe against `options.executable`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, ProbeError> {
    let qwen = fs::canonicalize(&options.executable).map_err(|error| {
        ProbeError::Version(format!(
            "{} cannot be probed: {error}",
            options.executable.display()
        ))
    })?;
    let qwen_version = AGENT
        .executable
        .version_of(&qwen)
        .map_err(|error| ProbeError::Version(error.to_string()))?;
    progress(&format!(
        "Probing Qwen Code {qwen_version} ({}) in a private folder, with a scripted model on loopback: no account, network or tokens are used.",
        qwen.display()
    ));
    let folder = PrivateFolder::create("gatehouse-probe-")?;
    let root = folder.root.clone();
    let home = root.join("home");
    let workspace = root.join("workspace");
    fs::create_dir_all(&workspace).map_err(ProbeError::Folder)?;
    let hook = ProbeHook::write(&root, "PermissionRequest", true).map_err(ProbeError::Folder)?;
    let hooks = json!({ "PermissionRequest": [{ "matcher": "*", "hooks": [
        { "type": "command", "command": shell_quote(&hook.script), "timeout": 30 }
    ] }] });
    private::write_private_settings(&home, Some(hooks)).map_err(ProbeError::Folder)?;
    let cases = driver::standard_cases(&workspace);
    let fake = scripted_model(cases.iter().map(|case| case.call.clone()).collect())
        .map_err(ProbeError::FakeModel)?;

    progress("Starting Qwen Code in a private terminal (tmux)...");
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    let program = qwen.display().to_string();
    let terminal = Terminal::start(
        "probe",
        &workspace,
        &private::offline_environment(&home, &fake.base_url(), &path),
        &[&program],
    )?;
    terminal
        .wait_for_screen(options.start_deadline, is_ready)
        .map_err(|screen| ProbeError::DidNotStart {
            agent: "Qwen Code",
            deadline: options.start_deadline,
            screen,
        })?;

    let results = driver::run_cases(
        &cases,
        progress,
        |case| (case.name, case.answer.describe("Qwen", "dialog")),
        |case| check_case(&terminal, &fake, &hook, case, options.case_deadline),
        // Leave Qwen ready for the next case whatever happened: Esc ends a dialog or a turn.
        || {
            terminal.send_keys(&["Escape"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(10), is_ready);
        },
    );
    exit(&terminal, Duration::from_secs(15));
    drop(terminal);
    Ok(ProbeRecord {
        agent: AGENT.id,
        version: qwen_version,
        executable: qwen,
        probed_at: driver::now(),
        passed: results.iter().all(|result| result.passed),
        cases: results,
        gatehouse_version: env!("CARGO_PKG_VERSION").into(),
    })
}

/// Whether Qwen shows its empty input box and no dialog.
pub fn is_ready(screen: &str) -> bool {
    screen.contains(READY_TEXT) && !screen.contains(APPROVAL_PROMPT_TEXT)
}

/// Ends Qwen with `/quit` and waits up to `deadline` for it to be gone, so that it writes
/// nothing into a home that is removed next.
pub fn exit(terminal: &Terminal, deadline: Duration) {
    let started = Instant::now();
    // Esc closes a dialog, if one is open; then the input box takes the command.
    terminal.send_keys(&["Escape"]);
    terminal.send_text("/quit");
    let _ = terminal.wait_for_screen(Duration::from_secs(5), |screen| screen.contains("/quit"));
    terminal.send_keys(&["Enter"]);
    while !terminal.is_dead() && started.elapsed() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `gatehouse probe qwen`: the probe above, as the binary runs it for any adapter.
pub struct QwenProbe;

impl AgentProbe for QwenProbe {
    fn executable_name(&self) -> &'static str {
        AGENT.executable.program
    }

    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError> {
        AGENT.run_probe(request, |options| run(options, progress))
    }
}

/// What `gatehouse hook qwen` prints for the case's answer in production.
fn rendered(answer: HookAnswer) -> String {
    answer
        .verdict()
        .as_ref()
        .map(verdict::render)
        .unwrap_or_default()
}

/// Runs one case; `Ok` holds the evidence of a pass, `Err` what went wrong.
fn check_case(
    terminal: &Terminal,
    fake: &ScriptedModel,
    hook: &ProbeHook,
    case: &CommandCase,
    deadline: Duration,
) -> Result<String, String> {
    let started = Instant::now();
    let left = || deadline.saturating_sub(started.elapsed());
    let read_as = driver::ask(
        terminal,
        fake,
        hook,
        case,
        &rendered(case.answer),
        ("Qwen", "PermissionRequest"),
        left,
        |line| match events::parse(line.as_bytes(), None) {
            Ok(HookEvent::Prompt { prompt, .. }) if prompt.summary == case.call.command => {
                Some(prompt.summary)
            }
            _ => None,
        },
    )?;

    let mut dialog_seen = false;
    if case.answer == HookAnswer::NoVerdict {
        terminal
            .wait_for_screen(left(), |screen| screen.contains(APPROVAL_PROMPT_TEXT))
            .map_err(|screen| {
                format!("with no verdict, Qwen did not show its own dialog; last screen:\n{screen}")
            })?;
        if case.marker.exists() || fake.output_for(&case.call.call_id).is_some() {
            return Err("the command ran before anyone answered Qwen's dialog".into());
        }
        dialog_seen = true;
        // "1. Yes, allow once" is selected; Enter confirms it. Qwen may drop a key while it draws.
        while terminal.screen().contains(APPROVAL_PROMPT_TEXT) && !left().is_zero() {
            terminal.send_keys(&["Enter"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(2).min(left()), |screen| {
                !screen.contains(APPROVAL_PROMPT_TEXT)
            });
        }
    }
    let output = driver::wait_for_output(fake, &case.call.call_id, left())
        .ok_or("Qwen did not report the call's outcome to the model")?;
    let screen = terminal
        .wait_for_screen(left(), is_ready)
        .map_err(|screen| format!("Qwen did not finish the turn; last screen:\n{screen}"))?;
    driver::judge(&Seen {
        case,
        agent: "Qwen",
        dialog: "dialog",
        read_as: &read_as,
        output: &output,
        reported: output.trim().lines().next().unwrap_or("(empty)"),
        dialog_shown: dialog_seen || screen.contains(APPROVAL_PROMPT_TEXT),
        dialog_line: APPROVAL_PROMPT_TEXT,
    })
}
