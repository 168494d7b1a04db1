//! A private Gemini CLI for the end-to-end tests: a scripted Gemini API on loopback (the kit's
//! [`ScriptedModel`] in its Gemini dialect, [`gatehouse_harness::model::gemini`]), and a
//! home whose `~/.gemini/settings.json` selects api-key auth and turns folder trust, updates,
//! telemetry and tips off, as in the captured fixtures.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_harness::model::gemini::Gemini;
use gatehouse_harness::model::{ScriptedCall, ScriptedModel, Tool};
use serde_json::json;

use super::tmux::Tmux;
use super::world::{find_bin, workspace_in, Agent, AgentTerminal};

/// Gemini's input box, once it is ready for a message.
pub const READY_TEXT: &str = "Type your message";

/// The question of Gemini's permission dialog for a shell command.
pub const DIALOG_TEXT: &str = "Allow execution of";

/// How long Gemini may take to start.
pub const START_DEADLINE: Duration = Duration::from_secs(60);

/// Finds Gemini CLI: `GATEHOUSE_GEMINI_BIN`, then `<repo>/node_modules/.bin/gemini`.
pub fn find_gemini_bin() -> Option<PathBuf> {
    find_bin("GATEHOUSE_GEMINI_BIN", "gemini", || None)
}

/// Gemini's shell tool; the call's reason is the description Gemini shows.
pub const RUN_SHELL_COMMAND: Tool = Tool {
    name: "run_shell_command",
    arguments: |call| json!({ "command": call.command, "description": call.reason }),
};

/// The scripted Gemini API: every turn asks to run `command`, then, once it has the function's
/// response, says "Done.". Its [`ScriptedModel::outputs`] are the `functionResponse` parts that
/// reached the model, in order.
pub fn fake_gemini(command: &str) -> ScriptedModel {
    let call = ScriptedCall {
        call_id: "run_shell_command".into(),
        command: command.into(),
        reason: "write the file".into(),
    };
    ScriptedModel::repeating(
        Gemini {
            tool: RUN_SHELL_COMMAND,
        },
        call,
    )
    .expect("the scripted Gemini API starts")
}

/// Gemini's private home holds nothing its scenarios read: only its settings.
pub struct GeminiHome;

/// A workspace and Gemini's environment for one test. `home` is the HOME that Gemini (and so
/// its hooks) and `gatehouse install gemini` share.
pub type GeminiEnv = Agent<GeminiHome>;

impl GeminiEnv {
    /// Writes `home/.gemini/settings.json` (the probe's private settings, without hooks) and creates `root/workspace`; `env` is the rest of
    /// Gemini's environment (HOME, the gateway's socket, ...).
    pub fn new(
        gemini_bin: &Path,
        root: &Path,
        home: &Path,
        fake: &ScriptedModel,
        env: &[(&str, String)],
    ) -> GeminiEnv {
        gatehouse_adapter_gemini::probe::private::write_private_settings(home, None)
            .expect("Gemini's private settings are written");
        let base = vec![
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("TERM".to_owned(), "xterm-256color".to_owned()),
            ("GEMINI_API_KEY".to_owned(), "x".to_owned()),
            ("GOOGLE_GEMINI_BASE_URL".to_owned(), fake.base_url()),
        ];
        let workspace = workspace_in(root);
        Agent {
            terminal: AgentTerminal::new(
                "gemini",
                gemini_bin,
                workspace,
                base,
                env,
                START_DEADLINE,
            ),
            home: GeminiHome,
        }
    }

    /// Starts Gemini in tmux and waits for its input box.
    pub fn start(&self) -> Tmux {
        self.terminal.start(READY_TEXT)
    }
}
