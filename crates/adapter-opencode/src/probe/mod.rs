//! `gatehouse probe opencode`: checks, live, whether the installed OpenCode honours the replies
//! of gatehouse's plugin, and returns the kit's [`ProbeRecord`].
//!
//! The probe runs the real OpenCode in its terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder ([`private`]): its own `HOME`
//! whose `~/.config/opencode` holds a provider at a scripted chat-completions API on loopback
//! ([`model`]), `@opencode-ai/plugin` (found by [`find_plugin_package`]) and gatehouse's own
//! plugin, the very file `gatehouse install opencode` writes, except that it runs the probe's
//! hook instead of gatehouse. No account, network or tokens are used, and the person's settings
//! are never read or written. The probe's hook saves each event the plugin hands it and prints a
//! file the probe fills, before each case, with exactly what `gatehouse hook opencode` prints in
//! production ([`crate::verdict::render`]); the saved event is read with [`crate::events::parse`],
//! the production parser. The cases, in one OpenCode session:
//!
//! - `allow`: gatehouse answers `once`. Passes when the command ran.
//! - `deny`: gatehouse answers `reject` with a message. Passes when the command did not run and
//!   the model read the message.
//! - `no-verdict`: the hook prints nothing. Passes when OpenCode's own prompt appeared with the
//!   command not run, and its "Allow once" ran it: OpenCode's prompt was in charge.
//! - `question`: the model asks a question, gatehouse answers `Red`. Passes when the model read
//!   that answer.
//! - `always` (last: it changes OpenCode until it restarts): gatehouse answers `always`. Passes
//!   when the command ran and then, with no verdict given any more, another `printf` command in
//!   a new turn ran with no prompt at all: OpenCode approved the request's `always` pattern
//!   (`printf *`), as gatehouse shows it.

pub mod model;
pub mod private;

pub use self::private::{find_plugin_package, offline_environment, write_config};

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::{Answer, HookEvent, NewPrompt, PromptKind, QuestionResponse, Verdict};
use gatehouse_harness::model::{ScriptedCall, ScriptedModel};
pub use gatehouse_harness::probe::ProbeOptions;
pub use gatehouse_harness::probe::DENY_MESSAGE;
use gatehouse_harness::probe::{
    self as driver, wait_until, CommandCase, HookAnswer, PrivateFolder, ProbeError, Seen,
};
use gatehouse_harness::terminal::Terminal;

use self::private::PrivateOpenCode;
use gatehouse_harness::executable::VersionError;
use gatehouse_harness::record::ProbeRecord;

use crate::AGENT;
use crate::{events, verdict};

/// The first line of OpenCode 1.18.33's permission prompt.
pub const PERMISSION_PROMPT_TEXT: &str = "Permission required";

/// The footer of OpenCode's question prompt.
pub const QUESTION_PROMPT_TEXT: &str = "esc dismiss";

/// OpenCode's footer, shown when it is ready and while it works.
pub const FOOTER_TEXT: &str = "ctrl+p commands";

/// OpenCode's hint while it works on a turn.
pub const BUSY_TEXT: &str = "esc interrupt";

/// What OpenCode tells the model for a request rejected with a message, before the message.
pub const REJECTED_WITH_FEEDBACK: &str =
    "The user rejected permission to use this specific tool call with the following feedback: ";

/// The question the `question` case asks, and the answer gatehouse gives.
pub const PROBE_QUESTION: &str = "Which color?";
pub const PROBE_ANSWER: &str = "Red";

/// Whether OpenCode's screen shows it ready for the next message: its footer, and no prompt,
/// question or turn in progress.
pub fn is_ready(screen: &str) -> bool {
    screen.contains(FOOTER_TEXT)
        && !screen.contains(BUSY_TEXT)
        && !screen.contains(PERMISSION_PROMPT_TEXT)
        && !screen.contains(QUESTION_PROMPT_TEXT)
}

