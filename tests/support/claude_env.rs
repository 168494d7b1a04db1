//! A private, throw-away home and workspace for running the real Claude Code CLI in tmux.
//!
//! `ClaudeEnv::new` creates a fresh directory under the system temp directory holding `home/`
//! (used as `HOME`) and `workspace/` (Claude Code's working directory). It writes
//! `home/.claude.json` so that Claude Code 2.1.332 starts straight into its input box: onboarding
//! done, dark theme chosen, the test API key approved and the workspace trusted. Tests put their
//! hooks into `home/.claude/settings.json`. The directory is removed on drop unless the
//! environment variable `GATEHOUSE_KEEP_TEST_DIRS` is set, which helps when debugging.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use super::fake_anthropic::FakeAnthropic;
use super::tmux::Tmux;

/// The model every test session uses; the fake answers for any model.
pub const MODEL: &str = "claude-haiku-4-5";

/// The API key the tests use; Claude Code only checks that its last 20 characters are approved.
pub const API_KEY: &str = "sk-ant-test-gatehouse-0123456789abcdefghij";

/// The Claude Code version whose first-run state `.claude.json` describes.
pub const CLAUDE_VERSION: &str = "2.1.332";

/// Text in the footer under the input box while Claude Code is idle and ready for a prompt.
pub const READY_TEXT: &str = "? for shortcuts";

/// The footer under the input box in plan mode, where `? for shortcuts` is not shown.
pub const PLAN_MODE_TEXT: &str = "plan mode on";

/// The question line of the Bash permission dialog.
pub const BASH_DIALOG: &str = "Do you want to proceed?";

/// The start of the question line of the Write dialog, which goes on with `<file name>?`.
pub const WRITE_DIALOG: &str = "Do you want to create";

/// The footer of the `AskUserQuestion` dialog.
pub const QUESTION_DIALOG: &str = "Enter to select · ↑/↓ to navigate · Esc to cancel";

/// The line Claude Code shows after a turn was interrupted with Esc or answered with No.
pub const INTERRUPTED_TEXT: &str = "Interrupted · What should Claude do instead?";

/// How long Claude Code may take to show its input box; it took about 1 second here.
pub const START_DEADLINE: Duration = Duration::from_secs(45);

/// Finds the Claude Code binary: `GATEHOUSE_CLAUDE_BIN`, then `<repo>/node_modules/.bin/claude`,
/// then `claude` on `PATH`.
pub fn find_claude_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GATEHOUSE_CLAUDE_BIN") {
        let path = PathBuf::from(path);
        if path.is_file() {
            return Some(path);
        }
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/.bin/claude");
    if local.is_file() {
        return Some(local);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("claude"))
        .find(|candidate| candidate.is_file())
}

/// A private Claude Code home and workspace wired to one fake Anthropic API.
pub struct ClaudeEnv {
    root: PathBuf,
    home: PathBuf,
    workspace: PathBuf,
    claude_bin: PathBuf,
    base_url: String,
    extra_env: Vec<(String, String)>,
    extra_args: Vec<String>,
    keep_tmux_variables: bool,
}

impl ClaudeEnv {
    /// Creates a fresh home and workspace for running `claude_bin` against `fake`.
    pub fn new(claude_bin: &Path, fake: &FakeAnthropic) -> ClaudeEnv {
        // Made by tempfile (a fresh name, mode 0700), removed by this type's Drop, which waits
        // for writes that Claude Code's last hooks make.
        let root = tempfile::Builder::new()
            .prefix("gatehouse-claude-")
            .tempdir()
            .expect("a private folder for Claude Code")
            .keep();
        let home = root.join("home");
        let workspace = root.join("workspace");
        std::fs::create_dir_all(home.join(".claude")).expect("create the private HOME");
        std::fs::create_dir_all(&workspace).expect("create the workspace");
        // Claude Code keys trusted projects by the real path of its working directory.
        let root = root
            .canonicalize()
            .expect("canonicalize the test directory");
        let home = root.join("home");
        let workspace = root.join("workspace");
        let env = ClaudeEnv {
            root,
            home,
            workspace,
            claude_bin: claude_bin.to_path_buf(),
            base_url: fake.base_url(),
            extra_env: Vec::new(),
            extra_args: Vec::new(),
            keep_tmux_variables: false,
        };
        env.write_claude_json();
        env.write_settings(&json!({}));
        env
    }

