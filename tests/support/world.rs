//! One end-to-end world for every agent: a real `gatehouse serve` in a sandbox, the agent's
//! scripted model ([`ScriptedModel`], in the agent's dialect), and what every agent's scenarios
//! ask of them (the agent's environment inside the sandbox, `gatehouse install`, the adapter's
//! flags in `status`, the one prompt listed, answers and refusals, and the scenarios they
//! repeat, which are in `scenarios.rs`). An agent is [`Agent`] (`agent.rs`): its terminal
//! ([`AgentTerminal`]) and its private home, the only part an agent's own support file adds.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use gatehouse_harness::gated::AgentDescription;
use gatehouse_harness::model::ScriptedModel;
use gatehouse_harness::probe::CaseResult;
use gatehouse_harness::record::ProbeRecord;
use serde_json::Value;

pub use super::agent::{
    find_bin, required_agent_bin, required_bin, workspace_in, Agent, AgentTerminal, QuittingTmux,
};
use super::tmux::Tmux;
use super::wait_until;
use crate::common::Gateway;

/// The environment the agent needs so that its hooks find the sandbox's gateway and probe
/// record: the sandbox's XDG folders and socket, and its HOME when `with_home`.
pub fn sandbox_env(gateway: &Gateway, with_home: bool) -> Vec<(&'static str, String)> {
    let folder = gateway.sandbox.folder.path();
    let mut env = Vec::new();
    if with_home {
        env.push(("HOME", gateway.home().display().to_string()));
    }
    env.extend([
        (
            "XDG_CONFIG_HOME",
            folder.join("config").display().to_string(),
        ),
        ("XDG_RUNTIME_DIR", folder.join("run").display().to_string()),
        ("GATEHOUSE_SOCKET", gateway.socket().display().to_string()),
    ]);
    env
}

/// A gateway, the agent's scripted model (`M`: the kit's [`ScriptedModel`] in the agent's
/// dialect, or Claude's Anthropic API) and `agent`: the agent's private home and terminal, which
/// an agent's scenarios bring. Fields drop in declaration order: the agent (and any terminal it
/// holds) goes before the gateway, the model and the sandbox's folders.
pub struct AgentWorld<A, M = ScriptedModel> {
    pub agent: A,
    pub adapter: &'static str,
    pub gateway: Gateway,
    pub fake: M,
}

impl<A, M> AgentWorld<A, M> {
    /// Runs `gatehouse install <adapter>` with `env`; see [`install`].
    pub fn install(&self, env: &[(&str, &Path)]) -> String {
        install(&self.gateway, self.adapter, env)
    }

    /// `gatehouse answer ID ARGUMENTS...`.
    pub fn answer(&self, id: &Value, arguments: &[&str]) -> Output {
        answer(&self.gateway, id, arguments)
    }

    /// The adapter's first rule in `status --json`: its actions and whether they are verified.
    pub fn flags(&self) -> Value {
        adapter_rule(&self.gateway, self.adapter, None)
    }

    /// Runs `gatehouse probe <adapter> --executable BIN` against the agent at `bin`; the probe
    /// must pass every standard case. Returns what it printed.
    pub fn probe(&self, bin: &Path) -> String {
        self.probe_with_cases(bin, &["allow", "deny", "no-verdict"])
    }

