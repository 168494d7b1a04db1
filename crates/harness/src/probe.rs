//! One probe driver for the agents whose probe asks to run a command: the standard cases, the
//! hook that saves each event and prints the case's verdict, the loop that runs the cases,
//! reports progress and leaves the agent ready after a failure, and the judgement of what was
//! seen. The adapter brings its own dialog texts, its rendered verdicts and its parser.
//!
//! The standard cases, each a scripted command `printf CASE > gatehouse-probe-CASE.txt`:
//!
//! - `allow`: the hook prints gatehouse's `once` verdict. Passes when the command ran (the
//!   marker file holds `allow`) and the agent did not show its own dialog.
//! - `deny`: the hook prints gatehouse's `deny` verdict with [`DENY_MESSAGE`]. Passes when the
//!   command did not run, the agent showed no dialog, and the model received the message.
//! - `no-verdict`: the hook prints nothing. Passes when the agent showed its own dialog with the
//!   command not run, and its Yes ran it: the agent's dialog was in charge.
//!
//! [`screen::AgentScreen`] runs these cases in an agent's terminal for agents that differ only in
//! their screen, keys, parser and renderer.

pub mod screen;
pub mod session;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gatehouse_core::kit::{AgentProbe, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::{Answer, Timestamp, Verdict};
use serde::{Deserialize, Serialize};

use crate::model::{ScriptedCall, ScriptedModel};
use crate::record::{AgentWords, ProbeRecord, StandardRecord};
use crate::terminal::{Terminal, TerminalError};

/// The message the `deny` case sends, which the agent hands to the model.
pub const DENY_MESSAGE: &str = "gatehouse probe: denied on purpose";

/// Why a probe could not run at all (a case that fails is not an error: it is in the record).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The agent's executable or its version could not be read, in the adapter's words.
    #[error("{0}")]
    Version(String),
    #[error("cannot prepare the probe's private folder: {0}; check that the temporary folder is writable")]
    Folder(io::Error),
    #[error("cannot start the probe's scripted model on loopback: {0}")]
    FakeModel(io::Error),
    #[error(transparent)]
    Terminal(#[from] TerminalError),
    #[error(
        "{agent} did not show its input box within {deadline:?}; its last screen was:\n{screen}"
    )]
    DidNotStart {
        agent: &'static str,
        deadline: Duration,
        screen: String,
    },
}

/// A probe's private, temporary folder, removed when dropped; `root` is its canonical path.
pub struct PrivateFolder {
    _folder: tempfile::TempDir,
    pub root: PathBuf,
}

impl PrivateFolder {
    /// Creates the folder, named `prefix` and a random tail, in the temporary folder.
    pub fn create(prefix: &str) -> Result<PrivateFolder, ProbeError> {
        let folder = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(ProbeError::Folder)?;
        let root = fs::canonicalize(folder.path()).map_err(ProbeError::Folder)?;
        Ok(PrivateFolder {
            _folder: folder,
            root,
        })
    }
}

/// How a probe runs.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// The agent's executable to probe.
    pub executable: PathBuf,
    /// How long the agent may take to show its input box.
    pub start_deadline: Duration,
    /// How long each case may take.
    pub case_deadline: Duration,
}

impl ProbeOptions {
    pub fn new(executable: PathBuf) -> Self {
        ProbeOptions {
            executable,
            start_deadline: Duration::from_secs(60),
            case_deadline: Duration::from_secs(60),
        }
    }
}

/// One case of a probe, and what was seen; kept in the probe record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseResult {
    /// Such as `allow`, `deny` or `no-verdict`.
    pub case: String,
    pub passed: bool,
    /// What was observed, in words.
    pub evidence: String,
}

/// What the hook answers in a standard case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookAnswer {
    /// gatehouse's `once`.
    Allow,
    /// gatehouse's `deny`, with [`DENY_MESSAGE`].
    Deny,
    /// Nothing: the agent's own dialog decides.
    NoVerdict,
}

impl HookAnswer {
    /// The verdict whose rendering the hook prints; none for [`HookAnswer::NoVerdict`].
    pub fn verdict(self) -> Option<Verdict> {
        match self {
            HookAnswer::Allow => Some(Verdict(Answer::Once)),
            HookAnswer::Deny => Some(Verdict(Answer::Deny {
                message: Some(DENY_MESSAGE.into()),
            })),
            HookAnswer::NoVerdict => None,
        }
    }

    /// What the case checks, for the progress line; `dialog` is what the agent calls its own
    /// prompt, such as `prompt` or `dialog`.
    pub fn describe(self, agent: &str, dialog: &str) -> String {
        match self {
            HookAnswer::Allow => format!(
                "gatehouse answers allow; the command must run, with no {dialog} from {agent}"
            ),
            HookAnswer::Deny => format!("gatehouse answers deny; the command must not run, with no {dialog} from {agent}, and the model must read the message"),
            HookAnswer::NoVerdict => format!(
                "gatehouse gives no verdict; {agent}'s own {dialog} must appear and decide"
            ),
        }
    }
}

