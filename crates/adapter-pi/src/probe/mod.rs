//! `gatehouse probe pi`: checks, live, whether the installed pi honours gatehouse's answers
//! through gatehouse's extension, and saves the kit's probe record.
//!
//! The probe runs the real pi in its interactive terminal (tmux, through
//! [`gatehouse_harness::terminal`]) in a private, temporary folder: its own `HOME` ([`private`])
//! whose `~/.pi/agent` holds a provider at a scripted chat-completions model on loopback, and
//! gatehouse's extension, the very file `gatehouse install pi` writes for the `bash` tool, except
//! that it runs the probe's hook instead of gatehouse's. No account, network or tokens are used,
//! and the person's settings are never read or written. The probe's hook saves each event the
//! extension hands it and prints, before each case, exactly what `gatehouse hook pi` prints in
//! production ([`crate::verdict::render`]); the saved event is read with
//! [`crate::events::parse`], the production parser. The kit's standard cases judge what
//! happened: allow runs the command, deny does not and the model reads the reason, no verdict
//! leaves pi's dialog in charge (its Yes runs it). pi draws the extension's dialog at once while
//! the hook decides, so only the screen after the turn counts for a dialog.

pub mod private;

use std::io;
use std::path::Path;

use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::{ScriptedCall, ScriptedModel, Tool};
use gatehouse_harness::probe::screen::{AgentScreen, Quit};
use gatehouse_harness::probe::GatedProbe;
pub use gatehouse_harness::probe::ProbeOptions;
use serde_json::json;

use crate::install::{extension_for, EXTENSION_FILE_NAME};
use crate::{events, verdict, AGENT};

/// The title of the extension's dialog for a `bash` call.
pub const DIALOG_TEXT: &str = "Allow bash?";

/// pi's footer, under its input box, names the model (also while it works).
pub const READY_TEXT: &str = private::MODEL;

/// What pi shows while a turn runs (also while the extension asks).
pub const BUSY_TEXT: &str = "Working";

/// How long the probe's extension lets its hook run: the probe's hook answers at once.
const PROBE_HOOK_SECONDS: u64 = 120;

/// pi's shell tool, `{command, timeout?}`.
pub const BASH: Tool = Tool {
    name: events::ANSWERABLE_TOOL,
    arguments: |call| json!({ "command": call.command }),
};

/// pi's terminal, as the kit's probe drives it: the extension's dialog selects Yes first, and
/// Ctrl-D at the empty input box ends pi.
pub const SCREEN: AgentScreen = AgentScreen {
    dialog: "dialog",
    watch_for_dialog: false,
    busy_texts: &[BUSY_TEXT],
    quit: Quit::Keys(&["C-d"]),
    ..AgentScreen::new(
        "pi",
        "tool_call",
        (DIALOG_TEXT, READY_TEXT),
        |stdin| events::parse(stdin, None, &Default::default()),
        verdict::render,
    )
};

/// Whether pi's screen shows it ready for the next message.
pub fn is_ready(screen: &str) -> bool {
    SCREEN.is_ready(screen)
}

/// Starts the scripted model on a free loopback port with the calls to hand out, in order; its
/// [`ScriptedModel::base_url`] is the provider's `baseUrl`.
pub fn start_model(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(Chat { tool: BASH }, script)
}

/// Writes gatehouse's extension into pi's extensions folder in `home`, running `hook` for `bash`
/// calls: the probe's, or a test's.
pub fn write_extension(home: &Path, hook: &Path, seconds: u64) -> io::Result<()> {
    let folder = private::agent_folder(home).join("extensions");
    std::fs::create_dir_all(&folder)?;
    let extension = extension_for(hook, &[events::ANSWERABLE_TOOL.to_owned()], seconds)
        .map_err(io::Error::other)?;
    std::fs::write(folder.join(EXTENSION_FILE_NAME), extension)
}

/// `gatehouse probe pi`: the kit's standard probe, in a private home whose extension runs the
/// probe's hook.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const PiProbe: GatedProbe = GatedProbe {
    agent: &AGENT,
    run: |options, progress| {
        Ok(
            SCREEN.probe(&AGENT, options, progress, start_model, |private| {
                private::write_private_settings(&private.home, &private.base_url)?;
                write_extension(&private.home, &private.hook.script, PROBE_HOOK_SECONDS)?;
                Ok(private::offline_environment(&private.home, &private.path))
            })?,
        )
    },
};
