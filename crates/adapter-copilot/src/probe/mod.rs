//! `gatehouse probe copilot`: checks, live, whether the installed Copilot CLI honours gatehouse's
//! answers to its permission prompts, and returns the kit's [`ProbeRecord`].
//!
//! The probe runs the real Copilot CLI in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME` (with
//! `.copilot/settings.json` and the workspace listed as trusted in `.copilot/config.json`), a
//! workspace, and a scripted chat-completions API on loopback ([`fake_chat`]) as Copilot's BYOK
//! provider, offline (`COPILOT_OFFLINE=true`), so no account, network or tokens are used and the
//! person's settings are never read or written. The scripted model asks three times to run
//! `printf CASE > gatehouse-probe-CASE.txt` with its `bash` tool. The cases:
//!
//! - `allow`: the hook prints gatehouse's `once` verdict. Passes when the command ran (the marker
//!   file holds `allow`) and Copilot did not show its own dialog.
//! - `deny`: the hook prints gatehouse's `deny` verdict with a message. Passes when the command
//!   did not run, Copilot showed no dialog, and the model received the message.
//! - `no-verdict`: the hook prints nothing. Passes when Copilot showed its own dialog with the
//!   command not run, and Yes there ran it: Copilot's dialog was in charge.
//!
//! Which hook proves it: the probe's `permissionRequest` hook is a small shell script that saves
//! the event Copilot wrote on its stdin and prints a file that the probe fills, before each case,
//! with exactly what `gatehouse hook copilot permissionRequest` prints in production
//! ([`crate::verdict::render`]). The saved event is read with [`crate::events::parse`], the
//! production parser, and must name the scripted command. The half in between (hook, socket,
//! gateway) is the same for every agent and is tested without Copilot.

pub mod fake_chat;
mod private;

pub use self::private::{byok_environment, write_trusted_folder};

use std::fs;
use std::time::{Duration, Instant};

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::HookEvent;
use gatehouse_harness::model::ScriptedModel;
pub use gatehouse_harness::probe::ProbeOptions;
/// The message the deny case sends, which the agent hands to the model.
pub use gatehouse_harness::probe::DENY_MESSAGE;
use gatehouse_harness::probe::{self as driver, CommandCase, HookAnswer, PrivateFolder, Seen};
use gatehouse_harness::terminal::Terminal;

use self::private::PrivateCopilot;
use gatehouse_harness::executable::VersionError;
use gatehouse_harness::record::ProbeRecord;

use crate::{events, verdict, AGENT};

/// Text of Copilot CLI 1.0.102's dialog for a shell command.
pub const APPROVAL_PROMPT_TEXT: &str = "Do you want to run this command?";

/// Text of Copilot's footer under an empty input box: it is ready for the next message.
pub const READY_TEXT: &str = "/ commands";

/// The first line of Copilot's folder trust dialog.
pub const FOLDER_TRUST_TEXT: &str = "Confirm folder trust";

/// Why the probe could not run at all: the kit's.
pub use gatehouse_harness::probe::ProbeError;

/// Runs the probe against `options.executable`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, ProbeError> {
    let copilot = fs::canonicalize(&options.executable)
        .map_err(|error| VersionError::CannotRun {
            program: options.executable.clone(),
            problem: error.to_string(),
        })
        .map_err(|error| ProbeError::Version(error.to_string()))?;
    let copilot_version = AGENT
        .executable
        .version_of(&copilot)
        .map_err(|error| ProbeError::Version(error.to_string()))?;
    progress(&format!(
        "Probing GitHub Copilot CLI {copilot_version} ({}) in a private folder, with a scripted model on loopback: no account, network or tokens are used.",
        copilot.display()
    ));
    let folder = PrivateFolder::create("gatehouse-probe-")?;
    let root = folder.root.clone();
    let private = PrivateCopilot::prepare(&root).map_err(ProbeError::Folder)?;
    let cases = driver::standard_cases(&private.workspace);
    let fake = fake_chat::start(cases.iter().map(|case| case.call.clone()).collect())
        .map_err(ProbeError::FakeModel)?;

    progress("Starting Copilot CLI in a private terminal (tmux)...");
    let program = copilot.display().to_string();
    let terminal = Terminal::start(
        "probe",
        &private.workspace,
        &private.environment(&fake.base_url()),
        &[&program],
    )?;
    wait_until_ready(&terminal, options.start_deadline).map_err(|screen| {
        ProbeError::DidNotStart {
            agent: "Copilot CLI",
            deadline: options.start_deadline,
            screen,
        }
    })?;

    let results = driver::run_cases(
        &cases,
        progress,
        |case| (case.name, case.answer.describe("Copilot", "dialog")),
        |case| check_case(&terminal, &fake, &private, case, options.case_deadline),
        // Leave Copilot ready for the next case whatever happened: Esc ends a dialog or a turn.
        || {
            terminal.send_keys(&["Escape"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(10), |screen| {
                screen.contains(READY_TEXT) && !screen.contains(APPROVAL_PROMPT_TEXT)
            });
        },
    );
    exit(&terminal, Duration::from_secs(15));
    drop(terminal);
    Ok(ProbeRecord {
        agent: AGENT.id,
        version: copilot_version,
        executable: copilot,
        probed_at: driver::now(),
        passed: results.iter().all(|result| result.passed),
        cases: results,
        gatehouse_version: env!("CARGO_PKG_VERSION").into(),
    })
}

