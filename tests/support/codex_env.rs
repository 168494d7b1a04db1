//! A private Codex for the end-to-end tests: its own `CODEX_HOME` and workspace inside a test's
//! sandbox, a `config.toml` that points Codex 0.171.0 at a scripted Responses API on loopback
//! (the probe's own fake, `gatehouse_adapter_codex::probe::fake_responses`), and Codex's
//! interactive terminal in tmux.
//!
//! Codex asks the person to review new hooks once ("Hooks need review"); [`CodexEnv::start`]
//! answers that screen as a person would ("Trust all and continue"), so the hooks that
//! `gatehouse install codex` wrote run as they would for them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_adapter_codex::probe::fake_responses::ScriptedModel;
pub use gatehouse_adapter_codex::probe::{APPROVAL_PROMPT_TEXT, READY_TEXT};

use super::tmux::Tmux;
use super::wait_until;

/// The first line of Codex's hook review screen.
pub const HOOKS_REVIEW_TEXT: &str = "Hooks need review";

/// What Codex shows after Esc at its prompt.
pub const INTERRUPTED_TEXT: &str = "Conversation interrupted";

/// How long Codex may take to start; it took about 2 seconds here.
pub const START_DEADLINE: Duration = Duration::from_secs(45);

/// The environment variable the fake provider names as its key.
const API_KEY_VARIABLE: &str = "GATEHOUSE_TEST_API_KEY";

/// Finds Codex: `GATEHOUSE_CODEX_BIN`, then `<repo>/node_modules/.bin/codex`, then `codex` on `PATH`.
pub fn find_codex_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GATEHOUSE_CODEX_BIN")
        .map(PathBuf::from)
        .filter(|path| path.is_file())
    {
        return Some(path);
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/.bin/codex");
    if local.is_file() {
        return Some(local);
    }
    gatehouse_adapter_codex::version::find_on_path()
}

/// A Codex home and workspace in `root`, wired to one fake Responses API.
pub struct CodexEnv {
    pub codex_bin: PathBuf,
    pub codex_home: PathBuf,
    pub workspace: PathBuf,
    env: Vec<(String, String)>,
}

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
        let workspace = root.join("workspace");
        std::fs::create_dir_all(&codex_home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        let workspace = workspace.canonicalize().unwrap();
        let config = format!(
            "model = \"gpt-5.1-codex\"\nmodel_provider = \"fake\"\napproval_policy = \"on-request\"\nsandbox_mode = \"read-only\"\n\n\
             [model_providers.fake]\nname = \"fake\"\nbase_url = {:?}\nwire_api = \"responses\"\nenv_key = \"{API_KEY_VARIABLE}\"\n\n\
             [projects.{:?}]\ntrust_level = \"trusted\"\n\n\
             # Codex 0.171.0 otherwise starts an app-server daemon that outlives the test.\n\
             [features]\ndaemon_auto_start = false\n",
            fake.base_url(),
            workspace.display().to_string(),
        );
        std::fs::write(codex_home.join("config.toml"), config).unwrap();
        let mut all = vec![
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("TERM".to_owned(), "xterm-256color".to_owned()),
            ("CODEX_HOME".to_owned(), codex_home.display().to_string()),
            (API_KEY_VARIABLE.to_owned(), "unused".to_owned()),
        ];
        all.extend(
            env.iter()
                .map(|(name, value)| (name.to_string(), value.clone())),
        );
        CodexEnv {
            codex_bin: codex_bin.to_path_buf(),
            codex_home,
            workspace,
            env: all,
        }
    }

    /// Starts Codex in tmux, trusts the new hooks at its review screen as a person would, and
    /// waits for its input box. Codex shows the review a moment after its input box, so this
    /// expects hooks that Codex has not seen yet, as after `gatehouse install codex`.
    pub fn start(&self) -> Tmux {
        let env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let tmux = Tmux::start(
            "codex",
            &self.workspace,
            &env,
            &[self.codex_bin.to_str().unwrap()],
        );
        tmux.wait_for_text(HOOKS_REVIEW_TEXT, START_DEADLINE);
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

    /// Types a message into Codex and sends it.
    pub fn submit(&self, tmux: &Tmux, message: &str) {
        tmux.send_text(message);
        tmux.wait_for_text(message, START_DEADLINE);
        tmux.send_keys(&["Enter"]);
    }

    pub fn marker(&self, name: &str) -> PathBuf {
        self.workspace.join(name)
    }
}

/// Waits until the fake has the outcome of `call_id` and returns it.
pub fn wait_for_output(fake: &ScriptedModel, call_id: &str, deadline: Duration) -> String {
    let mut output = None;
    wait_until(
        deadline,
        &format!("Codex to report {call_id} to the model"),
        || {
            output = fake.output_for(call_id);
            output.is_some()
        },
    );
    output.unwrap()
}

/// Polls `condition` until it holds or `deadline` passes; says which.
pub fn poll_until(deadline: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let started = std::time::Instant::now();
    while !condition() {
        if started.elapsed() >= deadline {
            return false;
        }
        std::thread::sleep(super::POLL_INTERVAL);
    }
    true
}
