//! `gatehouse probe claude`: checks, live, whether the installed Claude Code honours gatehouse's
//! answers beyond Bash: file edits, `always` from its own suggestions, and plans. It returns a
//! [`ProbeRecord`] for [`crate::record`], which unlocks each capability whose cases passed, for
//! that Claude Code version only.
//!
//! The probe runs the real Claude Code in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary home and workspace ([`home`]), against
//! the kit's scripted model on loopback speaking the Anthropic messages API ([`scripted_model`]),
//! so no account, network or tokens are used and the person's settings are never read or
//! written. The kit's driver runs the cases and makes the record. Its PermissionRequest hook is a
//! small shell script that hands each event to the probe and prints what the probe answers: the
//! probe reads the event with the production parser ([`crate::events::parse`]) and renders the
//! case's verdict with the production renderer ([`crate::verdict::render`]). So it proves the two
//! Claude-specific halves of the path; the gateway between them is the same for every agent and
//! is tested without Claude Code. The cases, each checked by its effect:
//!
//! - `write-once` / `write-deny`: a Write is allowed (the file holds the content) / denied with a
//!   message (no file; the model got the message as an error).
//! - `edit-once` / `edit-deny`: the same for an Edit (after a Read, which Claude Code requires).
//! - `always-session`: a Bash command is allowed with its own exact-command suggestion kept for
//!   the session; the same command again runs with no PermissionRequest, and no settings file is
//!   written.
//! - `plan-deny` / `plan-approve` (Claude Code started with `--permission-mode plan`; the model
//!   writes its plan file, then calls ExitPlanMode, whose event must carry that plan): a denied
//!   plan reaches the model as an error and Claude Code stays in plan mode; an approved one (the
//!   input echoed back) reaches the model as approved and plan mode ends.

pub mod home;

use std::cell::RefCell;
use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::{AlwaysScope, Answer, HookEvent, NewPrompt, Verdict};
use gatehouse_harness::model::anthropic::{tool_result_text, Anthropic, PLAN_FILE};
use gatehouse_harness::model::{ScriptedModel, ScriptedTurn, Tool};
use gatehouse_harness::probe::{self as driver, wait_until, PrivateFolder};
use gatehouse_harness::terminal::Terminal;
use serde_json::{json, Value};

use self::home::PrivateClaude;
use crate::record::{Capability, ProbeRecord, Unlock, Unlocks};
use crate::{events, verdict, version, AGENT};

/// The footer Claude Code 2.1.332 shows while idle, ready for a message.
pub const READY_TEXT: &str = "? for shortcuts";

/// The footer Claude Code shows in plan mode.
pub const PLAN_MODE_TEXT: &str = "plan mode on";

/// The message the deny cases send, which Claude Code hands to the model.
pub use gatehouse_harness::probe::DENY_MESSAGE;

/// How the probe runs: the kit's options, whose executable is the Claude Code to probe.
pub use gatehouse_harness::probe::ProbeOptions;

/// Why the probe could not run at all: the kit's.
pub use gatehouse_harness::probe::ProbeError;

/// Claude Code's Bash tool, as the scripted model's tool for commands.
pub const BASH: Tool = Tool {
    name: "Bash",
    arguments: |call| json!({ "command": call.command, "description": call.reason }),
};

/// The scripted Anthropic messages API that the probe and the end-to-end tests point Claude
/// Code at (its base URL is `ANTHROPIC_BASE_URL`), with `script`.
pub fn scripted_model(script: Vec<ScriptedTurn>) -> io::Result<ScriptedModel> {
    ScriptedModel::start_turns(Anthropic::new(BASH), script)
}

