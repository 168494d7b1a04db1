//! A private GitHub Copilot CLI for the end-to-end tests: a workspace inside a test's sandbox,
//! the sandbox's `HOME` with `~/.copilot/config.json` trusting that workspace (as Copilot writes
//! it when the person answers its folder trust dialog with "remember") and
//! `~/.copilot/settings.json` (into which `gatehouse install copilot` writes its hooks), the
//! offline BYOK environment pointing Copilot at the probe's scripted chat-completions API, and
//! Copilot's interactive terminal in tmux.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_adapter_copilot::probe::fake_chat::ScriptedModel;
use gatehouse_adapter_copilot::probe::{byok_environment, write_trusted_folder};
pub use gatehouse_adapter_copilot::probe::{APPROVAL_PROMPT_TEXT, READY_TEXT};

use super::tmux::Tmux;
use super::wait_until;

/// How long Copilot may take to start; it took about 3 seconds here.
pub const START_DEADLINE: Duration = Duration::from_secs(45);

/// Finds Copilot CLI: `GATEHOUSE_COPILOT_BIN`, then `<repo>/node_modules/.bin/copilot`, then
/// `copilot` on `PATH`.
pub fn find_copilot_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GATEHOUSE_COPILOT_BIN")
        .map(PathBuf::from)
        .filter(|path| path.is_file())
    {
        return Some(path);
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/.bin/copilot");
    if local.is_file() {
        return Some(local);
    }
    gatehouse_adapter_copilot::version::find_on_path()
}

/// A workspace in `root` and Copilot's files in `home`, wired to one fake chat API.
pub struct CopilotEnv {
    pub copilot_bin: PathBuf,
    pub workspace: PathBuf,
    pub settings: PathBuf,
    env: Vec<(String, String)>,
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
        let mut all = byok_environment(home, &fake.base_url(), &path);
        all.extend(
            env.iter()
                .map(|(name, value)| (name.to_string(), value.clone())),
        );
        CopilotEnv {
            copilot_bin: copilot_bin.to_path_buf(),
            workspace,
            settings,
            env: all,
        }
    }

    /// Starts Copilot in tmux and waits for its input box.
    pub fn start(&self) -> CopilotTmux {
        let env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let tmux = Tmux::start(
            "copilot",
            &self.workspace,
            &env,
            &[self.copilot_bin.to_str().unwrap()],
        );
        tmux.wait_for_text(READY_TEXT, START_DEADLINE);
        CopilotTmux(tmux)
    }

    /// Types a message into Copilot and sends it.
    pub fn submit(&self, tmux: &Tmux, message: &str) {
        tmux.send_text(message);
        tmux.wait_for_text(message, START_DEADLINE);
        tmux.send_keys(&["Enter"]);
    }

    pub fn marker(&self, name: &str) -> PathBuf {
        self.workspace.join(name)
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
        gatehouse_adapter_copilot::probe::exit(self.0.terminal(), Duration::from_secs(15));
    }
}

/// Waits until the fake has the tool result of `call_id` and returns it.
pub fn wait_for_output(fake: &ScriptedModel, call_id: &str, deadline: Duration) -> String {
    let mut output = None;
    wait_until(
        deadline,
        &format!("Copilot to report {call_id} to the model"),
        || {
            output = fake.output_for(call_id);
            output.is_some()
        },
    );
    output.unwrap()
}
