//! The probe's "always" case, `always-next-session`: what gatehouse's "always" for Codex is, a
//! rule in gatehouse's own rules file that counts from the next session on, checked against the
//! real Codex.
//!
//! 1. The production "always" ([`crate::verdict::render_for`]) is rendered for two commands, as
//!    the hook renders it, which writes their rules into the probe's
//!    `CODEX_HOME/rules/gatehouse.rules`: `printf always > gatehouse-probe-always.txt` (shell
//!    syntax: `["/bin/bash", "-lc", ...]`) and `cat gatehouse-probe-always-words.txt` (its
//!    words: the words form is written only for a program whose further words never run code,
//!    such as `cat`).
//! 2. In the running session, the model asks for the first command: Codex still runs the
//!    PermissionRequest hook (the rule is not read yet), whose rendered "always" allows it; it
//!    runs with no prompt of Codex's.
//! 3. `/new` starts a new session; the hook now gives no verdict, so any PermissionRequest would
//!    bring Codex's own prompt. The model asks for each command again: each must run with no
//!    PermissionRequest at all: the first writes its file again, and what `cat` printed (the
//!    file the probe wrote) reaches the model.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::{AlwaysScope, Answer, HookEvent, NewPrompt, Verdict};
use gatehouse_harness::model::ScriptedCall;
use gatehouse_harness::probe::screen::{Countdown, Session};
use gatehouse_harness::probe::{self as driver};

use super::{codex_home, APPROVAL_PROMPT_TEXT, PROBE_SHELL};
use crate::events;
use crate::verdict::{self, RulesTarget};

/// The "always" case: its calls and the files they write.
#[derive(Debug, Clone)]
pub struct AlwaysCase {
    pub name: &'static str,
    /// The shell-syntax command in the running session, answered "always" by the hook.
    pub first: ScriptedCall,
    /// The same command after `/new`.
    pub shell_again: ScriptedCall,
    /// The simple command after `/new` (its rule was written with the first): `cat` of
    /// [`Self::words_marker`], which the probe writes with [`WORDS_MARKER_TEXT`].
    pub words_again: ScriptedCall,
    pub shell_marker: PathBuf,
    pub words_marker: PathBuf,
}

/// What the probe writes into the file the words command reads, and looks for in its output.
pub const WORDS_MARKER_TEXT: &str = "gatehouse probe: read by cat";

impl AlwaysCase {
    pub fn new(workspace: &Path) -> AlwaysCase {
        let name = crate::record::ALWAYS_CASES[0];
        let call = |id: &str, command: &str| ScriptedCall {
            call_id: format!("call_probe_always_{id}"),
            command: command.into(),
            reason: format!("gatehouse probe, case {name}"),
        };
        let shell = "printf always > gatehouse-probe-always.txt";
        let words = "cat gatehouse-probe-always-words.txt";
        AlwaysCase {
            name,
            first: call("first", shell),
            shell_again: call("shell_next_session", shell),
            words_again: call("words_next_session", words),
            shell_marker: workspace.join("gatehouse-probe-always.txt"),
            words_marker: workspace.join("gatehouse-probe-always-words.txt"),
        }
    }

    pub fn calls(&self) -> Vec<ScriptedCall> {
        vec![
            self.first.clone(),
            self.shell_again.clone(),
            self.words_again.clone(),
        ]
    }

    pub fn description(&self) -> String {
        "gatehouse answers \"always\": the command runs now, and after /new the rules gatehouse wrote let the same commands run with no PermissionRequest".into()
    }
}

/// Whether `call` ran in the next session: the shell command wrote its file again, and what
/// `cat` printed (the file the probe wrote) is in the output Codex gave the model.
fn ran(case: &AlwaysCase, call: &ScriptedCall, output: &str) -> bool {
    if call.call_id == case.words_again.call_id {
        output.contains(WORDS_MARKER_TEXT)
    } else {
        fs::read_to_string(&case.shell_marker).ok().as_deref() == Some("always")
    }
}

/// The prompt gatehouse's hook would make of a PermissionRequest for `command`.
fn prompt_for(command: &str, cwd: &Path) -> Result<NewPrompt, String> {
    let event = serde_json::json!({
        "hook_event_name": "PermissionRequest", "session_id": "probe",
        "cwd": cwd.display().to_string(),
        "tool_name": events::ANSWERABLE_TOOL, "tool_input": { "command": command },
    });
    match events::parse_with(event.to_string().as_bytes(), &|| Some(PROBE_SHELL.into())) {
        Ok(HookEvent::Prompt { prompt, .. }) if !prompt.extra.suggestions.is_empty() => Ok(prompt),
        Ok(HookEvent::Prompt { prompt, .. }) => Err(format!(
            "gatehouse offers no \"always\" for `{command}`: {}",
            prompt
                .extra
                .preview
                .map(|note| note.text)
                .unwrap_or_default()
        )),
        other => Err(format!("gatehouse did not read a prompt: {other:?}")),
    }
}