/// One case: its name, how it runs, and what it checks; the cases of each [`Capability`] are
/// named in [`Capability::cases`].
struct Case {
    name: &'static str,
    /// Whether it runs in the Claude Code started in plan mode.
    plan_mode: bool,
    run: fn(&Probing<'_>) -> Result<String, String>,
    says: &'static str,
}

const CASES: [Case; 7] = [
    Case { name: "write-once", plan_mode: false, run: write_once, says: "gatehouse allows a Write; the file must be written" },
    Case { name: "write-deny", plan_mode: false, run: write_deny, says: "gatehouse denies a Write; no file, and the model gets the message" },
    Case { name: "edit-once", plan_mode: false, run: edit_once, says: "gatehouse allows an Edit; the file must change" },
    Case { name: "edit-deny", plan_mode: false, run: edit_deny, says: "gatehouse denies an Edit; the file stays, and the model gets the message" },
    Case { name: "always-session", plan_mode: false, run: always_session, says: "gatehouse allows a command always, for the session; the same command again must not ask" },
    Case { name: "plan-deny", plan_mode: true, run: plan_deny, says: "gatehouse denies a plan; the model gets the message and Claude Code keeps planning" },
    Case { name: "plan-approve", plan_mode: true, run: plan_approve, says: "gatehouse approves a plan; the model hears it was approved and plan mode ends" },
];

/// Runs the probe against `options.executable`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, ProbeError> {
    let (claude, claude_version) = driver::executable_and_version(options, &version::CLAUDE)?;
    progress(&format!(
        "Probing Claude Code {claude_version} ({}) in a private home, with a scripted model on loopback: no account, network or tokens are used.",
        claude.display()
    ));
    let folder = PrivateFolder::create("gatehouse-probe-claude-")?;
    let private =
        PrivateClaude::prepare(&folder.root, &claude_version).map_err(ProbeError::Folder)?;
    let model = scripted_model(Vec::new()).map_err(ProbeError::FakeModel)?;
    let environment = private.environment(&model.base_url());
    let program = claude.display().to_string();

    let mut results = Vec::new();
    for plan_mode in [false, true] {
        let mut command = vec![program.as_str(), "--model", home::MODEL];
        if plan_mode {
            command.extend(["--permission-mode", "plan"]);
        }
        progress(&format!(
            "Starting Claude Code{} in a private terminal (tmux)...",
            if plan_mode { " in plan mode" } else { "" }
        ));
        let terminal = driver::start_in_terminal(
            "Claude Code",
            (&private.workspace, &environment),
            &command,
            options,
            is_idle,
        )?;
        let probing = Probing {
            terminal: &terminal,
            model: &model,
            private: &private,
            deadline: options.case_deadline,
            handled: RefCell::new(HashSet::new()),
        };
        let cases: Vec<&Case> = CASES
            .iter()
            .filter(|case| case.plan_mode == plan_mode)
            .collect();
        results.extend(driver::run_cases(
            &cases,
            progress,
            |case| (case.name, case.says.to_owned()),
            |case| {
                // Events left over from an earlier case are not this case's.
                probing.handled.borrow_mut().extend(private.event_files());
                (case.run)(&probing)
            },
            || probing.recover(),
        ));
        terminal.kill();
    }
    Ok(driver::record_of(
        crate::ADAPTER_ID,
        (claude, claude_version),
        results,
    ))
}

/// `gatehouse probe claude`: the probe above, as the binary runs it for any adapter.
pub struct ClaudeProbe;

impl AgentProbe for ClaudeProbe {
    fn executable_name(&self) -> &'static str {
        "claude"
    }

    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError> {
        let Some(claude) = request.executable.clone().or_else(version::find_on_path) else {
            return Err(version::not_found().into());
        };
        let probed = run(&ProbeOptions::new(claude), progress)?;
        probed.write(&request.state_dir)?;
        let unlocks = Unlocks::of(AGENT.unlock_of(&probed));
        let (unlocked, locked): (Vec<Capability>, Vec<Capability>) = Capability::ALL
            .into_iter()
            .partition(|capability| matches!(unlocks.gate(*capability), Unlock::Verified { .. }));
        let words = |capabilities: &[Capability]| {
            capabilities
                .iter()
                .map(|capability| capability.words())
                .collect::<Vec<_>>()
                .join("; ")
        };
        let version = &probed.version;
        let meaning = match (unlocked.is_empty(), locked.is_empty()) {
            (_, true) => format!("gatehouse now offers {} for Claude Code {version}; any other version stays as before until probed", words(&unlocked)),
            (true, _) => format!("nothing new is offered for Claude Code {version}; its edits, plans and always stay read-only"),
            _ => format!("gatehouse now offers {} for Claude Code {version}; still read-only: {}", words(&unlocked), words(&locked)),
        };
        Ok(ProbeOutcome {
            passed: probed.passed,
            record: ProbeRecord::path(&request.state_dir, crate::ADAPTER_ID),
            agent_version: probed.version,
            meaning,
        })
    }
}

