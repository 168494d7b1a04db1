//! End-to-end, beyond Bash: the real Claude Code 2.1.332 in tmux against the scripted Anthropic
//! API, with gatehouse's hooks installed by `gatehouse install claude`. File edits with their
//! diff, `always` from Claude Code's own suggestions, and plans, each unlocked by a probe record
//! for that Claude Code version only; and the terminal pane that asks.
//!
//! The probe itself runs in `the_probe_passes_and_the_running_gateway_unlocks_what_it_proved`;
//! the other tests start their gateway with a passing record for the installed version already in
//! its state folder (what the probe writes), so they need not run the probe each.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{wait_for, Gateway, Sandbox};
use crate::support::claude_env::{find_claude_bin, wait_idle, CLAUDE_VERSION};
use crate::support::claude_world::{alpha_to_beta_edit_turn, write_claude_record, ClaudeWorld};
use crate::support::fake_anthropic::{tool_result_text, ScriptedTurn, PLAN_FILE};
use crate::support::world::{adapter_rule, required_bin};

const DEADLINE: Duration = Duration::from_secs(30);

/// Which probe record the gateway's state folder holds when it starts.
enum Record {
    None,
    Passing,
    ForVersion(&'static str),
}

/// One test's world, Claude Code not started yet: its gateway starts with `record` in its state
/// folder, and Claude Code runs with `arguments`.
fn claude_world(
    script: Vec<ScriptedTurn>,
    record: Record,
    arguments: &[&str],
) -> Option<ClaudeWorld> {
    let bin = required_bin("Claude Code", find_claude_bin())?;
    let sandbox = Sandbox::new();
    let version = match record {
        Record::None => None,
        Record::Passing => Some(CLAUDE_VERSION),
        Record::ForVersion(version) => Some(version),
    };
    if let Some(version) = version {
        write_record(&sandbox, &bin, version);
    }
    // The hooks read the probe record where the probe wrote it, as they do for a person whose
    // hooks and probe share a home (Claude Code's HOME here is a private one of its own).
    let state_home = sandbox.home().join(".local/state");
    let gateway = Gateway::start_in(sandbox);
    Some(ClaudeWorld::with_claude(&bin, gateway, script, |claude| {
        claude.set_env("XDG_STATE_HOME", &state_home.display().to_string());
        claude.add_args(arguments);
    }))
}

/// [`claude_world`] whose model asks to write `content` to `file` with Write.
fn writing_world(file: &str, content: &str, record: Record) -> Option<ClaudeWorld> {
    claude_world(vec![write_turn(file, content)], record, &[])
}

/// [`claude_world`] with a passing record whose model asks to run `command` with Bash, started
/// with `message`; the world and the prompt the gateway holds for the command.
fn holding_a_bash_prompt(command: &str, message: &str) -> Option<(ClaudeWorld, Value)> {
    let mut world = claude_world(vec![bash_turn(command)], Record::Passing, &[])?;
    world.start(message);
    let prompt = world.held_prompt();
    Some((world, prompt))
}

impl ClaudeWorld {
    /// How many prompts the gateway has registered, from its audit log.
    fn prompts_registered(&self) -> usize {
        let log = self.gateway.run(&["log", "--json"]);
        String::from_utf8_lossy(&log.stdout)
            .lines()
            .filter(|line| line.contains(r#""type":"added""#))
            .count()
    }

    /// `once` for `prompt`, the first tool call: it succeeds, and `file` holds `content`.
    /// Starts Claude Code with `message` and returns the Write prompt the gateway holds, once
    /// it is there: answerable (`once`, `deny` and `always`).
    fn held_answerable_write(&mut self, message: &str) -> Value {
        self.start(message);
        let prompt = self.held_prompt();
        assert_eq!(prompt["tool"], "Write");
        assert_eq!(
            prompt["actions"],
            json!(["once", "deny", "always"]),
            "{prompt}"
        );
        prompt
    }

    fn once_writes(&self, prompt: &Value, file: &str, content: &str) {
        self.answered(&prompt["id"], &["once"]);
        let result = self.tool_result(1);
        assert_ne!(result["is_error"], json!(true), "{result}");
        let written = std::fs::read_to_string(self.workspace_file(file)).unwrap();
        assert_eq!(written, content);
    }

    fn claude_flags(&self, tool: &str) -> Value {
        adapter_rule(&self.gateway, "claude", Some(tool))
    }
}

/// A passing record for `version` of `claude`, as `gatehouse probe claude` writes it.
pub fn write_record(sandbox: &Sandbox, claude: &std::path::Path, version: &str) {
    let cases = [
        ("write-once", "edits"),
        ("write-deny", "edits"),
        ("edit-once", "edits"),
        ("edit-deny", "edits"),
        ("always-session", "always"),
        ("plan-deny", "plan"),
        ("plan-approve", "plan"),
    ];
    let claude = std::fs::canonicalize(claude).unwrap();
    write_claude_record(sandbox, &claude, version, &cases);
}

fn write_turn(path: &str, content: &str) -> ScriptedTurn {
    ScriptedTurn::tool_use("Write", json!({ "file_path": path, "content": content }))
}

fn node_append(log: &str) -> String {
    format!("node -e \"require('fs').appendFileSync('{log}','x')\"")
}

fn bash_turn(command: &str) -> ScriptedTurn {
    ScriptedTurn::tool_use(
        "Bash",
        json!({ "command": command, "description": "append" }),
    )
}

/// The model writes its plan to the plan file Claude Code names, then asks to leave plan mode
/// (Claude Code 2.1.332 reads the plan from that file; the model's own `plan` input is dropped).
fn plan_turn() -> ScriptedTurn {
    ScriptedTurn::Steps(vec![
        (
            "Write".into(),
            json!({ "file_path": PLAN_FILE, "content": "# Plan\n1. Write the tests first.\n" }),
        ),
        ("ExitPlanMode".into(), json!({})),
    ])
}

#[test]
fn the_probe_passes_and_the_running_gateway_unlocks_what_it_proved() {
    let Some(world) = claude_world(Vec::new(), Record::None, &[]) else {
        return;
    };
    assert_eq!(world.claude_flags("Write")["actions"][0]["verified"], false);
    let cases = [
        "write-once",
        "write-deny",
        "edit-once",
        "edit-deny",
        "always-session",
        "plan-deny",
        "plan-approve",
    ];
    world.probe_with_cases(world.agent.env.claude_bin(), &cases);
    // The running gateway shows the new record's flags by itself, within a second or so.
    wait_for(
        Duration::from_secs(40),
        "the gateway to offer what the probe unlocked",
        || world.claude_flags("Write")["actions"][0]["verified"] == true,
    );
    let write = world.claude_flags("Write");
    assert!(
        write["actions"][0]["evidence"]
            .as_str()
            .unwrap()
            .contains(&format!("for Claude Code {CLAUDE_VERSION}")),
        "{write}"
    );
    assert_eq!(world.claude_flags("Bash")["actions"][2]["verified"], true);
}

/// Issue 19: a passing probe counts for the very next prompt. The probe passes, and the person
/// goes straight back to Claude Code: the next Write prompt is answerable at once (no refresh
/// waited for), and `once` from the gateway writes the file.
#[test]
fn a_probe_then_at_once_a_write_is_answerable_and_once_from_the_gateway_writes_it() {
    let Some(mut world) = writing_world("atonce.txt", "at once\n", Record::None) else {
        return;
    };
    world.probe_with_cases(world.agent.env.claude_bin(), &[]);
    let prompt = world.held_answerable_write("write at once");
    world.once_writes(&prompt, "atonce.txt", "at once\n");
}

#[test]
fn once_on_a_write_writes_the_file_and_the_prompt_shows_the_content_and_the_pane() {
    let Some(mut world) = writing_world("notes.txt", "hello\n", Record::Passing) else {
        return;
    };
    world.agent.env.keep_tmux_variables();
    let prompt = world.held_answerable_write("write notes");
    assert_eq!(prompt["preview"]["format"], "text");
    assert_eq!(prompt["preview"]["title"], "notes.txt (new file)");
    assert_eq!(prompt["preview"]["text"], "hello\n");
    assert_eq!(prompt["suggestions"][0]["allows"][0]["mode"], "acceptEdits");
    let summary = prompt["suggestions"][0]["summary"]
        .as_str()
        .unwrap_or_default();
    assert!(
        summary.starts_with("mode `acceptEdits`: every file edit"),
        "{summary}"
    );
    let pane = prompt["terminal"]["tmux_pane"].as_str().unwrap_or_default();
    assert_eq!(
        pane,
        world.tmux().pane_id(),
        "the pane Claude Code runs in: {prompt}"
    );
    assert!(prompt["terminal"]["pid"].is_u64(), "{prompt}");
    // The hook asked tmux for the pane's session and window (the harness's session is `claude`).
    assert_eq!(prompt["terminal"]["tmux_window"], "claude:0", "{prompt}");
    let listed = world.gateway.list_text();
    assert!(listed.contains("content: notes.txt (new file)"), "{listed}");
    assert!(
        listed.contains(&format!("terminal: tmux claude:0.{pane}, pid ")),
        "{listed}"
    );
    world.once_writes(&prompt, "notes.txt", "hello\n");
}

#[test]
fn deny_on_an_edit_leaves_the_file_and_the_model_reads_the_message() {
    let Some(mut world) = claude_world(Vec::new(), Record::Passing, &[]) else {
        return;
    };
    let path = world.workspace_file("e.txt");
    world.fake.push_turn(alpha_to_beta_edit_turn(&path));
    world.start("edit e.txt");
    let prompt = world.held_prompt();
    assert_eq!(prompt["tool"], "Edit");
    assert_eq!(prompt["preview"]["format"], "diff");
    assert_eq!(
        prompt["preview"]["text"],
        "--- a/e.txt\n+++ b/e.txt\n@@ -1,3 +1,3 @@\n one\n-alpha\n+beta\n three\n"
    );
    let listed = world.gateway.list_text();
    assert!(listed.contains("      -alpha\n      +beta\n"), "{listed}");
    world.answered(&prompt["id"], &["deny", "--message", "keep alpha"]);
    world.tool_result_starting(2, true, "keep alpha");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "one\nalpha\nthree\n"
    );
}

#[test]
fn always_for_the_session_runs_the_same_command_again_unasked_and_writes_no_settings() {
    let command = node_append("ran.log");
    let Some(mut world) = claude_world(
        vec![bash_turn(&command), bash_turn(&command)],
        Record::Passing,
        &[],
    ) else {
        return;
    };
    world.start("append once");
    let prompt = world.held_prompt();
    assert_eq!(prompt["actions"], json!(["once", "deny", "always"]));
    assert_eq!(
        prompt["suggestions"][0]["summary"],
        format!("only the Bash command `{command}`, exactly as written")
    );
    assert_eq!(prompt["suggestions"][0]["allows"][0]["kind"], "exact");
    world.answered(&prompt["id"], &["always"]);
    assert_eq!(world.tool_result(1)["is_error"], json!(false));
    wait_idle(world.tmux(), DEADLINE);
    world.agent.env.submit_prompt(world.tmux(), "append again");
    assert_eq!(world.tool_result(2)["is_error"], json!(false));
    wait_idle(world.tmux(), DEADLINE);
    assert_eq!(
        std::fs::read_to_string(world.workspace_file("ran.log")).unwrap(),
        "xx"
    );
    assert_eq!(
        world.prompts_registered(),
        1,
        "the second call asked nobody"
    );
    assert!(!world.workspace_file(".claude/settings.local.json").exists());
    let said = ["always: suggestion s1 for the session"];
    crate::common::assert_says_all("the audit log", &world.gateway.log_text(), &said);
}

#[test]
fn always_for_the_project_writes_claudes_rule_to_settings_local_json() {
    let command = node_append("project.log");
    let Some((world, prompt)) = holding_a_bash_prompt(&command, "append for the project") else {
        return;
    };
    world.answered(
        &prompt["id"],
        &["always", "--suggestion", "s1", "--scope", "project"],
    );
    assert_eq!(world.tool_result(1)["is_error"], json!(false));
    let settings = world.workspace_file(".claude/settings.local.json");
    wait_for(DEADLINE, "the project's settings.local.json", || {
        settings.exists()
    });
    let settings: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    // Claude Code escapes the parentheses of the command in the rule it keeps.
    let rule = command.replace('(', r"\(").replace(')', r"\)");
    assert_eq!(
        settings["permissions"]["allow"],
        json!([format!("Bash({rule})")]),
        "{settings}"
    );
}

/// Claude Code in plan mode, probed, asked to plan: the plan it holds, once listed.
fn planning_with_a_plan_held() -> Option<(ClaudeWorld, Value)> {
    let planning = &["--permission-mode", "plan"];
    let mut world = claude_world(vec![plan_turn()], Record::Passing, planning)?;
    world.start("plan it");
    let prompt = world.held_prompt();
    Some((world, prompt))
}

#[test]
fn a_plan_approved_from_the_gateway_is_approved_in_claude() {
    let Some((world, prompt)) = planning_with_a_plan_held() else {
        return;
    };
    assert_eq!(prompt["kind"], "plan");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert_eq!(prompt["preview"]["format"], "markdown", "{prompt}");
    assert_eq!(
        prompt["preview"]["text"],
        "# Plan\n1. Write the tests first.\n"
    );
    let listed = world.gateway.list_text();
    assert!(
        listed.contains("    plan: Plan (2 lines)\n      # Plan\n"),
        "{listed}"
    );
    world.answered(&prompt["id"], &["once"]);
    let result = world.tool_result(2);
    assert_ne!(result["is_error"], json!(true), "{result}");
    assert!(tool_result_text(&result).contains("approved"), "{result}");
    world.tmux().wait_for_text_gone("plan mode on", DEADLINE);
}

#[test]
fn a_plan_denied_from_the_gateway_keeps_claude_planning() {
    let Some((world, prompt)) = planning_with_a_plan_held() else {
        return;
    };
    world.answered(
        &prompt["id"],
        &["deny", "--message", "plan the tests first"],
    );
    let result = world.tool_result(2);
    assert_eq!(result["is_error"], json!(true), "{result}");
    assert!(
        tool_result_text(&result).contains("plan the tests first"),
        "{result}"
    );
    world.tmux().wait_for_text("plan mode on", DEADLINE);
}

#[test]
fn without_a_record_or_with_another_versions_edits_and_plans_are_read_only() {
    for (record, reason) in [
        (Record::None, "run `gatehouse probe claude`".to_owned()),
        (
            Record::ForVersion("2.0.0"),
            format!("but Claude Code {CLAUDE_VERSION} is in use"),
        ),
    ] {
        let Some(mut world) = claude_world(vec![write_turn("ro.txt", "x\n")], record, &[]) else {
            return;
        };
        world.start("write ro");
        let prompt = world.held_prompt();
        assert_eq!(prompt["actions"], json!([]), "{prompt}");
        let why = prompt["read_only_reason"].as_str().unwrap();
        assert!(why.contains(&reason), "{why}");
        assert_eq!(world.claude_flags("Edit")["actions"][0]["verified"], false);
        assert_eq!(world.claude_flags("Bash")["actions"][2]["verified"], false);
    }
}

#[test]
fn always_for_every_project_merges_claudes_rule_into_the_user_settings_keeping_the_hooks() {
    let command = node_append("user.log");
    let Some((world, prompt)) = holding_a_bash_prompt(&command, "append for every project") else {
        return;
    };
    world.answered(&prompt["id"], &["always", "--scope", "user"]);
    assert_eq!(world.tool_result(1)["is_error"], json!(false));
    let rule = format!("Bash({})", command.replace('(', r"\(").replace(')', r"\)"));
    let path = world.agent.env.settings_path();
    let mut settings = Value::Null;
    wait_for(DEADLINE, "the rule in ~/.claude/settings.json", || {
        settings = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap_or(Value::Null);
        settings["permissions"]["allow"] == json!([rule])
    });
    assert!(
        settings["hooks"]["PermissionRequest"].is_array(),
        "gatehouse's hooks are kept: {settings}"
    );
    assert!(!world.workspace_file(".claude/settings.local.json").exists());
}
