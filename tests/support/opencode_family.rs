//! The scenarios that the end-to-end files of the OpenCode family (OpenCode and its fork Kilo)
//! share, on the one world whose agent is its terminal: why no `always` is offered for a bash
//! command, shown both ways (gatehouse's `once` for `cat README.md`, after which a cat command
//! whose expansion runs code is asked again; and the agent's own "Allow always", after which it
//! runs unasked), once, reject and the terminal first, a question answered from gatehouse, and
//! uninstall removing exactly the plugin file. [`Family`] says what differs from one agent to the
//! other.

use std::ops::Deref;
use std::path::Path;
use std::time::Duration;

use gatehouse_harness::model::ScriptedCall;
use serde_json::{json, Value};

use super::tmux::Tmux;
use super::wait_until;
use super::world::{adapter_rule, refused, AgentTerminal, AgentWorld};

/// The command that runs `touch ran` where the agent's parser sees only `cat`.
pub const EXPANSION: &str = "cat ${x:-`touch ran`}";

/// What one agent of the family says and shows where the shared scenarios look.
pub struct Family {
    /// Its name in its own words and gatehouse's (`OpenCode`, `Kilo`).
    pub name: &'static str,
    /// Whether its screen is ready for a message.
    pub is_ready: fn(&str) -> bool,
    /// The text of its prompt for a permission, with "Allow once" selected.
    pub permission_prompt: &'static str,
    /// The text of its prompt for a question.
    pub question_prompt: &'static str,
    /// The text of its confirmation of "Allow always", which lists the pattern it saves.
    pub always_confirmation: &'static str,
    /// The `always` an answer asks for, refused for a bash command (`always`, with a scope).
    pub always_answer: &'static [&'static str],
    /// How long each step may take: the family starts and answers slowly on a busy machine.
    pub deadline: Duration,
}

impl Family {
    /// What every bash prompt's preview says of `always`.
    pub fn always_withheld(&self) -> String {
        format!(
            "always: not offered, because {} checks a bash pattern only against the commands it finds in a script",
            self.name
        )
    }
}

/// `cat README.md`, then ([`EXPANSION`]) a `cat` whose `${x:-`…`}` runs `touch ran`: the
/// family's parser finds only the `cat` command in it, so its `cat *` (an `always` for the
/// first) would run it unasked. The model gives each command as its own reason when
/// `with_reasons`, else no reason.
pub fn cat_calls(with_reasons: bool) -> Vec<ScriptedCall> {
    [
        ("call_readme", "cat README.md"),
        ("call_expansion", EXPANSION),
    ]
    .into_iter()
    .map(|(call_id, command)| ScriptedCall {
        call_id: call_id.into(),
        command: command.into(),
        reason: if with_reasons {
            command.into()
        } else {
            String::new()
        },
    })
    .collect()
}

/// The files of an agent's configuration folder `root`, relative to it, sorted (`node_modules`
/// is a link, not followed).
pub fn config_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                folders.push(path);
            } else {
                files.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    files.sort();
    files
}

/// The family's scenarios, for a world whose agent is its terminal. The scripted call `NAME`
/// runs `printf NAME > NAME.txt` ([`super::scenarios`]).
impl<A: Deref<Target = AgentTerminal>> AgentWorld<A> {
    /// Waits until the agent has finished its turn and is ready for a message.
    pub fn family_ready(&self, family: &Family, tmux: &Tmux) {
        let what = format!("{} to finish the turn", family.name);
        tmux.wait_for_screen(family.deadline, &what, family.is_ready);
    }

    /// Submits "please write NAME.txt" and returns the one `bash` prompt listed for it.
    pub fn family_prompt_for(&self, family: &Family, tmux: &Tmux, name: &str) -> Value {
        self.prompt_for_writing(tmux, name, Some("bash"), family.deadline)
    }

    /// Answers "Allow once" (selected) in the agent's own prompt and waits for the command of
    /// the scripted call `name` to run.
    pub fn family_allow_once_in_the_terminal(&self, family: &Family, tmux: &Tmux, name: &str) {
        self.yes_in_the_terminal(tmux, name, family.permission_prompt, family.deadline);
    }

