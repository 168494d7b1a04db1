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
use gatehouse_harness::executable::VersionError;
use gatehouse_harness::probe::screen::{first_line, AgentScreen};
pub use gatehouse_harness::probe::ProbeOptions;
/// The message the deny case sends, which the agent hands to the model.
pub use gatehouse_harness::probe::DENY_MESSAGE;
use gatehouse_harness::probe::{self as driver, PrivateFolder};
use gatehouse_harness::record::ProbeRecord;
use gatehouse_harness::terminal::Terminal;

use self::private::PrivateCopilot;
use crate::{events, verdict, AGENT};

/// Text of Copilot CLI 1.0.102's dialog for a shell command.
pub const APPROVAL_PROMPT_TEXT: &str = "Do you want to run this command?";

/// Text of Copilot's footer under an empty input box: it is ready for the next message.
pub const READY_TEXT: &str = "/ commands";

/// The first line of Copilot's folder trust dialog.
pub const FOLDER_TRUST_TEXT: &str = "Confirm folder trust";

/// Copilot CLI's terminal, as the kit's standard cases drive it.
pub const SCREEN: AgentScreen = AgentScreen {
    agent: "Copilot",
    dialog: "dialog",
    event_name: "permissionRequest",
    dialog_text: APPROVAL_PROMPT_TEXT,
    ready_text: READY_TEXT,
    // "1. Yes" is selected.
    yes_keys: &["Enter"],
    quit_command: "/exit",
    parse: |stdin| events::parse(stdin, Some("permissionRequest"), |_, _| None),
    render: verdict::render,
    reported: first_line,
};

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

    let results = SCREEN.run_cases(
        &terminal,
        &fake,
        &private.hook,
        &cases,
        options.case_deadline,
        progress,
    );
    SCREEN.quit(&terminal, Duration::from_secs(15));
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
            screen.contains(FOLDER_TRUST_TEXT) || SCREEN.is_ready(screen)
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
