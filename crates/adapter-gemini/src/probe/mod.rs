//! `gatehouse probe gemini`: checks, live, whether the installed Gemini CLI, with gatehouse's
//! policy ([`crate::policy`]), lets the BeforeTool hook decide its shell commands, and returns a
//! [`ProbeRecord`](gatehouse_harness::record::ProbeRecord) (the kit's, agent `gemini`).
//!
//! The probe runs the real Gemini CLI in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME` (with
//! `.gemini/settings.json` running the probe's BeforeTool hook, and gatehouse's policy file
//! exactly as `install --answerable` writes it), a workspace, and the kit's scripted model in
//! its Gemini dialect on loopback (`GOOGLE_GEMINI_BASE_URL`), so no account, network or tokens
//! are used and the person's settings are never read or written. The cases are the kit's
//! standard ones ([`gatehouse_harness::probe`]):
//!
//! - `allow`: the hook prints gatehouse's `once` (`{}`). Passes when the command ran with no
//!   dialog from Gemini.
//! - `deny`: the hook prints gatehouse's deny with a reason. Passes when the command did not
//!   run, Gemini showed no dialog, and the model received the reason.
//! - `no-verdict`: the hook prints what gatehouse's hook prints without a verdict
//!   ([`crate::verdict::NO_VERDICT`], `ask`). Passes when Gemini showed its own dialog with the
//!   command not run, and its "Allow once" ran it.
//!
//! The probe's hook is a small shell script that saves the event and prints a file the probe
//! fills before each case with exactly what `gatehouse hook gemini BeforeTool` prints in
//! production; the saved event is read with [`crate::events::parse`], the production parser.
//! The kit's [`AgentScreen`] runs it all; what is Gemini's own is its screen, its private home
//! ([`private`]) and its dialect.

pub mod private;

use gatehouse_harness::model::gemini::Gemini;
use gatehouse_harness::model::{ScriptedCall, ScriptedModel, Tool};
use gatehouse_harness::probe::screen::AgentScreen;
use gatehouse_harness::probe::GatedProbe;
pub use gatehouse_harness::probe::ProbeOptions;
pub use gatehouse_harness::probe::DENY_MESSAGE;

use crate::{events, verdict, AGENT};

/// The question of Gemini CLI 0.61.0's dialog for a shell command.
pub const DIALOG_TEXT: &str = "Allow execution of";

/// Gemini's input box, once it is ready for a message.
pub const READY_TEXT: &str = "Type your message";

/// Gemini's shell tool; the call's reason is the description Gemini shows.
pub const RUN_SHELL_COMMAND: Tool = Tool::command_and_description(events::SHELL_TOOL);

/// Gemini CLI's terminal, as the kit's standard probe drives it: "1. Allow once" is selected in
/// its dialog, and without a verdict the hook prints [`verdict::NO_VERDICT`] (`ask`).
pub const SCREEN: AgentScreen = AgentScreen {
    no_verdict: verdict::NO_VERDICT,
    still_typed,
    ..AgentScreen::new(
        "Gemini",
        "BeforeTool",
        (DIALOG_TEXT, READY_TEXT),
        events::parse,
        verdict::render,
    )
};

/// Whether `message` still sits in Gemini's input box, its Enter dropped (seen under load): the
/// lines below the rule (`─`) Gemini draws above its input box hold it, and no dialog is shown
/// (where another Enter would answer it).
pub fn still_typed(screen: &str, message: &str) -> bool {
    let mut below_rule = Vec::new();
    for line in screen.lines().rev() {
        if line.trim_start().starts_with('─') {
            return !screen.contains(DIALOG_TEXT)
                && below_rule.iter().any(|line: &&str| line.contains(message));
        }
        below_rule.push(line);
    }
    false
}

/// Why the probe could not run at all: the kit's.
pub use gatehouse_harness::probe::ProbeError;

/// Starts the scripted Gemini API with the calls to hand out, in order.
pub fn fake_gemini(script: Vec<ScriptedCall>) -> std::io::Result<ScriptedModel> {
    ScriptedModel::start(
        Gemini {
            tool: RUN_SHELL_COMMAND,
        },
        script,
    )
}

/// `gatehouse probe gemini`: runs the probe against the executable, writing progress lines: the
/// kit's standard probe, in a private home whose settings run the probe's hook with gatehouse's
/// policy beside them.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const GeminiProbe: GatedProbe = GatedProbe {
    agent: &AGENT,
    run: |options, progress| {
        Ok(SCREEN.probe(&AGENT, options, progress, fake_gemini, private::prepare)?)
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_still_typed_sits_below_the_input_boxs_rule_with_no_dialog() {
        let typed = "history\n────────\n > gatehouse probe: case deny\n────────";
        assert!(
            !still_typed(typed, "case deny"),
            "the lower rule closes the box"
        );
        let typed = "history\n────────\n > gatehouse probe: case deny";
        assert!(still_typed(typed, "case deny"));
        let sent = " > gatehouse probe: case deny\n────────\n > Type your message";
        assert!(!still_typed(sent, "case deny"));
        let dialog = "Allow execution of\n────────\n > gatehouse probe: case deny";
        assert!(!still_typed(dialog, "case deny"));
    }
}
