//! `gatehouse probe droid`: checks, live, whether the installed Factory Droid honours
//! gatehouse's answers to its shell calls, and saves the kit's probe record.
//!
//! The probe runs the real Droid in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME` ([`private`]),
//! a workspace, and a scripted chat-completions model on loopback ([`fake_chat`]) as Droid's
//! custom model, in Airgap mode, so no account, network or tokens are used and the person's
//! settings are never read or written. The model asks three times to run `printf CASE >
//! gatehouse-probe-CASE.txt` with `Execute`; the kit's standard cases
//! ([`gatehouse_harness::probe`]) judge what happened: allow runs it with no dialog, deny does not
//! and the model reads the message, no verdict leaves Droid's own dialog in charge.
//!
//! Which hook proves it: the probe's `PreToolUse` hook is a small shell script that saves the
//! event Droid wrote on its stdin and prints, before each case, exactly what `gatehouse hook
//! droid` prints in production ([`crate::verdict::render`]). The saved event is read with
//! [`crate::events::parse`], the production parser (with Droid's own allowlist, as a private
//! home has), and must name the scripted command.

pub mod fake_chat;
pub mod private;

use gatehouse_harness::probe::screen::AgentScreen;
pub use gatehouse_harness::probe::ProbeOptions;
use gatehouse_harness::probe::{shell_quote, GatedProbe};
use serde_json::json;

use crate::{events, own_rules, verdict, AGENT};

/// The first line of Droid 0.225.2's dialog for a command ("Command to approve · medium risk").
pub const APPROVAL_PROMPT_TEXT: &str = "Command to approve";

/// Text of Droid's footer, under its input box.
pub const READY_TEXT: &str = "? for help";

/// What Droid shows while a turn runs (also while its hook holds a call), with the footer.
pub const BUSY_TEXT: &str = "Press ESC to stop";

/// The screen Droid shows at its first start in a folder it does not trust yet; Enter trusts it.
pub const FOLDER_TRUST_TEXT: &str = "Trust this folder?";

/// Droid's terminal, as the kit's standard probe drives it: "Yes, allow" is selected in its
/// dialog, and it quits with `/quit`.
pub const SCREEN: AgentScreen = AgentScreen {
    busy_texts: &[BUSY_TEXT],
    at_start: Some((FOLDER_TRUST_TEXT, &["Enter"])),
    ..AgentScreen::new(
        "Droid",
        "PreToolUse",
        (APPROVAL_PROMPT_TEXT, READY_TEXT),
        |stdin| {
            events::parse(stdin, || {
                own_rules::DEFAULT_ALLOWLIST.map(str::to_owned).to_vec()
            })
        },
        verdict::render,
    )
};

/// `gatehouse probe droid`: runs the probe against the executable, writing progress lines: the
/// kit's standard probe, in a private home whose settings run the probe's hook.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const DroidProbe: GatedProbe = GatedProbe {
    agent: &AGENT,
    run: |options, progress| {
        Ok(
            SCREEN.probe(&AGENT, options, progress, fake_chat::start, |private| {
                let hooks = json!({ "PreToolUse": [{ "matcher": events::ANSWERABLE_TOOL, "hooks": [
                    { "type": "command", "command": shell_quote(&private.hook.script), "timeout": 30 }
                ] }] });
                private::write_private_settings(
                    &private.home,
                    &private.base_url,
                    &private.workspace,
                    Some(hooks),
                )?;
                Ok(private::offline_environment(&private.home, &private.path))
            })?,
        )
    },
};
