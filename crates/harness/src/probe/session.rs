//! One running agent under probe ([`Session`]): its screen, terminal, scripted model and private
//! home, and the steps every case takes there: type a message and send it, wait for the hook's
//! event, answer the agent's own dialog, wait for the outcome the model got, judge. A case is a
//! [`ProbeCase`]: the kit's standard [`CommandCase`], or one of the agent's own.

use std::time::{Duration, Instant};

use gatehouse_core::{HookEvent, NewPrompt};

use super::screen::{AgentScreen, PrivateHome};
use super::{judge, run_cases, wait_until, CaseResult, CommandCase, HookAnswer, Seen};
use crate::model::{ScriptedCall, ScriptedModel};
use crate::terminal::Terminal;

/// The time left to a case: its deadline counted from its start.
#[derive(Debug, Clone, Copy)]
pub struct Countdown {
    started: Instant,
    deadline: Duration,
}

impl Countdown {
    /// A countdown of `deadline` from now.
    pub fn start(deadline: Duration) -> Countdown {
        Countdown {
            started: Instant::now(),
            deadline,
        }
    }

    /// The time left; zero once the deadline passed.
    pub fn left(&self) -> Duration {
        self.deadline.saturating_sub(self.started.elapsed())
    }
}

/// One case of a probe, as [`super::screen::AgentScreen::probe_cases`] runs it.
pub trait ProbeCase {
    /// The case's name in the record, such as `allow`.
    fn name(&self) -> &str;
    /// What the case checks, for the progress line.
    fn description(&self, screen: &AgentScreen) -> String;
    /// The calls the scripted model hands out for this case, in order.
    fn calls(&self) -> Vec<ScriptedCall>;
    /// Runs the case; `Ok` holds the evidence of a pass, `Err` what went wrong.
    fn check(&self, session: &Session<'_>) -> Result<String, String>;
}

impl ProbeCase for CommandCase {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self, screen: &AgentScreen) -> String {
        self.answer.describe(screen.agent, screen.dialog)
    }

    fn calls(&self) -> Vec<ScriptedCall> {
        vec![self.call.clone()]
    }

    fn check(&self, session: &Session<'_>) -> Result<String, String> {
        session.check_command(self)
    }
}

/// One running agent under probe.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    pub screen: &'a AgentScreen,
    pub terminal: &'a Terminal,
    pub model: &'a ScriptedModel,
    pub private: &'a PrivateHome,
    /// How long each case may take.
    pub case_deadline: Duration,
}

