//! `gatehouse probe codex`: checks, live, whether the installed Codex honours gatehouse's answers
//! to its permission prompts, and returns a [`ProbeRecord`] for [`crate::record`].
//!
//! The probe runs the real Codex in its interactive terminal (see [`terminal`]) in a private,
//! temporary folder: its own `CODEX_HOME` and `HOME`, a workspace, and a scripted model on
//! loopback ([`fake_responses`]), so no account, network or tokens are used and the person's
//! settings are never read or written. The scripted model asks three times to run a harmless
//! command, `printf CASE > gatehouse-probe-CASE.txt` in the workspace, with escalation, which
//! makes Codex ask for approval. The cases:
//!
//! - `allow`: the hook answers with gatehouse's `once` verdict. Passes when the command ran (the
//!   marker file holds `allow`) and Codex did not show its own prompt.
//! - `deny`: the hook answers with gatehouse's `deny` verdict and a message. Passes when Codex
//!   reported the call to the model as finished, the command did not run and Codex did not show
//!   its own prompt.
//! - `no-verdict`: the hook prints nothing. Passes when Codex showed its own approval prompt with
//!   the command not run, and the probe's answer there (`y`) ran it: Codex's prompt was in charge.
//!
//! Which hook proves it: the probe's `hooks.json` runs a small shell script as Codex's
//! PermissionRequest hook. It saves the event Codex wrote on its stdin and prints a file that the
//! probe fills, before each case, with exactly what `gatehouse hook codex` prints for that
//! verdict in production: [`crate::verdict::render`]. The saved event is read with
//! [`crate::events::parse`], the production parser, and must name the scripted command. So the
//! probe proves the two Codex-specific halves of the path: Codex's event reaches gatehouse's
//! parser intact, and gatehouse's rendered verdict, printed by a PermissionRequest hook, decides
//! what Codex does. The half in between (hook, socket, gateway, arbiter) is the same for every
//! agent and is tested without Codex; running it here would need a private gateway inside the
//! probe and would not make the proof about Codex any stronger.
//!
//! Codex runs a new hook only after the person reviewed it ("Hooks need review"). The probe's
//! hook lives in the probe's own `CODEX_HOME`, so the probe starts Codex with
//! `--dangerously-bypass-hook-trust` for that one private run instead of writing trust records.

pub mod fake_responses;

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gatehouse_core::{Answer, HookEvent, Timestamp, Verdict};

use self::fake_responses::{FakeResponses, ScriptedCall};
use crate::record::{CaseResult, ProbeRecord, Unlock};
use crate::version::{self, VersionError};
use crate::{events, verdict};
use gatehouse_harness::terminal::{Terminal, TerminalError};

/// Text of Codex 0.171.0's approval prompt for a command.
pub const APPROVAL_PROMPT_TEXT: &str = "Would you like to run the following command?";

/// Text of Codex's empty input box: Codex is ready for the person's next message.
pub const READY_TEXT: &str = "Ask Codex to do anything";

/// The message the `deny` case sends, which Codex hands to the model.
pub const DENY_MESSAGE: &str = "gatehouse probe: denied on purpose";

/// The environment variable the probe's model provider names as its key; its value is unused.
const API_KEY_VARIABLE: &str = "GATEHOUSE_PROBE_API_KEY";

/// How the probe runs.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// The Codex executable to probe.
    pub codex: PathBuf,
    /// How long Codex may take to show its input box.
    pub start_deadline: Duration,
    /// How long each case may take.
    pub case_deadline: Duration,
}

impl ProbeOptions {
    pub fn new(codex: PathBuf) -> Self {
        ProbeOptions {
            codex,
            start_deadline: Duration::from_secs(60),
            case_deadline: Duration::from_secs(60),
        }
    }
}

/// Why the probe could not run at all (a case that fails is not an error: it is in the record).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Version(#[from] VersionError),
    #[error("cannot prepare the probe's private folder: {0}; check that the temporary folder is writable")]
    Folder(io::Error),
    #[error("cannot start the probe's scripted model on loopback: {0}")]
    FakeModel(io::Error),
    #[error(transparent)]
    Terminal(#[from] TerminalError),
    #[error(
        "Codex did not show its input box within {deadline:?}; its last screen was:\n{screen}"
    )]
    CodexDidNotStart { deadline: Duration, screen: String },
}