    /// Writes `~/.claude.json` so that no onboarding, theme, API key or trust dialog appears.
    fn write_claude_json(&self) {
        gatehouse_adapter_claude::probe::home::write_first_run_config(
            &self.home,
            &self.workspace,
            CLAUDE_VERSION,
            API_KEY,
        )
        .expect("write ~/.claude.json");
    }

    /// Returns the private `HOME`.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Returns the workspace Claude Code runs in.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Returns the test's scratch directory, which holds the home and the workspace and is a
    /// good place for hook logs and scripts.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Returns `HOME/.claude/settings.json`, where hooks are configured.
    pub fn settings_path(&self) -> PathBuf {
        self.home.join(".claude").join("settings.json")
    }

    /// Replaces the user settings with `settings`.
    pub fn write_settings(&self, settings: &Value) {
        write_json(&self.settings_path(), settings);
    }

    /// Configures one command hook per `(event, command)` pair, each with `timeout_secs`.
    /// Tool events (`PreToolUse`, `PermissionRequest`, `PostToolUse`, `PostToolUseFailure`)
    /// get the matcher `*`; other events match everything without a matcher.
    pub fn write_hooks(&self, hooks: &[(&str, &str)], timeout_secs: u64) {
        let mut events = serde_json::Map::new();
        for (event, command) in hooks {
            let hook = json!({ "type": "command", "command": command, "timeout": timeout_secs });
            let group = if matches!(
                *event,
                "PreToolUse" | "PermissionRequest" | "PostToolUse" | "PostToolUseFailure"
            ) {
                json!({ "matcher": "*", "hooks": [hook] })
            } else {
                json!({ "hooks": [hook] })
            };
            let entry = events.entry(event.to_string()).or_insert_with(|| json!([]));
            entry
                .as_array_mut()
                .expect("hook groups are a list")
                .push(group);
        }
        self.write_settings(&json!({ "hooks": events }));
    }

    /// Adds a variable to the environment Claude Code (and so every hook) runs with.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.extra_env.retain(|(k, _)| k != key);
        self.extra_env.push((key.to_string(), value.to_string()));
    }

    /// Returns the complete environment for Claude Code; nothing else is inherited.
    pub fn env(&self) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        let mut env = vec![
            ("HOME".to_string(), self.home.display().to_string()),
            ("PATH".to_string(), path),
            ("TERM".to_string(), "xterm-256color".to_string()),
            ("LANG".to_string(), "C.UTF-8".to_string()),
            ("SHELL".to_string(), "/bin/bash".to_string()),
            ("ANTHROPIC_BASE_URL".to_string(), self.base_url.clone()),
            ("ANTHROPIC_API_KEY".to_string(), API_KEY.to_string()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".to_string(),
                "1".to_string(),
            ),
            ("DISABLE_AUTOUPDATER".to_string(), "1".to_string()),
        ];
        for (key, value) in &self.extra_env {
            env.retain(|(k, _)| k != key);
            env.push((key.clone(), value.clone()));
        }
        env
    }

    /// Adds arguments to the command line that starts Claude Code, such as
    /// `--permission-mode plan`.
    pub fn add_args(&mut self, arguments: &[&str]) {
        self.extra_args
            .extend(arguments.iter().map(|argument| argument.to_string()));
    }

    /// Lets Claude Code (and so its hooks) see the `TMUX` and `TMUX_PANE` of its pane.
    pub fn keep_tmux_variables(&mut self) {
        self.keep_tmux_variables = true;
    }

    /// Returns the Claude Code executable.
    pub fn claude_bin(&self) -> &Path {
        &self.claude_bin
    }

    /// Returns the command line that starts Claude Code.
    pub fn command(&self) -> Vec<String> {
        let mut command = vec![
            self.claude_bin.display().to_string(),
            "--model".to_string(),
            MODEL.to_string(),
        ];
        command.extend(self.extra_args.iter().cloned());
        command
    }

    /// Starts Claude Code in a new tmux session and waits until its input box is ready.
    pub fn start_in_tmux(&self) -> Tmux {
        let env = self.env();
        let env_refs: Vec<(&str, &str)> =
            env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let command = self.command();
        let command_refs: Vec<&str> = command.iter().map(String::as_str).collect();
        let tmux = if self.keep_tmux_variables {
            Tmux::start_keeping_tmux_variables("claude", &self.workspace, &env_refs, &command_refs)
        } else {
            Tmux::start("claude", &self.workspace, &env_refs, &command_refs)
        };
        wait_idle(&tmux, START_DEADLINE);
        tmux
    }

    /// Types `text` into Claude Code's input box and presses Enter, then waits until Claude Code
    /// has taken the prompt (the text left the input box, or a dialog replaced the box). It first
    /// waits until Claude Code is idle, so a prompt is never queued behind a running turn.
    pub fn submit_prompt(&self, tmux: &Tmux, text: &str) {
        let deadline = Duration::from_secs(30);
        wait_idle(tmux, deadline);
        tmux.send_text(text);
        // Long prompts wrap inside the box, so only the start of the first line is compared.
        let expected: String = text
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .chars()
            .take(60)
            .collect();
        tmux.wait_for_screen(
            deadline,
            &format!("the prompt {text:?} in the input box"),
            |s| input_box(s).is_some_and(|line| line.contains(&expected)),
        );
        tmux.send_keys(&["Enter"]);
        tmux.wait_for_screen(
            deadline,
            &format!("Claude Code to take the prompt {text:?}"),
            |s| input_box(s).is_none_or(|line| !line.contains(&expected)),
        );
    }
}

