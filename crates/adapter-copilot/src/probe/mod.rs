//! `gatehouse probe copilot`: checks, live, whether the installed Copilot CLI honours gatehouse's
//! answers to its permission prompts, and returns a [`ProbeRecord`] for [`crate::record`].
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
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::{Answer, HookEvent, Timestamp, Verdict};
use gatehouse_harness::terminal::{Terminal, TerminalError};

use self::fake_chat::{FakeChat, ScriptedCall};
use self::private::PrivateCopilot;
use crate::record::{CaseResult, ProbeRecord, Unlock};
use crate::version::{self, VersionError};
use crate::{events, verdict};

/// Text of Copilot CLI 1.0.102's dialog for a shell command.
pub const APPROVAL_PROMPT_TEXT: &str = "Do you want to run this command?";

/// Text of Copilot's footer under an empty input box: it is ready for the next message.
pub const READY_TEXT: &str = "/ commands";

/// The first line of Copilot's folder trust dialog.
pub const FOLDER_TRUST_TEXT: &str = "Confirm folder trust";

/// The message the `deny` case sends, which Copilot hands to the model.
pub const DENY_MESSAGE: &str = "gatehouse probe: denied on purpose";

/// How the probe runs.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// The Copilot CLI executable to probe.
    pub copilot: PathBuf,
    /// How long Copilot may take to show its input box.
    pub start_deadline: Duration,
    /// How long each case may take.
    pub case_deadline: Duration,
}

impl ProbeOptions {
    pub fn new(copilot: PathBuf) -> Self {
        ProbeOptions {
            copilot,
            start_deadline: Duration::from_secs(60),
            case_deadline: Duration::from_secs(60),
        }
    }
}

/// Why the probe could not run at all (a case that fails is not an error: it is in the record).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Version(#[from] VersionError),
    #[error("cannot prepare the probe's private folder: {0}; check that the temporary folder is writable")]
    Folder(std::io::Error),
    #[error("cannot start the probe's scripted model on loopback: {0}")]
    FakeModel(std::io::Error),
    #[error(transparent)]
    Terminal(#[from] TerminalError),
    #[error("Copilot CLI did not show its input box within {deadline:?}; its last screen was:\n{screen}")]
    CopilotDidNotStart { deadline: Duration, screen: String },
}

/// One case: what the hook answers, and the command the model asks for.
struct Case {
    name: &'static str,
    verdict: Option<Verdict>,
    call: ScriptedCall,
    marker: PathBuf,
}

/// Runs the probe against `options.copilot`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, ProbeError> {
    let copilot = fs::canonicalize(&options.copilot).map_err(|error| VersionError::CannotRun {
        program: options.copilot.clone(),
        problem: error.to_string(),
    })?;
    let copilot_version = version::version_of(&copilot)?;
    progress(&format!(
        "Probing GitHub Copilot CLI {copilot_version} ({}) in a private folder, with a scripted model on loopback: no account, network or tokens are used.",
        copilot.display()
    ));
    let folder = tempfile::Builder::new()
        .prefix("gatehouse-probe-")
        .tempdir()
        .map_err(ProbeError::Folder)?;
    let root = fs::canonicalize(folder.path()).map_err(ProbeError::Folder)?;
    let private = PrivateCopilot::prepare(&root).map_err(ProbeError::Folder)?;
    let cases = cases(&private);
    let fake = FakeChat::start(cases.iter().map(|case| case.call.clone()).collect())
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
        ProbeError::CopilotDidNotStart {
            deadline: options.start_deadline,
            screen,
        }
    })?;

    let mut results = Vec::new();
    for case in &cases {
        progress(&format!("case {}: {}", case.name, describe(case)));
        let result = run_case(&terminal, &fake, &private, case, options.case_deadline);
        progress(&format!(
            "  {}: {}",
            if result.passed { "passed" } else { "FAILED" },
            result.evidence
        ));
        results.push(result);
    }
    exit(&terminal, Duration::from_secs(15));
    drop(terminal);
    Ok(ProbeRecord {
        copilot_version,
        copilot_executable: copilot,
        probed_at: now(),
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
        "copilot"
    }

    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError> {
        let Some(copilot) = request.executable.clone().or_else(version::find_on_path) else {
            return Err(version::not_found().into());
        };
        let probed = run(&ProbeOptions::new(copilot), progress)?;
        let record = crate::record::record_path(&request.state_dir);
        crate::record::write(&record, &probed)?;
        let meaning = if probed.passed {
            format!("gatehouse now offers once and deny for GitHub Copilot CLI {}'s bash prompts; any other version stays read-only until probed", probed.copilot_version)
        } else {
            format!(
                "GitHub Copilot CLI {} stays read-only in gatehouse; answer its prompts in Copilot's terminal",
                probed.copilot_version
            )
        };
        Ok(ProbeOutcome {
            passed: probed.passed,
            agent_version: probed.copilot_version,
            record,
            meaning,
        })
    }
}

/// Whether a fresh probe record unlocks answers for the Copilot CLI it probed.
pub fn unlock_of(record: &ProbeRecord) -> Unlock {
    crate::record::unlock(Ok(Some(record.clone())), |record| {
        Ok(record.copilot_version.clone())
    })
}

fn describe(case: &Case) -> &'static str {
    match case.name {
        "allow" => "gatehouse answers allow; the command must run, with no dialog from Copilot",
        "deny" => {
            "gatehouse answers deny; the command must not run, and the model must read the message"
        }
        _ => "gatehouse gives no verdict; Copilot's own dialog must appear and decide",
    }
}

