//! `gatehouse probe gemini`: checks, live, whether the installed Gemini CLI, with gatehouse's
//! policy ([`crate::policy`]), lets the BeforeTool hook decide its shell commands, and returns a
//! [`ProbeRecord`] (the kit's, agent `gemini`).
//!
//! The probe runs the real Gemini CLI in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME` (with
//! `.gemini/settings.json` running the probe's BeforeTool hook, and gatehouse's policy file
//! exactly as `install --answerable` writes it), a workspace, and the kit's scripted model in
//! its Gemini dialect on loopback (`GOOGLE_GEMINI_BASE_URL`), so no account, network or tokens
//! are used and the person's settings are never read or written. The cases are the kit's
//! standard ones ([`gatehouse_harness::probe`]):
//!
//! - `allow`: the hook prints gatehouse's `once` (`{}`). Passes when the command ran with no
//!   dialog from Gemini.
//! - `deny`: the hook prints gatehouse's deny with a reason. Passes when the command did not
//!   run, Gemini showed no dialog, and the model received the reason.
//! - `no-verdict`: the hook prints what gatehouse's hook prints without a verdict
//!   ([`crate::verdict::NO_VERDICT`], `ask`). Passes when Gemini showed its own dialog with the
//!   command not run, and its "Allow once" ran it.
//!
//! The probe's hook is a small shell script that saves the event and prints a file the probe
//! fills before each case with exactly what `gatehouse hook gemini BeforeTool` prints in
//! production; the saved event is read with [`crate::events::parse`], the production parser.

mod private;

use std::time::{Duration, Instant};

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::HookEvent;
use gatehouse_harness::model::gemini::Gemini;
use gatehouse_harness::model::{as_text, ScriptedCall, ScriptedModel, Tool};
pub use gatehouse_harness::probe::ProbeOptions;
pub use gatehouse_harness::probe::DENY_MESSAGE;
use gatehouse_harness::probe::{self as driver, CommandCase, HookAnswer, PrivateFolder, Seen};
use gatehouse_harness::terminal::Terminal;
use serde_json::json;

use self::private::PrivateGemini;
use gatehouse_harness::record::ProbeRecord;

use crate::{events, verdict, ADAPTER_ID, AGENT};

/// The question of Gemini CLI 0.61.0's dialog for a shell command.
pub const DIALOG_TEXT: &str = "Allow execution of";

/// Gemini's input box, once it is ready for a message.
pub const READY_TEXT: &str = "Type your message";

/// Gemini's shell tool; the call's reason is the description Gemini shows.
pub const RUN_SHELL_COMMAND: Tool = Tool {
    name: events::SHELL_TOOL,
    arguments: |call| json!({ "command": call.command, "description": call.reason }),
};

/// Why the probe could not run at all: the kit's.
pub use gatehouse_harness::probe::ProbeError;

/// Starts the scripted Gemini API with the calls to hand out, in order.
pub fn fake_gemini(script: Vec<ScriptedCall>) -> std::io::Result<ScriptedModel> {
    ScriptedModel::start(
        Gemini {
            tool: RUN_SHELL_COMMAND,
        },
        script,
    )
}

/// Runs the probe against `options.executable`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, ProbeError> {
    let (gemini, gemini_version) = driver::executable_and_version(options, &AGENT.executable)?;
    progress(&format!(
        "Probing Gemini CLI {gemini_version} ({}) with gatehouse's policy, in a private folder, with a scripted model on loopback: no account, network or tokens are used.",
        gemini.display()
    ));
    let folder = PrivateFolder::create("gatehouse-probe-")?;
    let private = PrivateGemini::prepare(&folder.root).map_err(ProbeError::Folder)?;
    let cases = driver::standard_cases(&private.workspace);
    let fake = fake_gemini(cases.iter().map(|case| case.call.clone()).collect())
        .map_err(ProbeError::FakeModel)?;

    progress("Starting Gemini CLI in a private terminal (tmux)...");
    let program = gemini.display().to_string();
    let terminal = driver::start_in_terminal(
        "Gemini CLI",
        (&private.workspace, &private.environment(&fake.base_url())),
        &[&program],
        options,
        |screen| screen.contains(READY_TEXT),
    )?;

    let results = driver::run_cases(
        &cases,
        progress,
        |case| (case.name, case.answer.describe("Gemini", "dialog")),
        |case| check_case(&terminal, &fake, &private, case, options.case_deadline),
        // Leave Gemini ready for the next case whatever happened: Esc ends a dialog or a turn.
        || {
            terminal.send_keys(&["Escape"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(10), |screen| {
                screen.contains(READY_TEXT) && !screen.contains(DIALOG_TEXT)
            });
        },
    );
    exit(&terminal, Duration::from_secs(15));
    drop(terminal);
    Ok(driver::record_of(
        ADAPTER_ID,
        (gemini, gemini_version),
        results,
    ))
}