/// One case: what the hook answers, and the command the model asks for.
struct Case {
    name: &'static str,
    verdict: Option<Verdict>,
    call: ScriptedCall,
    marker: PathBuf,
}

/// Runs the probe against `options.codex`, writing progress lines with `progress`.
pub fn run(
    options: &ProbeOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<ProbeRecord, ProbeError> {
    let codex = fs::canonicalize(&options.codex).map_err(|error| VersionError::CannotRun {
        program: options.codex.clone(),
        problem: error.to_string(),
    })?;
    let codex_version = version::version_of(&codex)?;
    progress(&format!(
        "Probing Codex {codex_version} ({}) in a private folder, with a scripted model on loopback: no account, network or tokens are used.",
        codex.display()
    ));
    let folder = tempfile::Builder::new()
        .prefix("gatehouse-probe-")
        .tempdir()
        .map_err(ProbeError::Folder)?;
    let root = fs::canonicalize(folder.path()).map_err(ProbeError::Folder)?;
    let private = PrivateCodex::prepare(&root).map_err(ProbeError::Folder)?;
    let cases = cases(&private.workspace);
    let fake = FakeResponses::start(cases.iter().map(|case| case.call.clone()).collect())
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
        .map_err(|screen| ProbeError::CodexDidNotStart {
            deadline: options.start_deadline,
            screen,
        })?;

    let mut results = Vec::new();
    for case in &cases {
        progress(&format!("case {}: {}", case.name, describe(case)));
        let result = run_case(&terminal, &fake, &private, case, options.case_deadline);
        progress(&format!(
            "  {}: {}",
            if result.passed { "passed" } else { "FAILED" },
            result.evidence
        ));
        results.push(result);
    }
    drop(terminal);
    Ok(ProbeRecord {
        codex_version,
        codex_executable: codex,
        probed_at: now(),
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
        let Some(codex) = request.executable.clone().or_else(version::find_on_path) else {
            return Err(
                "no `codex` was found on PATH; install Codex, or name the executable".into(),
            );
        };
        let probed = run(&ProbeOptions::new(codex), progress)?;
        let record = crate::record::record_path(&request.state_dir);
        crate::record::write(&record, &probed)?;
        let meaning = if probed.passed {
            format!("gatehouse now offers once and deny for Codex {}'s Bash prompts; any other version stays read-only until probed", probed.codex_version)
        } else {
            format!(
                "Codex {} stays read-only in gatehouse; answer its prompts in Codex's terminal",
                probed.codex_version
            )
        };
        Ok(ProbeOutcome {
            passed: probed.passed,
            agent_version: probed.codex_version,
            record,
            meaning,
        })
    }
}

/// Whether a fresh probe record unlocks answers for the Codex it probed.
pub fn unlock_of(record: &ProbeRecord) -> Unlock {
    crate::record::unlock(Ok(Some(record.clone())), |record| {
        Ok(record.codex_version.clone())
    })
}

fn describe(case: &Case) -> &'static str {
    match case.name {
        "allow" => "gatehouse answers allow; the command must run, with no prompt from Codex",
        "deny" => "gatehouse answers deny; the command must not run, with no prompt from Codex",
        _ => "gatehouse gives no verdict; Codex's own prompt must appear and decide",
    }
}

fn cases(workspace: &Path) -> Vec<Case> {
    let case = |name: &'static str, verdict: Option<Verdict>| {
        let marker_name = format!("gatehouse-probe-{name}.txt");
        Case {
            name,
            verdict,
            call: ScriptedCall {
                call_id: format!("call_probe_{}", name.replace('-', "_")),
                command: format!("printf {name} > {marker_name}"),
                justification: format!("gatehouse probe, case {name}"),
            },
            marker: workspace.join(marker_name),
        }
    };
    vec![
        case("allow", Some(Verdict(Answer::Once))),
        case(
            "deny",
            Some(Verdict(Answer::Deny {
                message: Some(DENY_MESSAGE.into()),
            })),
        ),
        case("no-verdict", None),
    ]
}

