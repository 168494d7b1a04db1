//! An agent in the end-to-end tests, apart from the world around it: finding its executable
//! (or saying why the test cannot run), its interactive terminal in tmux ([`AgentTerminal`]),
//! its private home ([`Agent`]), and a terminal that quits the agent first ([`QuittingTmux`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_harness::gated::AgentDescription;
use gatehouse_harness::probe::screen::AgentScreen;

use super::tmux::Tmux;

/// Finds an agent's executable for the tests: `variable` (such as `GATEHOUSE_CODEX_BIN`), then
/// `<repo>/node_modules/.bin/<node_name>`, then `on_path`.
pub fn find_bin(
    variable: &str,
    node_name: &str,
    on_path: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(variable)
        .map(PathBuf::from)
        .filter(|path| path.is_file())
    {
        return Some(path);
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("node_modules/.bin")
        .join(node_name);
    if local.is_file() {
        return Some(local);
    }
    on_path()
}

/// `found`, or the reason it is missing: a failure under CI (`CI` set), a skip said on stderr
/// elsewhere.
pub fn required_bin(agent: &str, found: Option<PathBuf>) -> Option<PathBuf> {
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{agent} is not installed; run `npm ci` (.ci/run does)"
        );
        eprintln!("skipped: {agent} is not installed (run `npm ci`)");
    }
    found
}

/// The executable of `agent` ([`find_bin`], then the agent's own search of `PATH`), or the
/// reason it is missing ([`required_bin`]).
pub fn required_agent_bin(
    agent: &AgentDescription,
    variable: &str,
    node_name: &str,
) -> Option<PathBuf> {
    let found = find_bin(variable, node_name, || agent.executable.find_on_path());
    required_bin(agent.name, found)
}

/// `root/workspace`, created, as its canonical path (the one the agent reports).
pub fn workspace_in(root: &Path) -> PathBuf {
    let workspace = root.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    workspace.canonicalize().unwrap()
}

/// An agent's interactive terminal: its executable, workspace and environment.
pub struct AgentTerminal {
    /// tmux's session name, such as `codex`.
    pub name: &'static str,
    pub bin: PathBuf,
    pub workspace: PathBuf,
    pub env: Vec<(String, String)>,
    /// How long the agent may take to start and to take a typed message.
    pub start_deadline: Duration,
}

impl AgentTerminal {
    /// `base` (the agent's own variables) followed by `extra` (the sandbox's).
    pub fn new(
        name: &'static str,
        bin: &Path,
        workspace: PathBuf,
        base: Vec<(String, String)>,
        extra: &[(&str, String)],
        start_deadline: Duration,
    ) -> AgentTerminal {
        let mut env = base;
        env.extend(
            extra
                .iter()
                .map(|(name, value)| (name.to_string(), value.clone())),
        );
        AgentTerminal {
            name,
            bin: bin.to_path_buf(),
            workspace,
            env,
            start_deadline,
        }
    }

    /// Starts the agent in tmux, with the `TMUX` and `TMUX_PANE` a person's terminal has when
    /// `keeping_tmux_variables` (its hooks report the pane), without waiting for it.
    pub fn launch(&self, keeping_tmux_variables: bool) -> Tmux {
        let env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let command = [self.bin.to_str().unwrap()];
        if keeping_tmux_variables {
            Tmux::start_keeping_tmux_variables(self.name, &self.workspace, &env, &command)
        } else {
            Tmux::start(self.name, &self.workspace, &env, &command)
        }
    }

    /// Starts the agent in tmux and waits for `ready_text`.
    pub fn start(&self, ready_text: &str) -> Tmux {
        let tmux = self.launch(false);
        tmux.wait_for_text(ready_text, self.start_deadline);
        tmux
    }

    /// Starts the agent in tmux, keeping the `TMUX` variables its hooks report, and waits for
    /// `ready_text`; dropping the terminal ends the agent with its quit command ([`QuittingTmux`]).
    pub fn start_quitting(&self, ready_text: &str, screen: AgentScreen) -> QuittingTmux {
        let tmux = self.launch(true);
        tmux.wait_for_text(ready_text, self.start_deadline);
        QuittingTmux::new(tmux, screen)
    }

    /// Types a message into the agent and sends it.
    pub fn submit(&self, tmux: &Tmux, message: &str) {
        tmux.send_text(message);
        tmux.wait_for_text(message, self.start_deadline);
        tmux.send_keys(&["Enter"]);
    }

    /// Types a message and sends it, pressing Enter again (every 5 s, up to the start deadline)
    /// while `typed_still(screen, message)` says it still sits in the input box: an agent busy
    /// redrawing under load can drop a key. Enter is pressed again only while the message is
    /// still typed, so it never lands on a dialog that came after the message was taken.
    pub fn submit_surely(
        &self,
        tmux: &Tmux,
        message: &str,
        typed_still: impl Fn(&str, &str) -> bool,
    ) {
        tmux.send_text(message);
        tmux.wait_for_text(message, self.start_deadline);
        let start = std::time::Instant::now();
        loop {
            tmux.send_keys(&["Enter"]);
            let pressed = std::time::Instant::now();
            while pressed.elapsed() < Duration::from_secs(5) {
                if !typed_still(&tmux.screen(), message) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            assert!(
                start.elapsed() < self.start_deadline,
                "the agent did not take {message:?} within {:?}; last screen:\n{}",
                self.start_deadline,
                tmux.screen()
            );
            if !typed_still(&tmux.screen(), message) {
                return;
            }
        }
    }

    /// A file in the workspace.
    pub fn marker(&self, name: &str) -> PathBuf {
        self.workspace.join(name)
    }
}

/// One agent of the end-to-end tests: its terminal and its private home `H` (the files its
/// scenarios read, such as its settings). It is the terminal, for the scenarios.
pub struct Agent<H> {
    pub terminal: AgentTerminal,
    pub home: H,
}

impl<H> std::ops::Deref for Agent<H> {
    type Target = AgentTerminal;

    fn deref(&self) -> &AgentTerminal {
        &self.terminal
    }
}

/// An agent's terminal that ends the agent with its quit command ([`AgentScreen::quit`]) when
/// dropped, and waits for it to be gone before tmux is killed, so that the agent writes nothing
/// into a home the test removes next.
pub struct QuittingTmux {
    tmux: Tmux,
    screen: AgentScreen,
}

impl QuittingTmux {
    pub fn new(tmux: Tmux, screen: AgentScreen) -> QuittingTmux {
        QuittingTmux { tmux, screen }
    }
}

impl std::ops::Deref for QuittingTmux {
    type Target = Tmux;

    fn deref(&self) -> &Tmux {
        &self.tmux
    }
}

impl Drop for QuittingTmux {
    fn drop(&mut self) {
        self.screen
            .quit(self.tmux.terminal(), Duration::from_secs(15));
    }
}
