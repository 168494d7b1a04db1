//! `gatehouse probe opencode` (and `gatehouse probe kilo`, the same probe for Kilo Code CLI):
//! checks, live, whether the installed agent honours the replies of gatehouse's plugin, and
//! returns the kit's [`ProbeRecord`]. What differs per agent is its [`ProbeSetup`]: its screen,
//! its shell tool's arguments and its private configuration.
//!
//! The probe runs the real agent in its terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder ([`private`]): its own `HOME`
//! whose `~/.config/opencode` (Kilo's `~/.config/kilo`) holds a provider at a scripted
//! chat-completions API on loopback ([`model`]), the agent's plugin package (`@opencode-ai/plugin`,
//! found by [`find_plugin_package`]) and gatehouse's own plugin, the very file `gatehouse
//! install` writes, except that it runs the probe's hook instead of gatehouse. No account,
//! network or tokens are used, and the person's settings are never read or written. The probe's
//! hook saves each event the plugin hands it and prints a file the probe fills, before each
//! case, with exactly what `gatehouse hook opencode` prints in production
//! ([`crate::verdict::render`]); the saved event is read with [`crate::events::parse`], the
//! production parser. The cases, in one session of the agent:
//!
//! - `allow`: gatehouse answers `once`. Passes when the command ran.
//! - `deny`: gatehouse answers `reject` with a message. Passes when the command did not run and
//!   the model read the message.
//! - `no-verdict`: the hook prints nothing. Passes when the agent's own prompt appeared with the
//!   command not run, and its "Allow once" ran it: the agent's prompt was in charge.
//! - `question`: the model asks a question, gatehouse answers `Red`. Passes when the model read
//!   that answer.
//!
//! There is no `always` case: gatehouse never offers `always` for a `bash` prompt of the family
//! ([`crate::bash_always_withheld!`]), so there is nothing of it to prove. (Earlier probes had
//! one, which showed that the agent approves the request's `always` pattern, `printf *`; their
//! records still read, and that case unlocks nothing.)

pub mod model;
pub mod private;

pub use self::private::{find_plugin_package, offline_environment, write_config, PrivateConfig};

use std::fs;
use std::path::Path;
use std::time::Duration;

use gatehouse_core::{Answer, NewPrompt, PromptKind, QuestionResponse, Verdict};
use gatehouse_harness::gated::AgentDescription;
use gatehouse_harness::model::ScriptedCall;
use gatehouse_harness::probe::screen::{
    AgentScreen, Countdown, PrivateHome, ProbeCase, Quit, Session, StartModel,
};
pub use gatehouse_harness::probe::ProbeOptions;
pub use gatehouse_harness::probe::DENY_MESSAGE;
use gatehouse_harness::probe::{standard_cases, CommandCase, GatedProbe, ProbeError};
use gatehouse_harness::record::ProbeRecord;

use crate::{events, verdict};

/// The first line of OpenCode 1.18.33's permission prompt (Kilo Code CLI 7.7.7's too).
pub const PERMISSION_PROMPT_TEXT: &str = "Permission required";

/// The footer of OpenCode's question prompt (Kilo's too).
pub const QUESTION_PROMPT_TEXT: &str = "esc dismiss";

/// OpenCode's footer, shown when it is ready and while it works (Kilo's too).
pub const FOOTER_TEXT: &str = "ctrl+p commands";

/// OpenCode's hint while it works on a turn (Kilo's too).
pub const BUSY_TEXT: &str = "esc interrupt";

/// What OpenCode (and Kilo) tells the model for a request rejected with a message, before the
/// message.
pub const REJECTED_WITH_FEEDBACK: &str =
    "The user rejected permission to use this specific tool call with the following feedback: ";

/// The question the `question` case asks, and the answer gatehouse gives.
pub const PROBE_QUESTION: &str = "Which color?";
pub const PROBE_ANSWER: &str = "Red";

/// OpenCode's terminal, as the kit's probe drives it: its hook is gatehouse's plugin
/// (`permission.asked`), its own prompt's "Allow once" is selected, and Ctrl-C at its input box
/// ends it. OpenCode draws its prompt at once, while the plugin asks the hook and then answers
/// it: the screen after the turn tells whether the hook decided.
pub const SCREEN: AgentScreen = AgentScreen {
    quit: Quit::Keys(&["C-c"]),
    ..screen_of("OpenCode", |stdin| {
        events::parse(&crate::OPENCODE, stdin, None, &Default::default())
    })
};

/// The terminal of an agent of the family called `name` (in the evidence), whose hook reads
/// its events with `parse`: OpenCode's prompt, footer, hints and keys, which Kilo Code CLI 7.7.7
/// shares. It quits with `/quit`: change what differs with `..screen_of(...)`.
pub const fn screen_of(
    name: &'static str,
    parse: fn(&[u8]) -> Result<gatehouse_core::HookEvent, gatehouse_core::ParseError>,
) -> AgentScreen {
    AgentScreen {
        dialog: "prompt",
        watch_for_dialog: false,
        busy_texts: &[BUSY_TEXT, QUESTION_PROMPT_TEXT],
        ..AgentScreen::new(
            name,
            "permission.asked",
            (PERMISSION_PROMPT_TEXT, FOOTER_TEXT),
            parse,
            |verdict| verdict::render(&bash_prompt(), verdict),
        )
    }
}