/// Waits for Copilot's input box, trusting the workspace for this session should Copilot ask
/// although its `config.json` lists it.
pub fn wait_until_ready(terminal: &Terminal, deadline: Duration) -> Result<String, String> {
    let started = Instant::now();
    loop {
        let left = deadline.saturating_sub(started.elapsed());
        let screen = terminal.wait_for_screen(left, |screen| {
            screen.contains(FOLDER_TRUST_TEXT)
                || (screen.contains(READY_TEXT) && !screen.contains(APPROVAL_PROMPT_TEXT))
        })?;
        if !screen.contains(FOLDER_TRUST_TEXT) {
            return Ok(screen);
        }
        terminal.send_keys(&["Enter"]);
        let _ = terminal.wait_for_screen(Duration::from_secs(2).min(left), |screen| {
            !screen.contains(FOLDER_TRUST_TEXT)
        });
    }
}

/// Ends Copilot with `/exit` and waits up to `deadline` for it to be gone. Killing its terminal
/// is not enough before its home is removed: npm's loader, the terminal's process, dies at once,
/// while the native Copilot it started goes on writing its logs and session state for a moment.
pub fn exit(terminal: &Terminal, deadline: Duration) {
    let started = Instant::now();
    // Esc closes a dialog, if one is open; then the input box takes the command.
    terminal.send_keys(&["Escape"]);
    terminal.send_text("/exit");
    let _ = terminal.wait_for_screen(Duration::from_secs(5), |screen| screen.contains("/exit"));
    terminal.send_keys(&["Enter"]);
    while !terminal.is_dead() && started.elapsed() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `gatehouse probe copilot`: the probe above, as the binary runs it for any adapter.
pub struct CopilotProbe;

impl AgentProbe for CopilotProbe {
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

/// What `gatehouse hook copilot` prints for the case's answer in production.
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
    private: &PrivateCopilot,
    case: &CommandCase,
    deadline: Duration,
) -> Result<String, String> {
    let started = Instant::now();
    let left = || deadline.saturating_sub(started.elapsed());
    let read_as = driver::ask(
        terminal,
        fake,
        &private.hook,
        case,
        &rendered(case.answer),
        ("Copilot", "permissionRequest"),
        left,
        |line| match events::parse(line.as_bytes(), Some("permissionRequest"), |_, _| None) {
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
                format!(
                    "with no verdict, Copilot did not show its own dialog; last screen:\n{screen}"
                )
            })?;
        if case.marker.exists() || fake.output_for(&case.call.call_id).is_some() {
            return Err("the command ran before anyone answered Copilot's dialog".into());
        }
        dialog_seen = true;
        // "1. Yes" is selected; Enter confirms it. Copilot may drop a key while it draws.
        while terminal.screen().contains(APPROVAL_PROMPT_TEXT) && !left().is_zero() {
            terminal.send_keys(&["Enter"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(2).min(left()), |screen| {
                !screen.contains(APPROVAL_PROMPT_TEXT)
            });
        }
    }
    let output = driver::wait_for_output(fake, &case.call.call_id, left())
        .ok_or("Copilot did not report the call's outcome to the model")?;
    let screen = terminal
        .wait_for_screen(left(), |screen| {
            screen.contains(READY_TEXT) && !screen.contains(APPROVAL_PROMPT_TEXT)
        })
        .map_err(|screen| format!("Copilot did not finish the turn; last screen:\n{screen}"))?;
    driver::judge(&Seen {
        case,
        agent: "Copilot",
        dialog: "dialog",
        read_as: &read_as,
        output: &output,
        reported: output.trim().lines().next().unwrap_or("(empty)"),
        dialog_shown: dialog_seen || screen.contains(APPROVAL_PROMPT_TEXT),
        dialog_line: APPROVAL_PROMPT_TEXT,
    })
}
