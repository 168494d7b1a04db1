//! `gatehouse probe kilo`: OpenCode's probe ([`crate::probe::run_for`], the same cases) with
//! Kilo's set-up. Kilo Code CLI 7.7.7 draws OpenCode's prompt, footer and hints, and quits with
//! `/exit` (Ctrl-C does not end it). Its `bash` tool takes a `description` beside the `command`
//! ([`BASH`]). Its private home is `~/.config/kilo` with `kilo.json` and `@kilocode/plugin`
//! already there: with a plugin configured, Kilo installs that package at start, and offline it
//! kept the terminal blank for about 75 s; with the package present (and listed in the folder's
//! `package-lock.json`) it was ready in 15 to 25 s. It runs offline with Kilo's own variables
//! (no update, model list, sharing, LSP download, telemetry, daemon, session ingest or
//! indexing), and its own `TMPDIR` in the private home (it writes `$TMPDIR/kilo` and unpacks
//! native libraries there).

use std::io;
use std::time::Duration;

use gatehouse_harness::model::{ScriptedCall, ScriptedModel, Tool};
use gatehouse_harness::probe::screen::{AgentScreen, Quit};
use gatehouse_harness::probe::GatedProbe;
use serde_json::json;

use super::{AGENT, KILO};
use crate::events;
use crate::probe::{model, screen_of, PrivateConfig, ProbeSetup};

/// Kilo's shell tool: `command` and a `description` (the call's reason, else its command).
pub const BASH: Tool = Tool {
    name: "bash",
    arguments: |call| {
        let description = match call.reason.as_str() {
            "" => call.command.as_str(),
            reason => reason,
        };
        json!({ "command": call.command, "description": description })
    },
};

/// Starts Kilo's scripted model: the family's, with [`BASH`].
pub fn start(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    model::start_with(BASH, script)
}

/// Kilo's terminal: OpenCode's, but it quits with `/exit`.
pub const SCREEN: AgentScreen = AgentScreen {
    quit: Quit::Command("/exit"),
    ..screen_of("Kilo", |stdin| {
        events::parse(&KILO, stdin, None, &Default::default())
    })
};

/// Whether Kilo's screen shows it ready for the next message.
pub fn is_ready(screen: &str) -> bool {
    SCREEN.is_ready(screen)
}

/// Kilo's private, offline configuration.
pub const CONFIG: PrivateConfig = PrivateConfig {
    agent: &KILO,
    schema: "https://app.kilo.ai/config.json",
    plugin_package: "@kilocode/plugin",
    package_variable: "GATEHOUSE_KILO_PLUGIN_PACKAGE",
    offline_variables: &[
        ("KILO_DISABLE_AUTOUPDATE", "1"),
        ("KILO_DISABLE_MODELS_FETCH", "1"),
        ("KILO_DISABLE_SHARE", "1"),
        ("KILO_DISABLE_LSP_DOWNLOAD", "1"),
        ("KILO_TELEMETRY_LEVEL", "off"),
        ("KILO_NO_DAEMON", "1"),
        ("KILO_DISABLE_SESSION_INGEST", "1"),
        ("KILO_DISABLE_CODEBASE_INDEXING", "1"),
    ],
    private_temporary_folder: true,
};

/// Kilo's probe.
pub const SETUP: ProbeSetup = ProbeSetup {
    agent: &AGENT,
    screen: SCREEN,
    start_model: start,
    config: CONFIG,
    start_deadline: Duration::from_secs(120),
};

/// `gatehouse probe kilo`, as the binary runs it for any adapter.
#[allow(non_upper_case_globals)] // named as the adapter names its probe
pub const KiloProbe: GatedProbe = GatedProbe {
    agent: &AGENT,
    run: |options, progress| Ok(crate::probe::run_for(&SETUP, options, progress)?),
};
