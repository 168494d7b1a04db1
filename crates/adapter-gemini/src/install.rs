//! Installs and removes gatehouse's command hooks in a Gemini CLI settings file:
//! `$GEMINI_CLI_HOME/.gemini/settings.json` (Gemini's own override of the home folder), else
//! `~/.gemini/settings.json`, or a project's `.gemini/settings.json`.
//!
//! Gemini CLI 0.61.0 reads the same shape as Claude Code's settings (`hooks.<Event>` holds matcher
//! groups of `{"type": "command", ...}` entries), with two differences that the shared
//! [`gatehouse_hook_settings`] algorithm takes as the agent's [`EntryStyle`]: an entry has a
//! `name` (Gemini shows it in its warnings and `/hooks`), and `timeout` is in milliseconds.
//! Matchers are regular expressions over the tool name for the tool events; Notification and the
//! agent events take none.
//!
//! Every hook only reports what happened and returns at once (the Notification hook registers
//! the prompt for watching), so every timeout is short ([`TIMEOUT_SECONDS`]): above the hook's
//! 2-second budget for a stuck gateway, far below Gemini's default of 60 s. BeforeTool, which
//! runs for every tool call and which Gemini waits for, is not hooked.
//!
//! An entry is gatehouse's when its `command` ends with ` hook gemini 2>/dev/null` (see
//! [`HOOK_COMMAND_SUFFIX`]) and its program (the first shell word) is named `gatehouse`, in any
//! folder.
//!
//! Answerable, by the person's choice (`gatehouse install gemini --answerable`, after the price
//! [`ANSWERABLE_PRICE`] is shown): the same hooks, plus a `BeforeTool` hook for `run_shell_command`
//! that holds the prompt ([`GEMINI_ANSWER_HOOKS`], command `gatehouse hook gemini BeforeTool`,
//! timeout [`BEFORE_TOOL_TIMEOUT_SECONDS`], 24 days, so that Gemini never times it out before the
//! hook's own deadline, even after Gemini was suspended), written first, then gatehouse's own
//! policy file ([`crate::policy`]). Installing again writes the timeout anew; one an older
//! gatehouse wrote is named by [`answer_hook_timeout_problem`]. Its command does not send stderr to
//! `/dev/null`: should the gatehouse binary be gone, bash's "No such file or directory" on stderr
//! with exit 127 is what makes Gemini 0.61.0 block the call rather than run it. Uninstalling
//! removes the policy first, then the hooks; a plain `install` (watched) removes both too. The
//! answerable hook is removed only once nothing is left at the policy's path (a `gatehouse.toml`
//! edited by hand is not gatehouse's to remove, and keeps the hook).
//!
//! Gemini does not run the hook when any settings file it merges (the user's, the system's, the
//! system defaults, the project's `.gemini/settings.json`) sets `hooksConfig.enabled: false` or
//! names it in `hooksConfig.disabled` ([`answer_hook_switched_off`], [`other_settings_files`]):
//! the answerable install is refused then, and [`policy_without_hook`] and
//! [`project_switches_the_hook_off`] name it a DANGER. A project Gemini runs in elsewhere can do
//! the same, which gatehouse cannot see or prevent.

use std::path::{Path, PathBuf};

use gatehouse_core::kit::{
    HoldLimits, HookInstaller, InstallOutcome, InstallRequest, KitError, SettingsScope,
};
use gatehouse_hook_settings::{installer, AgentHooks, EntryStyle, TimeoutUnit};
use serde_json::Value;

pub use gatehouse_hook_settings::{
    backup_path, Change, HookEvent, HookPlan, HookTimeout, InstallError, InstallReport,
    BACKUP_SUFFIX,
};