/// Whether Claude Code is idle: its footer offers shortcuts (or, in plan mode, says so) and no
/// turn runs.
fn is_idle(screen: &str) -> bool {
    (screen.contains(READY_TEXT) || screen.contains(PLAN_MODE_TEXT))
        && !screen.contains("esc to interrupt")
}

/// One running Claude Code being probed.
struct Probing<'a> {
    terminal: &'a Terminal,
    model: &'a ScriptedModel,
    private: &'a PrivateClaude,
    deadline: Duration,
    /// Event files already answered or left alone.
    handled: RefCell<HashSet<PathBuf>>,
}

impl Probing<'_> {
    fn file(&self, name: &str) -> PathBuf {
        self.private.workspace.join(name)
    }

    /// Hands `turn` to the scripted model and sends a message that starts it.
    fn ask(&self, message: &str, turn: ScriptedTurn) -> Result<(), String> {
        self.terminal
            .wait_for_screen(self.deadline, is_idle)
            .map_err(|screen| {
                format!("Claude Code was not ready for a message; last screen:\n{screen}")
            })?;
        self.model.push_turn(turn);
        self.terminal.send_text(message);
        self.terminal
            .wait_for_screen(self.deadline, |screen| screen.contains(message))
            .map_err(|_| "Claude Code did not take the typed message".to_owned())?;
        self.terminal.send_keys(&["Enter"]);
        Ok(())
    }

    /// Waits for the next PermissionRequest, reads it with the production parser, checks it is
    /// what the case expects, and hands the hook the production rendering of `answer`.
    fn answer_next(
        &self,
        expected: impl Fn(&NewPrompt) -> bool,
        answer: impl Fn(&NewPrompt) -> Result<Answer, String>,
    ) -> Result<NewPrompt, String> {
        let mut found = None;
        wait_until(self.deadline, || {
            found = self
                .private
                .event_files()
                .into_iter()
                .find(|file| !self.handled.borrow().contains(file));
            found.is_some()
        })
        .map_err(|_| "Claude Code did not run its PermissionRequest hook".to_owned())?;
        let file = found.expect("found above");
        self.handled.borrow_mut().insert(file.clone());
        let stdin =
            fs::read(&file).map_err(|error| format!("cannot read the hook's event: {error}"))?;
        let prompt = match events::parse(&stdin) {
            Ok(HookEvent::Prompt { prompt, .. }) => prompt,
            other => {
                return Err(format!(
                    "gatehouse did not read the PermissionRequest as a prompt: {other:?}"
                ))
            }
        };
        if !expected(&prompt) {
            return Err(format!(
                "the PermissionRequest was not the expected one: {} {}",
                prompt.tool, prompt.summary
            ));
        }
        let rendered = verdict::render(&prompt, &Verdict(answer(&prompt)?));
        let verdict_file = PathBuf::from(format!("{}.verdict", file.display()));
        let part = PathBuf::from(format!("{}.part", verdict_file.display()));
        fs::write(&part, rendered)
            .and_then(|()| fs::rename(&part, &verdict_file))
            .map_err(|error| format!("cannot hand the verdict to the hook: {error}"))?;
        Ok(prompt)
    }

    /// How many tool results in all have reached the model.
    fn tool_results(&self) -> usize {
        self.model.outputs().len()
    }

    /// Waits until `count` tool results in all have reached the model; returns the last.
    fn tool_result(&self, count: usize) -> Result<Value, String> {
        let mut outputs = Vec::new();
        wait_until(self.deadline, || {
            outputs = self.model.outputs();
            outputs.len() >= count
        })
        .map_err(|_| "Claude Code did not report the tool's outcome to the model".to_owned())?;
        Ok(outputs.swap_remove(count - 1))
    }

    fn idle_screen(&self) -> Result<String, String> {
        self.terminal
            .wait_for_screen(self.deadline, is_idle)
            .map_err(|screen| {
                format!("Claude Code did not finish the turn; last screen:\n{screen}")
            })
    }

    /// After a failed case: Esc ends a dialog or a turn; leftover events are left alone.
    fn recover(&self) {
        self.terminal.send_keys(&["Escape"]);
        let _ = self
            .terminal
            .wait_for_screen(Duration::from_secs(10), is_idle);
        self.handled.borrow_mut().extend(self.private.event_files());
    }
}

fn deny() -> Result<Answer, String> {
    Ok(Answer::Deny {
        message: Some(DENY_MESSAGE.into()),
    })
}

fn is_error(result: &Value) -> bool {
    result.get("is_error").and_then(Value::as_bool) == Some(true)
}

