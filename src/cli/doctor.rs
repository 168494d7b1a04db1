//! `gatehouse doctor`: checks every link a prompt travels, and says for each what is wrong and
//! the one command that fixes it. The gateway (reachable on its socket, run by this user), each
//! agent's hooks (there, and as this binary installs them: a trial install on a copy of the
//! settings, [`super::setup::agents`]), each agent's probe against the version in use (the
//! capability flags `gatehouse status` shows), the page (`gatehouse web`'s control socket), the
//! paired browsers and, when some get pushes, a test push; and, only when it fails, whether
//! another user could replace the program the hooks run ([`install::hook_program_replaceable`]).
//!
//! One line per check, `ok`, `warn` or `FAIL` (`-` for what does not apply here, such as an agent
//! that is not installed), cut to fit the terminal (whole into a pipe or file); `--json` prints them
//! whole. Exits 1 when any check fails; warnings do not fail.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use gatehouse_core::capability::AdapterCapabilities;
use gatehouse_core::text::one_line;
use gatehouse_host_ipc::socket::SocketError;
use gatehouse_host_ipc::ClientError;
use gatehouse_web::control::{self, ControlReply, ControlRequest};
use gatehouse_web::devices::{DeviceStore, DeviceView};
use serde::Serialize;

use super::setup::agents::{self, Agent, HookState};
use super::setup::shown_path;
use super::setup::user_service::{self, GatewayProblem, Manager, ServiceState};
use crate::cli::install;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print `{"ok": ..., "checks": [{"check", "status", "message", "fix"}, ...]}`.
    #[arg(long)]
    json: bool,
}

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok,
    /// Works, but not fully (a prompt travels, or the link is optional).
    Warn,
    /// A prompt does not get through.
    Fail,
    /// Does not apply here (an agent that is not installed, a page that is not running).
    Skipped,
}

impl Outcome {
    fn word(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Warn => "warn",
            Outcome::Fail => "FAIL",
            Outcome::Skipped => "-",
        }
    }
}

/// One check: what was checked, how it came out, what is wrong (or right), and the command that
/// fixes it.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub check: String,
    pub status: Outcome,
    pub message: String,
    pub fix: Option<String>,
}

impl Check {
    fn new(check: impl Into<String>, status: Outcome, message: impl Into<String>) -> Self {
        Check {
            check: check.into(),
            status,
            message: message.into(),
            fix: None,
        }
    }

    fn fixed_by(mut self, command: impl Into<String>) -> Self {
        self.fix = Some(command.into());
        self
    }
}

/// The width of the check's name column.
const NAME_WIDTH: usize = 16;

/// The width of the outcome column.
const OUTCOME_WIDTH: usize = 4;

/// The shortest a message is cut to, however narrow the terminal.
const MESSAGE_AT_LEAST: usize = 24;