/// One standard case: what the hook answers, and the command the model asks for.
#[derive(Debug, Clone)]
pub struct CommandCase {
    pub name: &'static str,
    pub answer: HookAnswer,
    pub call: ScriptedCall,
    /// The file the command writes in the workspace.
    pub marker: PathBuf,
}

/// The standard case `name`: the model asks to run `printf NAME > gatehouse-probe-NAME.txt` in
/// `workspace`, and the hook answers `answer`.
pub fn command_case(workspace: &Path, name: &'static str, answer: HookAnswer) -> CommandCase {
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
}

/// The three standard cases, their commands writing into `workspace`.
pub fn standard_cases(workspace: &Path) -> Vec<CommandCase> {
    [
        ("allow", HookAnswer::Allow),
        ("deny", HookAnswer::Deny),
        ("no-verdict", HookAnswer::NoVerdict),
    ]
    .into_iter()
    .map(|(name, answer)| command_case(workspace, name, answer))
    .collect()
}

/// Runs each case in turn with `check` (`Ok` holds the evidence of a pass, `Err` what went
/// wrong), reporting a line before and after each; after a failure `recover` leaves the agent
/// ready for the next case.
pub fn run_cases<C>(
    cases: &[C],
    progress: &mut dyn FnMut(&str),
    name_and_description: impl Fn(&C) -> (&str, String),
    mut check: impl FnMut(&C) -> Result<String, String>,
    mut recover: impl FnMut(),
) -> Vec<CaseResult> {
    let mut results = Vec::new();
    for case in cases {
        let (name, description) = name_and_description(case);
        progress(&format!("case {name}: {description}"));
        let (passed, evidence) = match check(case) {
            Ok(evidence) => (true, evidence),
            Err(evidence) => {
                recover();
                (false, evidence)
            }
        };
        progress(&format!(
            "  {}: {evidence}",
            if passed { "passed" } else { "FAILED" }
        ));
        results.push(CaseResult {
            case: name.to_owned(),
            passed,
            evidence,
        });
    }
    results
}

/// The files of the probe's hook: a shell script that appends the event the agent wrote on its
/// stdin to `event_log` (one JSON object a line) and prints `verdict_file`, which the probe
/// fills before each case with exactly what gatehouse's hook prints for that verdict.
#[derive(Debug, Clone)]
pub struct ProbeHook {
    pub script: PathBuf,
    pub verdict_file: PathBuf,
    pub event_log: PathBuf,
}

impl ProbeHook {
    /// Writes the hook's script into `root`; `event_name` is the agent's name of the event, for
    /// the script's comment. `join_lines` joins an event the agent writes over several lines.
    pub fn write(root: &Path, event_name: &str, join_lines: bool) -> io::Result<ProbeHook> {
        let hook = ProbeHook {
            script: root.join("permission-request-hook.sh"),
            verdict_file: root.join("verdict.json"),
            event_log: root.join("permission-requests.jsonl"),
        };
        let (save, on_one_line) = if join_lines {
            ("tr -d '\\n'", " (on one line)")
        } else {
            ("cat", "")
        };
        let script = format!(
            "#!/bin/sh\n# The probe's {event_name} hook: saves the event{on_one_line}, prints the case's verdict.\n{save} >> {log}\nprintf '\\n' >> {log}\ncat {verdict} 2>/dev/null\nexit 0\n",
            log = shell_quote(&hook.event_log),
            verdict = shell_quote(&hook.verdict_file),
        );
        fs::write(&hook.script, script)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&hook.script, fs::Permissions::from_mode(0o700))?;
        }
        Ok(hook)
    }

    /// Sets what the hook prints from now on.
    pub fn answer_with(&self, rendered: &str) -> Result<(), String> {
        fs::write(&self.verdict_file, rendered)
            .map_err(|error| format!("cannot write the hook's verdict file: {error}"))
    }

    /// Waits for a logged event that `find` recognises (it reads one line, with the adapter's
    /// production parser), and returns what `find` made of it.
    pub fn wait_for_event<T>(
        &self,
        deadline: Duration,
        mut find: impl FnMut(&str) -> Option<T>,
    ) -> Option<T> {
        let mut found = None;
        let _ = wait_until(deadline, || {
            let log = fs::read_to_string(&self.event_log).unwrap_or_default();
            found = log
                .lines()
                .filter(|line| !line.trim().is_empty())
                .find_map(&mut find);
            found.is_some()
        });
        found
    }
}