/// Why the probe could not run at all (a case that fails is not an error: it is in the record).
#[derive(Debug, thiserror::Error)]
pub enum OpenCodeProbeError {
    #[error(transparent)]
    Probe(#[from] ProbeError),
    #[error("{0}")]
    PluginPackage(String),
}

/// One case of the probe.
enum Case {
    /// `allow`, `deny` or `no-verdict`: the kit's standard case.
    Standard(CommandCase),
    /// `always`: the call answered `always`, then `again`, which must run unasked.
    Always {
        first: CommandCase,
        again: CommandCase,
    },
    /// `question`: the call asks [`PROBE_QUESTION`].
    Question { call: ScriptedCall },
}

impl Case {
    fn name(&self) -> &'static str {
        match self {
            Case::Standard(case) => case.name,
            Case::Always { .. } => "always",
            Case::Question { .. } => "question",
        }
    }

    fn description(&self) -> String {
        match self {
            Case::Standard(case) => case.answer.describe("OpenCode", "prompt"),
            Case::Always { .. } => "gatehouse answers always; the command must run, and then another printf command must run with no prompt (OpenCode approved `printf *`)".into(),
            Case::Question { .. } => format!("the model asks a question and gatehouse answers {PROBE_ANSWER}; the model must read that answer"),
        }
    }
}

/// The cases in order, their commands writing into `workspace`, and the model's script.
fn cases(workspace: &Path) -> (Vec<Case>, Vec<ScriptedCall>) {
    let mut standard = driver::standard_cases(workspace).into_iter();
    let (allow, deny, no_verdict) = (
        standard.next().expect("allow"),
        standard.next().expect("deny"),
        standard.next().expect("no-verdict"),
    );
    let command_case = |name: &'static str, answer: HookAnswer| {
        let marker_name = format!("gatehouse-probe-{name}.txt");
        CommandCase {
            name,
            answer,
            call: ScriptedCall {
                call_id: format!("call_probe_{}", name.replace('-', "_")),
                command: format!("printf {name} > {marker_name}"),
                reason: format!("gatehouse probe, case {name}"),
            },
            marker: workspace.join(marker_name),
        }
    };
    let first = command_case("always", HookAnswer::Allow);
    let again = command_case("always-again", HookAnswer::NoVerdict);
    let question = model::question_call("probe", PROBE_QUESTION);
    // `always` comes last: it approves `printf *` for the rest of OpenCode's life, and every
    // other case asks to run a `printf` command.
    let script = vec![
        allow.call.clone(),
        deny.call.clone(),
        no_verdict.call.clone(),
        question.clone(),
        first.call.clone(),
        again.call.clone(),
    ];
    let cases = vec![
        Case::Standard(allow),
        Case::Standard(deny),
        Case::Standard(no_verdict),
        Case::Question { call: question },
        Case::Always { first, again },
    ];
    (cases, script)
}

/// Runs the probe against `options.executable`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, OpenCodeProbeError> {
    let version_error = |error: VersionError| ProbeError::Version(error.to_string());
    let opencode = fs::canonicalize(&options.executable)
        .map_err(|error| VersionError::CannotRun {
            program: options.executable.clone(),
            problem: error.to_string(),
        })
        .map_err(version_error)?;
    let opencode_version = AGENT
        .executable
        .version_of(&opencode)
        .map_err(version_error)?;
    let plugin_package =
        find_plugin_package(&opencode).map_err(OpenCodeProbeError::PluginPackage)?;
    progress(&format!(
        "Probing OpenCode {opencode_version} ({}) in a private folder, with gatehouse's plugin and a scripted model on loopback: no account, network or tokens are used.",
        opencode.display()
    ));
    let folder = PrivateFolder::create("gatehouse-probe-")?;
    let workspace = folder.root.join("workspace");
    let (cases, script) = cases(&workspace);
    let fake = model::start(script).map_err(ProbeError::FakeModel)?;
    let private = PrivateOpenCode::prepare(&folder.root, &fake.base_url(), &plugin_package)
        .map_err(ProbeError::Folder)?;

    progress("Starting OpenCode in a private terminal (tmux)...");
    let program = opencode.display().to_string();
    let terminal = Terminal::start(
        "probe",
        &private.workspace,
        &private.environment(),
        &[&program],
    )
    .map_err(ProbeError::from)?;
    terminal
        .wait_for_screen(options.start_deadline, is_ready)
        .map_err(|screen| ProbeError::DidNotStart {
            agent: "OpenCode",
            deadline: options.start_deadline,
            screen,
        })?;

    let results = driver::run_cases(
        &cases,
        progress,
        |case| (case.name(), case.description()),
        |case| check_case(&terminal, &fake, &private, case, options.case_deadline),
        // Leave OpenCode ready for the next case whatever happened: Esc ends a prompt or a turn.
        || {
            let _ = private.hook.answer_with("");
            terminal.send_keys(&["Escape"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(10), is_ready);
        },
    );
    exit(&terminal, Duration::from_secs(20));
    drop(terminal);
    Ok(ProbeRecord {
        agent: AGENT.id,
        version: opencode_version,
        executable: opencode,
        probed_at: driver::now(),
        passed: results.iter().all(|result| result.passed),
        cases: results,
        gatehouse_version: env!("CARGO_PKG_VERSION").into(),
    })
}