/// The suffix every gatehouse hook command for Gemini CLI ends with. Gemini CLI 0.61.0 reads a
/// hook's stderr as its output when stdout is empty, and shows it in its terminal (as "ℹ ...
/// [gatehouse]"): the one line the hook writes when it cannot do its job (no gateway, say) would
/// show up on every event. So the command sends stderr nowhere, and with the gateway down Gemini
/// looks as if gatehouse were not installed; `gatehouse status` says whether the gateway is up.
pub const HOOK_COMMAND_SUFFIX: &str = " hook gemini 2>/dev/null";

/// The `name` of gatehouse's entries.
pub const ENTRY_NAME: &str = "gatehouse";

/// The timeout of every hook, in seconds (written as milliseconds).
pub const TIMEOUT_SECONDS: u64 = 5;

/// AfterTool is hooked for the shell tool only, the one whose prompts are watched.
pub const SHELL_MATCHER: &str = "^run_shell_command$";

const fn event(name: &'static str, matcher: Option<&'static str>) -> HookEvent {
    HookEvent::within(name, matcher, TIMEOUT_SECONDS)
}

/// The events gatehouse installs a hook for, in order: the dialog, and what settles it. Gemini
/// CLI 0.61.0 has no event for No or Esc in its dialog.
pub const EVENTS: [HookEvent; 5] = [
    event("Notification", None),
    event("AfterTool", Some(SHELL_MATCHER)),
    event("BeforeAgent", None),
    event("AfterAgent", None),
    event("SessionEnd", None),
];

/// Gemini CLI, as the shared installer sees it.
pub const GEMINI_HOOKS: AgentHooks =
    AgentHooks::matcher_groups(SETTINGS_FILE_KIND, HOOK_COMMAND_SUFFIX, &EVENTS)
        .with_entry(gemini_entry(ENTRY_NAME));

/// How the settings file is named in errors.
const SETTINGS_FILE_KIND: &str = "Gemini CLI settings file";

/// Gemini's entries: named `name` (Gemini shows it in "Executing Hook: ..."), timeouts in
/// milliseconds.
const fn gemini_entry(name: &'static str) -> EntryStyle {
    EntryStyle {
        name: Some(name),
        timeout_unit: TimeoutUnit::Milliseconds,
    }
}

/// The hook of an answerable install answers at the latest this long after it starts
/// ([`crate::verdict::NO_VERDICT`] then, whatever it waits for). Gemini shows only "Executing
/// Hook" meanwhile, so a prompt is held for minutes at most.
pub const ANSWER_WITHIN_SECONDS: u64 = 180;

/// The longest `timeout` Gemini CLI 0.61.0 can apply, in milliseconds: it passes the value to
/// Node's `setTimeout`, which takes at most 2^31 - 1 ms (24.8 days) and fires any longer delay
/// after 1 ms (with only a `TimeoutOverflowWarning`), so that a larger timeout would let every
/// shell command run unasked at once. Gemini's settings schema sets no bound of its own.
pub const GEMINI_LONGEST_TIMEOUT_MS: u64 = 2_147_483_647;

/// The `timeout` of the answerable `BeforeTool` hook: 24 days, as long as Gemini can wait and
/// a round number below [`GEMINI_LONGEST_TIMEOUT_MS`], so that it never decides in practice and
/// the hook's own deadline ([`ANSWER_WITHIN_SECONDS`]) always does. A hook that Gemini times out
/// lets the call run unasked, and Gemini's timer is Node's `setTimeout`: while Gemini's whole
/// process group is stopped (its own Ctrl+Z stops the hook with it) neither can act, and on
/// SIGCONT Node fires an overdue timer at once, racing the hook's answer. A timeout of minutes
/// (240 s, what gatehouse wrote before) is overdue after such a pause; 24 days never is.
pub const BEFORE_TOOL_TIMEOUT_SECONDS: u64 = 24 * 24 * 60 * 60;

// Written in milliseconds, the timeout must stay within what Node can wait (a longer one runs
// every shell command unasked after 1 ms), and days beyond the hook's own deadline.
const _: () = assert!(BEFORE_TOOL_TIMEOUT_SECONDS * 1000 <= GEMINI_LONGEST_TIMEOUT_MS);
const _: () = assert!(BEFORE_TOOL_TIMEOUT_SECONDS >= 20 * 86_400 + ANSWER_WITHIN_SECONDS);

