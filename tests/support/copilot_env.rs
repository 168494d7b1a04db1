//! A private GitHub Copilot CLI for the end-to-end tests: a workspace inside a test's sandbox,
//! the sandbox's `HOME` with `~/.copilot/config.json` trusting that workspace (as Copilot writes
//! it when the person answers its folder trust dialog with "remember") and
//! `~/.copilot/settings.json` (into which `gatehouse install copilot` writes its hooks), the
//! offline BYOK environment pointing Copilot at the probe's scripted chat-completions API, and
//! Copilot's interactive terminal in tmux (the kit's [`AgentTerminal`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_adapter_copilot::probe::{byok_environment, write_trusted_folder};
pub use gatehouse_adapter_copilot::probe::{APPROVAL_PROMPT_TEXT, READY_TEXT};
use gatehouse_harness::model::ScriptedModel;

use super::world::{workspace_in, Agent, AgentTerminal, QuittingTmux};

/// How long Copilot may take to start; it took about 3 seconds here.
pub const START_DEADLINE: Duration = Duration::from_secs(45);

/// Copilot's files in its private home: its `settings.json`.
pub struct CopilotHome {
    pub settings: PathBuf,
}

/// A workspace in `root` and Copilot's files in `home`, wired to one fake chat API.
pub type CopilotEnv = Agent<CopilotHome>;

impl CopilotEnv {
    /// Creates `root/workspace`, trusts it and writes a `settings.json` with no banner; `env` is
    /// the rest of Copilot's environment (the gateway's socket, XDG folders, ...).
    pub fn new(
        copilot_bin: &Path,
        root: &Path,
        home: &Path,
        fake: &ScriptedModel,
        env: &[(&str, String)],
    ) -> CopilotEnv {
        let workspace = workspace_in(root);
        write_trusted_folder(home, &workspace).unwrap();
        let settings = home.join(".copilot/settings.json");
        std::fs::write(&settings, "{\n  \"banner\": \"never\"\n}\n").unwrap();
        let path = std::env::var("PATH").unwrap_or_default();
        let base = byok_environment(home, &fake.base_url(), &path);
        Agent {
            terminal: AgentTerminal::new(
                "copilot",
                copilot_bin,
                workspace,
                base,
                env,
                START_DEADLINE,
            ),
            home: CopilotHome { settings },
        }
    }

    /// Starts Copilot in tmux and waits for its input box; dropping the terminal ends Copilot
    /// with `/exit`.
    pub fn start(&self) -> QuittingTmux {
        let tmux = self.terminal.start(READY_TEXT);
        QuittingTmux::new(tmux, gatehouse_adapter_copilot::probe::SCREEN)
    }
}