/// Waits for what the agent reported to `model` for `call_id`.
pub fn wait_for_output(model: &ScriptedModel, call_id: &str, deadline: Duration) -> Option<String> {
    let mut output = None;
    let _ = wait_until(deadline, || {
        output = model.output_for(call_id);
        output.is_some()
    });
    output
}

/// What a standard case saw, for [`judge`].
#[derive(Debug, Clone)]
pub struct Seen<'a> {
    pub case: &'a CommandCase,
    /// The command as the adapter's parser read it from the hook's event.
    pub read_as: &'a str,
    /// What the agent reported to the model for the call.
    pub output: &'a str,
    /// Whether the agent's own dialog was shown while the hook decided (allow, deny), or the
    /// dialog's line that was shown (no verdict).
    pub dialog_shown: bool,
    pub dialog_line: &'a str,
}

/// Whether a standard case passed in the agent of `screen`, from the marker file and what was
/// seen; `Ok` holds the evidence of a pass, `Err` what went wrong.
pub fn judge(screen: &screen::AgentScreen, seen: &Seen<'_>) -> Result<String, String> {
    let Seen {
        case,
        read_as,
        output,
        dialog_shown,
        dialog_line,
    } = seen;
    let (agent, dialog) = (screen.agent, screen.dialog);
    let reported = (screen.reported)(output);
    // A file an agent writes with its own file tool (such as a patch) ends with a newline.
    let marker = fs::read_to_string(&case.marker)
        .ok()
        .map(|text| text.strip_suffix('\n').map(str::to_owned).unwrap_or(text));
    match case.answer {
        HookAnswer::Allow | HookAnswer::NoVerdict if marker.as_deref() != Some(case.name) => Err(
            format!("the command did not run (no marker file); {agent} reported: {reported}"),
        ),
        HookAnswer::Deny if marker.is_some() => {
            Err("the command ran although gatehouse denied it".into())
        }
        HookAnswer::Allow | HookAnswer::Deny if *dialog_shown => Err(format!(
            "{agent} showed its own {dialog} although the hook decided"
        )),
        HookAnswer::Deny if !output.contains(DENY_MESSAGE) => Err(format!(
            "{agent} did not pass gatehouse's deny message to the model; it reported: {reported}"
        )),
        HookAnswer::Allow => Ok(format!(
            "{agent} ran `{read_as}` (read by the adapter) with no {dialog} of its own; it reported: {reported}"
        )),
        HookAnswer::Deny => Ok(format!(
            "{agent} did not run `{read_as}`, showed no {dialog} of its own, and told the model: {reported}"
        )),
        HookAnswer::NoVerdict => Ok(format!(
            "{agent} showed its own {dialog} ({dialog_line:?}) with `{read_as}` not run; its Yes ran it"
        )),
    }
}

/// A wait whose deadline passed before its condition held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the deadline passed first")]
pub struct DeadlinePassed;

/// What a passing probe offers, in words for people: `actions` (such as `once and deny`) for the
/// agent's `prompts` (such as `bash prompts`).
#[derive(Debug, Clone, Copy)]
pub struct Offers<'a> {
    pub actions: &'a str,
    pub prompts: &'a str,
}

/// `gatehouse probe AGENT` for a probe-gated agent: its probe `run`, as the binary runs it for
/// any adapter ([`crate::gated::AgentDescription::run_probe`]: the executable named, else the
/// one on `PATH`; the record saved; what it means).
#[derive(Clone, Copy)]
pub struct GatedProbe {
    pub agent: &'static crate::gated::AgentDescription,
    pub run: RunProbe,
}

/// An agent's probe of `options.executable`, writing progress lines.
pub type RunProbe = fn(&ProbeOptions, &mut dyn FnMut(&str)) -> Result<ProbeRecord, KitError>;

impl AgentProbe for GatedProbe {
    fn executable_name(&self) -> &'static str {
        self.agent.executable.program
    }

    fn run(
        &self,
        request: &ProbeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ProbeOutcome, KitError> {
        self.agent
            .run_probe(request, |options| (self.run)(options, progress))
    }
}