pub fn run(socket: PathBuf, arguments: DoctorArgs) -> anyhow::Result<ExitCode> {
    let checks = checks(&socket)?;
    let failed = checks.iter().any(|check| check.status == Outcome::Fail);
    if arguments.json {
        let report = serde_json::json!({ "ok": !failed, "checks": checks });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", lines(&checks, width()));
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// How wide a line may be: the terminal's width (as the kernel says it, else `COLUMNS`, else 80)
/// when stdout is a terminal; no bound for a pipe or a file, which a script or a log reads whole.
fn width() -> usize {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return usize::MAX;
    }
    // SAFETY: TIOCGWINSZ writes one winsize into `size`, which lives for the call.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let asked = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    let from_terminal = (asked == 0 && size.ws_col > 0).then_some(usize::from(size.ws_col));
    from_terminal
        .or_else(|| {
            std::env::var("COLUMNS")
                .ok()
                .and_then(|columns| columns.trim().parse().ok())
        })
        .filter(|columns| *columns >= 40)
        .unwrap_or(80)
}

/// The checks as text: one line each, its message cut to fit `width` columns, and under it
/// the command that fixes it, when there is one.
pub fn lines(checks: &[Check], width: usize) -> String {
    let indent = OUTCOME_WIDTH + 1 + NAME_WIDTH + 1;
    let room = width.saturating_sub(indent).max(MESSAGE_AT_LEAST);
    let mut out = String::new();
    for check in checks {
        let line = format!(
            "{:<OUTCOME_WIDTH$} {:<NAME_WIDTH$} {}",
            check.status.word(),
            one_line(&check.check, NAME_WIDTH),
            one_line(&check.message, room),
        );
        out.push_str(line.trim_end());
        out.push('\n');
        if let Some(fix) = &check.fix {
            out.push_str(&format!(
                "{:indent$}fix: {}\n",
                "",
                one_line(fix, room.saturating_sub(5))
            ));
        }
    }
    out
}

/// Every check, in the order a prompt travels: the gateway, each agent, the page, the phone.
fn checks(socket: &Path) -> anyhow::Result<Vec<Check>> {
    let mut checks = Vec::new();
    let status = user_service::gateway_status(socket)?;
    checks.push(gateway_check(socket, &status));
    let flags_from_gateway = status.as_ref().ok().map(|status| &status.adapters);
    let request = install::request_for(PathBuf::new())?;
    checks.extend(hook_program_check(&request.program));
    let mut not_installed = Vec::new();
    for agent in agents::all() {
        let state = agent.hook_state(&request);
        if agent.executable.is_none() && !state.installed() {
            not_installed.push(agent);
            continue;
        }
        checks.push(hooks_check(&agent, &state));
        checks.extend(probe_check(&agent, flags_from_gateway));
    }
    for agent in not_installed {
        let why = match agent.executable_name() {
            Some(command) => format!("not installed (no `{command}` on PATH)"),
            None => "not installed".to_owned(),
        };
        checks.push(Check::new(agent.id(), Outcome::Skipped, why));
    }
    checks.extend(web_checks(socket));
    Ok(checks)
}

/// A failed check when another user could replace the program the hooks run (see
/// [`install::hook_program_replaceable`]); nothing when only the person and root can, as for
/// every binary in a folder of the person's.
fn hook_program_check(program: &Path) -> Option<Check> {
    let why = install::hook_program_replaceable(program)?;
    Some(Check::new("hook program", Outcome::Fail, why).fixed_by(install::MOVE_TO_A_PRIVATE_FOLDER))
}

fn gateway_check(
    socket: &Path,
    status: &Result<gatehouse_host_ipc::protocol::StatusResult, GatewayProblem>,
) -> Check {
    const NAME: &str = "gateway";
    let shown = shown_path(socket);
    let status = match status {
        Ok(status) => {
            let how = if status.started_by.is_empty() {
                String::new()
            } else {
                format!(", started by {}", status.started_by)
            };
            return Check::new(
                NAME,
                Outcome::Ok,
                format!("up on {shown} (pid {}{how})", status.pid),
            );
        }
        Err(problem) => problem,
    };
    match status {
        GatewayProblem::Client(ClientError::Socket(SocketError::Connect { .. })) => Check::new(
            NAME,
            Outcome::Fail,
            format!("no gateway answers on {shown}"),
        )
        .fixed_by(start_command()),
        GatewayProblem::Client(ClientError::Socket(
            refusal @ (SocketError::NotYourGateway { .. } | SocketError::ServerUnknown { .. }),
        )) => Check::new(
            NAME,
            Outcome::Fail,
            super::socket_advice(refusal).to_string(),
        ),
        other => Check::new(NAME, Outcome::Fail, other.to_string()),
    }
}

/// The one command that starts a gateway: the service's socket where its units are written,
/// else `gatehouse serve`.
fn start_command() -> String {
    let manager = user_service::manager();
    let units_written = manager == Manager::Systemd
        && ServiceState::now(&manager).is_ok_and(|state| state.units_present());
    if units_written {
        format!(
            "systemctl --user enable --now {}",
            user_service::SOCKET_UNIT
        )
    } else {
        "gatehouse serve".to_owned()
    }
}

fn hooks_check(agent: &Agent, state: &HookState) -> Check {
    let name = format!("{} hooks", agent.id());
    let file = agent
        .settings
        .as_deref()
        .map(shown_path)
        .unwrap_or_default();
    let install = format!("gatehouse install {}", agent.id());
    match state {
        HookState::Current { answerable: false } => {
            Check::new(name, Outcome::Ok, format!("current in {file}"))
        }
        HookState::Current { answerable: true } => {
            Check::new(name, Outcome::Ok, format!("current in {file} (answerable)"))
        }
        HookState::Absent { .. } => {
            Check::new(name, Outcome::Warn, format!("not installed in {file}")).fixed_by(install)
        }
        HookState::Outdated {
            planned,
            answerable,
        } => {
            let fix = if *answerable {
                format!("{install} --answerable")
            } else {
                install
            };
            Check::new(
                name,
                Outcome::Fail,
                format!(
                    "outdated in {file} (an install here {})",
                    planned.changes.join(", ")
                ),
            )
            .fixed_by(fix)
        }
        // The installer says what is wrong with the file; once it is fixed, the install.
        HookState::Unusable(why) => Check::new(name, Outcome::Fail, why.clone()).fixed_by(install),
    }
}

/// Whether the probe is current for the agent version in use, from the capability flags (the
/// gateway's, as `gatehouse status` shows them, else this process's own): an action that is
/// read-only until its probe runs names the probe command in its reason.
fn probe_check(agent: &Agent, from_gateway: Option<&Vec<AdapterCapabilities>>) -> Option<Check> {
    let name = format!("{} probe", agent.id());
    let command = agent.probe_command()?;
    if agent.executable.is_none() {
        let which = agent.executable_name().unwrap_or(agent.id());
        return Some(Check::new(
            name,
            Outcome::Warn,
            format!("its hooks are installed, but no `{which}` is on PATH"),
        ));
    }
    let flags = from_gateway
        .and_then(|all| {
            all.iter()
                .find(|flags| flags.adapter == agent.id())
                .cloned()
        })
        .unwrap_or_else(|| agent.capabilities());
    let actions = || flags.rules.iter().flat_map(|rule| &rule.actions);
    if let Some(flag) = actions().find(|flag| !flag.verified && flag.evidence.contains(&command)) {
        // The reason ends saying to run the probe ("; run `gatehouse probe codex`"), which the
        // fix says.
        let reason = match flag.evidence.rfind("; ") {
            Some(end) if flag.evidence[end..].contains(&command) => &flag.evidence[..end],
            _ => flag.evidence.as_str(),
        };
        return Some(Check::new(name, Outcome::Warn, reason).fixed_by(command));
    }
    if let Some(flag) = actions().find(|flag| flag.verified && flag.evidence.contains("probe")) {
        return Some(Check::new(
            name,
            Outcome::Ok,
            format!("passed: {}", flag.evidence),
        ));
    }
    let why = actions()
        .find(|flag| !flag.verified)
        .map_or("nothing is read-only", |flag| flag.evidence.as_str());
    Some(Check::new(
        name,
        Outcome::Ok,
        format!("nothing for a probe to unlock: {why}"),
    ))
}

/// The page, the paired browsers and a test push.
fn web_checks(socket: &Path) -> Vec<Check> {
    let control = control::control_path(socket);
    let shown = shown_path(&control);
    let ask = |request: ControlRequest| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(anyhow::Error::from)
            .and_then(|runtime| runtime.block_on(control::request(&control, &request)))
    };
    let mut checks = Vec::new();
    let (running, devices) = match ask(ControlRequest::Devices) {
        Ok(Some(ControlReply::Devices { devices })) => {
            checks.push(Check::new(
                "web page",
                Outcome::Ok,
                format!("`gatehouse web` answers on {shown}"),
            ));
            (true, Ok(devices))
        }
        Ok(Some(_)) => {
            checks.push(Check::new(
                "web page",
                Outcome::Fail,
                format!(
                    "`gatehouse web` on {shown} answered something else; is it the same version?"
                ),
            ));
            (true, Err(()))
        }
        Ok(None) => {
            checks.push(
                Check::new(
                    "web page",
                    Outcome::Skipped,
                    "`gatehouse web` is not running",
                )
                .fixed_by("gatehouse web"),
            );
            (false, stored_devices().map_err(|_| ()))
        }
        Err(error) => {
            checks.push(Check::new("web page", Outcome::Fail, format!("{error:#}")));
            (false, Err(()))
        }
    };
    let Ok(devices) = devices else {
        return checks;
    };
    let with_push = devices
        .iter()
        .filter(|device| !device.push.is_empty())
        .count();
    checks.push(match (devices.len(), running) {
        (0, true) => Check::new("paired devices", Outcome::Warn, "no browser is paired")
            .fixed_by("gatehouse web pair --qr"),
        (0, false) => Check::new("paired devices", Outcome::Skipped, "no browser is paired"),
        (count, _) => Check::new(
            "paired devices",
            Outcome::Ok,
            format!(
                "{count} paired, {with_push} of them get{} pushes",
                if with_push == 1 { "s" } else { "" }
            ),
        ),
    });
    checks.push(if with_push == 0 {
        Check::new(
            "push test",
            Outcome::Skipped,
            "no paired browser gets pushes (\"Notify me\" on the page)",
        )
    } else if !running {
        Check::new(
            "push test",
            Outcome::Skipped,
            "pushes are sent by `gatehouse web`, which is not running",
        )
        .fixed_by("gatehouse web")
    } else {
        push_test(ask(ControlRequest::PushTest))
    });
    checks
}

