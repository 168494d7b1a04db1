//! The standard probe against an agent's interactive terminal, for agents whose screen, keys and
//! private home are all that differ: the agent states its [`AgentScreen`] (its dialog and ready
//! texts, the keys that say Yes, how it quits, its production parser and renderer) and
//! [`AgentScreen::probe`] runs the whole probe: the private folder, the scripted model, the
//! agent in tmux, the kit's standard cases (each run by [`Session::check_command`] and judged by
//! [`super::judge`]) and the record. An agent with cases of its own (Codex's patches and
//! "always", OpenCode's question) runs them beside the standard ones with
//! [`AgentScreen::probe_cases`]: each is a [`ProbeCase`] checked in the same [`Session`].

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gatehouse_core::{HookEvent, NewPrompt, ParseError, Verdict};

use super::{standard_cases, PrivateFolder, ProbeError, ProbeHook, ProbeOptions};
use crate::gated::AgentDescription;
use crate::model::{ScriptedCall, ScriptedModel};
use crate::record::ProbeRecord;
use crate::terminal::Terminal;

pub use super::session::{Countdown, ProbeCase, Session};

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

/// Starts the agent's scripted model with the calls to hand out, in order.
pub type StartModel = fn(Vec<ScriptedCall>) -> io::Result<ScriptedModel>;

/// An agent's environment, name and value.
pub type Environment = Vec<(String, String)>;

/// An agent's environment in a private `home`: `PATH` as given, `HOME`, `TERM` (xterm's), and
/// the agent's own variables, `more`.
pub fn private_environment(home: &Path, path: &str, more: &[(&str, &str)]) -> Environment {
    [
        ("PATH", path),
        ("HOME", &home.display().to_string()),
        ("TERM", "xterm-256color"),
    ]
    .iter()
    .chain(more)
    .map(|(name, value)| (name.to_string(), value.to_string()))
    .collect()
}

/// How the agent is ended at the end of a probe.
#[derive(Debug, Clone, Copy)]
pub enum Quit {
    /// A command its input box takes, such as `/quit`.
    Command(&'static str),
    /// Keys sent again and again until it is gone, such as `C-c`.
    Keys(&'static [&'static str]),
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
    /// Other texts that say the agent is not ready, though [`Self::ready_text`] shows (a turn in
    /// progress, another of its prompts).
    pub busy_texts: &'static [&'static str],
    /// Whether the agent's dialog, seen at any time while a hook that decided (allow, deny) is
    /// answered, fails the case; `false` for an agent that draws its dialog at once while its
    /// hook decides (OpenCode, whose plugin answers the dialog it shows): only the screen after
    /// the turn counts there.
    pub watch_for_dialog: bool,
    /// Whether a sent message still sits in the agent's input box (an agent that may drop the
    /// Enter while it draws, such as Gemini CLI under load): Enter is pressed again while it
    /// does and the model was not asked. Mostly never.
    pub still_typed: fn(&str, &str) -> bool,
    /// The keys that say Yes, once, in the agent's dialog.
    pub yes_keys: &'static [&'static str],
    /// How the agent is ended.
    pub quit: Quit,
    /// The adapter's production parser of one hook event.
    pub parse: fn(&[u8]) -> Result<HookEvent, ParseError>,
    /// Whether a prompt, as the parser read it, is the one of the scripted call's command.
    pub is_call: fn(&NewPrompt, &str) -> bool,
    /// The adapter's production rendering of a verdict.
    pub render: fn(&Verdict) -> String,
    /// What the adapter's hook prints without a verdict (such as Gemini's `ask`); mostly nothing.
    pub no_verdict: &'static str,
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

/// Whether the prompt's summary is the command, for [`AgentScreen::is_call`].
pub fn summary_is(prompt: &NewPrompt, command: &str) -> bool {
    prompt.summary == command
}

impl AgentScreen {
    /// An agent whose dialog is a `dialog` that Enter says Yes to, that quits with `/quit`,
    /// shows nothing at start, whose hook prints nothing without a verdict, and whose prompt's
    /// summary is the command: change what differs with `..AgentScreen::new(...)`.
    pub const fn new(
        agent: &'static str,
        event_name: &'static str,
        (dialog_text, ready_text): (&'static str, &'static str),
        parse: fn(&[u8]) -> Result<HookEvent, ParseError>,
        render: fn(&Verdict) -> String,
    ) -> AgentScreen {
        AgentScreen {
            agent,
            dialog: "dialog",
            event_name,
            dialog_text,
            ready_text,
            busy_texts: &[],
            watch_for_dialog: true,
            still_typed: |_, _| false,
            yes_keys: &["Enter"],
            quit: Quit::Command("/quit"),
            parse,
            is_call: summary_is,
            render,
            no_verdict: "",
            reported: first_line,
            arguments: &[],
            at_start: None,
        }
    }