    /// Runs `gatehouse probe <adapter> --executable BIN` against the agent at `bin`; it must
    /// succeed, name every one of `cases`, and fail none. Returns what it printed.
    pub fn probe_with_cases(&self, bin: &Path, cases: &[&str]) -> String {
        let probed = self
            .gateway
            .command(&["probe", self.adapter, "--executable", bin.to_str().unwrap()])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&probed.stdout).into_owned();
        assert!(
            probed.status.success(),
            "probe: {stdout}{}",
            String::from_utf8_lossy(&probed.stderr)
        );
        for case in cases {
            assert!(stdout.contains(&format!("case {case}:")), "{stdout}");
        }
        assert!(!stdout.contains("FAILED"), "{stdout}");
        stdout
    }

    /// Before any probe: the adapter's flags are not verified, and `status` names the agent
    /// (`name`, such as `Qwen Code`) and the probe to run.
    pub fn unverified_until_probed(&self, name: &str) {
        assert_eq!(self.flags()["actions"][0]["verified"], false);
        let status = String::from_utf8_lossy(&self.gateway.run(&["status"]).stdout).into_owned();
        let probe = format!("gatehouse probe {}", self.adapter);
        assert!(
            status.contains(&format!("{name} ({})", self.adapter)) && status.contains(&probe),
            "{status}"
        );
    }

    /// `prompt` is read-only until the probe, and its reason names the probe to run.
    pub fn assert_read_only_until_probed(&self, prompt: &Value) {
        assert_eq!(
            prompt["actions"],
            serde_json::json!([]),
            "read-only until probed"
        );
        let reason = prompt["read_only_reason"].as_str().unwrap_or_default();
        let probe = format!("gatehouse probe {}", self.adapter);
        assert!(reason.contains(&probe), "{prompt}");
    }

    /// Waits until the running gateway offers what a probe unlocked (it reads a new record by
    /// itself, without a restart), and returns the adapter's flags; their evidence names
    /// `probed` (such as `Codex 0.171.0`).
    pub fn wait_until_verified(&self, probed: &str) -> Value {
        wait_until(
            Duration::from_secs(40),
            "the gateway to offer what the probe unlocked",
            || self.flags()["actions"][0]["verified"] == true,
        );
        let flags = self.flags();
        let evidence = flags["actions"][0]["evidence"].as_str().unwrap();
        assert!(evidence.contains(&format!("for {probed}")), "{flags}");
        flags
    }

    /// Sets `field` of the probe record in the sandbox's state folder to `value`, and restarts
    /// the gateway so that it reads the record again.
    pub fn edit_record_and_restart(&mut self, field: &str, value: &str) {
        let record_path = self.gateway.home().join(format!(
            ".local/state/gatehouse/{}-probe.json",
            self.adapter
        ));
        let mut record: Value =
            serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
        record[field] = value.into();
        std::fs::write(&record_path, record.to_string()).unwrap();
        self.gateway.kill();
        self.gateway.start_again();
    }

    /// A probe record for another version (`field` set to `recorded`, the gateway restarted):
    /// the adapter's flags are read-only again, their evidence saying that `in_use` (such as
    /// `Codex 0.171.0`) is in use.
    pub fn record_another_version(&mut self, field: &str, recorded: &str, in_use: &str) {
        self.edit_record_and_restart(field, recorded);
        let flags = self.flags();
        assert_eq!(flags["actions"][0]["verified"], false, "{flags}");
        let evidence = flags["actions"][0]["evidence"].as_str().unwrap();
        assert!(
            evidence.contains(&format!("but {in_use} is in use")),
            "{flags}"
        );
    }

    /// Waits until the gateway lists nothing (`what` names why), then `late_answer` to
    /// `prompt` is refused as withdrawn.
    pub fn withdrawn(&self, prompt: &Value, what: &str, late_answer: &str, deadline: Duration) {
        wait_until(deadline, what, || self.gateway.list().is_empty());
        refused(&self.answer(&prompt["id"], &[late_answer]), "withdrawn");
    }

    /// Waits for the gateway to list exactly one prompt, and returns it; on a timeout the
    /// agent's screen is shown.
    pub fn the_one_listed(&self, tmux: &Tmux, deadline: Duration) -> Value {
        let mut pending = Vec::new();
        let listed = poll_until(deadline, || {
            pending = self.gateway.list();
            pending.len() == 1
        });
        assert!(
            listed,
            "the gateway listed {} prompts, not 1; the agent's screen:\n{}",
            pending.len(),
            tmux.screen()
        );
        let prompt = pending.remove(0);
        assert_eq!(prompt["adapter"], self.adapter);
        prompt
    }
}

