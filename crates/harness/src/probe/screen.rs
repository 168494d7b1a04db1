//! The standard probe against an agent's interactive terminal, for agents whose screen, keys and
//! private home are all that differ: the agent states its [`AgentScreen`] (its dialog and ready
//! texts, the keys that say Yes, how it quits, its production parser and renderer) and
//! [`AgentScreen::probe`] runs the whole probe: the private folder, the scripted model, the
//! agent in tmux, the kit's standard cases (judged by [`super::judge`]) and the record.

use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use gatehouse_core::{HookEvent, ParseError, Verdict};

use super::{ask, judge, run_cases, wait_for_output, CaseResult, CommandCase, HookAnswer};
use super::{standard_cases, PrivateFolder, ProbeError, ProbeHook, ProbeOptions, Seen};
use crate::gated::AgentDescription;
use crate::model::{ScriptedCall, ScriptedModel};
use crate::record::ProbeRecord;
use crate::terminal::Terminal;

/// The probe's private folders, which the agent fills with its own settings (running the probe's
/// `hook` for its permission event) before it starts.
#[derive(Debug)]
pub struct PrivateHome {
    /// The agent's `HOME`, made empty.
    pub home: PathBuf,
    /// The folder the agent runs in, where the cases' commands write, made empty.
    pub workspace: PathBuf,
    /// The probe's hook, which the agent's settings must run.
    pub hook: ProbeHook,
    /// The scripted model's base URL, for the agent's environment or settings.
    pub base_url: String,
    /// The `PATH` the agent runs with.
    pub path: String,
}

