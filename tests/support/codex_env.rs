//! A private Codex for the end-to-end tests: its own `CODEX_HOME` and workspace inside a test's
//! sandbox, a `config.toml` that points Codex 0.171.0 at the probe's scripted Responses API
//! (`gatehouse_adapter_codex::probe::fake_responses`) with the model catalog that offers the
//! freeform `apply_patch` tool and the read-only sandbox (so every patch asks), `SHELL` set to
//! `/bin/bash` (the shell whose rules the probe proves), and Codex's interactive terminal in tmux
//! (the kit's [`AgentTerminal`]).
//!
//! Codex asks the person to review new hooks once ("Hooks need review"); [`CodexEnv::start`]
//! answers that screen as a person would ("Trust all and continue"), so the hooks that
//! `gatehouse install codex` wrote run as they would for them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_adapter_codex::probe::fake_responses;
pub use gatehouse_adapter_codex::probe::{APPROVAL_PROMPT_TEXT, PATCH_PROMPT_TEXT, READY_TEXT};
use gatehouse_harness::model::ScriptedModel;

use super::tmux::Tmux;
use super::world::{workspace_in, Agent, AgentTerminal};

/// The first line of Codex's hook review screen.
pub const HOOKS_REVIEW_TEXT: &str = "Hooks need review";

/// What Codex shows after Esc at its prompt.
pub const INTERRUPTED_TEXT: &str = "Conversation interrupted";

/// How long Codex may take to start: about 2 seconds here, but a CI run on the busy 2-core
/// machine once saw a blank pane for 45 s before its first screen.
pub const START_DEADLINE: Duration = Duration::from_secs(120);

/// The environment variable the fake provider names as its key.
const API_KEY_VARIABLE: &str = "GATEHOUSE_TEST_API_KEY";

/// Codex's private home: its `CODEX_HOME`.
pub struct CodexHome {
    pub codex_home: PathBuf,
}

/// A Codex home and workspace in `root`, wired to one fake Responses API.
pub type CodexEnv = Agent<CodexHome>;

impl CodexEnv {
    /// Creates `root/codex-home` (with `config.toml`) and `root/workspace`; `env` is the rest of
    /// Codex's environment (HOME, the gateway's socket, ...).
    pub fn new(
        codex_bin: &Path,
        root: &Path,
        fake: &ScriptedModel,
        env: &[(&str, String)],
    ) -> CodexEnv {
        let codex_home = root.join("codex-home");
        std::fs::create_dir_all(&codex_home).unwrap();
        let workspace = workspace_in(root);
        let catalog = codex_home.join(fake_responses::MODEL_CATALOG);
        std::fs::write(&catalog, fake_responses::model_catalog().to_string()).unwrap();
        let config = format!(
            "model = \"gpt-5.1-codex\"\nmodel_provider = \"fake\"\napproval_policy = \"on-request\"\nsandbox_mode = \"read-only\"\nmodel_catalog_json = {:?}\n\n\
             [model_providers.fake]\nname = \"fake\"\nbase_url = {:?}\nwire_api = \"responses\"\nenv_key = \"{API_KEY_VARIABLE}\"\n\n\
             [projects.{:?}]\ntrust_level = \"trusted\"\n\n\
             # Codex 0.171.0 otherwise starts an app-server daemon that outlives the test.\n\
             [features]\ndaemon_auto_start = false\n",
            catalog.display().to_string(),
            fake.base_url(),
            workspace.display().to_string(),
        );
        std::fs::write(codex_home.join("config.toml"), config).unwrap();
        let base = vec![
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("TERM".to_owned(), "xterm-256color".to_owned()),
            ("SHELL".to_owned(), "/bin/bash".to_owned()),
            ("CODEX_HOME".to_owned(), codex_home.display().to_string()),
            (API_KEY_VARIABLE.to_owned(), "unused".to_owned()),
        ];
        Agent {
            terminal: AgentTerminal::new("codex", codex_bin, workspace, base, env, START_DEADLINE),
            home: CodexHome { codex_home },
        }
    }

    /// gatehouse's rules file in this Codex home.
    pub fn rules_file(&self) -> PathBuf {
        self.home.codex_home.join("rules/gatehouse.rules")
    }

    /// Starts a new session in the running Codex (`/new`), which reads the rules files again,
    /// and waits until its input box is back without `last_message` on screen.
    pub fn new_session(&self, tmux: &Tmux, last_message: &str) {
        tmux.send_text("/new");
        tmux.wait_for_text("/new", START_DEADLINE);
        tmux.press_until_gone(
            &["Enter"],
            last_message,
            Duration::from_secs(3),
            START_DEADLINE,
        );
        tmux.wait_for_text(READY_TEXT, START_DEADLINE);
    }

    /// Starts Codex in tmux, trusts the new hooks at its review screen as a person would, and
    /// waits for its input box. Codex shows the review a moment after its input box, so this
    /// expects hooks that Codex has not seen yet, as after `gatehouse install codex`.
    pub fn start(&self) -> Tmux {
        let tmux = self.terminal.start(HOOKS_REVIEW_TEXT);
        // "2. Trust all and continue", then Enter to confirm; Codex may drop a key while it draws
        // the screen, so the pair is pressed again until the screen goes.
        tmux.press_until_gone(
            &["2", "Enter"],
            HOOKS_REVIEW_TEXT,
            Duration::from_secs(2),
            START_DEADLINE,
        );
        tmux.wait_for_text(READY_TEXT, START_DEADLINE);
        tmux
    }
}