/// How long answerable Gemini's hook holds a shell command: its deadline less what it keeps for
/// connecting and printing ([`gatehouse_core::WithoutVerdict::SPARE`]).
pub const ANSWERABLE_HOLD_SECONDS: u64 =
    ANSWER_WITHIN_SECONDS - gatehouse_core::WithoutVerdict::SPARE.as_secs();

/// Why `gatehouse install gemini --hold` is refused.
pub const WHY_THE_HOLD_IS_FIXED: &str = "answerable Gemini's hook holds a shell command for 170 s, fixed: its deadline (180 s from its start, counting any time Gemini is suspended) is the adapter's, since Gemini runs the command unasked if the hook does not answer, and watched Gemini holds nothing";

const _: () = assert!(ANSWERABLE_HOLD_SECONDS == 170);

/// The suffix of the answerable hook's command, which names its event so that the hook knows,
/// before it reads anything, that it must answer (see [`gatehouse_core::WithoutVerdict`]).
pub const ANSWER_COMMAND_SUFFIX: &str = " hook gemini BeforeTool";

/// The event name in [`ANSWER_COMMAND_SUFFIX`].
pub const ANSWER_EVENT: &str = "BeforeTool";

/// The `name` of the answerable hook's entry, as Gemini shows it in "Executing Hook: ...".
pub const ANSWER_ENTRY_NAME: &str = "gatehouse-answer";

/// The answerable install's one event: `BeforeTool` of the shell tool, which holds the prompt.
pub const ANSWER_EVENTS: [HookEvent; 1] = [HookEvent::within(
    ANSWER_EVENT,
    Some(SHELL_MATCHER),
    BEFORE_TOOL_TIMEOUT_SECONDS,
)];

/// The answerable hook, as the shared installer sees it: separate from [`GEMINI_HOOKS`] (another
/// suffix), so each set is installed and recognised on its own.
pub const GEMINI_ANSWER_HOOKS: AgentHooks =
    AgentHooks::matcher_groups(SETTINGS_FILE_KIND, ANSWER_COMMAND_SUFFIX, &ANSWER_EVENTS)
        .with_entry(gemini_entry(ANSWER_ENTRY_NAME));

/// What `gatehouse install gemini --answerable` costs, said before it is done.
pub const ANSWERABLE_PRICE: &str = "Answerable Gemini CLI has a price. gatehouse writes its own Gemini policy (~/.gemini/policies/gatehouse.toml) that allows run_shell_command, so Gemini no longer shows its own dialog for shell commands: gatehouse's BeforeTool hook decides each one (from gatehouse, or by handing it back to Gemini's dialog). With that policy, Gemini runs a shell command UNASKED whenever that hook does not answer properly: if it is killed, times out, crashes, prints nothing or bad JSON, or hooks are turned off (hooksConfig.enabled false, the hook disabled by name with /hooks disable or hooksConfig.disabled, in ~/.gemini/settings.json, the system settings or a project's .gemini/settings.json, or the hook removed from settings.json while the policy stays). gatehouse refuses and warns where it can see this (`gatehouse status` run in a project folder checks that project), but it cannot stop a project from doing it. gatehouse's hook answers `ask` (Gemini's own dialog) on every failure it can see, with the gateway down or stuck, and at its own deadline (180 s, counting any time Gemini is suspended with Ctrl+Z or the machine sleeps); Gemini's timeout for it is set to 24 days so that it never decides first. What it cannot cover is its own sudden death (SIGKILL, out of memory). Gemini still asks for the commands it treats as dangerous (rm -f, ...), even after an answer from gatehouse. `gatehouse uninstall gemini` removes the policy first, then the hooks; while any file is at the policy's path (one you edited, say) the BeforeTool hook stays, and you are told to remove that file by hand.";