/// Ends OpenCode (Esc, then Ctrl-C at its input box) and waits up to `deadline` for it to be
/// gone, so that nothing of it still writes into its private home when that is removed.
pub fn exit(terminal: &Terminal, deadline: Duration) {
    let started = Instant::now();
    terminal.send_keys(&["Escape"]);
    while !terminal.is_dead() && started.elapsed() < deadline {
        terminal.send_keys(&["C-c"]);
        let _ = wait_until(Duration::from_secs(2), || terminal.is_dead());
    }
    terminal.kill();
}

/// `gatehouse probe opencode`: the probe above, as the binary runs it for any adapter.
pub struct OpenCodeProbe;

impl AgentProbe for OpenCodeProbe {
    fn executable_name(&self) -> &'static str {
        "opencode"
    }

    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError> {
        AGENT.run_probe(request, |options| run(options, progress))
    }
}

/// What `gatehouse hook opencode` prints for `verdict` on `prompt`; nothing for no verdict.
fn rendered(prompt: &NewPrompt, verdict: Option<Verdict>) -> String {
    verdict
        .map(|verdict| verdict::render(prompt, &verdict))
        .unwrap_or_default()
}

/// A permission prompt, as the verdicts of command cases are rendered for it.
fn bash_prompt() -> NewPrompt {
    NewPrompt {
        adapter: crate::ADAPTER_ID.into(),
        session: String::new(),
        cwd: String::new(),
        kind: PromptKind::Permission,
        tool: events::ANSWERABLE_PERMISSION.into(),
        input: serde_json::Value::Null,
        summary: String::new(),
        questions: Vec::new(),
        correlation: String::new(),
        read_only_reason: None,
        host: String::new(),
        extra: Default::default(),
    }
}

/// The question prompt as the production parser reads the `question` case's event.
fn question_prompt() -> NewPrompt {
    NewPrompt {
        kind: PromptKind::Question,
        tool: events::QUESTION_TOOL.into(),
        questions: vec![gatehouse_core::Question {
            id: "q1".into(),
            text: PROBE_QUESTION.into(),
            header: String::new(),
            multi: false,
            options: Vec::new(),
        }],
        ..bash_prompt()
    }
}

