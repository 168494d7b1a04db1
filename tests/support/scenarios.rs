//! The scenarios that the end-to-end files of agents which ask for a command repeat, on the one
//! world ([`AgentWorld`]) whose agent is its terminal: a prompt for a scripted call, Yes and Esc
//! in the agent's own dialog, `once` and `deny` from the gateway, a probe counting for the very
//! next prompt, the agent's own dialog asking at once with the gateway down, uninstall leaving
//! no hook, and the entry `install` writes for a hook gatehouse holds. The scripted call `NAME` runs `printf NAME > NAME.txt` in the workspace,
//! asked for by the message "please write NAME.txt".

use std::ops::Deref;
use std::path::Path;
use std::time::{Duration, Instant};

use gatehouse_harness::model::ScriptedCall;
use serde_json::{json, Value};

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

    /// [`Self::prompt_for_writing`], from the pane the agent runs in (its hooks report it).
    pub fn prompt_for_writing_in_its_pane(
        &self,
        tmux: &Tmux,
        name: &str,
        tool: &str,
        deadline: Duration,
    ) -> Value {
        let prompt = self.prompt_for_writing(tmux, name, Some(tool), deadline);
        assert_eq!(prompt["terminal"]["tmux_pane"], tmux.pane_id(), "{prompt}");
        prompt
    }

    /// Before the probe, the scripted calls `yes` and `esc`, each asked for by `prompt_for`:
    /// `yes` is listed read-only, naming `gatehouse probe ADAPTER`, and Yes in the agent's dialog
    /// (`dialog_text`) runs it and withdraws the prompt
    /// ([`Self::read_only_and_enter_in_the_terminal_withdraws_it`]); Esc in the dialog cancels
    /// `esc`: its prompt is withdrawn (a late `once` is refused) and it never runs.
    pub fn read_only_yes_and_esc_in_the_terminal(
        &self,
        tmux: &Tmux,
        prompt_for: impl Fn(&str) -> Value,
        (dialog_text, ready_text): (&str, &str),
        deadline: Duration,
    ) {
        let prompt = prompt_for("yes");
        let list = self.gateway.list_text();
        let probe = format!("gatehouse probe {}", self.adapter);
        let said = ["printf yes > yes.txt", "read-only: ", &probe];
        crate::common::assert_says_all("list", &list, &said);
        let texts = (dialog_text, ready_text);
        self.read_only_and_enter_in_the_terminal_withdraws_it(
            tmux, &prompt, "yes", texts, deadline,
        );

        let prompt = prompt_for("esc");
        self.esc_in_the_terminal(tmux, dialog_text, deadline);
        let what = format!(
            "the prompt cancelled in {}'s dialog to be withdrawn",
            self.adapter
        );
        self.withdrawn(&prompt, &what, "once", deadline);
        assert_eq!(self.written_by("esc"), None);
    }

    /// After the probe, `prompt` for the scripted call `once` is listed with `once` and `deny`,
    /// and `once` from the gateway runs it with no dialog of the agent's own
    /// ([`Self::once_from_the_gateway_runs_it`]).
    pub fn once_offered_and_from_the_gateway_runs_it(
        &self,
        tmux: &Tmux,
        prompt: &Value,
        screens: (&str, &str),
        deadline: Duration,
    ) {
        let list = self.gateway.list_text();
        assert!(
            list.contains("once,deny") && list.contains("printf once > once.txt"),
            "{list}"
        );
        assert_eq!(prompt["actions"], json!(["once", "deny"]));
        self.once_from_the_gateway_runs_it(tmux, prompt, "once", screens, deadline);
    }

    /// The gateway down: for the scripted call `down` the hook leaves it to the agent at once,
    /// as if gatehouse were not installed: its dialog (`dialog_text`) asks within `within`, and
    /// Yes there runs the command.
    pub fn with_the_gateway_down_the_dialog_asks_at_once(
        &mut self,
        tmux: &Tmux,
        dialog_text: &str,
        within: Duration,
        deadline: Duration,
    ) {
        self.gateway.kill();
        let asked_at = Instant::now();
        self.agent.submit(tmux, "please write down.txt");
        self.yes_in_the_terminal(tmux, "down", dialog_text, deadline);
        assert!(
            asked_at.elapsed() < within,
            "{}'s dialog came only after {:?}",
            self.adapter,
            asked_at.elapsed()
        );
    }

    /// After the message that asks for [`hostile_call`]: its prompt is listed with the command
    /// exact, the agent shows its dialog (`dialog_text`), and `list` shows the escape and the
    /// bidi control as text (`\e`, `\u{202e}`), never raw. Returns the prompt and the screen.
    pub fn hostile_call_is_listed_as_text(
        &self,
        tmux: &Tmux,
        dialog_text: &str,
        deadline: Duration,
    ) -> (Value, String) {
        let prompt = self.the_one_listed(tmux, deadline);
        assert_eq!(prompt["summary"], hostile_call().command);
        let screen = tmux.wait_for_text(dialog_text, deadline);
        let list = self.gateway.list_text();
        assert!(
            list.contains("\\e[2J\\u{202e}gone")
                && !list.contains('\u{1b}')
                && !list.contains('\u{202e}'),
            "{list}"
        );
        (prompt, screen)
    }

    /// `gatehouse uninstall ADAPTER` removes gatehouse's entries from the agent's settings at
    /// `settings`: neither the hook executable's command nor `gatehouse hook ADAPTER` is left.
    /// Returns the settings, for what must stay.
    pub fn uninstall_removes_the_hooks(&self, settings: &Path) -> Value {
        let uninstalled = self.gateway.run(&["uninstall", self.adapter]);
        assert!(uninstalled.status.success(), "{uninstalled:?}");
        let left: Value = serde_json::from_slice(&std::fs::read(settings).unwrap()).unwrap();
        let text = left.to_string();
        let hook = format!("hook {}", self.adapter);
        assert!(
            !text.contains("gatehouse-hook") && !text.contains(&hook),
            "{left}"
        );
        left
    }
}

/// The scripted call `hostile`: `printf hostile > hostile.txt`, then a comment that holds a
/// terminal escape (clear the screen) and a bidirectional control, as a model could write it.
pub fn hostile_call() -> ScriptedCall {
    ScriptedCall {
        call_id: "call_hostile".into(),
        command: "printf hostile > hostile.txt # \u{1b}[2J\u{202e}gone".into(),
        reason: String::new(),
    }
}

/// The `hook` entry `install` wrote for an agent whose hook gatehouse holds: its command sets
/// the wait to `wait_seconds`, and the agent's timeout for it is `timeout_seconds` (`why`).
pub fn assert_holding_hook(hook: &Value, wait_seconds: u64, timeout_seconds: u64, why: &str) {
    let command = hook["command"].as_str().unwrap();
    let wait = format!("GATEHOUSE_HOOK__WAIT_SECONDS={wait_seconds} ");
    assert!(command.starts_with(&wait), "{hook}");
    assert_eq!(hook["timeout"], timeout_seconds, "{why}");
}
