//! `gatehouse probe qwen`: checks, live, whether the installed Qwen Code honours gatehouse's
//! answers to its permission prompts, and saves the kit's probe record.
//!
//! The probe runs the real Qwen Code in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME`
//! ([`private`]), a workspace, and the kit's scripted chat-completions model on loopback as its
//! OpenAI-compatible provider, so no account, network or tokens are used and the person's
//! settings are never read or written. The model asks three times to run `printf CASE >
//! gatehouse-probe-CASE.txt` with `run_shell_command`; the kit's standard cases
//! ([`gatehouse_harness::probe`]) judge what happened: allow runs it with no dialog, deny does not
//! and the model reads the message, no verdict leaves Qwen's own dialog in charge.
//!
//! Which hook proves it: the probe's `PermissionRequest` hook is a small shell script that saves
//! the event Qwen wrote on its stdin and prints, before each case, exactly what `gatehouse hook
//! qwen` prints in production ([`crate::verdict::render`]). The saved event is read with
//! [`crate::events::parse`], the production parser, and must name the scripted command.

pub mod private;

use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::{ScriptedCall, ScriptedModel, Tool};
use gatehouse_harness::probe::screen::AgentScreen;
pub use gatehouse_harness::probe::ProbeOptions;
use gatehouse_harness::probe::{shell_quote, GatedProbe};
use serde_json::json;

use crate::{events, verdict, AGENT};

/// Text of Qwen Code 0.24.4's dialog for a shell command.
pub const APPROVAL_PROMPT_TEXT: &str = "Allow execution of";

/// Text of Qwen's empty input box: it is ready for the next message.
pub const READY_TEXT: &str = "Type your message";

/// Qwen Code's terminal, as the kit's standard probe drives it: "1. Yes, allow once" is
/// selected in its dialog, and it quits with `/quit`.
pub const SCREEN: AgentScreen = AgentScreen::new(
    "Qwen",
    "PermissionRequest",
    (APPROVAL_PROMPT_TEXT, READY_TEXT),
    |stdin| events::parse(stdin, None),
    verdict::render,
);

/// Qwen's shell tool; the call's reason is its description, which Qwen shows beside the command.
pub const SHELL: Tool = Tool::command_and_description(events::ANSWERABLE_TOOL);

/// Starts the kit's scripted chat-completions model with the calls to hand out, in order; its
/// [`ScriptedModel::base_url`] is the value of `OPENAI_BASE_URL`.
pub fn scripted_model(script: Vec<ScriptedCall>) -> std::io::Result<ScriptedModel> {
    ScriptedModel::start(Chat { tool: SHELL }, script)
}

/// `gatehouse probe qwen`: runs the probe against the executable, writing progress lines: the
/// kit's standard probe, in a private home whose settings run the probe's hook.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const QwenProbe: GatedProbe = GatedProbe {
    agent: &AGENT,
    run: |options, progress| {
        Ok(
            SCREEN.probe(&AGENT, options, progress, scripted_model, |private| {
                let hooks = json!({ "PermissionRequest": [{ "matcher": "*", "hooks": [
            { "type": "command", "command": shell_quote(&private.hook.script), "timeout": 30 }
        ] }] });
                private::write_private_settings(&private.home, Some(hooks))?;
                Ok(private::offline_environment(
                    &private.home,
                    &private.base_url,
                    &private.path,
                ))
            })?,
        )
    },
};