/// The settings file Gemini CLI reads for this user: `$GEMINI_CLI_HOME/.gemini/settings.json`,
/// else `~/.gemini/settings.json`.
pub fn default_settings_path() -> Option<PathBuf> {
    let home = std::env::var_os("GEMINI_CLI_HOME")
        .filter(|folder| !folder.is_empty())
        .or_else(|| std::env::var_os("HOME"))?;
    Some(PathBuf::from(home).join(".gemini").join("settings.json"))
}

/// The hook command for a gatehouse binary, quoted for a POSIX shell. `None` when the path is
/// not UTF-8 or not named `gatehouse`.
#[must_use]
pub fn hook_command(program: &Path) -> Option<String> {
    GEMINI_HOOKS.hook_command(program)
}

/// Whether a hook command is gatehouse's (see the module documentation).
#[must_use]
pub fn is_gatehouse_command(command: &str) -> bool {
    GEMINI_HOOKS.is_gatehouse_command(command)
}

/// What to install for a hook command: no hook holds a prompt, so there is no hold timeout.
fn plan_for(command: &str) -> HookPlan {
    HookPlan {
        command: command.to_owned(),
        hold_timeout_seconds: TIMEOUT_SECONDS,
    }
}

/// The settings with gatehouse's entries installed for `command`, and what changed.
///
/// # Errors
///
/// Fails when `command` is not gatehouse's, or when the settings have the wrong shape.
pub fn plan_install(settings: &Value, command: &str) -> Result<(Value, Vec<Change>), InstallError> {
    GEMINI_HOOKS.plan_install(settings, &plan_for(command))
}

/// The settings with every gatehouse entry removed, and what changed.
///
/// # Errors
///
/// Fails when the top level or its `hooks` value is not a JSON object.
pub fn plan_uninstall(settings: &Value) -> Result<(Value, Vec<Change>), InstallError> {
    GEMINI_HOOKS.plan_uninstall(settings)
}

/// Installs gatehouse's hooks, running `command`, into the settings file at `path`.
///
/// # Errors
///
/// Fails, leaving the file unchanged, when it cannot be read or written, is not a JSON object of
/// the right shape, or changed meanwhile.
pub fn install_file(path: &Path, command: &str) -> Result<InstallReport, InstallError> {
    GEMINI_HOOKS.install_file(path, &plan_for(command))
}

/// Removes gatehouse's hooks from the settings file at `path`; a missing file is left missing.
///
/// # Errors
///
/// Fails, leaving the file unchanged, for the same reasons as [`install_file`].
pub fn uninstall_file(path: &Path) -> Result<InstallReport, InstallError> {
    GEMINI_HOOKS.uninstall_file(path)
}

/// What the person should know after an install, given the settings file as it now is.
pub fn notes(command: &str, settings: &Value) -> Vec<String> {
    let mut notes = vec![
        format!("Gemini CLI runs `{command}`; each hook returns at once (timeout {TIMEOUT_SECONDS} s)."),
        "Gemini's prompts are listed read-only: its hooks cannot answer its dialog, so answer them in Gemini's terminal. \
         gatehouse does not make Gemini's YOLO mode (--approval-mode yolo) safe: there a failing hook lets the call run."
            .to_owned(),
    ];
    if settings.pointer("/hooksConfig/enabled") == Some(&Value::Bool(false)) {
        notes.push(
            "This file turns Gemini's hooks off (hooksConfig.enabled is false): Gemini runs none until you set it to true."
                .to_owned(),
        );
    }
    notes
}

/// The answerable hook's command for a gatehouse binary. `None` when the path is not UTF-8 or
/// not named `gatehouse`.
#[must_use]
pub fn answer_hook_command(program: &Path) -> Option<String> {
    GEMINI_ANSWER_HOOKS.hook_command(program)
}

fn answer_plan_for(command: &str) -> HookPlan {
    HookPlan {
        command: command.to_owned(),
        hold_timeout_seconds: BEFORE_TOOL_TIMEOUT_SECONDS,
    }
}

