//! `gatehouse probe codex`: checks, live, whether the installed Codex honours gatehouse's answers
//! to its permission prompts, and returns a [`ProbeRecord`] for [`crate::record`].
//!
//! The probe runs the real Codex in its interactive terminal (see [`terminal`]) in a private,
//! temporary folder: its own `CODEX_HOME` and `HOME`, a workspace, and a scripted model on
//! loopback ([`fake_responses`]), so no account, network or tokens are used and the person's
//! settings are never read or written. Codex runs with `approval_policy = "on-request"`, the
//! `read-only` sandbox (so that every patch asks) and a model catalog whose entry offers the
//! freeform `apply_patch` tool. The cases, each proving one kind ([`crate::record::Kind`]):
//!
//! - Shell commands, the kit's standard cases: the scripted model asks to run `printf CASE >
//!   gatehouse-probe-CASE.txt` with escalation, which makes Codex ask.
//!   - `allow`: the hook answers with gatehouse's `once` verdict. Passes when the command ran
//!     (the marker file holds `allow`) and Codex did not show its own prompt.
//!   - `deny`: the hook answers with gatehouse's `deny` verdict and a message. Passes when the
//!     command did not run, Codex did not show its own prompt and the model received the message.
//!   - `no-verdict`: the hook prints nothing. Passes when Codex showed its own approval prompt
//!     with the command not run, and the probe's answer there (`y`) ran it.
//! - File changes, the same three as `patch-allow`, `patch-deny` and `patch-no-verdict`: the
//!   model calls `apply_patch` (a `custom_tool_call`) with a patch that adds
//!   `gatehouse-probe-patch-CASE.txt`, and Codex's own prompt is "make the following edits?".
//! - "always", `always-next-session`: the hook answers a command with gatehouse's production
//!   `always` ([`crate::verdict::render_for`], which writes the rules into the private
//!   `CODEX_HOME/rules/gatehouse.rules`, both forms: a command's words and `/bin/bash -lc` for
//!   shell syntax); the command runs. Then `/new` starts a new session, and both commands run with
//!   no PermissionRequest at all (the hook would give no verdict, so a prompt would show).
//!
//! Which hook proves it: the probe's `hooks.json` runs a small shell script as Codex's
//! PermissionRequest hook. It saves the event Codex wrote on its stdin and prints a file that the
//! probe fills, before each case, with exactly what `gatehouse hook codex` prints for that
//! verdict in production: [`crate::verdict::render`]. The saved event is read with
//! [`crate::events::parse`], the production parser, and must name the scripted command (or
//! patch). So the probe proves the two Codex-specific halves of the path: Codex's event reaches
//! gatehouse's parser intact, and gatehouse's rendered verdict, printed by a PermissionRequest
//! hook, decides what Codex does. The half in between (hook, socket, gateway, arbiter) is the
//! same for every agent and is tested without Codex; running it here would need a private
//! gateway inside the probe and would not make the proof about Codex any stronger.
//!
//! Codex runs a new hook only after the person reviewed it ("Hooks need review"). The probe's
//! hook lives in the probe's own `CODEX_HOME`, so the probe starts Codex with
//! `--dangerously-bypass-hook-trust` for that one private run instead of writing trust records.

pub mod always;
pub mod cases;
pub mod fake_responses;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::HookEvent;
use gatehouse_harness::model::ScriptedModel;
pub use gatehouse_harness::probe::ProbeOptions;
/// The message the deny case sends, which the agent hands to the model.
pub use gatehouse_harness::probe::DENY_MESSAGE;
use gatehouse_harness::probe::{self as driver, HookAnswer, PrivateFolder, ProbeHook, Seen};
use gatehouse_harness::terminal::Terminal;

use gatehouse_harness::executable::VersionError;

use crate::record::ProbeRecord;
use crate::AGENT;
use crate::{events, verdict};
use cases::{Case, ProbeCase};

/// Text of Codex 0.171.0's approval prompt for a command.
pub const APPROVAL_PROMPT_TEXT: &str = "Would you like to run the following command?";

/// Text of Codex 0.171.0's approval prompt for a patch.
pub const PATCH_PROMPT_TEXT: &str = "Would you like to make the following edits?";

/// Text of Codex's empty input box: Codex is ready for the person's next message.
pub const READY_TEXT: &str = "Ask Codex to do anything";

/// The shell the probe runs Codex with (`SHELL`), whose `-lc` form of a rule it proves.
pub const PROBE_SHELL: &str = crate::rules::PROVEN_SHELL;

/// The environment variable the probe's model provider names as its key; its value is unused.
const API_KEY_VARIABLE: &str = "GATEHOUSE_PROBE_API_KEY";