/// Ends Gemini with `/quit` and waits up to `deadline` for it to be gone.
pub fn exit(terminal: &Terminal, deadline: Duration) {
    let started = Instant::now();
    terminal.send_keys(&["Escape"]);
    terminal.send_text("/quit");
    let _ = terminal.wait_for_screen(Duration::from_secs(5), |screen| screen.contains("/quit"));
    terminal.send_keys(&["Enter"]);
    while !terminal.is_dead() && started.elapsed() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `gatehouse probe gemini`: the probe above, as the binary runs it for any adapter.
pub struct GeminiProbe;

impl AgentProbe for GeminiProbe {
    fn executable_name(&self) -> &'static str {
        "gemini"
    }

    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError> {
        let progress_to = progress;
        driver::run_and_save(
            request,
            || AGENT.executable.find_on_path(),
            || AGENT.executable.not_found().into(),
            (
                AGENT.words,
                driver::Offers::once_and_deny("shell command prompts"),
            ),
            ProbeRecord::path(&request.state_dir, ADAPTER_ID),
            |options| run(options, progress_to),
        )
    }
}

/// What `gatehouse hook gemini BeforeTool` prints for the case's answer in production: the
/// verdict, or, without one, [`verdict::NO_VERDICT`].
pub fn rendered(answer: HookAnswer) -> String {
    answer
        .verdict()
        .as_ref()
        .map_or_else(|| verdict::NO_VERDICT.to_owned(), verdict::render)
}

/// Runs one case; `Ok` holds the evidence of a pass, `Err` what went wrong.
fn check_case(
    terminal: &Terminal,
    fake: &ScriptedModel,
    private: &PrivateGemini,
    case: &CommandCase,
    deadline: Duration,
) -> Result<String, String> {
    let started = Instant::now();
    let left = || deadline.saturating_sub(started.elapsed());
    // Gemini names its calls itself, so the case's outcome is the next one the model gets.
    let outputs_before = fake.outputs().len();
    let read_as = driver::ask(
        terminal,
        fake,
        &private.hook,
        case,
        &rendered(case.answer),
        ("Gemini", "BeforeTool"),
        left,
        |line| match events::parse(line.as_bytes()) {
            Ok(HookEvent::Prompt { prompt, .. }) if prompt.summary == case.call.command => {
                Some(prompt.summary)
            }
            _ => None,
        },
    )?;

    let mut dialog_seen = false;
    if case.answer == HookAnswer::NoVerdict {
        terminal
            .wait_for_screen(left(), |screen| screen.contains(DIALOG_TEXT))
            .map_err(|screen| {
                format!("with `ask`, Gemini did not show its own dialog; last screen:\n{screen}")
            })?;
        if case.marker.exists() || fake.outputs().len() > outputs_before {
            return Err("the command ran before anyone answered Gemini's dialog".into());
        }
        dialog_seen = true;
        // "1. Allow once" is selected; Enter confirms it. Gemini may drop a key while it draws.
        while terminal.screen().contains(DIALOG_TEXT) && !left().is_zero() {
            terminal.send_keys(&["Enter"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(2).min(left()), |screen| {
                !screen.contains(DIALOG_TEXT)
            });
        }
    }
    // Until the model has the call's outcome, watch for a dialog the hook's answer should
    // have kept away.
    let mut output = None;
    while output.is_none() && !left().is_zero() {
        dialog_seen |=
            case.answer != HookAnswer::NoVerdict && terminal.screen().contains(DIALOG_TEXT);
        output = fake.outputs().get(outputs_before).map(as_text);
        if output.is_none() {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let output = output.ok_or_else(|| {
        format!(
            "Gemini did not report the call's outcome to the model; last screen:\n{}",
            terminal.screen()
        )
    })?;
    let screen = terminal
        .wait_for_screen(left(), |screen| {
            screen.contains(READY_TEXT) && !screen.contains(DIALOG_TEXT)
        })
        .map_err(|screen| format!("Gemini did not finish the turn; last screen:\n{screen}"))?;
    driver::judge(&Seen {
        case,
        agent: "Gemini",
        dialog: "dialog",
        read_as: &read_as,
        output: &output,
        reported: output.trim().lines().next().unwrap_or("(empty)"),
        dialog_shown: dialog_seen || screen.contains(DIALOG_TEXT),
        dialog_line: DIALOG_TEXT,
    })
}