fn first_line(result: &Value) -> String {
    tool_result_text(result)
        .lines()
        .next()
        .unwrap_or("(empty)")
        .chars()
        .take(160)
        .collect()
}

fn names_file(prompt: &NewPrompt, tool: &str, path: &Path) -> bool {
    prompt.tool == tool && prompt.input["file_path"] == path.display().to_string()
}

fn write_once(probing: &Probing<'_>) -> Result<String, String> {
    let path = probing.file("gatehouse-probe-write.txt");
    let content = "written by the gatehouse probe\n";
    let before = probing.tool_results();
    probing.ask(
        "gatehouse probe: write-once",
        ScriptedTurn::tool_use("Write", json!({ "file_path": path, "content": content })),
    )?;
    probing.answer_next(
        |prompt| names_file(prompt, "Write", &path),
        |_| Ok(Answer::Once),
    )?;
    let result = probing.tool_result(before + 1)?;
    match fs::read_to_string(&path) {
        Ok(written) if written == content && !is_error(&result) => Ok(format!(
            "Claude Code wrote the file and told the model: {}",
            first_line(&result)
        )),
        Ok(_) => Err("the file does not hold what the Write asked for".into()),
        Err(_) => Err(format!(
            "the file was not written; the model was told: {}",
            first_line(&result)
        )),
    }
}

fn write_deny(probing: &Probing<'_>) -> Result<String, String> {
    let path = probing.file("gatehouse-probe-write-denied.txt");
    let before = probing.tool_results();
    probing.ask(
        "gatehouse probe: write-deny",
        ScriptedTurn::tool_use("Write", json!({ "file_path": path, "content": "no\n" })),
    )?;
    probing.answer_next(|prompt| names_file(prompt, "Write", &path), |_| deny())?;
    let result = probing.tool_result(before + 1)?;
    denied_with_message(&result, path.exists())
}

fn denied_with_message(result: &Value, acted: bool) -> Result<String, String> {
    if acted {
        return Err("the call took effect although gatehouse denied it".into());
    }
    if !is_error(result) || !tool_result_text(result).contains(DENY_MESSAGE) {
        return Err(format!(
            "the model did not get gatehouse's message as an error; it got: {}",
            first_line(result)
        ));
    }
    Ok(format!(
        "the call had no effect, and the model got: {}",
        first_line(result)
    ))
}

fn edit_turn(path: &Path) -> ScriptedTurn {
    ScriptedTurn::Steps(vec![
        ("Read".into(), json!({ "file_path": path })),
        (
            "Edit".into(),
            json!({ "file_path": path, "old_string": "alpha", "new_string": "beta", "replace_all": false }),
        ),
    ])
}

fn edit_once(probing: &Probing<'_>) -> Result<String, String> {
    let path = probing.file("gatehouse-probe-edit.txt");
    fs::write(&path, "alpha\n").map_err(|error| error.to_string())?;
    let before = probing.tool_results();
    probing.ask("gatehouse probe: edit-once", edit_turn(&path))?;
    probing.answer_next(
        |prompt| names_file(prompt, "Edit", &path),
        |_| Ok(Answer::Once),
    )?;
    let result = probing.tool_result(before + 2)?;
    match fs::read_to_string(&path).as_deref() {
        Ok("beta\n") if !is_error(&result) => Ok(format!(
            "Claude Code changed the file and told the model: {}",
            first_line(&result)
        )),
        _ => Err(format!(
            "the file was not changed; the model was told: {}",
            first_line(&result)
        )),
    }
}

fn edit_deny(probing: &Probing<'_>) -> Result<String, String> {
    let path = probing.file("gatehouse-probe-edit-denied.txt");
    fs::write(&path, "alpha\n").map_err(|error| error.to_string())?;
    let before = probing.tool_results();
    probing.ask("gatehouse probe: edit-deny", edit_turn(&path))?;
    probing.answer_next(|prompt| names_file(prompt, "Edit", &path), |_| deny())?;
    let result = probing.tool_result(before + 2)?;
    let changed = fs::read_to_string(&path).ok().as_deref() != Some("alpha\n");
    denied_with_message(&result, changed)
}