/// What a probe must know of an agent's terminal and hook to run the standard cases.
#[derive(Debug, Clone, Copy)]
pub struct AgentScreen {
    /// The agent's name in the evidence, such as `Qwen`.
    pub agent: &'static str,
    /// What the agent calls its own prompt, such as `dialog`.
    pub dialog: &'static str,
    /// The agent's name of the hook event the probe's hook answers, such as `PermissionRequest`.
    pub event_name: &'static str,
    /// Text on the screen while the agent's own dialog is shown.
    pub dialog_text: &'static str,
    /// Text on the screen while the agent waits for the next message.
    pub ready_text: &'static str,
    /// The keys that say Yes, once, in the agent's dialog.
    pub yes_keys: &'static [&'static str],
    /// What the agent's input box takes to quit, such as `/quit`.
    pub quit_command: &'static str,
    /// The adapter's production parser of one hook event.
    pub parse: fn(&[u8]) -> Result<HookEvent, ParseError>,
    /// The adapter's production rendering of a verdict.
    pub render: fn(&Verdict) -> String,
    /// The line of what the agent reported to the model to quote in the evidence.
    pub reported: fn(&str) -> &str,
    /// The agent's arguments after its executable in the probe's terminal.
    pub arguments: &'static [&'static str],
    /// A dialog the agent may show at start (its text) and the keys that dismiss it.
    pub at_start: Option<(&'static str, &'static [&'static str])>,
}

/// The first line of a report that is not blank, for [`AgentScreen::reported`].
pub fn first_line(output: &str) -> &str {
    output
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("(empty)")
}

impl AgentScreen {
    /// Whether the agent shows its input box and no dialog.
    pub fn is_ready(&self, screen: &str) -> bool {
        screen.contains(self.ready_text) && !screen.contains(self.dialog_text)
    }

    /// The whole standard probe of `agent` at `options.executable`: a private folder that
    /// `prepare` fills (returning the agent's environment), the scripted model that `start_model`
    /// starts with the cases' calls, the agent in tmux, the standard cases, and the record.
    pub fn probe(
        &self,
        agent: &AgentDescription,
        options: &ProbeOptions,
        progress: &mut dyn FnMut(&str),
        start_model: fn(Vec<ScriptedCall>) -> io::Result<ScriptedModel>,
        prepare: impl FnOnce(&PrivateHome) -> io::Result<Vec<(String, String)>>,
    ) -> Result<ProbeRecord, ProbeError> {
        let cannot_probe = |problem: String| {
            ProbeError::Version(format!(
                "{} cannot be probed: {problem}",
                options.executable.display()
            ))
        };
        let executable = std::fs::canonicalize(&options.executable)
            .map_err(|error| cannot_probe(error.to_string()))?;
        let version = agent
            .executable
            .version_of(&executable)
            .map_err(|error| ProbeError::Version(error.to_string()))?;
        progress(&format!(
            "Probing {} {version} ({}) in a private folder, with a scripted model on loopback: no account, network or tokens are used.",
            agent.name,
            executable.display()
        ));
        let folder = PrivateFolder::create("gatehouse-probe-")?;
        let private = PrivateHome {
            home: folder.root.join("home"),
            workspace: folder.root.join("workspace"),
            hook: ProbeHook::write(&folder.root, self.event_name, true)
                .map_err(ProbeError::Folder)?,
            base_url: String::new(),
            path: std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()),
        };
        for made in [&private.home, &private.workspace] {
            std::fs::create_dir_all(made).map_err(ProbeError::Folder)?;
        }
        let cases = standard_cases(&private.workspace);
        let model = start_model(cases.iter().map(|case| case.call.clone()).collect())
            .map_err(ProbeError::FakeModel)?;
        let private = PrivateHome {
            base_url: model.base_url(),
            ..private
        };
        let environment = prepare(&private).map_err(ProbeError::Folder)?;

        progress(&format!(
            "Starting {} in a private terminal (tmux)...",
            agent.name
        ));
        let mut command = vec![executable.display().to_string()];
        command.extend(self.arguments.iter().map(|argument| argument.to_string()));
        let command: Vec<&str> = command.iter().map(String::as_str).collect();
        let terminal = Terminal::start("probe", &private.workspace, &environment, &command)?;
        self.wait_until_ready(&terminal, options.start_deadline)
            .map_err(|screen| ProbeError::DidNotStart {
                agent: agent.name,
                deadline: options.start_deadline,
                screen,
            })?;
        let results = self.run_cases(
            &terminal,
            &model,
            &private.hook,
            &cases,
            options.case_deadline,
            progress,
        );
        self.quit(&terminal, Duration::from_secs(15));
        drop(terminal);
        Ok(super::record_of(agent.id, (executable, version), results))
    }

    /// Waits for the agent's input box, dismissing its start dialog ([`Self::at_start`]) should
    /// it come; `Err` holds the last screen.
    pub fn wait_until_ready(
        &self,
        terminal: &Terminal,
        deadline: Duration,
    ) -> Result<String, String> {
        let started = Instant::now();
        loop {
            let left = deadline.saturating_sub(started.elapsed());
            let screen = terminal.wait_for_screen(left, |screen| {
                self.is_ready(screen)
                    || self.at_start.is_some_and(|(text, _)| screen.contains(text))
            })?;
            let Some((text, keys)) = self.at_start.filter(|(text, _)| screen.contains(text)) else {
                return Ok(screen);
            };
            terminal.send_keys(keys);
            let _ = terminal.wait_for_screen(Duration::from_secs(2).min(left), |screen| {
                !screen.contains(text)
            });
        }
    }

    /// Runs the standard `cases` in `terminal`, whose agent asks `model` and runs `hook`; after a
    /// failed case, Esc leaves the agent ready for the next.
    pub fn run_cases(
        &self,
        terminal: &Terminal,
        model: &ScriptedModel,
        hook: &ProbeHook,
        cases: &[CommandCase],
        case_deadline: Duration,
        progress: &mut dyn FnMut(&str),
    ) -> Vec<CaseResult> {
        run_cases(
            cases,
            progress,
            |case| (case.name, case.answer.describe(self.agent, self.dialog)),
            |case| self.check_case(terminal, model, hook, case, case_deadline),
            || {
                terminal.send_keys(&["Escape"]);
                let _ = terminal
                    .wait_for_screen(Duration::from_secs(10), |screen| self.is_ready(screen));
            },
        )
    }

    /// Quits the agent with its quit command and waits up to `deadline` for it to be gone, so
    /// that it writes nothing into a private home that is removed next.
    pub fn quit(&self, terminal: &Terminal, deadline: Duration) {
        let started = Instant::now();
        // Esc closes a dialog, if one is open; then the input box takes the command.
        terminal.send_keys(&["Escape"]);
        terminal.send_text(self.quit_command);
        let _ = terminal.wait_for_screen(Duration::from_secs(5), |screen| {
            screen.contains(self.quit_command)
        });
        terminal.send_keys(&["Enter"]);
        while !terminal.is_dead() && started.elapsed() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs one case; `Ok` holds the evidence of a pass, `Err` what went wrong.
    fn check_case(
        &self,
        terminal: &Terminal,
        model: &ScriptedModel,
        hook: &ProbeHook,
        case: &CommandCase,
        deadline: Duration,
    ) -> Result<String, String> {
        let (agent, dialog) = (self.agent, self.dialog);
        let started = Instant::now();
        let left = || deadline.saturating_sub(started.elapsed());
        let rendered = case
            .answer
            .verdict()
            .as_ref()
            .map(self.render)
            .unwrap_or_default();
        let read_as = ask(
            terminal,
            model,
            hook,
            case,
            &rendered,
            (agent, self.event_name),
            left,
            |line| match (self.parse)(line.as_bytes()) {
                Ok(HookEvent::Prompt { prompt, .. }) if prompt.summary == case.call.command => {
                    Some(prompt.summary)
                }
                _ => None,
            },
        )?;
        let mut dialog_line = String::new();
        if case.answer == HookAnswer::NoVerdict {
            let screen = terminal
                .wait_for_screen(left(), |screen| screen.contains(self.dialog_text))
                .map_err(|screen| format!("with no verdict, {agent} did not show its own {dialog}; last screen:\n{screen}"))?;
            if case.marker.exists() || model.output_for(&case.call.call_id).is_some() {
                return Err(format!(
                    "the command ran before anyone answered {agent}'s {dialog}"
                ));
            }
            dialog_line = screen
                .lines()
                .find(|line| line.contains(self.dialog_text))
                .unwrap_or_default()
                .trim()
                .to_owned();
            // The agent may drop a key while it draws: Yes until the dialog is gone.
            while terminal.screen().contains(self.dialog_text) && !left().is_zero() {
                terminal.send_keys(self.yes_keys);
                let _ = terminal.wait_for_screen(Duration::from_secs(2).min(left()), |screen| {
                    !screen.contains(self.dialog_text)
                });
            }
        }
        let output = wait_for_output(model, &case.call.call_id, left())
            .ok_or_else(|| format!("{agent} did not report the call's outcome to the model"))?;
        let screen = terminal
            .wait_for_screen(left(), |screen| self.is_ready(screen))
            .map_err(|screen| format!("{agent} did not finish the turn; last screen:\n{screen}"))?;
        judge(&Seen {
            case,
            agent,
            dialog,
            read_as: &read_as,
            output: &output,
            reported: (self.reported)(&output),
            dialog_shown: !dialog_line.is_empty() || screen.contains(self.dialog_text),
            dialog_line: &dialog_line,
        })
    }
}