fn cases(private: &PrivateCopilot) -> Vec<Case> {
    let case = |name: &'static str, verdict: Option<Verdict>| {
        let marker_name = format!("gatehouse-probe-{name}.txt");
        Case {
            name,
            verdict,
            call: ScriptedCall {
                call_id: format!("call_probe_{}", name.replace('-', "_")),
                command: format!("printf {name} > {marker_name}"),
                description: format!("gatehouse probe, case {name}"),
            },
            marker: private.workspace.join(marker_name),
        }
    };
    vec![
        case("allow", Some(Verdict(Answer::Once))),
        case(
            "deny",
            Some(Verdict(Answer::Deny {
                message: Some(DENY_MESSAGE.into()),
            })),
        ),
        case("no-verdict", None),
    ]
}

fn run_case(
    terminal: &Terminal,
    fake: &FakeChat,
    private: &PrivateCopilot,
    case: &Case,
    deadline: Duration,
) -> CaseResult {
    let (passed, evidence) = match check_case(terminal, fake, private, case, deadline) {
        Ok(evidence) => (true, evidence),
        Err(evidence) => {
            // Leave Copilot ready for the next case whatever happened: Esc ends a dialog or a turn.
            terminal.send_keys(&["Escape"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(10), |screen| {
                screen.contains(READY_TEXT) && !screen.contains(APPROVAL_PROMPT_TEXT)
            });
            (false, evidence)
        }
    };
    CaseResult {
        case: case.name.into(),
        passed,
        evidence,
    }
}

/// Runs one case; `Ok` holds the evidence of a pass, `Err` what went wrong.
fn check_case(
    terminal: &Terminal,
    fake: &FakeChat,
    private: &PrivateCopilot,
    case: &Case,
    deadline: Duration,
) -> Result<String, String> {
    let started = Instant::now();
    let left = || deadline.saturating_sub(started.elapsed());
    let rendered = case
        .verdict
        .as_ref()
        .map(verdict::render)
        .unwrap_or_default();
    fs::write(&private.verdict_file, &rendered)
        .map_err(|error| format!("cannot write the hook's verdict file: {error}"))?;

    let message = format!("gatehouse probe: case {}", case.name);
    terminal.send_text(&message);
    terminal
        .wait_for_screen(left(), |screen| screen.contains(&message))
        .map_err(|_| "Copilot did not take the typed message".to_owned())?;
    terminal.send_keys(&["Enter"]);
    wait_until(left(), || fake.served(&case.call.call_id))
        .map_err(|()| "Copilot did not ask the scripted model for the turn".to_owned())?;
    let summary = wait_for_permission_request(private, &case.call.command, left())?;

    let mut dialog_seen = false;
    if case.verdict.is_none() {
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
    let output = wait_for_output(fake, &case.call.call_id, left())?;
    let screen = terminal
        .wait_for_screen(left(), |screen| {
            screen.contains(READY_TEXT) && !screen.contains(APPROVAL_PROMPT_TEXT)
        })
        .map_err(|screen| format!("Copilot did not finish the turn; last screen:\n{screen}"))?;
    let reported = output.trim().lines().next().unwrap_or("(empty)").to_owned();
    let marker = fs::read_to_string(&case.marker).ok();
    let dialog_shown = dialog_seen || screen.contains(APPROVAL_PROMPT_TEXT);
    match case.name {
        "allow" | "no-verdict" if marker.as_deref() != Some(case.name) => Err(format!(
            "the command did not run (no marker file); Copilot reported: {reported}"
        )),
        "deny" if marker.is_some() => Err("the command ran although gatehouse denied it".into()),
        "allow" | "deny" if dialog_shown => {
            Err("Copilot showed its own dialog although the hook decided".into())
        }
        "deny" if !output.contains(DENY_MESSAGE) => Err(format!(
            "Copilot did not pass gatehouse's deny message to the model; it reported: {reported}"
        )),
        "allow" => Ok(format!(
            "Copilot ran `{summary}` (read by the adapter) with no dialog of its own; it reported: {reported}"
        )),
        "deny" => Ok(format!(
            "Copilot did not run `{summary}`, showed no dialog, and told the model: {reported}"
        )),
        _ => Ok(format!(
            "Copilot showed its own dialog ({APPROVAL_PROMPT_TEXT:?}) with `{summary}` not run; Yes there ran it"
        )),
    }
}

/// Waits for the permissionRequest event of `command` in the hook's log, and reads it with the
/// production parser; returns the prompt's summary.
fn wait_for_permission_request(
    private: &PrivateCopilot,
    command: &str,
    deadline: Duration,
) -> Result<String, String> {
    let mut found = None;
    wait_until(deadline, || {
        let log = fs::read_to_string(&private.event_log).unwrap_or_default();
        found = log.lines().filter(|line| !line.trim().is_empty()).find_map(|line| {
            match events::parse(line.as_bytes(), Some("permissionRequest"), |_, _| None) {
                Ok(HookEvent::Prompt { prompt, .. }) if prompt.summary == command => Some(prompt.summary),
                _ => None,
            }
        });
        found.is_some()
    })
    .map_err(|()| format!("Copilot did not run the permissionRequest hook for `{command}` (or gatehouse could not read it)"))?;
    Ok(found.unwrap_or_default())
}

fn wait_for_output(fake: &FakeChat, call_id: &str, deadline: Duration) -> Result<String, String> {
    let mut output = None;
    wait_until(deadline, || {
        output = fake.output_for(call_id);
        output.is_some()
    })
    .map_err(|()| "Copilot did not report the call's outcome to the model".to_owned())?;
    Ok(output.unwrap_or_default())
}

fn wait_until(deadline: Duration, mut condition: impl FnMut() -> bool) -> Result<(), ()> {
    let started = Instant::now();
    while !condition() {
        if started.elapsed() > deadline {
            return Err(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

fn now() -> Timestamp {
    Timestamp::from_unix_millis(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis() as u64,
    )
}