/// Whether the settings at `path` hold gatehouse's answerable `BeforeTool` hook.
pub fn answer_hook_installed(path: &Path) -> bool {
    let Some(settings) = read_settings(path) else {
        return false;
    };
    settings
        .pointer(&format!("/hooks/{ANSWER_EVENT}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|entry| entry.get("command").and_then(Value::as_str))
        .any(|command| GEMINI_ANSWER_HOOKS.is_gatehouse_command(command))
}

/// What is wrong with the `timeout` of gatehouse's answerable hook in the settings at `path`,
/// if it is there: Gemini would time the hook out, and run the shell command unasked, before the
/// hook has answered. No timeout (Gemini's default is 60 s), one shorter than
/// [`BEFORE_TOOL_TIMEOUT_SECONDS`] (an older gatehouse wrote 240 s: overdue after Gemini was
/// suspended past it, with Ctrl+Z), or one longer than Node can wait (fired after 1 ms). Such a
/// hook is not answerable ([`crate::Gemini`]) until `gatehouse install gemini --answerable`
/// writes it again. `None` when the timeout is right, or the hook is not in the file.
pub fn answer_hook_timeout_problem(path: &Path) -> Option<String> {
    let settings = read_settings(path)?;
    let timeouts: Vec<Option<&Value>> = settings
        .pointer(&format!("/hooks/{ANSWER_EVENT}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|entry| {
            entry
                .get("command")
                .and_then(Value::as_str)
                .is_some_and(|command| GEMINI_ANSWER_HOOKS.is_gatehouse_command(command))
        })
        .map(|entry| entry.get("timeout"))
        .collect();
    let wanted = BEFORE_TOOL_TIMEOUT_SECONDS * 1000;
    let problem = timeouts.into_iter().find_map(|timeout| {
        let Some(timeout) = timeout else {
            return Some("has no timeout, so Gemini's default of 60 s applies".to_owned());
        };
        let problem = match timeout.as_f64() {
            Some(milliseconds) if milliseconds > GEMINI_LONGEST_TIMEOUT_MS as f64 => format!(
                "has a timeout of {timeout} ms, longer than Node can wait, so Gemini times the hook out after 1 ms"
            ),
            Some(milliseconds) if milliseconds >= wanted as f64 => return None,
            Some(_) => format!("has a timeout of {timeout} ms (an older gatehouse wrote 240000)"),
            None => format!("has a timeout that is not a number ({timeout})"),
        };
        Some(problem)
    })?;
    Some(format!(
        "gatehouse's BeforeTool hook in {} {problem}: Gemini would time it out, and run the shell command unasked, if Gemini is suspended (Ctrl+Z) or starved past it; run `gatehouse install gemini --answerable` to write it again (timeout {} days)",
        path.display(),
        BEFORE_TOOL_TIMEOUT_SECONDS / 86_400
    ))
}

fn read_settings(path: &Path) -> Option<Value> {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
}

/// Why Gemini would not run gatehouse's answerable hook, as one settings file says: every hook
/// turned off (`hooksConfig.enabled: false`), or this one disabled by name
/// (`hooksConfig.disabled`, which Gemini's `/hooks disable gatehouse-answer` writes; Gemini
/// matches an entry's `name`, or its `command` when it has none).
pub fn answer_hook_switched_off(settings: &Value) -> Option<&'static str> {
    if hooks_turned_off(settings) {
        return Some("hooksConfig.enabled is false");
    }
    let disabled_by_name = settings
        .pointer("/hooksConfig/disabled")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|name| name == ANSWER_ENTRY_NAME || GEMINI_ANSWER_HOOKS.is_gatehouse_command(name));
    disabled_by_name.then_some("hooksConfig.disabled names gatehouse-answer")
}

