//! The scenarios that the end-to-end files of agents which ask for a command repeat, on the one
//! world ([`AgentWorld`]) whose agent is its terminal: a prompt for a scripted call, Yes and Esc
//! in the agent's own dialog, `once` and `deny` from the gateway, and a probe counting for the
//! very next prompt. The scripted call `NAME` runs `printf NAME > NAME.txt` in the workspace,
//! asked for by the message "please write NAME.txt".

use std::ops::Deref;
use std::time::Duration;

use gatehouse_harness::model::ScriptedCall;
use serde_json::Value;

use super::tmux::Tmux;
use super::world::{refused, AgentTerminal, AgentWorld};

/// The scripted call `NAME`: `printf NAME > NAME.txt`, to write `NAME.txt`.
pub fn write_call(name: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("call_{name}"),
        command: format!("printf {name} > {name}.txt"),
        reason: format!("write {name}.txt"),
    }
}

/// The scripted calls of `names`, in order ([`write_call`]).
pub fn write_calls(names: &[&str]) -> Vec<ScriptedCall> {
    names.iter().map(|name| write_call(name)).collect()
}

/// Scenarios every agent that asks for a command shares, for a world whose agent is its terminal.
/// The scripted call `NAME` runs `printf NAME > NAME.txt` in the workspace, asked for by the
/// message "please write NAME.txt".
impl<A: Deref<Target = AgentTerminal>> AgentWorld<A> {
    /// Submits "please write NAME.txt" and returns the one prompt the gateway lists for it: its
    /// summary the command whole, its tool `tool` (when given).
    pub fn prompt_for_writing(
        &self,
        tmux: &Tmux,
        name: &str,
        tool: Option<&str>,
        deadline: Duration,
    ) -> Value {
        self.agent.submit(tmux, &format!("please write {name}.txt"));
        let prompt = self.the_one_listed(tmux, deadline);
        if let Some(tool) = tool {
            assert_eq!(prompt["tool"], tool, "{prompt}");
        }
        assert_eq!(prompt["summary"], format!("printf {name} > {name}.txt"));
        prompt
    }

    /// What the command of the scripted call `name` wrote, if it ran.
    pub fn written_by(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.agent.marker(&format!("{name}.txt"))).ok()
    }

    /// Answers the first choice (a yes, selected) in the agent's own dialog (`dialog_text`) for
    /// the scripted call `name`: the command did not run before, and runs after; returns what
    /// the model read of it.
    pub fn yes_in_the_terminal(
        &self,
        tmux: &Tmux,
        name: &str,
        dialog_text: &str,
        deadline: Duration,
    ) -> String {
        tmux.wait_for_text(dialog_text, deadline);
        assert_eq!(
            self.written_by(name),
            None,
            "ran before the dialog was answered"
        );
        // The agent may drop a key while it draws its dialog: pressed again until it goes.
        tmux.press_until_gone(&["Enter"], dialog_text, Duration::from_secs(2), deadline);
        let output = self.output_for(&format!("call_{name}"), deadline);
        assert_eq!(self.written_by(name).as_deref(), Some(name));
        output
    }

    /// Issue 19: a passing probe counts for the very next prompt. With the agent running in
    /// `tmux`, the probe passes, and the very next prompt (the scripted call `atonce`, tool
    /// `tool`) offers `actions` with no refresh waited for; `once` from the gateway runs it.
    pub fn a_probe_then_at_once_once_runs_it(
        &self,
        tmux: &Tmux,
        tool: Option<&str>,
        actions: Value,
        deadline: Duration,
    ) {
        self.probe(&self.agent.bin);
        let prompt = self.prompt_for_writing(tmux, "atonce", tool, deadline);
        assert_eq!(prompt["actions"], actions, "{prompt}");
        assert!(self.answer(&prompt["id"], &["once"]).status.success());
        self.output_for("call_atonce", deadline);
        assert_eq!(self.written_by("atonce").as_deref(), Some("atonce"));
    }

    /// `once` from the gateway for `prompt`, the scripted call `name`: the agent shows no dialog
    /// of its own (`dialog_text`), runs the command, is ready again (`ready_text`), and nothing
    /// is listed any more.
    pub fn once_from_the_gateway_runs_it(
        &self,
        tmux: &Tmux,
        prompt: &Value,
        name: &str,
        (dialog_text, ready_text): (&str, &str),
        deadline: Duration,
    ) {
        assert!(!tmux.screen().contains(dialog_text));
        assert!(self.answer(&prompt["id"], &["once"]).status.success());
        self.output_for(&format!("call_{name}"), deadline);
        assert_eq!(self.written_by(name).as_deref(), Some(name));
        tmux.wait_for_text(ready_text, deadline);
        assert!(self.gateway.list().is_empty());
    }

    /// `deny` with `message` from the gateway for `prompt`, the scripted call `name`: the
    /// command does not run; returns what the model read of it.
    pub fn deny_from_the_gateway(
        &self,
        prompt: &Value,
        name: &str,
        message: &str,
        deadline: Duration,
    ) -> String {
        let denied = self.answer(&prompt["id"], &["deny", "--message", message]);
        assert!(denied.status.success(), "{denied:?}");
        let output = self.output_for(&format!("call_{name}"), deadline);
        assert_eq!(self.written_by(name), None);
        output
    }

    /// Before the probe, `prompt` is read-only and the agent's own dialog (`dialog_text`)
    /// decides: `once` from the gateway is refused, `yes` answers Yes in the dialog (and checks
    /// the command ran), and the prompt is withdrawn (a late `deny` is refused).
    pub fn read_only_and_yes_in_the_terminal_withdraws_it(
        &self,
        (tmux, dialog_text): (&Tmux, &str),
        prompt: &Value,
        yes: impl FnOnce(),
        deadline: Duration,
    ) {
        self.assert_read_only_until_probed(prompt);
        tmux.wait_for_text(dialog_text, deadline);
        refused(&self.answer(&prompt["id"], &["once"]), "read_only");
        yes();
        let what = "the prompt answered Yes to be withdrawn";
        self.withdrawn(prompt, what, "deny", deadline);
    }

    /// [`Self::read_only_and_yes_in_the_terminal_withdraws_it`] for the scripted call `name` in
    /// an agent whose dialog (`dialog_text`) selects Yes first ([`Self::yes_in_the_terminal`]);
    /// then waits until the agent is ready again (`ready_text`).
    pub fn read_only_and_enter_in_the_terminal_withdraws_it(
        &self,
        tmux: &Tmux,
        prompt: &Value,
        name: &str,
        (dialog_text, ready_text): (&str, &str),
        deadline: Duration,
    ) {
        let yes = || {
            self.yes_in_the_terminal(tmux, name, dialog_text, deadline);
        };
        let dialog = (tmux, dialog_text);
        self.read_only_and_yes_in_the_terminal_withdraws_it(dialog, prompt, yes, deadline);
        tmux.wait_for_text(ready_text, deadline);
    }

    /// Waits for the agent's own dialog (`dialog_text`) and presses Esc until it goes.
    pub fn esc_in_the_terminal(&self, tmux: &Tmux, dialog_text: &str, deadline: Duration) {
        tmux.wait_for_text(dialog_text, deadline);
        tmux.press_until_gone(&["Escape"], dialog_text, Duration::from_secs(2), deadline);
    }
}