    /// Whether the agent shows its input box and no dialog.
    pub fn is_ready(&self, screen: &str) -> bool {
        screen.contains(self.ready_text)
            && !screen.contains(self.dialog_text)
            && !self.busy_texts.iter().any(|text| screen.contains(text))
    }

    /// What the adapter's hook prints for `verdict` (none: [`Self::no_verdict`]).
    pub fn rendered(&self, verdict: Option<Verdict>) -> String {
        verdict
            .as_ref()
            .map_or_else(|| self.no_verdict.to_owned(), self.render)
    }

    /// The whole standard probe of `agent` at `options.executable`: a private folder that
    /// `prepare` fills (returning the agent's environment), the scripted model that `start_model`
    /// starts with the cases' calls, the agent in tmux, the standard cases, and the record.
    pub fn probe(
        &self,
        agent: &AgentDescription,
        options: &ProbeOptions,
        progress: &mut dyn FnMut(&str),
        start_model: StartModel,
        prepare: impl FnOnce(&PrivateHome) -> io::Result<Environment>,
    ) -> Result<ProbeRecord, ProbeError> {
        self.probe_cases(
            agent,
            options,
            progress,
            (start_model, prepare),
            standard_cases,
        )
    }

    /// [`Self::probe`] with the agent's own `cases` (made for the workspace), in order, in one
    /// session of the agent; the model hands out their calls in the same order.
    pub fn probe_cases<C: ProbeCase>(
        &self,
        agent: &AgentDescription,
        options: &ProbeOptions,
        progress: &mut dyn FnMut(&str),
        (start_model, prepare): (
            StartModel,
            impl FnOnce(&PrivateHome) -> io::Result<Environment>,
        ),
        cases: impl FnOnce(&Path) -> Vec<C>,
    ) -> Result<ProbeRecord, ProbeError> {
        let (executable, version) = super::executable_and_version(options, &agent.executable)?;
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
        let cases = cases(&private.workspace);
        let model = start_model(cases.iter().flat_map(ProbeCase::calls).collect())
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
        let session = Session {
            screen: self,
            terminal: &terminal,
            model: &model,
            private: &private,
            case_deadline: options.case_deadline,
        };
        let results = session.run_cases(&cases, progress);
        self.quit(&terminal, Duration::from_secs(20));
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

    /// Ends the agent ([`Self::quit`]) and waits up to `deadline` for it to be gone, so that it
    /// writes nothing into a private home that is removed next.
    pub fn quit(&self, terminal: &Terminal, deadline: Duration) {
        let started = Instant::now();
        // Esc closes a dialog, if one is open; then the input box takes the command.
        terminal.send_keys(&["Escape"]);
        match self.quit {
            Quit::Command(command) => {
                terminal.send_text(command);
                let _ = terminal
                    .wait_for_screen(Duration::from_secs(5), |screen| screen.contains(command));
                terminal.send_keys(&["Enter"]);
                let _ = super::wait_until(deadline.saturating_sub(started.elapsed()), || {
                    terminal.is_dead()
                });
            }
            Quit::Keys(keys) => {
                while !terminal.is_dead() && started.elapsed() < deadline {
                    terminal.send_keys(keys);
                    let _ = super::wait_until(Duration::from_secs(2), || terminal.is_dead());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use gatehouse_core::{Answer, ParseError};

    use super::*;

    const SCREEN: AgentScreen = AgentScreen {
        busy_texts: &["esc interrupt"],
        no_verdict: "ask",
        ..AgentScreen::new(
            "Agent",
            "Event",
            ("Allow?", "Type here"),
            |_| Err(ParseError::NotJson("test".into())),
            |_| "rendered".into(),
        )
    };

    #[test]
    fn ready_is_the_input_box_with_no_dialog_and_no_turn_under_way() {
        assert!(SCREEN.is_ready("> Type here"));
        assert!(!SCREEN.is_ready("Allow? 1. Yes\n> Type here"));
        assert!(!SCREEN.is_ready("> Type here  esc interrupt"));
        assert!(!SCREEN.is_ready("starting..."));
    }

    #[test]
    fn without_a_verdict_the_hook_prints_what_the_agent_needs() {
        assert_eq!(SCREEN.rendered(None), "ask");
        assert_eq!(SCREEN.rendered(Some(Verdict(Answer::Once))), "rendered");
    }

    #[test]
    fn the_private_environment_is_path_home_term_then_the_agents_own() {
        let environment = private_environment(Path::new("/h"), "/bin", &[("KEY", "unused")]);
        let names: Vec<&str> = environment.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "TERM", "KEY"]);
        assert_eq!(environment[1].1, "/h");
    }
}