impl Session<'_> {
    /// Runs `cases` in turn, reporting each; after a failed case, the hook gives no verdict and
    /// Esc leaves the agent ready for the next.
    pub fn run_cases<C: ProbeCase>(
        &self,
        cases: &[C],
        progress: &mut dyn FnMut(&str),
    ) -> Vec<CaseResult> {
        run_cases(
            cases,
            progress,
            |case| (case.name(), case.description(self.screen)),
            |case| case.check(self),
            || {
                let _ = self.private.hook.answer_with(self.screen.no_verdict);
                self.terminal.send_keys(&["Escape"]);
                let _ = self
                    .terminal
                    .wait_for_screen(Duration::from_secs(10), |screen| {
                        self.screen.is_ready(screen)
                    });
            },
        )
    }

    /// Types `message` into the agent's input box and sends it.
    pub fn send_message(&self, message: &str, left: &Countdown) -> Result<(), String> {
        self.terminal.send_text(message);
        self.terminal
            .wait_for_screen(left.left(), |screen| screen.contains(message))
            .map_err(|_| format!("{} did not take the typed message", self.screen.agent))?;
        self.terminal.send_keys(&["Enter"]);
        Ok(())
    }

    /// Waits until the agent is ready for the next message: the turn is over.
    pub fn wait_until_ready(&self, left: &Countdown) -> Result<String, String> {
        self.terminal
            .wait_for_screen(left.left(), |screen| self.screen.is_ready(screen))
            .map_err(|screen| {
                format!(
                    "{} did not finish the turn; last screen:\n{screen}",
                    self.screen.agent
                )
            })
    }

    /// The start of a case: sets what the hook prints (`rendered`), types the case's message
    /// (`name`) into the agent and sends it, then waits for the model to hand out `call` and for
    /// the hook's event of it, the prompt the production parser read, which `read` recognises.
    /// Returns what `read` made of the prompt; `Err` says which step failed.
    pub fn ask<T>(
        &self,
        (name, call): (&str, &ScriptedCall),
        rendered: &str,
        left: &Countdown,
        mut read: impl FnMut(NewPrompt) -> Option<T>,
    ) -> Result<T, String> {
        let AgentScreen {
            agent, event_name, ..
        } = *self.screen;
        self.private.hook.answer_with(rendered)?;
        let message = format!("gatehouse probe: case {name}");
        self.send_message(&message, left)?;
        // An agent may drop the Enter while it draws: again while the message sits there.
        wait_until(left.left(), || {
            let served = wait_until(Duration::from_secs(3).min(left.left()), || {
                self.model.served(&call.call_id)
            });
            if served.is_err() && (self.screen.still_typed)(&self.terminal.screen(), &message) {
                self.terminal.send_keys(&["Enter"]);
            }
            served.is_ok()
        })
        .map_err(|_| format!("{agent} did not ask the scripted model for the turn"))?;
        self.private
            .hook
            .wait_for_event(left.left(), |line| self.prompt_in(line).and_then(&mut read))
            .ok_or_else(|| {
                format!(
                    "{agent} did not run the {event_name} hook for `{}` (or gatehouse could not read it)",
                    call.command
                )
            })
    }

    /// The prompt in one line of the hook's log, as the production parser reads it.
    pub fn prompt_in(&self, line: &str) -> Option<NewPrompt> {
        match (self.screen.parse)(line.as_bytes()) {
            Ok(HookEvent::Prompt { prompt, .. }) => Some(prompt),
            _ => None,
        }
    }

    /// How many of the hook's events are prompts of `command`.
    pub fn events_for(&self, command: &str) -> usize {
        std::fs::read_to_string(&self.private.hook.event_log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| self.prompt_in(line))
            .filter(|prompt| (self.screen.is_call)(prompt, command))
            .count()
    }

    /// Runs one standard case; `Ok` holds the evidence of a pass, `Err` what went wrong.
    pub fn check_command(&self, case: &CommandCase) -> Result<String, String> {
        let AgentScreen {
            agent,
            dialog,
            dialog_text,
            ..
        } = *self.screen;
        let (terminal, model) = (self.terminal, self.model);
        let left = Countdown::start(self.case_deadline);
        let command = &case.call.command;
        let read_as = self.ask(
            (case.name, &case.call),
            &self.screen.rendered(case.answer.verdict()),
            &left,
            |prompt| (self.screen.is_call)(&prompt, command).then_some(prompt.summary),
        )?;
        let mut dialog_line = String::new();
        if case.answer == HookAnswer::NoVerdict {
            let screen = terminal
                .wait_for_screen(left.left(), |screen| screen.contains(dialog_text))
                .map_err(|screen| format!("with no verdict, {agent} did not show its own {dialog}; last screen:\n{screen}"))?;
            if case.marker.exists() || model.output_for(&case.call.call_id).is_some() {
                return Err(format!(
                    "the command ran before anyone answered {agent}'s {dialog}"
                ));
            }
            dialog_line = screen
                .lines()
                .find(|line| line.contains(dialog_text))
                .unwrap_or_default()
                .trim()
                .to_owned();
            // The agent may drop a key while it draws: Yes until the dialog is gone.
            while terminal.screen().contains(dialog_text) && !left.left().is_zero() {
                terminal.send_keys(self.screen.yes_keys);
                let _ = terminal
                    .wait_for_screen(Duration::from_secs(2).min(left.left()), |screen| {
                        !screen.contains(dialog_text)
                    });
            }
        }
        // Until the model has the call's outcome, watch for a dialog the hook's answer should
        // have kept away.
        let mut dialog_shown = false;
        let _ = wait_until(left.left(), || {
            dialog_shown |= self.screen.watch_for_dialog
                && case.answer != HookAnswer::NoVerdict
                && terminal.screen().contains(dialog_text);
            model.output_for(&case.call.call_id).is_some()
        });
        let output = model.output_for(&case.call.call_id).ok_or_else(|| {
            format!(
                "{agent} did not report the call's outcome to the model; last screen:\n{}",
                terminal.screen()
            )
        })?;
        let screen = self.wait_until_ready(&left)?;
        judge(
            self.screen,
            &Seen {
                case,
                read_as: &read_as,
                output: &output,
                dialog_shown: dialog_shown
                    || !dialog_line.is_empty()
                    || screen.contains(dialog_text),
                dialog_line: &dialog_line,
            },
        )
    }
}