/// Waits until Claude Code is idle: its input box is shown and the footer offers
/// `? for shortcuts` (while a turn runs the footer says `esc to interrupt` instead).
pub fn wait_idle(tmux: &Tmux, deadline: Duration) -> String {
    tmux.wait_for_screen(
        deadline,
        "Claude Code to be idle with its input box shown",
        |s| {
            (s.contains(READY_TEXT) || s.contains(PLAN_MODE_TEXT))
                && !s.contains("esc to interrupt")
                && input_box(s).is_some()
        },
    )
}

/// How long a dialog must have been on the screen before a key is pressed. Claude Code drops
/// keys that arrive within about 100 ms after it shows a dialog (measured: a key sent 0 or 50 ms
/// after the dialog became visible was dropped, 100 ms or later was taken), so tests wait this
/// long after first seeing the dialog instead of pressing at once.
pub const DIALOG_SETTLE: Duration = Duration::from_millis(500);

/// How long to wait for an accepted key to take effect before pressing it again. An accepted
/// key normally removes the dialog within 150 ms, but on a loaded machine it took over a second,
/// and a second press that lands after all types into the input box, so this is generous.
pub const DIALOG_RETRY: Duration = Duration::from_secs(10);

/// Answers a Claude Code dialog whose screen contains `dialog_text` by pressing `key` once the
/// dialog has settled, and returns the first screen without `dialog_text`; it panics with the
/// last screen when `deadline` passes first.
pub fn answer_dialog(tmux: &Tmux, dialog_text: &str, key: &str, deadline: Duration) -> String {
    tmux.wait_for_text_stable(dialog_text, DIALOG_SETTLE, deadline);
    tmux.press_until_gone(&[key], dialog_text, DIALOG_RETRY, deadline)
}

impl Drop for ClaudeEnv {
    fn drop(&mut self) {
        if std::env::var_os("GATEHOUSE_KEEP_TEST_DIRS").is_some() {
            eprintln!("keeping Claude Code test directory {}", self.root.display());
            return;
        }
        // Claude Code and the hooks it started may still write for a moment after its tmux
        // server is gone: they are given that moment, then ended, before the folder goes.
        super::leftovers::end_processes_and_remove(&self.root, Duration::from_secs(3));
    }
}

/// Returns the text in Claude Code's input box, or `None` when no input box is shown (for
/// example while a permission dialog replaces it). The input box is the line starting with `❯`
/// directly below a horizontal rule; prompts already sent also start with `❯` but have no rule
/// above them.
pub fn input_box(screen: &str) -> Option<String> {
    let lines: Vec<&str> = screen.lines().collect();
    lines.iter().enumerate().rev().find_map(|(i, line)| {
        let text = line.trim_start().strip_prefix('❯')?;
        let above = lines.get(i.checked_sub(1)?)?;
        above
            .trim_start()
            .starts_with('─')
            .then(|| text.trim().to_string())
    })
}

/// Writes `value` as pretty JSON to `path`, creating parent directories.
fn write_json(path: &Path, value: &Value) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create the settings directory");
    }
    let text = serde_json::to_string_pretty(value).expect("serialize JSON");
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}