/// What a standard probe's `AgentProbe::run` does: probes the executable the person named (else
/// the one `find` finds; none is `missing`) with `run`, saves the record at `record_path` and
/// says what it means: what it `offers` for that version of the agent, or read-only.
pub fn run_and_save<R, E>(
    request: &ProbeRequest,
    find: impl FnOnce() -> Option<PathBuf>,
    missing: impl FnOnce() -> KitError,
    (words, offers): (AgentWords, Offers<'_>),
    record_path: PathBuf,
    run: impl FnOnce(&ProbeOptions) -> Result<R, E>,
) -> Result<ProbeOutcome, KitError>
where
    R: Serialize + StandardRecord,
    E: Into<KitError>,
{
    let executable = request
        .executable
        .clone()
        .or_else(find)
        .ok_or_else(missing)?;
    let probed = run(&ProbeOptions::new(executable)).map_err(Into::into)?;
    crate::record::write(&record_path, &probed)?;
    let (name, version) = (words.name, probed.agent_version().to_owned());
    let Offers { actions, prompts } = offers;
    let meaning = if probed.passed() {
        format!("gatehouse now offers {actions} for {name} {version}'s {prompts}; any other version stays read-only until probed")
    } else {
        format!("{name} {version} stays read-only in gatehouse; answer its prompts in {name}'s terminal")
    };
    Ok(ProbeOutcome {
        passed: probed.passed(),
        agent_version: version,
        record: record_path,
        meaning,
    })
}

/// Waits until `condition` holds, checking every 50 ms; `Err` when `deadline` passed first.
pub fn wait_until(
    deadline: Duration,
    mut condition: impl FnMut() -> bool,
) -> Result<(), DeadlinePassed> {
    let started = Instant::now();
    while !condition() {
        if started.elapsed() > deadline {
            return Err(DeadlinePassed);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// The executable a probe runs (`options.executable` with its links resolved, so that the
/// record names the very file) and its version, as `agent` reads it.
pub fn executable_and_version(
    options: &ProbeOptions,
    agent: &crate::executable::AgentExecutable,
) -> Result<(PathBuf, String), ProbeError> {
    let executable = fs::canonicalize(&options.executable)
        .map_err(|error| crate::executable::VersionError::CannotRun {
            program: options.executable.clone(),
            problem: error.to_string(),
        })
        .map_err(|error| ProbeError::Version(error.to_string()))?;
    let version = agent
        .version_of(&executable)
        .map_err(|error| ProbeError::Version(error.to_string()))?;
    Ok((executable, version))
}

/// The record of a probe of the adapter `agent`'s `executable` at `version` that saw
/// `results`: passed when every case did, made now, by this gatehouse.
pub fn record_of(
    agent: &'static str,
    (executable, version): (PathBuf, String),
    results: Vec<CaseResult>,
) -> ProbeRecord {
    ProbeRecord {
        agent,
        version,
        executable,
        probed_at: now(),
        passed: results.iter().all(|result| result.passed),
        cases: results,
        gatehouse_version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// Starts `agent` (its name for people, such as `Gemini CLI`) as `command` in a private
/// terminal in `workspace` with `environment`, and waits until its screen is `ready` (within
/// `options.start_deadline`; else [`ProbeError::DidNotStart`] with the last screen).
pub fn start_in_terminal<K: AsRef<str>, V: AsRef<str>>(
    agent: &'static str,
    (workspace, environment): (&Path, &[(K, V)]),
    command: &[&str],
    options: &ProbeOptions,
    ready: impl Fn(&str) -> bool,
) -> Result<Terminal, ProbeError> {
    let terminal = Terminal::start("probe", workspace, environment, command)?;
    terminal
        .wait_for_screen(options.start_deadline, ready)
        .map_err(|screen| ProbeError::DidNotStart {
            agent,
            deadline: options.start_deadline,
            screen,
        })?;
    Ok(terminal)
}

/// Now, for a record's time.
pub fn now() -> Timestamp {
    Timestamp::from_unix_millis(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis() as u64,
    )
}

/// Quotes a path for a POSIX shell.
pub fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_cases_write_their_markers_in_the_workspace() {
        let cases = standard_cases(Path::new("/w"));
        let names: Vec<&str> = cases.iter().map(|case| case.name).collect();
        assert_eq!(names, ["allow", "deny", "no-verdict"]);
        assert_eq!(
            cases[2].call.command,
            "printf no-verdict > gatehouse-probe-no-verdict.txt"
        );
        assert_eq!(cases[2].call.call_id, "call_probe_no_verdict");
        assert_eq!(
            cases[2].marker,
            Path::new("/w/gatehouse-probe-no-verdict.txt")
        );
    }

    #[test]
    fn a_failed_case_is_recovered_from_and_recorded() {
        let mut lines = Vec::new();
        let mut recovered = 0;
        let results = run_cases(
            &[1, 2],
            &mut |line| lines.push(line.to_owned()),
            |case| (if *case == 1 { "allow" } else { "deny" }, "words".into()),
            |case| {
                if *case == 1 {
                    Ok("ran".into())
                } else {
                    Err("no".into())
                }
            },
            || recovered += 1,
        );
        assert_eq!(recovered, 1);
        assert!(results[0].passed && !results[1].passed);
        assert_eq!(
            lines,
            [
                "case allow: words",
                "  passed: ran",
                "case deny: words",
                "  FAILED: no"
            ]
        );
    }

    #[test]
    fn a_path_with_a_quote_is_quoted_for_the_shell() {
        assert_eq!(shell_quote(Path::new("/a'b")), r"'/a'\''b'");
    }
}