fn run_case(
    terminal: &Terminal,
    fake: &FakeResponses,
    private: &PrivateCodex,
    case: &Case,
    deadline: Duration,
) -> CaseResult {
    let evidence = match check_case(terminal, fake, private, case, deadline) {
        Ok(evidence) => {
            return CaseResult {
                case: case.name.into(),
                passed: true,
                evidence,
            }
        }
        Err(evidence) => evidence,
    };
    // Leave Codex ready for the next case whatever happened: Esc ends a prompt or a turn.
    terminal.send_keys(&["Escape"]);
    let _ = terminal.wait_for_screen(Duration::from_secs(10), |screen| {
        screen.contains(READY_TEXT) && !screen.contains(APPROVAL_PROMPT_TEXT)
    });
    CaseResult {
        case: case.name.into(),
        passed: false,
        evidence,
    }
}

/// Runs one case; `Ok` holds the evidence of a pass, `Err` what went wrong.
fn check_case(
    terminal: &Terminal,
    fake: &FakeResponses,
    private: &PrivateCodex,
    case: &Case,
    deadline: Duration,
) -> Result<String, String> {
    let started = Instant::now();
    let left = || deadline.saturating_sub(started.elapsed());
    let rendered = case
        .verdict
        .as_ref()
        .map(verdict::render)
        .unwrap_or_default();
    fs::write(&private.verdict_file, &rendered)
        .map_err(|error| format!("cannot write the hook's verdict file: {error}"))?;

    let message = format!("gatehouse probe: case {}", case.name);
    terminal.send_text(&message);
    terminal
        .wait_for_screen(left(), |screen| screen.contains(&message))
        .map_err(|_| "Codex did not take the typed message".to_owned())?;
    terminal.send_keys(&["Enter"]);
    wait_until(left(), || fake.served(&case.call.call_id))
        .map_err(|()| "Codex did not ask the scripted model for the turn".to_owned())?;
    let event = wait_for_permission_request(private, &case.call.command, left())?;

    let screen_before_answer = match &case.verdict {
        Some(_) => None,
        None => {
            let screen = terminal
                .wait_for_screen(left(), |screen| screen.contains(APPROVAL_PROMPT_TEXT))
                .map_err(|screen| format!("with no verdict, Codex did not show its own prompt; last screen:\n{screen}"))?;
            if case.marker.exists() || fake.output_for(&case.call.call_id).is_some() {
                return Err("the command ran before anyone answered Codex's prompt".into());
            }
            terminal.send_keys(&["y"]);
            Some(screen)
        }
    };
    let output = wait_for_output(fake, &case.call.call_id, left())?;
    let screen = terminal
        .wait_for_screen(left(), |screen| screen.contains(READY_TEXT))
        .map_err(|screen| format!("Codex did not finish the turn; last screen:\n{screen}"))?;
    // Codex's report of a command that ran starts with a chunk id; the exit code says more.
    let first_line = output
        .lines()
        .find(|line| line.contains("exited with code"))
        .or_else(|| output.lines().find(|line| !line.trim().is_empty()))
        .unwrap_or("(empty)")
        .to_owned();
    let marker = fs::read_to_string(&case.marker).ok();
    match case.name {
        "allow" | "no-verdict" if marker.as_deref() != Some(case.name) => {
            Err(format!("the command did not run (no marker file); Codex reported: {first_line}"))
        }
        "deny" if marker.is_some() => Err("the command ran although gatehouse denied it".into()),
        "allow" | "deny" if screen.contains(APPROVAL_PROMPT_TEXT) => Err("Codex showed its own prompt although the hook decided".into()),
        "deny" if !output.contains(DENY_MESSAGE) => {
            Err(format!("Codex did not pass gatehouse's deny message to the model; it reported: {first_line}"))
        }
        "allow" => Ok(format!("Codex ran `{}` (read by the adapter as {event:?}) without a prompt of its own; it reported: {first_line}", case.call.command)),
        "deny" => Ok(format!("Codex did not run `{}`, showed no prompt of its own, and told the model: {first_line}", case.call.command)),
        _ => Ok(format!(
            "Codex showed its own prompt ({:?}) with the command not run; `y` there ran it",
            screen_before_answer.as_deref().and_then(|screen| screen.lines().find(|line| line.contains(APPROVAL_PROMPT_TEXT))).unwrap_or_default().trim()
        )),
    }
}