fn always_session(probing: &Probing<'_>) -> Result<String, String> {
    let log = "gatehouse-probe-always.log";
    let command = format!("node -e \"require('fs').appendFileSync('{log}','x')\"");
    let bash = || {
        ScriptedTurn::tool_use(
            "Bash",
            json!({ "command": command, "description": "gatehouse probe" }),
        )
    };
    let before = probing.tool_results();
    probing.ask("gatehouse probe: always-session", bash())?;
    let prompt = probing.answer_next(
        |prompt| prompt.tool == "Bash" && prompt.summary == command,
        |prompt| {
            let suggestion = prompt
                .extra
                .suggestions
                .iter()
                .find(|suggestion| {
                    !suggestion.allows.is_empty()
                        && suggestion
                            .allows
                            .iter()
                            .all(|rule| matches!(rule, gatehouse_core::RuleMatch::Exact { .. }))
                })
                .ok_or("Claude Code suggested no exact-command rule")?;
            Ok(Answer::Always {
                suggestion: Some(suggestion.id.clone()),
                scope: AlwaysScope::Session,
            })
        },
    )?;
    probing.tool_result(before + 1)?;
    probing.idle_screen()?;
    let events_before = probing.private.event_files().len();
    probing.ask("gatehouse probe: always-session again", bash())?;
    let again = probing.tool_result(before + 2)?;
    probing.idle_screen()?;
    let asked_again = probing.private.event_files().len() > events_before;
    let ran = fs::read_to_string(probing.file(log)).unwrap_or_default();
    let settings_written = probing.file(".claude/settings.local.json").exists();
    if asked_again {
        return Err("Claude Code asked again for the same command".into());
    }
    if ran != "xx" {
        return Err(format!(
            "the command did not run twice (its log holds {ran:?}); the model was told: {}",
            first_line(&again)
        ));
    }
    if settings_written {
        return Err("a session rule was written to the project's settings".into());
    }
    Ok(format!(
        "with {:?} kept for the session, the same command ran again with no PermissionRequest, and no settings file was written",
        prompt.extra.suggestions.first().map(|s| s.summary.as_str()).unwrap_or_default()
    ))
}

/// The model writes its plan to the plan file Claude Code names (Claude Code 2.1.332 reads the
/// plan from there and drops the model's own `plan` input), then asks to leave plan mode.
fn plan_turn() -> ScriptedTurn {
    ScriptedTurn::Steps(vec![
        (
            "Write".into(),
            json!({ "file_path": PLAN_FILE, "content": PLAN_TEXT }),
        ),
        ("ExitPlanMode".into(), json!({})),
    ])
}

/// The plan the probe's model writes.
const PLAN_TEXT: &str = "# gatehouse probe\n1. Nothing at all.\n";

fn is_the_plan(prompt: &NewPrompt) -> bool {
    prompt.tool == "ExitPlanMode" && prompt.input["plan"] == PLAN_TEXT
}

fn plan_deny(probing: &Probing<'_>) -> Result<String, String> {
    let before = probing.tool_results();
    probing.ask("gatehouse probe: plan-deny", plan_turn())?;
    probing.answer_next(is_the_plan, |_| deny())?;
    let result = probing.tool_result(before + 2)?;
    let screen = probing.idle_screen()?;
    let still_planning = screen.contains(PLAN_MODE_TEXT);
    denied_with_message(&result, !still_planning)
        .map(|evidence| format!("{evidence}; Claude Code stayed in plan mode"))
}

fn plan_approve(probing: &Probing<'_>) -> Result<String, String> {
    let before = probing.tool_results();
    probing.ask("gatehouse probe: plan-approve", plan_turn())?;
    probing.answer_next(is_the_plan, |_| Ok(Answer::Once))?;
    let result = probing.tool_result(before + 2)?;
    let screen = probing.idle_screen()?;
    let approved = !is_error(&result) && tool_result_text(&result).contains("approved");
    match (approved, screen.contains(PLAN_MODE_TEXT)) {
        (true, false) => Ok(format!(
            "the model was told: {}; plan mode ended",
            first_line(&result)
        )),
        (true, true) => Err("the plan was approved but Claude Code stayed in plan mode".into()),
        _ => Err(format!(
            "the plan was not approved; the model was told: {}",
            first_line(&result)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cases_are_the_capabilities_cases_in_order() {
        let probed: Vec<&str> = CASES.iter().map(|case| case.name).collect();
        let grouped: Vec<&str> = Capability::ALL
            .iter()
            .flat_map(|capability| capability.cases().iter().copied())
            .collect();
        assert_eq!(probed, grouped);
    }
}