/// Why the probe could not run at all: the kit's.
pub use gatehouse_harness::probe::ProbeError;

/// Runs the probe against `options.executable`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, ProbeError> {
    let codex = fs::canonicalize(&options.executable)
        .map_err(|error| VersionError::CannotRun {
            program: options.executable.clone(),
            problem: error.to_string(),
        })
        .map_err(|error| ProbeError::Version(error.to_string()))?;
    let codex_version = AGENT
        .executable
        .version_of(&codex)
        .map_err(|error| ProbeError::Version(error.to_string()))?;
    progress(&format!(
        "Probing Codex {codex_version} ({}) in a private folder, with a scripted model on loopback: no account, network or tokens are used.",
        codex.display()
    ));
    let folder = PrivateFolder::create("gatehouse-probe-")?;
    let root = folder.root.clone();
    let private = PrivateCodex::prepare(&root).map_err(ProbeError::Folder)?;
    let cases = cases::all(&private.workspace);
    let fake = fake_responses::start(cases.iter().flat_map(ProbeCase::calls).collect())
        .map_err(ProbeError::FakeModel)?;
    private
        .write_config(&fake.base_url())
        .map_err(ProbeError::Folder)?;

    progress("Starting Codex in a private terminal (tmux)...");
    let codex_program = codex.display().to_string();
    let terminal = Terminal::start(
        "probe",
        &private.workspace,
        &private.environment(),
        &[&codex_program, "--dangerously-bypass-hook-trust"],
    )?;
    terminal
        .wait_for_screen(options.start_deadline, |screen| screen.contains(READY_TEXT))
        .map_err(|screen| ProbeError::DidNotStart {
            agent: "Codex",
            deadline: options.start_deadline,
            screen,
        })?;

    let results = driver::run_cases(
        &cases,
        progress,
        ProbeCase::name_and_description,
        |case| match case {
            ProbeCase::Answer(case) => {
                check_case(&terminal, &fake, &private, case, options.case_deadline)
            }
            ProbeCase::Always(case) => {
                always::check(&terminal, &fake, &private, case, options.case_deadline * 2)
            }
        },
        // Leave Codex ready for the next case whatever happened: Esc ends a prompt or a turn.
        || {
            terminal.send_keys(&["Escape"]);
            let _ = terminal.wait_for_screen(Duration::from_secs(10), |screen| {
                screen.contains(READY_TEXT)
                    && !screen.contains(APPROVAL_PROMPT_TEXT)
                    && !screen.contains(PATCH_PROMPT_TEXT)
            });
        },
    );
    drop(terminal);
    Ok(ProbeRecord {
        agent: AGENT.id,
        version: codex_version,
        executable: codex,
        probed_at: driver::now(),
        passed: results.iter().all(|result| result.passed),
        cases: results,
        gatehouse_version: env!("CARGO_PKG_VERSION").into(),
    })
}

/// `gatehouse probe codex`: the probe above, as the binary runs it for any adapter.
pub struct CodexProbe;

impl AgentProbe for CodexProbe {
    fn executable_name(&self) -> &'static str {
        "codex"
    }

    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError> {
        AGENT.run_probe_or(
            request,
            || "no `codex` was found on PATH; install Codex, or name the executable".into(),
            |options| run(options, progress),
        )
    }
}

/// What `gatehouse hook codex` prints for the case's answer in production.
fn rendered(answer: HookAnswer) -> String {
    answer
        .verdict()
        .as_ref()
        .map(verdict::render)
        .unwrap_or_default()
}