/// Runs the case; `Ok` holds the evidence of a pass, `Err` what went wrong.
pub fn check(session: &Session<'_>, case: &AlwaysCase) -> Result<String, String> {
    let (terminal, fake, private) = (session.terminal, session.model, session.private);
    let left = Countdown::start(session.case_deadline);
    let rules_file = codex_home(private)
        .join("rules")
        .join(crate::rules::RULES_FILE_NAME);
    let target = RulesTarget {
        path: Some(&rules_file),
        shell: Some(PROBE_SHELL),
    };
    let always = Verdict(Answer::Always {
        suggestion: Some("s1".into()),
        scope: AlwaysScope::User,
    });
    let shell_prompt = prompt_for(&case.first.command, &private.workspace)?;
    let words_prompt = prompt_for(&case.words_again.command, &private.workspace)?;
    let rendered = verdict::render_for(&shell_prompt, &always, &target);
    let words_rendered = verdict::render_for(&words_prompt, &always, &target);
    for output in [&rendered, &words_rendered] {
        if !output.contains("a rule for this command was added") {
            return Err(format!(
                "gatehouse's \"always\" did not write its rule: {output}"
            ));
        }
    }
    let rules = fs::read_to_string(&rules_file).unwrap_or_default();

    // The running session: Codex has not read the rule, so it asks the hook, which allows.
    session
        .ask((case.name, &case.first), &rendered, &left, |prompt| {
            (session.screen.is_call)(&prompt, &case.first.command).then_some(())
        })
        .map_err(|problem| format!("in the running session: {problem}"))?;
    driver::wait_for_output(fake, &case.first.call_id, left.left())
        .ok_or("in the running session, Codex did not report the allowed command to the model")?;
    let screen = session.wait_until_ready(&left)?;
    if screen.contains(APPROVAL_PROMPT_TEXT) {
        return Err("Codex showed its own prompt although the hook allowed".into());
    }
    if fs::read_to_string(&case.shell_marker).ok().as_deref() != Some("always") {
        return Err("in the running session, the allowed command did not run".into());
    }
    fs::remove_file(&case.shell_marker).map_err(|error| error.to_string())?;
    fs::write(&case.words_marker, WORDS_MARKER_TEXT).map_err(|error| error.to_string())?;

    // A new session reads the rules; any PermissionRequest now would bring Codex's prompt.
    private.hook.answer_with("")?;
    let asked_before = session.events_for(&case.first.command);
    session.send_message("/new", &left)?;
    let typed = format!("gatehouse probe: case {}", case.name);
    terminal
        .wait_for_screen(left.left(), |screen| {
            session.screen.is_ready(screen) && !screen.contains(&typed)
        })
        .map_err(|screen| {
            format!("Codex did not start a new session with /new; last screen:\n{screen}")
        })?;

    let mut seen = Vec::new();
    for call in [&case.shell_again, &case.words_again] {
        let message = format!("gatehouse probe: next session, `{}`", call.command);
        terminal.send_text(&message);
        terminal
            .wait_for_screen(left.left(), |screen| screen.contains(&message))
            .map_err(|_| "Codex did not take the typed message")?;
        // Codex may drop a key while it sets up the new session: Enter again until the
        // message went to the model.
        driver::wait_until(left.left(), || {
            terminal.send_keys(&["Enter"]);
            driver::wait_until(Duration::from_secs(3), || fake.served(&call.call_id)).is_ok()
        })
        .map_err(|_| format!("Codex did not send `{message}` to the model"))?;
        let mut output = None;
        let mut prompted = false;
        let _ = driver::wait_until(left.left(), || {
            output = fake.output_for(&call.call_id);
            prompted = terminal.screen().contains(APPROVAL_PROMPT_TEXT);
            output.is_some() || prompted
        });
        if prompted {
            return Err(format!(
                "after /new, Codex still asked about `{}`: the rule gatehouse wrote was not applied. The rules file:\n{rules}",
                call.command
            ));
        }
        let output = output.ok_or_else(|| {
            format!(
                "after /new, Codex did not report `{}` to the model (the model {} it); last screen:\n{}",
                call.command,
                if fake.served(&call.call_id) { "had asked for" } else { "was never asked for" },
                terminal.screen()
            )
        })?;
        if !ran(case, call, &output) {
            return Err(format!(
                "after /new, `{}` did not run; Codex reported: {output}",
                call.command
            ));
        }
        session.wait_until_ready(&left)?;
        seen.push(format!("`{}`", call.command));
    }
    if session.events_for(&case.first.command) != asked_before
        || session.events_for(&case.words_again.command) != 0
    {
        return Err("after /new, Codex still ran the PermissionRequest hook for a command gatehouse's rule allows".into());
    }
    Ok(format!(
        "the running session still asked and gatehouse's \"always\" allowed it; after /new, {} ran with no PermissionRequest, by the rules gatehouse wrote:\n{}",
        seen.join(" and "),
        rules.trim_end()
    ))
}