impl<A> AgentWorld<A> {
    /// The world for `agent`, or `None` (with the reason) when it is not installed: its
    /// executable (found by `variable` and `node_name`, [`required_agent_bin`]), a gateway, the
    /// model that `start_model` starts, and the agent's home and terminal that `make_agent`
    /// sets up around them.
    pub fn for_agent(
        agent: &AgentDescription,
        (variable, node_name): (&str, &str),
        start_model: impl FnOnce() -> ScriptedModel,
        make_agent: impl FnOnce(&Path, &Gateway, &ScriptedModel) -> A,
    ) -> Option<AgentWorld<A>> {
        let bin = required_agent_bin(agent, variable, node_name)?;
        let gateway = Gateway::start();
        let fake = start_model();
        let agent_and_home = make_agent(&bin, &gateway, &fake);
        Some(AgentWorld {
            agent: agent_and_home,
            adapter: agent.id,
            gateway,
            fake,
        })
    }

    /// Waits until the model has the agent's report of `call_id`, and returns it.
    pub fn output_for(&self, call_id: &str, deadline: Duration) -> String {
        let mut output = None;
        wait_until(
            deadline,
            &format!("{} to report {call_id} to the model", self.adapter),
            || {
                output = self.fake.output_for(call_id);
                output.is_some()
            },
        );
        output.unwrap()
    }
}

/// `gatehouse answer ID ARGUMENTS...` against `gateway`.
pub fn answer(gateway: &Gateway, id: &Value, arguments: &[&str]) -> Output {
    let mut all = vec!["answer", id.as_str().unwrap()];
    all.extend_from_slice(arguments);
    gateway.run(&all)
}

/// The rule of `adapter` in `status --json` for `tool` (its first rule when `None`; `Null` when
/// no rule names the tool).
pub fn adapter_rule(gateway: &Gateway, adapter: &str, tool: Option<&str>) -> Value {
    let status = gateway.run(&["status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    let adapter = status["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|listed| listed["adapter"] == adapter)
        .unwrap();
    let rules = adapter["rules"].as_array().unwrap();
    match tool {
        None => rules[0].clone(),
        Some(tool) => rules
            .iter()
            .find(|rule| rule["tool"] == tool)
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// Runs `gatehouse install <adapter>` in the gateway's sandbox with `env` and returns what it
/// printed, which must be a success.
pub fn install(gateway: &Gateway, adapter: &str, env: &[(&str, &Path)]) -> String {
    let mut command = gateway.command(&["install", adapter]);
    for (name, value) in env {
        command.env(name, value);
    }
    let installed = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&installed.stdout).into_owned();
    assert!(
        installed.status.success(),
        "install: {stdout}{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    stdout
}

/// A passing probe record of the kit ([`ProbeRecord`]) for `agent` (an adapter id such as
/// `qwen`) at `version`, probed at `executable`, with the standard cases, in `gateway`'s state
/// folder, as `gatehouse probe AGENT` writes it.
pub fn write_passing_record(
    gateway: &Gateway,
    agent: &'static str,
    version: &str,
    executable: &str,
) {
    let passed = |case: &str| CaseResult {
        case: case.into(),
        passed: true,
        evidence: "written by the test".into(),
    };
    let record = ProbeRecord {
        agent,
        version: version.into(),
        executable: executable.into(),
        probed_at: gatehouse_core::Timestamp::parse_rfc3339("2026-12-01T03:00:00Z").unwrap(),
        passed: true,
        cases: vec![passed("allow"), passed("deny"), passed("no-verdict")],
        gatehouse_version: "0.1.0".into(),
    };
    record
        .write(&gateway.home().join(".local/state/gatehouse"))
        .unwrap();
}

/// Asserts that a gatehouse command was refused with `code`.
pub fn refused(output: &Output, code: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "expected a refusal with {code}: {}{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(stderr.contains(code), "expected {code}: {stderr}");
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