/// The settings files besides the user's that Gemini CLI 0.61.0 merges, and that gatehouse can
/// find from here: the system settings (`$GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else
/// `/etc/gemini-cli/settings.json`; on macOS `/Library/Application Support/GeminiCli/settings.json`),
/// the system defaults beside them (`$GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, else
/// `system-defaults.json`), and, when `project` is given, that folder's `.gemini/settings.json`
/// (Gemini's workspace settings when it runs there). Each can turn hooks off or disable one by
/// name; `hooksConfig.disabled` is a union of them all.
pub fn other_settings_files(project: Option<&Path>) -> Vec<PathBuf> {
    let from_env = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let system = from_env("GEMINI_CLI_SYSTEM_SETTINGS_PATH").map_or_else(
        || {
            PathBuf::from(if cfg!(target_os = "macos") {
                "/Library/Application Support/GeminiCli/settings.json"
            } else {
                "/etc/gemini-cli/settings.json"
            })
        },
        PathBuf::from,
    );
    let defaults = from_env("GEMINI_CLI_SYSTEM_DEFAULTS_PATH").map_or_else(
        || {
            system
                .parent()
                .unwrap_or_else(|| Path::new("/"))
                .join("system-defaults.json")
        },
        PathBuf::from,
    );
    let mut files = vec![system, defaults];
    files.extend(project.map(|folder| folder.join(".gemini").join("settings.json")));
    files
}

/// The first of `settings` (the user's file) and `also_read` that keeps gatehouse's answerable
/// hook from running, and why: `"<file>: <reason>"`, or the bare reason for `settings` itself.
fn answer_hook_switched_off_in(settings: &Path, also_read: &[PathBuf]) -> Option<String> {
    if let Some(reason) = read_settings(settings)
        .as_ref()
        .and_then(answer_hook_switched_off)
    {
        return Some(reason.to_owned());
    }
    also_read.iter().find_map(|file| {
        let reason = answer_hook_switched_off(&read_settings(file)?)?;
        Some(format!("{reason} in {}", file.display()))
    })
}

/// When a `gatehouse.toml` policy (whatever its text) is beside the settings at `path` but its
/// hook would not run (not in the file, hooks turned off, or the hook disabled by name in it or
/// in one of `also_read`), what that means: Gemini runs every shell command unasked. `gatehouse
/// status` says it (as the reason nothing is offered).
pub fn policy_without_hook(path: &Path, also_read: &[PathBuf]) -> Option<String> {
    let policy = crate::policy::path_beside(path);
    if !crate::policy::exists(&policy) {
        return None;
    }
    let why = answer_hook_switched_off_in(path, also_read).or_else(|| {
        (!answer_hook_installed(path)).then(|| "it is not in settings.json".to_owned())
    })?;
    Some(format!(
        "DANGER: a Gemini policy {} is installed but gatehouse's BeforeTool hook does not run ({why}), so Gemini runs every shell command unasked; run `gatehouse uninstall gemini` (and remove that file by hand if it is not gatehouse's) or `gatehouse install gemini --answerable`",
        policy.display()
    ))
}

/// When gatehouse's policy is installed for this user (a `gatehouse.toml` beside `settings`) and
/// the project in `folder` turns hooks off or disables gatehouse's hook by name, what that means:
/// a Gemini run there runs every shell command unasked. gatehouse cannot prevent it; `gatehouse
/// status` and `install` say it when run in that folder.
pub fn project_switches_the_hook_off(settings: &Path, folder: &Path) -> Option<String> {
    if !crate::policy::exists(&crate::policy::path_beside(settings)) {
        return None;
    }
    let project = folder.join(".gemini").join("settings.json");
    if project == settings {
        return None;
    }
    let reason = answer_hook_switched_off(&read_settings(&project)?)?;
    Some(format!(
        "DANGER: {} ({reason}) keeps gatehouse's BeforeTool hook from running while your Gemini policy allows run_shell_command, so Gemini run in {} runs every shell command unasked; remove that setting, or run `gatehouse uninstall gemini`",
        project.display(),
        folder.display()
    ))
}