/// The browsers paired, from the file `gatehouse web` keeps, when it does not run.
fn stored_devices() -> anyhow::Result<Vec<DeviceView>> {
    Ok(DeviceStore::open(Some(DeviceStore::default_path()?))?.devices())
}

fn push_test(reply: anyhow::Result<Option<ControlReply>>) -> Check {
    const NAME: &str = "push test";
    let outcomes = match reply {
        Ok(Some(ControlReply::PushTested { outcomes })) => outcomes,
        Ok(_) => return Check::new(NAME, Outcome::Fail, "`gatehouse web` did not send the test"),
        Err(error) => return Check::new(NAME, Outcome::Fail, format!("{error:#}")),
    };
    match outcomes.iter().find(|outcome| !outcome.delivered) {
        Some(failed) => Check::new(
            NAME,
            Outcome::Fail,
            format!(
                "not delivered to {} through {}: {}",
                failed.device, failed.service, failed.detail
            ),
        )
        .fixed_by("gatehouse web push-test"),
        None => Check::new(
            NAME,
            Outcome::Ok,
            format!(
                "sent to {} push service{}; check that it arrived",
                outcomes.len(),
                if outcomes.len() == 1 { "" } else { "s" }
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every hooks check that is not ok names the install that fixes it, a file the installer
    /// cannot use included (once the file is fixed, as the installer's words say).
    #[test]
    fn a_hooks_check_that_is_not_ok_names_the_install_that_fixes_it() {
        let agent = agents::all()
            .into_iter()
            .next()
            .expect("an installable agent");
        let install = format!("gatehouse install {}", agent.id());
        let unusable = HookState::Unusable("the file is not valid JSON; fix the file".into());
        let absent = HookState::Absent {
            planned: agents::Plan::default(),
        };
        let outdated = HookState::Outdated {
            planned: agents::Plan::default(),
            answerable: true,
        };
        for (state, status, fix) in [
            (&unusable, Outcome::Fail, install.clone()),
            (&absent, Outcome::Warn, install.clone()),
            (&outdated, Outcome::Fail, format!("{install} --answerable")),
        ] {
            let check = hooks_check(&agent, state);
            assert_eq!(check.status, status, "{state:?}");
            assert_eq!(check.fix.as_deref(), Some(fix.as_str()), "{state:?}");
        }
        let current = hooks_check(&agent, &HookState::Current { answerable: false });
        assert_eq!((current.status, current.fix), (Outcome::Ok, None));
    }

    #[test]
    fn each_check_is_one_line_within_80_columns_escaped_with_its_fix_below() {
        let checks = [
            Check::new("gateway", Outcome::Ok, "up on ~/run/gatehouse.sock (pid 7)"),
            Check::new("claude hooks", Outcome::Fail, format!("outdated in ~/.claude/settings.json (an install here {})", "updated the PermissionRequest hook, updated the PostToolUse hook"))
                .fixed_by("gatehouse install claude"),
            Check::new("codex probe", Outcome::Warn, "no probe has checked\x1b[31m that this Codex honours gatehouse's answers; run `gatehouse probe codex`")
                .fixed_by("gatehouse probe codex"),
            Check::new("copilot", Outcome::Skipped, "not installed (no `copilot` on PATH)"),
        ];
        let text = lines(&checks, 80);
        insta::assert_snapshot!(text, @r"
        ok   gateway          up on ~/run/gatehouse.sock (pid 7)
        FAIL claude hooks     outdated in ~/.claude/settings.json (an install here upda…
                              fix: gatehouse install claude
        warn codex probe      no probe has checked\e[31m that this Codex honours gateho…
                              fix: gatehouse probe codex
        -    copilot          not installed (no `copilot` on PATH)
        ");
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line}");
        }
    }
}