/// Sets what the hook prints, sends the case's message, and waits for the model to hand out
/// `call` and for the hook's event that `read` recognises (with the production parser).
fn ask<T>(
    terminal: &Terminal,
    fake: &ScriptedModel,
    private: &PrivateOpenCode,
    (name, call, rendered): (&str, &ScriptedCall, &str),
    left: &dyn Fn() -> Duration,
    mut read: impl FnMut(NewPrompt) -> Option<T>,
) -> Result<T, String> {
    private.hook.answer_with(rendered)?;
    let message = format!("gatehouse probe: case {name}");
    terminal.send_text(&message);
    terminal
        .wait_for_screen(left(), |screen| screen.contains(&message))
        .map_err(|_| "OpenCode did not take the typed message".to_owned())?;
    terminal.send_keys(&["Enter"]);
    wait_until(left(), || fake.served(&call.call_id))
        .map_err(|_| "OpenCode did not ask the scripted model for the turn".to_owned())?;
    private
        .hook
        .wait_for_event(left(), |line| prompt_in(line).and_then(&mut read))
        .ok_or_else(|| {
            format!(
                "gatehouse's plugin did not hand OpenCode's prompt for `{}` to the hook (or gatehouse could not read it)",
                call.command
            )
        })
}

/// The prompt in one line of the hook's log, as the production parser reads it.
fn prompt_in(line: &str) -> Option<NewPrompt> {
    match events::parse(line.as_bytes(), None, &events::HookEnvironment::default()) {
        Ok(HookEvent::Prompt { prompt, .. }) => Some(prompt),
        _ => None,
    }
}

/// Runs one case; `Ok` holds the evidence of a pass, `Err` what went wrong.
fn check_case(
    terminal: &Terminal,
    fake: &ScriptedModel,
    private: &PrivateOpenCode,
    case: &Case,
    deadline: Duration,
) -> Result<String, String> {
    let started = Instant::now();
    let left = move || deadline.saturating_sub(started.elapsed());
    match case {
        Case::Standard(case) => check_standard(terminal, fake, private, case, &left),
        Case::Always { first, again } => check_always(terminal, fake, private, first, again, &left),
        Case::Question { call } => check_question(terminal, fake, private, call, &left),
    }
}

