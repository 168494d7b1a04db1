//! `gatehouse probe copilot`: checks, live, whether the installed Copilot CLI honours gatehouse's
//! answers to its permission prompts, and saves the kit's probe record.
//!
//! The probe runs the real Copilot CLI in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME` (with
//! `.copilot/settings.json` and the workspace listed as trusted in `.copilot/config.json`), a
//! workspace, and a scripted chat-completions API on loopback ([`fake_chat`]) as Copilot's BYOK
//! provider, offline (`COPILOT_OFFLINE=true`), so no account, network or tokens are used and the
//! person's settings are never read or written. The scripted model asks three times to run
//! `printf CASE > gatehouse-probe-CASE.txt` with its `bash` tool; the kit's standard cases
//! ([`gatehouse_harness::probe`]) judge what happened: allow runs it with no dialog, deny does not
//! and the model reads the message, no verdict leaves Copilot's own dialog in charge.
//!
//! Which hook proves it: the probe's `permissionRequest` hook is a small shell script that saves
//! the event Copilot wrote on its stdin and prints a file that the probe fills, before each case,
//! with exactly what `gatehouse hook copilot permissionRequest` prints in production
//! ([`crate::verdict::render`]). The saved event is read with [`crate::events::parse`], the
//! production parser, and must name the scripted command. The half in between (hook, socket,
//! gateway) is the same for every agent and is tested without Copilot.

pub mod fake_chat;
mod private;

pub use self::private::{byok_environment, write_trusted_folder};

use gatehouse_harness::probe::screen::{AgentScreen, Quit};
use gatehouse_harness::probe::GatedProbe;
pub use gatehouse_harness::probe::ProbeOptions;
/// The message the deny case sends, which the agent hands to the model.
pub use gatehouse_harness::probe::DENY_MESSAGE;

use crate::{events, verdict, AGENT};

/// Text of Copilot CLI 1.0.102's dialog for a shell command.
pub const APPROVAL_PROMPT_TEXT: &str = "Do you want to run this command?";

/// Text of Copilot's footer under an empty input box: it is ready for the next message.
pub const READY_TEXT: &str = "/ commands";

/// The first line of Copilot's folder trust dialog.
pub const FOLDER_TRUST_TEXT: &str = "Confirm folder trust";

/// Copilot CLI's terminal, as the kit's standard probe drives it.
pub const SCREEN: AgentScreen = AgentScreen {
    quit: Quit::Command("/exit"),
    // Should Copilot ask to trust the workspace although its `config.json` lists it: for this
    // session.
    at_start: Some((FOLDER_TRUST_TEXT, &["Enter"])),
    // "1. Yes" is selected: Enter says Yes.
    ..AgentScreen::new(
        "Copilot",
        "permissionRequest",
        (APPROVAL_PROMPT_TEXT, READY_TEXT),
        |stdin| events::parse(stdin, Some("permissionRequest"), |_, _| None),
        verdict::render,
    )
};

/// Why the probe could not run at all: the kit's.
pub use gatehouse_harness::probe::ProbeError;

/// `gatehouse probe copilot`: runs the probe against the executable, writing progress lines: the
/// kit's standard probe, in a private home whose settings run the probe's hook.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const CopilotProbe: GatedProbe = GatedProbe {
    agent: &AGENT,
    run: |options, progress| {
        Ok(SCREEN.probe(
            &AGENT,
            options,
            progress,
            fake_chat::start,
            private::prepare,
        )?)
    },
};