    /// The prompt answered in the agent's own terminal is withdrawn, and a late `late_answer`
    /// from gatehouse is refused.
    pub fn family_withdrawn(
        &self,
        family: &Family,
        prompt: &Value,
        late_answer: &str,
        deadline: Duration,
    ) {
        let what = format!("the prompt answered in {} to be withdrawn", family.name);
        self.withdrawn(prompt, &what, late_answer, deadline);
    }

    /// After the probe, `status` says the truth of bash's `always`: not verified, and why.
    pub fn bash_always_is_not_verified(&self, family: &Family) {
        let bash = adapter_rule(&self.gateway, self.adapter, Some("bash"));
        let always = bash["actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|flag| flag["action"] == "always")
            .unwrap();
        assert_eq!(always["verified"], false, "{bash}");
        let evidence = always["evidence"].as_str().unwrap();
        let reason = format!(
            "{} checks a bash pattern only against the commands it finds",
            family.name
        );
        assert!(evidence.starts_with(&reason), "{evidence}");
    }

    /// After the probe, the scripted calls `once`, `reject` and `first`: `once` from the gateway
    /// runs the command and nothing is listed after; a reject reaches the model with its message
    /// (`rejected_with_feedback` before it) and does not run; and the agent's own prompt stays
    /// live while gatehouse holds: answered there first, the gateway's prompt is withdrawn at
    /// once and a late `late_answer` is refused.
    pub fn family_once_reject_and_the_terminal_first(
        &self,
        family: &Family,
        tmux: &Tmux,
        rejected_with_feedback: &str,
        late_answer: &str,
    ) {
        let deadline = family.deadline;
        let prompt = self.family_prompt_for(family, tmux, "once");
        assert_eq!(prompt["actions"], json!(["once", "deny"]));
        assert!(self.answer(&prompt["id"], &["once"]).status.success());
        self.output_for("call_once", deadline);
        assert_eq!(self.written_by("once").as_deref(), Some("once"));
        self.family_ready(family, tmux);
        wait_until(deadline, "nothing to be listed", || {
            self.gateway.list().is_empty()
        });

        let prompt = self.family_prompt_for(family, tmux, "reject");
        let output = self.deny_from_the_gateway(&prompt, "reject", "use a dry run first", deadline);
        assert_eq!(
            output,
            format!("{rejected_with_feedback}use a dry run first")
        );
        self.family_ready(family, tmux);

        let prompt = self.family_prompt_for(family, tmux, "first");
        assert_eq!(prompt["actions"], json!(["once", "deny"]));
        self.family_allow_once_in_the_terminal(family, tmux, "first");
        self.family_withdrawn(family, &prompt, late_answer, Duration::from_secs(10));
        self.family_ready(family, tmux);
    }

    /// The scripted `model::question_call("color", "Which color?")`: listed as a question with
    /// only `answer`, its first option Red, while the agent shows its own; answered from
    /// gatehouse, the model reads the answer.
    pub fn family_question_answered_from_gatehouse(&self, family: &Family, tmux: &Tmux) {
        self.agent.submit(tmux, "please ask me");
        let question = self.the_one_listed(tmux, family.deadline);
        assert_eq!(question["kind"], "question");
        assert_eq!(question["actions"], json!(["answer"]));
        assert_eq!(question["questions"][0]["options"][0]["label"], "Red");
        tmux.wait_for_text(family.question_prompt, family.deadline);
        let answered = self.answer(&question["id"], &["--pick", "q1=Blue"]);
        assert!(answered.status.success(), "{answered:?}");
        let output = self.output_for("call_question_color", family.deadline);
        assert!(output.contains(r#""Which color?"="Blue""#), "{output}");
        self.family_ready(family, tmux);
    }

    /// The scripted [`cat_calls`]: the prompt for `cat README.md` offers no `always` and says
    /// why, an `always` is refused, and `once` runs it; then the next cat command, which the
    /// agent's `cat *` would have run unasked, is listed again, and denied it never runs.
    pub fn once_for_cat_then_the_expansion_is_asked_again(&self, family: &Family, tmux: &Tmux) {
        let deadline = family.deadline;
        std::fs::write(self.agent.marker("README.md"), "read me\n").unwrap();
        self.agent.submit(tmux, "please read README.md");
        let prompt = self.the_one_listed(tmux, deadline);
        assert_eq!(prompt["summary"], "cat README.md");
        assert_eq!(prompt["actions"], json!(["once", "deny"]), "{prompt}");
        assert_eq!(prompt["suggestions"], Value::Null, "{prompt}");
        let preview = prompt["preview"]["text"].as_str().unwrap();
        assert!(preview.contains(&family.always_withheld()), "{preview}");
        assert!(
            preview.contains("`cat *` would let a script run any code"),
            "{preview}"
        );
        assert!(!preview.contains("only reads files"), "{preview}");
        refused(
            &self.answer(&prompt["id"], family.always_answer),
            "action_not_offered",
        );
        assert!(self.answer(&prompt["id"], &["once"]).status.success());
        let output = self.output_for("call_readme", deadline);
        assert!(output.contains("read me"), "{output}");
        self.family_ready(family, tmux);

        self.agent.submit(tmux, "please read it once more");
        let again = self.the_one_listed(tmux, deadline);
        assert_eq!(again["summary"], EXPANSION, "asked again");
        assert!(
            !self.agent.marker("ran").exists(),
            "ran before it was answered"
        );
        let denied = self.answer(&again["id"], &["deny", "--message", "not that one"]);
        assert!(denied.status.success(), "{denied:?}");
        let output = self.output_for("call_expansion", deadline);
        assert!(output.contains("not that one"), "{output}");
        self.family_ready(family, tmux);
        assert!(!self.agent.marker("ran").exists(), "ran though denied");
    }

    /// The scripted [`cat_calls`]' first, answered "Allow always" in the agent's own prompt: it
    /// confirms the pattern `cat *`, runs `cat README.md`, and gatehouse's prompt is withdrawn.
    pub fn always_for_cat_in_the_terminal(&self, family: &Family, tmux: &Tmux) {
        let deadline = family.deadline;
        std::fs::write(self.agent.marker("README.md"), "read me\n").unwrap();
        self.agent.submit(tmux, "please read README.md");
        let prompt = self.the_one_listed(tmux, deadline);
        assert_eq!(prompt["summary"], "cat README.md");
        tmux.wait_for_text(family.permission_prompt, deadline);
        // "Allow always" is right of the selected "Allow once"; the agent asks to confirm the
        // pattern.
        tmux.send_keys(&["Right"]);
        tmux.send_keys(&["Enter"]);
        let confirm = tmux.wait_for_text(family.always_confirmation, deadline);
        assert!(confirm.contains("- cat *"), "{confirm}");
        tmux.send_keys(&["Enter"]);
        let output = self.output_for("call_readme", deadline);
        assert!(output.contains("read me"), "{output}");
        self.family_withdrawn(family, &prompt, "deny", deadline);
        self.family_ready(family, tmux);
    }

    /// After [`Self::always_for_cat_in_the_terminal`], the next command ([`EXPANSION`]) runs
    /// `touch ran` (and then `cat` with no file), asked nowhere: nothing is listed, nothing
    /// logged.
    pub fn the_expansion_runs_unasked(&self, family: &Family, tmux: &Tmux) {
        self.agent.submit(tmux, "please read it once more");
        let what = format!("{} to run `touch ran` unasked", family.name);
        wait_until(family.deadline, &what, || self.agent.marker("ran").exists());
        assert!(self.gateway.list().is_empty(), "nothing was asked");
        let log =
            String::from_utf8_lossy(&self.gateway.run(&["log", "--json"]).stdout).into_owned();
        assert!(
            !log.contains(&format!(r#""summary":"{EXPANSION}""#)),
            "{} asked for it after all: {log}",
            family.name
        );
    }

    /// `gatehouse uninstall` removes exactly the plugin file from the configuration folder
    /// `config` (the agent wrote files of its own meanwhile).
    pub fn uninstall_removes_exactly_the_plugin(&self, config: &Path) {
        let installed = config_files(config);
        let uninstalled = self.gateway.run(&["uninstall", self.adapter]);
        assert!(uninstalled.status.success(), "{uninstalled:?}");
        let left: Vec<String> = installed
            .into_iter()
            .filter(|file| file != "plugin/gatehouse.js")
            .collect();
        assert_eq!(config_files(config), left);
    }
}