fn check_standard(
    terminal: &Terminal,
    fake: &ScriptedModel,
    private: &PrivateOpenCode,
    case: &CommandCase,
    left: &dyn Fn() -> Duration,
) -> Result<String, String> {
    let command = &case.call.command;
    let read_as = ask(
        terminal,
        fake,
        private,
        (
            case.name,
            &case.call,
            &rendered(&bash_prompt(), case.answer.verdict()),
        ),
        left,
        |prompt| (prompt.summary == *command).then_some(prompt.summary),
    )?;
    let mut prompt_seen = false;
    if case.answer == HookAnswer::NoVerdict {
        terminal
            .wait_for_screen(left(), |screen| screen.contains(PERMISSION_PROMPT_TEXT))
            .map_err(|screen| {
                format!(
                    "with no verdict, OpenCode did not show its own prompt; last screen:\n{screen}"
                )
            })?;
        if case.marker.exists() || fake.output_for(&case.call.call_id).is_some() {
            return Err("the command ran before anyone answered OpenCode's prompt".into());
        }
        prompt_seen = true;
        // "Allow once" is selected; Enter confirms it. A key may be dropped while OpenCode draws.
        while terminal.screen().contains(PERMISSION_PROMPT_TEXT) && !left().is_zero() {
            terminal.send_keys(&["Enter"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(2).min(left()), |screen| {
                !screen.contains(PERMISSION_PROMPT_TEXT)
            });
        }
    }
    let output = driver::wait_for_output(fake, &case.call.call_id, left())
        .ok_or("OpenCode did not report the call's outcome to the model")?;
    let screen = terminal
        .wait_for_screen(left(), is_ready)
        .map_err(|screen| format!("OpenCode did not finish the turn; last screen:\n{screen}"))?;
    driver::judge(&Seen {
        case,
        agent: "OpenCode",
        dialog: "prompt",
        read_as: &read_as,
        output: &output,
        reported: output.trim().lines().next().unwrap_or("(empty)"),
        dialog_shown: prompt_seen || screen.contains(PERMISSION_PROMPT_TEXT),
        dialog_line: PERMISSION_PROMPT_TEXT,
    })
}

fn check_always(
    terminal: &Terminal,
    fake: &ScriptedModel,
    private: &PrivateOpenCode,
    first: &CommandCase,
    again: &CommandCase,
    left: &dyn Fn() -> Duration,
) -> Result<String, String> {
    let always = Verdict(Answer::Always {
        suggestion: Some("s1".into()),
        scope: Default::default(),
    });
    let shown = ask(
        terminal,
        fake,
        private,
        (
            "always",
            &first.call,
            &rendered(&bash_prompt(), Some(always)),
        ),
        left,
        |prompt| {
            (prompt.summary == first.call.command).then(|| {
                prompt
                    .extra
                    .suggestions
                    .first()
                    .map(|suggestion| suggestion.describe())
                    .unwrap_or_default()
            })
        },
    )?;
    if shown.is_empty() {
        return Err(
            "OpenCode's request named no pattern to approve, so gatehouse shows no always".into(),
        );
    }
    driver::wait_for_output(fake, &first.call.call_id, left())
        .ok_or("OpenCode did not report the call's outcome to the model")?;
    if fs::read_to_string(&first.marker).ok().as_deref() != Some("always") {
        return Err("the command did not run on gatehouse's always".into());
    }
    terminal
        .wait_for_screen(left(), is_ready)
        .map_err(|screen| format!("OpenCode did not finish the turn; last screen:\n{screen}"))?;
    // No verdict from now on: should OpenCode ask, its own prompt would wait, unanswered.
    private.hook.answer_with("")?;
    let message = "gatehouse probe: case always, again";
    terminal.send_text(message);
    terminal
        .wait_for_screen(left(), |screen| screen.contains(message))
        .map_err(|_| "OpenCode did not take the typed message".to_owned())?;
    terminal.send_keys(&["Enter"]);
    let asked_again = || {
        fs::read_to_string(&private.hook.event_log)
            .unwrap_or_default()
            .lines()
            .filter_map(prompt_in)
            .any(|prompt| prompt.summary == again.call.command)
    };
    let _ = wait_until(left(), || {
        fake.output_for(&again.call.call_id).is_some() || asked_again()
    });
    if asked_again() {
        return Err(format!(
            "OpenCode asked again for `{}` after always had approved {shown}",
            again.call.command
        ));
    }
    if fs::read_to_string(&again.marker).ok().as_deref() != Some("always-again") {
        return Err(format!("`{}` did not run after always", again.call.command));
    }
    terminal
        .wait_for_screen(left(), is_ready)
        .map_err(|screen| format!("OpenCode did not finish the turn; last screen:\n{screen}"))?;
    Ok(format!(
        "OpenCode ran `{}` on gatehouse's always, then `{}` with no prompt: always approved {shown}",
        first.call.command, again.call.command
    ))
}

fn check_question(
    terminal: &Terminal,
    fake: &ScriptedModel,
    private: &PrivateOpenCode,
    call: &ScriptedCall,
    left: &dyn Fn() -> Duration,
) -> Result<String, String> {
    let answer = Verdict(Answer::Answer {
        responses: vec![QuestionResponse {
            question: "q1".into(),
            picks: vec![PROBE_ANSWER.into()],
            text: None,
        }],
    });
    ask(
        terminal,
        fake,
        private,
        (
            "question",
            call,
            &rendered(&question_prompt(), Some(answer)),
        ),
        left,
        |prompt| {
            (prompt.kind == PromptKind::Question && prompt.summary == PROBE_QUESTION).then_some(())
        },
    )?;
    let output = driver::wait_for_output(fake, &call.call_id, left())
        .ok_or("OpenCode did not report the question's answer to the model")?;
    let expected = format!("\"{PROBE_QUESTION}\"=\"{PROBE_ANSWER}\"");
    if !output.contains(&expected) {
        return Err(format!(
            "the model did not read gatehouse's answer; OpenCode reported: {}",
            output.trim()
        ));
    }
    terminal
        .wait_for_screen(left(), is_ready)
        .map_err(|screen| format!("OpenCode did not finish the turn; last screen:\n{screen}"))?;
    Ok(format!(
        "OpenCode took gatehouse's answer and told the model: {}",
        output.trim()
    ))
}