/// Whether `settings` turns every hook off, as `hooksConfig.enabled: false` does.
fn hooks_turned_off(settings: &Value) -> bool {
    settings.pointer("/hooksConfig/enabled") == Some(&Value::Bool(false))
}

/// Removes what makes Gemini answerable from the settings at `path`: gatehouse's policy first
/// (beside it), then the answerable hook. The hook is removed only once no file is left at the
/// policy's path: a policy that cannot be removed, or one that is no longer gatehouse's text
/// (edited by hand, say), keeps the hook in place, and the person is told what to remove, since
/// a policy without its hook would run every shell command unasked.
fn remove_answerable(path: &Path) -> Result<(Vec<String>, Vec<String>), KitError> {
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    let policy_path = crate::policy::path_beside(path);
    match crate::policy::remove(&policy_path) {
        Ok(true) => changes.push(format!("removed gatehouse's policy {}", policy_path.display())),
        Ok(false) => {}
        Err(error @ crate::policy::PolicyError::NotOurs { .. }) => notes.push(error.to_string()),
        Err(error) => {
            return Err(format!("{error}; the BeforeTool hook was left in place, so that Gemini does not run commands unasked").into())
        }
    }
    if crate::policy::exists(&policy_path) {
        if answer_hook_installed(path) {
            notes.push(format!(
                "gatehouse's BeforeTool hook stays in {}: while {} exists, Gemini may run shell commands unasked without it. Remove that file by hand, then run `gatehouse uninstall gemini` again",
                path.display(),
                policy_path.display()
            ));
        }
        return Ok((changes, notes));
    }
    let report = GEMINI_ANSWER_HOOKS.uninstall_file(path)?;
    changes.extend(report.changes.iter().map(ToString::to_string));
    Ok((changes, notes))
}

/// Gemini CLI's settings file: `~/.gemini/settings.json` (or under `$GEMINI_CLI_HOME`), or a
/// project's `.gemini/settings.json`.
pub struct GeminiInstaller;

impl HookInstaller for GeminiInstaller {
    fn settings_path(&self, scope: &SettingsScope) -> Result<PathBuf, KitError> {
        installer::settings_path(
            scope,
            default_settings_path,
            ".gemini/settings.json",
            &GEMINI_HOOKS,
        )
    }

    fn settings_described(&self) -> &'static str {
        "~/.gemini/settings.json (under $GEMINI_CLI_HOME if set), or a project's .gemini/settings.json"
    }

    /// Watched: no Gemini hook waits for a person, whatever the request's hold time. An
    /// answerable install found there is undone (its policy first): this is the choice of
    /// watching only.
    fn install(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        let command = installer::hook_command(hook_command(&request.program), &request.program)?;
        let (mut removed, mut removal_notes) = remove_answerable(&request.settings)?;
        let report = install_file(&request.settings, &command)?;
        let settings = read_settings(&request.settings).unwrap_or(Value::Null);
        let mut outcome = installer::outcome(report, notes(&command, &settings));
        if !removed.is_empty() {
            outcome.notes.push("Gemini's shell commands are answered in its own dialog again (watched read-only); `gatehouse install gemini --answerable` makes them answerable.".into());
        }
        removed.append(&mut outcome.changes);
        outcome.changes = removed;
        outcome.notes.append(&mut removal_notes);
        Ok(outcome)
    }

    /// The policy first, then the hooks.
    fn uninstall(&self, settings: &Path) -> Result<InstallOutcome, KitError> {
        let (mut changes, notes) = remove_answerable(settings)?;
        let mut outcome = installer::outcome(uninstall_file(settings)?, notes);
        changes.append(&mut outcome.changes);
        outcome.changes = changes;
        Ok(outcome)
    }

    fn answerable_price(&self) -> Option<&'static str> {
        Some(ANSWERABLE_PRICE)
    }

    /// Answerable Gemini holds a shell command until the hook's own deadline, which is fixed.
    fn hold_limits(&self) -> Option<HoldLimits> {
        Some(HoldLimits {
            default_seconds: ANSWERABLE_HOLD_SECONDS,
            max_seconds: ANSWERABLE_HOLD_SECONDS,
            why_fixed: Some(WHY_THE_HOLD_IS_FIXED),
        })
    }

    fn install_holding(
        &self,
        _request: &InstallRequest,
        _hold_seconds: u64,
    ) -> Result<InstallOutcome, KitError> {
        Err(format!("--hold does not apply to Gemini CLI: {WHY_THE_HOLD_IS_FIXED}").into())
    }

    /// The watched hooks, the answerable `BeforeTool` hook, then the policy. Only into the
    /// user's own settings (where Gemini reads the user's policies), and never into settings that
    /// turn hooks off (the policy would then run every shell command unasked).
    fn install_answerable(&self, request: &InstallRequest) -> Result<InstallOutcome, KitError> {
        if default_settings_path().as_deref() != Some(request.settings.as_path()) {
            return Err(format!(
                "--answerable changes your own Gemini settings and policies only (~/.gemini, or $GEMINI_CLI_HOME/.gemini), not {}; drop --settings/--project",
                request.settings.display()
            )
            .into());
        }
        let here = std::env::current_dir().ok();
        install_answerable_file(
            &request.settings,
            &request.program,
            &other_settings_files(here.as_deref()),
        )
    }
}

