//! The one end-to-end world ([`AgentWorld`]) with the real Claude Code: its private home
//! ([`ClaudeEnv`]), the scripted Anthropic API ([`FakeAnthropic`]), its terminal once started,
//! and gatehouse's hooks installed by `gatehouse install claude`; plus the scripted turns and
//! the probe record that Claude's scenarios share.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use super::claude_env::ClaudeEnv;
use super::fake_anthropic::{tool_result_text, FakeAnthropic, ScriptedTurn};
use super::tmux::Tmux;
use super::world::AgentWorld;
use crate::common::{Gateway, Sandbox};

/// How long a test waits for a tool result to reach the model.
const RESULT_DEADLINE: Duration = Duration::from_secs(30);

/// Claude Code in a test: its terminal, once started, and its private home. The terminal is
/// first, so that Claude Code stops before its home is removed (fields drop in order), or it
/// writes its state into a home that was already cleaned up.
pub struct Claude {
    pub tmux: Option<Tmux>,
    pub env: ClaudeEnv,
}

/// The kit's world with Claude Code against the scripted Anthropic API.
pub type ClaudeWorld = AgentWorld<Claude, FakeAnthropic>;

impl ClaudeWorld {
    /// Claude Code (`bin`) with `script`, its hooks talking to `gateway`: `configure` adds to
    /// its environment and arguments, then `gatehouse install claude` writes the hooks into its
    /// private home.
    pub fn with_claude(
        bin: &Path,
        gateway: Gateway,
        script: Vec<ScriptedTurn>,
        configure: impl FnOnce(&mut ClaudeEnv),
    ) -> ClaudeWorld {
        let fake = FakeAnthropic::start(script);
        let mut env = ClaudeEnv::new(bin, &fake);
        env.set_env("GATEHOUSE_SOCKET", &gateway.socket().display().to_string());
        configure(&mut env);
        let world = AgentWorld {
            agent: Claude { tmux: None, env },
            adapter: "claude",
            gateway,
            fake,
        };
        world.install(&[("HOME", world.agent.env.home())]);
        world
    }

    /// Starts Claude Code in tmux and submits `prompt`.
    pub fn start(&mut self, prompt: &str) -> &Tmux {
        let tmux = self.agent.env.start_in_tmux();
        self.agent.env.submit_prompt(&tmux, prompt);
        self.agent.tmux.insert(tmux)
    }

    /// Claude Code's terminal, once started.
    pub fn tmux(&self) -> &Tmux {
        self.agent.tmux.as_ref().expect("started")
    }

    /// A file in Claude Code's workspace.
    pub fn workspace_file(&self, name: &str) -> PathBuf {
        self.agent.env.workspace().join(name)
    }

    /// The one prompt the gateway holds, once it is there.
    pub fn held_prompt(&self) -> Value {
        self.gateway.wait_for_pending(1).remove(0)
    }

    /// `gatehouse answer ID ARGUMENTS...`, which must succeed.
    pub fn answered(&self, id: &Value, arguments: &[&str]) {
        let answered = self.answer(id, arguments);
        assert!(
            answered.status.success(),
            "answer {arguments:?}: {}",
            String::from_utf8_lossy(&answered.stderr)
        );
    }

    /// The `count`th tool result, once it is there: an error when `is_error`, its text starting
    /// with `text`.
    pub fn tool_result_starting(&self, count: usize, is_error: bool, text: &str) -> Value {
        let result = self.tool_result(count);
        assert_eq!(result["is_error"], json!(is_error), "{result}");
        assert!(tool_result_text(&result).starts_with(text), "{result}");
        result
    }

    /// The `count`th tool result that reached the model, once it is there.
    pub fn tool_result(&self, count: usize) -> Value {
        self.fake.wait_for_tool_results(count, RESULT_DEADLINE)[count - 1].clone()
    }
}

/// The model asks to run `command` with Bash.
pub fn bash_turn(command: &str) -> ScriptedTurn {
    ScriptedTurn::tool_use(
        "Bash",
        json!({ "command": command, "description": "write a file" }),
    )
}

/// The model asks `question` with AskUserQuestion, offering `labels` (several may be picked
/// when `multi`).
pub fn question_turn(question: &str, multi: bool, labels: &[&str]) -> ScriptedTurn {
    let options: Vec<Value> = labels
        .iter()
        .map(|label| json!({ "label": label, "description": format!("{label} option") }))
        .collect();
    ScriptedTurn::tool_use(
        "AskUserQuestion",
        json!({ "questions": [{ "question": question, "header": "Pick", "options": options, "multiSelect": multi }] }),
    )
}

/// Writes `one\nalpha\nthree\n` to `path` and returns the model's turn that reads it, then asks
/// to edit `alpha` into `beta` with Edit.
pub fn alpha_to_beta_edit_turn(path: &Path) -> ScriptedTurn {
    std::fs::write(path, "one\nalpha\nthree\n").unwrap();
    ScriptedTurn::Steps(vec![
        ("Read".into(), json!({ "file_path": path })),
        (
            "Edit".into(),
            json!({ "file_path": path, "old_string": "alpha", "new_string": "beta", "replace_all": false }),
        ),
    ])
}

/// A passing probe record for `version` of `claude`, with `cases` (each a case and the
/// capability it proves), in `sandbox`'s state folder, as `gatehouse probe claude` writes it.
pub fn write_claude_record(
    sandbox: &Sandbox,
    claude: &Path,
    version: &str,
    cases: &[(&str, &str)],
) {
    let cases: Vec<Value> = cases
        .iter()
        .map(|(case, capability)| json!({ "case": case, "capability": capability, "passed": true, "evidence": "written by the test" }))
        .collect();
    let record = json!({
        "claude_version": version,
        "claude_executable": claude,
        "probed_at": "2026-12-01T03:00:00Z",
        "passed": true,
        "cases": cases,
        "gatehouse_version": "0.1.0",
    });
    let folder = sandbox.home().join(".local/state/gatehouse");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("claude-probe.json"), record.to_string()).unwrap();
}