/// Whether OpenCode's screen shows it ready for the next message: its footer, and no prompt,
/// question or turn in progress (Kilo's reads the same).
pub fn is_ready(screen: &str) -> bool {
    SCREEN.is_ready(screen)
}

/// What the probe must know of one agent of the family.
#[derive(Debug, Clone, Copy)]
pub struct ProbeSetup {
    /// The agent as the kit knows it (its record, its executable).
    pub agent: &'static AgentDescription,
    /// Its terminal.
    pub screen: AgentScreen,
    /// Starts its scripted model, with its shell tool ([`model::start_with`]).
    pub start_model: StartModel,
    /// Its private, offline configuration.
    pub config: PrivateConfig,
    /// The least time it is given to show its input box (Kilo 7.7.7 takes 15 to 25 s).
    pub start_deadline: Duration,
}

/// OpenCode's probe.
pub const OPENCODE_SETUP: ProbeSetup = ProbeSetup {
    agent: &crate::AGENT,
    screen: SCREEN,
    start_model: model::start,
    config: private::OPENCODE_CONFIG,
    start_deadline: Duration::ZERO,
};

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
    /// `question`: the call asks [`PROBE_QUESTION`].
    Question(ScriptedCall),
}

impl ProbeCase for Case {
    fn name(&self) -> &str {
        match self {
            Case::Standard(case) => case.name,
            Case::Question(_) => "question",
        }
    }

    fn description(&self, screen: &AgentScreen) -> String {
        match self {
            Case::Standard(case) => case.description(screen),
            Case::Question(_) => format!("the model asks a question and gatehouse answers {PROBE_ANSWER}; the model must read that answer"),
        }
    }

    fn calls(&self) -> Vec<ScriptedCall> {
        match self {
            Case::Standard(case) => case.calls(),
            Case::Question(call) => vec![call.clone()],
        }
    }

    fn check(&self, session: &Session<'_>) -> Result<String, String> {
        match self {
            Case::Standard(case) => session.check_command(case),
            Case::Question(call) => check_question(session, call),
        }
    }
}

/// The cases in order, their commands writing into `workspace`: the standard ones, then the
/// question.
fn cases(workspace: &Path) -> Vec<Case> {
    let mut cases: Vec<Case> = standard_cases(workspace)
        .into_iter()
        .map(Case::Standard)
        .collect();
    cases.push(Case::Question(model::question_call(
        "probe",
        PROBE_QUESTION,
    )));
    cases
}

/// Runs OpenCode's probe ([`run_for`] [`OPENCODE_SETUP`]).
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, OpenCodeProbeError> {
    run_for(&OPENCODE_SETUP, options, progress)
}

/// Runs the probe of the agent `setup` describes against `options.executable`, writing progress
/// lines with `progress`: the kit's probe with the family's cases, in a private home that holds
/// gatehouse's plugin running the probe's hook, and the agent's plugin package (found beside
/// the probed agent).
pub fn run_for(
    setup: &ProbeSetup,
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, OpenCodeProbeError> {
    let executable = fs::canonicalize(&options.executable).unwrap_or(options.executable.clone());
    let plugin_package = setup
        .config
        .find_plugin_package(&executable)
        .map_err(OpenCodeProbeError::PluginPackage)?;
    let options = ProbeOptions {
        start_deadline: options.start_deadline.max(setup.start_deadline),
        ..options.clone()
    };
    let prepare = |home: &PrivateHome| setup.config.prepare(home, &plugin_package);
    Ok(setup.screen.probe_cases(
        setup.agent,
        &options,
        progress,
        (setup.start_model, prepare),
        cases,
    )?)
}

/// `gatehouse probe opencode`: the probe above, as the binary runs it for any adapter.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const OpenCodeProbe: GatedProbe = GatedProbe {
    agent: &crate::AGENT,
    run: |options, progress| Ok(run(options, progress)?),
};

/// A permission prompt, as the verdicts of command cases are rendered for it (the renderer reads
/// its kind and questions only).
fn bash_prompt() -> NewPrompt {
    NewPrompt {
        adapter: String::new(),
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

fn check_question(session: &Session<'_>, call: &ScriptedCall) -> Result<String, String> {
    let agent = session.screen.agent;
    let left = Countdown::start(session.case_deadline);
    let answer = Verdict(Answer::Answer {
        responses: vec![QuestionResponse {
            question: "q1".into(),
            picks: vec![PROBE_ANSWER.into()],
            text: None,
        }],
    });
    session.ask(
        ("question", call),
        &verdict::render(&question_prompt(), &answer),
        &left,
        |prompt| {
            (prompt.kind == PromptKind::Question && prompt.summary == PROBE_QUESTION).then_some(())
        },
    )?;
    let output =
        gatehouse_harness::probe::wait_for_output(session.model, &call.call_id, left.left())
            .ok_or_else(|| format!("{agent} did not report the question's answer to the model"))?;
    let expected = format!("\"{PROBE_QUESTION}\"=\"{PROBE_ANSWER}\"");
    if !output.contains(&expected) {
        return Err(format!(
            "the model did not read gatehouse's answer; {agent} reported: {}",
            output.trim()
        ));
    }
    session.wait_until_ready(&left)?;
    Ok(format!(
        "{agent} took gatehouse's answer and told the model: {}",
        output.trim()
    ))
}
