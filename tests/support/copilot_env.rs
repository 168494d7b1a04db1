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

use super::tmux::Tmux;
use super::world::{find_bin, AgentTerminal};

/// How long Copilot may take to start; it took about 3 seconds here.
pub const START_DEADLINE: Duration = Duration::from_secs(45);

/// Finds Copilot CLI: `GATEHOUSE_COPILOT_BIN`, then `<repo>/node_modules/.bin/copilot`, then
/// `copilot` on `PATH`.
pub fn find_copilot_bin() -> Option<PathBuf> {
    find_bin("GATEHOUSE_COPILOT_BIN", "copilot", || {
        gatehouse_adapter_copilot::AGENT.executable.find_on_path()
    })
}

/// A workspace in `root` and Copilot's files in `home`, wired to one fake chat API.
pub struct CopilotEnv {
    pub terminal: AgentTerminal,
    pub settings: PathBuf,
}

impl std::ops::Deref for CopilotEnv {
    type Target = AgentTerminal;

    fn deref(&self) -> &AgentTerminal {
        &self.terminal
    }
}

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
        let workspace = root.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let workspace = workspace.canonicalize().unwrap();
        write_trusted_folder(home, &workspace).unwrap();
        let settings = home.join(".copilot/settings.json");
        std::fs::write(&settings, "{\n  \"banner\": \"never\"\n}\n").unwrap();
        let path = std::env::var("PATH").unwrap_or_default();
        let base = byok_environment(home, &fake.base_url(), &path);
        CopilotEnv {
            terminal: AgentTerminal::new(
                "copilot",
                copilot_bin,
                workspace,
                base,
                env,
                START_DEADLINE,
            ),
            settings,
        }
    }

    /// Starts Copilot in tmux and waits for its input box.
    pub fn start(&self) -> CopilotTmux {
        CopilotTmux(self.terminal.start(READY_TEXT))
    }
}

/// Copilot's terminal; dropping it ends Copilot with `/exit` and waits for it to be gone before
/// tmux is killed, so that Copilot writes nothing into a home the test removes next.
pub struct CopilotTmux(Tmux);

impl std::ops::Deref for CopilotTmux {
    type Target = Tmux;

    fn deref(&self) -> &Tmux {
        &self.0
    }
}

impl Drop for CopilotTmux {
    fn drop(&mut self) {
        gatehouse_adapter_copilot::probe::SCREEN.quit(self.0.terminal(), Duration::from_secs(15));
    }
}