/// The answerable install into the settings file at `settings` (the checks of the user's own
/// settings aside): refused, with nothing written, when that file or one of `also_read` (see
/// [`other_settings_files`]) turns hooks off or disables gatehouse's hook by name, or a
/// `gatehouse.toml` policy beside it is not gatehouse's; then the watched hooks, the answerable
/// `BeforeTool` hook, and last the policy.
///
/// # Errors
///
/// Fails when a file cannot be read or written, or for the refusals above.
pub fn install_answerable_file(
    settings: &Path,
    program: &Path,
    also_read: &[PathBuf],
) -> Result<InstallOutcome, KitError> {
    if let Some(reason) = answer_hook_switched_off_in(settings, also_read) {
        return Err(format!(
            "Gemini would not run gatehouse's BeforeTool hook with {} ({reason}): with gatehouse's policy Gemini would then run every shell command unasked; set hooksConfig.enabled to true and take gatehouse-answer out of hooksConfig.disabled first",
            settings.display()
        )
        .into());
    }
    let policy_path = crate::policy::path_beside(settings);
    crate::policy::check_writable(&policy_path)?;
    let watch_command = installer::hook_command(hook_command(program), program)?;
    let answer_command = installer::hook_command(answer_hook_command(program), program)?;
    let watched = install_file(settings, &watch_command)?;
    let answering =
        GEMINI_ANSWER_HOOKS.install_file(settings, &answer_plan_for(&answer_command))?;
    let mut changes: Vec<String> = watched
        .changes
        .iter()
        .chain(&answering.changes)
        .map(ToString::to_string)
        .collect();
    // The hook is in place before the policy that makes it decide.
    if crate::policy::write(&policy_path)? {
        changes.push(format!(
            "wrote gatehouse's policy {}",
            policy_path.display()
        ));
    }
    let notes = vec![
        format!("Gemini CLI runs `{answer_command}` before each shell command (timeout {} days, so that Gemini never times it out first); it answers within {ANSWER_WITHIN_SECONDS} s.", BEFORE_TOOL_TIMEOUT_SECONDS / 86_400),
        "Shell commands are shown read-only until `gatehouse probe gemini` passes for the installed Gemini CLI version; until then, and whenever gatehouse has no answer, the hook hands each one to Gemini's own dialog.".to_owned(),
    ];
    Ok(InstallOutcome {
        path: settings.to_path_buf(),
        changes,
        backup: answering.backup.or(watched.backup),
        notes,
    })
}

#[cfg(test)]
mod tests;
