//! `gatehouse probe codex`: checks, live, whether the installed Codex honours gatehouse's answers
//! to its permission prompts, and saves the kit's probe record for [`crate::record`].
//!
//! The probe runs the real Codex in its interactive terminal (the kit's [`AgentScreen`] and
//! [`gatehouse_harness::probe::screen::Session`]) in a private, temporary folder: its own `HOME`
//! and `CODEX_HOME` (`HOME/.codex`), a workspace, and a scripted model on loopback
//! ([`fake_responses`]), so no account, network or tokens are used and the person's settings are
//! never read or written. Codex runs with `approval_policy = "on-request"`, the
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
use std::path::PathBuf;

use gatehouse_core::NewPrompt;
use gatehouse_harness::probe::screen::{
    private_environment, AgentScreen, Environment, PrivateHome,
};
pub use gatehouse_harness::probe::ProbeOptions;
/// The message the deny case sends, which the agent hands to the model.
pub use gatehouse_harness::probe::DENY_MESSAGE;
use gatehouse_harness::probe::{shell_quote, GatedProbe};

use crate::events::{ANSWERABLE_TOOL, PATCH_TOOL};
use crate::AGENT;
use crate::{events, verdict};

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

/// Codex's terminal for a command, as the kit's probe drives it: its prompt says Yes to `y`,
/// and Codex starts trusting the probe's own hook (`--dangerously-bypass-hook-trust`).
pub const SCREEN: AgentScreen = AgentScreen {
    dialog: "prompt",
    busy_texts: &[PATCH_PROMPT_TEXT],
    yes_keys: &["y"],
    is_call: is_command,
    reported,
    arguments: &["--dangerously-bypass-hook-trust"],
    ..AgentScreen::new(
        "Codex",
        "PermissionRequest",
        (APPROVAL_PROMPT_TEXT, READY_TEXT),
        events::parse,
        verdict::render,
    )
};

/// Codex's terminal for a patch: its prompt is "make the following edits?".
pub const PATCH_SCREEN: AgentScreen = AgentScreen {
    dialog_text: PATCH_PROMPT_TEXT,
    busy_texts: &[APPROVAL_PROMPT_TEXT],
    is_call: is_patch,
    ..SCREEN
};

/// Whether `prompt`, as the production parser read it, is Codex's shell `command`.
pub fn is_command(prompt: &NewPrompt, command: &str) -> bool {
    prompt.tool == ANSWERABLE_TOOL && prompt.summary == command
}

/// Whether `prompt`, as the production parser read it, is the scripted `patch`.
pub fn is_patch(prompt: &NewPrompt, patch: &str) -> bool {
    prompt.tool == PATCH_TOOL
        && prompt.input["command"]
            .as_str()
            .map(|given| given.trim_end_matches('\n'))
            == Some(patch.trim_end_matches('\n'))
}

/// The line of Codex's report to quote: a command's report starts with a chunk id, so its exit
/// code (or a patch's `Success.`) says more.
fn reported(output: &str) -> &str {
    output
        .lines()
        .find(|line| line.contains("exited with code") || line.starts_with("Success."))
        .or_else(|| output.lines().find(|line| !line.trim().is_empty()))
        .unwrap_or("(empty)")
}

/// Why the probe could not run at all: the kit's.
pub use gatehouse_harness::probe::ProbeError;

/// `gatehouse probe codex`: runs the probe against the executable, writing progress lines: the
/// kit's probe with Codex's cases ([`cases::all`]) in a private `CODEX_HOME`.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const CodexProbe: GatedProbe = GatedProbe {
    agent: &AGENT,
    run: |options, progress| {
        Ok(SCREEN.probe_cases(
            &AGENT,
            options,
            progress,
            (fake_responses::start, prepare),
            cases::all,
        )?)
    },
};

/// The probe's private `CODEX_HOME`, in its private home.
pub fn codex_home(private: &PrivateHome) -> PathBuf {
    private.home.join(".codex")
}

/// Fills the probe's private `CODEX_HOME`: `hooks.json` running the probe's hook, the model
/// catalog and `config.toml`; returns Codex's environment.
fn prepare(private: &PrivateHome) -> io::Result<Environment> {
    let codex_home = codex_home(private);
    fs::create_dir_all(&codex_home)?;
    let command = shell_quote(&private.hook.script);
    let hooks = serde_json::json!({ "hooks": { "PermissionRequest": [
        { "matcher": "*", "hooks": [{ "type": "command", "command": command, "timeout": 30 }] }
    ] } });
    fs::write(
        codex_home.join("hooks.json"),
        serde_json::to_string_pretty(&hooks)?,
    )?;
    let catalog = codex_home.join(fake_responses::MODEL_CATALOG);
    fs::write(
        &catalog,
        serde_json::to_string_pretty(&fake_responses::model_catalog())?,
    )?;
    let toml_string = |text: &str| serde_json::to_string(text).expect("a string always serialises");
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
        toml_string(&private.base_url),
        toml_string(&private.workspace.display().to_string()),
        model = fake_responses::MODEL,
        catalog = toml_string(&catalog.display().to_string()),
    );
    fs::write(codex_home.join("config.toml"), config)?;
    Ok(private_environment(
        &private.home,
        &private.path,
        &[
            ("CODEX_HOME", &codex_home.display().to_string()),
            ("SHELL", PROBE_SHELL),
            (API_KEY_VARIABLE, "unused"),
        ],
    ))
}