/// Runs one case of a command or a patch; `Ok` holds the evidence of a pass, `Err` what went
/// wrong.
fn check_case(
    terminal: &Terminal,
    fake: &ScriptedModel,
    private: &PrivateCodex,
    case: &Case,
    deadline: Duration,
) -> Result<String, String> {
    let Case { command, dialog } = case;
    let prompt_text = dialog.prompt_text();
    let started = Instant::now();
    let left = || deadline.saturating_sub(started.elapsed());
    let read_as = driver::ask(
        terminal,
        fake,
        &private.hook,
        command,
        &rendered(command.answer),
        ("Codex", "PermissionRequest"),
        left,
        |line| match events::parse(line.as_bytes()) {
            Ok(HookEvent::Prompt { prompt, .. })
                if dialog.is_call(&prompt, &command.call.command) =>
            {
                Some(prompt.summary)
            }
            _ => None,
        },
    )?;

    let screen_before_answer = match command.answer {
        HookAnswer::NoVerdict => {
            let screen = terminal
                .wait_for_screen(left(), |screen| screen.contains(prompt_text))
                .map_err(|screen| format!("with no verdict, Codex did not show its own prompt; last screen:\n{screen}"))?;
            if command.marker.exists() || fake.output_for(&command.call.call_id).is_some() {
                return Err(format!(
                    "the {} ran before anyone answered Codex's prompt",
                    dialog.what()
                ));
            }
            terminal.send_keys(&["y"]);
            screen
        }
        _ => String::new(),
    };
    let output = driver::wait_for_output(fake, &command.call.call_id, left())
        .ok_or("Codex did not report the call's outcome to the model")?;
    let screen = terminal
        .wait_for_screen(left(), |screen| screen.contains(READY_TEXT))
        .map_err(|screen| format!("Codex did not finish the turn; last screen:\n{screen}"))?;
    // Codex's report of a command that ran starts with a chunk id; the exit code says more.
    let reported = output
        .lines()
        .find(|line| line.contains("exited with code") || line.starts_with("Success."))
        .or_else(|| output.lines().find(|line| !line.trim().is_empty()))
        .unwrap_or("(empty)");
    let dialog_line = screen_before_answer
        .lines()
        .find(|line| line.contains(prompt_text))
        .unwrap_or_default()
        .trim();
    driver::judge(&Seen {
        case: command,
        agent: "Codex",
        dialog: "prompt",
        read_as: &read_as,
        output: &output,
        reported,
        dialog_shown: screen.contains(prompt_text),
        dialog_line,
    })
}

/// The probe's private Codex: its folders and the files of its hook.
pub struct PrivateCodex {
    home: PathBuf,
    codex_home: PathBuf,
    workspace: PathBuf,
    hook: ProbeHook,
}

impl PrivateCodex {
    fn prepare(root: &Path) -> io::Result<PrivateCodex> {
        let private = PrivateCodex {
            home: root.join("home"),
            codex_home: root.join("codex-home"),
            workspace: root.join("workspace"),
            hook: ProbeHook::write(root, "PermissionRequest", false)?,
        };
        for folder in [&private.home, &private.codex_home, &private.workspace] {
            fs::create_dir_all(folder)?;
        }
        let command = driver::shell_quote(&private.hook.script);
        let hooks = serde_json::json!({ "hooks": { "PermissionRequest": [
            { "matcher": "*", "hooks": [{ "type": "command", "command": command, "timeout": 30 }] }
        ] } });
        fs::write(
            private.codex_home.join("hooks.json"),
            serde_json::to_string_pretty(&hooks)?,
        )?;
        fs::write(
            private.codex_home.join(fake_responses::MODEL_CATALOG),
            serde_json::to_string_pretty(&fake_responses::model_catalog())?,
        )?;
        Ok(private)
    }

    /// gatehouse's rules file in the probe's own `CODEX_HOME`.
    fn rules_file(&self) -> PathBuf {
        self.codex_home
            .join("rules")
            .join(crate::rules::RULES_FILE_NAME)
    }

    fn write_config(&self, base_url: &str) -> io::Result<()> {
        let toml_string =
            |text: &str| serde_json::to_string(text).expect("a string always serialises");
        let config = format!(
            "# The private configuration of one `gatehouse probe codex` run.\n\
             model = \"{model}\"\n\
             model_provider = \"gatehouse_probe\"\n\
             approval_policy = \"on-request\"\n\
             # Read-only, so that every patch asks.\n\
             sandbox_mode = \"read-only\"\n\
             # Codex offers apply_patch only for a model whose catalog entry says so.\n\
             model_catalog_json = {catalog}\n\n\
             [model_providers.gatehouse_probe]\n\
             name = \"gatehouse probe\"\n\
             base_url = {}\n\
             wire_api = \"responses\"\n\
             env_key = \"{API_KEY_VARIABLE}\"\n\n\
             [projects.{}]\n\
             trust_level = \"trusted\"\n\n\
             # Codex 0.171.0 otherwise starts an app-server daemon that outlives the probe.\n\
             [features]\n\
             daemon_auto_start = false\n",
            toml_string(base_url),
            toml_string(&self.workspace.display().to_string()),
            model = fake_responses::MODEL,
            catalog = toml_string(
                &self
                    .codex_home
                    .join(fake_responses::MODEL_CATALOG)
                    .display()
                    .to_string()
            ),
        );
        fs::write(self.codex_home.join("config.toml"), config)
    }

    fn environment(&self) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        vec![
            ("PATH".into(), path),
            ("HOME".into(), self.home.display().to_string()),
            ("CODEX_HOME".into(), self.codex_home.display().to_string()),
            ("SHELL".into(), PROBE_SHELL.into()),
            ("TERM".into(), "xterm-256color".into()),
            (API_KEY_VARIABLE.into(), "unused".into()),
        ]
    }
}