/// Waits for the PermissionRequest event of `command` in the hook's log, and reads it with the
/// production parser; returns the prompt's summary.
fn wait_for_permission_request(
    private: &PrivateCodex,
    command: &str,
    deadline: Duration,
) -> Result<String, String> {
    let mut found = None;
    wait_until(deadline, || {
        let log = fs::read_to_string(&private.event_log).unwrap_or_default();
        found = log.lines().filter(|line| !line.trim().is_empty()).find_map(|line| {
            match events::parse(line.as_bytes()) {
                Ok(HookEvent::Prompt { prompt, .. }) if prompt.summary == command => Some(prompt.summary),
                _ => None,
            }
        });
        found.is_some()
    })
    .map_err(|()| format!("Codex did not run the PermissionRequest hook for `{command}` (or gatehouse could not read it)"))?;
    Ok(found.unwrap_or_default())
}

fn wait_for_output(
    fake: &FakeResponses,
    call_id: &str,
    deadline: Duration,
) -> Result<String, String> {
    let mut output = None;
    wait_until(deadline, || {
        output = fake.output_for(call_id);
        output.is_some()
    })
    .map_err(|()| "Codex did not report the call's outcome to the model".to_owned())?;
    Ok(output.unwrap_or_default())
}

fn wait_until(deadline: Duration, mut condition: impl FnMut() -> bool) -> Result<(), ()> {
    let started = Instant::now();
    while !condition() {
        if started.elapsed() > deadline {
            return Err(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

fn now() -> Timestamp {
    Timestamp::from_unix_millis(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis() as u64,
    )
}

/// The probe's private Codex: its folders and the files of its hook.
struct PrivateCodex {
    home: PathBuf,
    codex_home: PathBuf,
    workspace: PathBuf,
    /// What the hook prints: the rendered verdict of the current case, or nothing.
    verdict_file: PathBuf,
    /// Every PermissionRequest event Codex gave the hook, one JSON object a line.
    event_log: PathBuf,
}

impl PrivateCodex {
    fn prepare(root: &Path) -> io::Result<PrivateCodex> {
        let private = PrivateCodex {
            home: root.join("home"),
            codex_home: root.join("codex-home"),
            workspace: root.join("workspace"),
            verdict_file: root.join("verdict.json"),
            event_log: root.join("permission-requests.jsonl"),
        };
        for folder in [&private.home, &private.codex_home, &private.workspace] {
            fs::create_dir_all(folder)?;
        }
        let hook = root.join("permission-request-hook.sh");
        let script = format!(
            "#!/bin/sh\n# The probe's PermissionRequest hook: saves the event, prints the case's verdict.\ncat >> {log}\nprintf '\\n' >> {log}\ncat {verdict} 2>/dev/null\nexit 0\n",
            log = shell_quote(&private.event_log),
            verdict = shell_quote(&private.verdict_file),
        );
        fs::write(&hook, script)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&hook, fs::Permissions::from_mode(0o700))?;
        }
        let hooks = serde_json::json!({ "hooks": { "PermissionRequest": [
            { "matcher": "*", "hooks": [{ "type": "command", "command": shell_quote(&hook), "timeout": 30 }] }
        ] } });
        fs::write(
            private.codex_home.join("hooks.json"),
            serde_json::to_string_pretty(&hooks)?,
        )?;
        Ok(private)
    }

    fn write_config(&self, base_url: &str) -> io::Result<()> {
        let toml_string =
            |text: &str| serde_json::to_string(text).expect("a string always serialises");
        let config = format!(
            "# The private configuration of one `gatehouse probe codex` run.\n\
             model = \"gpt-5.1-codex\"\n\
             model_provider = \"gatehouse_probe\"\n\
             approval_policy = \"on-request\"\n\
             sandbox_mode = \"read-only\"\n\n\
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
        );
        fs::write(self.codex_home.join("config.toml"), config)
    }

    fn environment(&self) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        vec![
            ("PATH".into(), path),
            ("HOME".into(), self.home.display().to_string()),
            ("CODEX_HOME".into(), self.codex_home.display().to_string()),
            ("TERM".into(), "xterm-256color".into()),
            (API_KEY_VARIABLE.into(), "unused".into()),
        ]
    }
}

/// Quotes a path for a POSIX shell.
fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
