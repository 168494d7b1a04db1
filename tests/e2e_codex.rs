//! End-to-end: the real Codex (npm `@openai/codex`, pinned in package.json) in tmux, against the
//! probe's scripted Responses API on loopback, with gatehouse's hooks installed by
//! `gatehouse install codex` and trusted at Codex's "Hooks need review" screen, as a person would.
//! What the fake records is what reached the model; what tmux shows is what the person saw.
//! Beyond shell commands: file changes (Codex's `apply_patch`, shown as a diff) and "always",
//! which is a rule in gatehouse's own rules file that Codex reads from its next session on.
//!
//! Without Codex installed these tests are skipped locally, and fail in CI (`CI` set).

use std::time::Duration;

use gatehouse_adapter_codex::probe::fake_responses::{self, ScriptedCall};
use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};
use crate::support::codex_env::{
    CodexEnv, APPROVAL_PROMPT_TEXT, INTERRUPTED_TEXT, PATCH_PROMPT_TEXT, READY_TEXT,
};
use crate::support::scenarios::{write_call, write_calls};
use crate::support::tmux::Tmux;
use crate::support::world::{adapter_rule, refused, sandbox_env, AgentWorld};

const DEADLINE: Duration = Duration::from_secs(30);

/// A patch that adds `NAME.txt` holding `NAME`: the model calls `apply_patch`.
fn patch_call(name: &str) -> ScriptedCall {
    ScriptedCall {
        call_id: format!("call_{name}"),
        command: format!("*** Begin Patch\n*** Add File: {name}.txt\n+{name}\n*** End Patch\n"),
        reason: format!("add {name}.txt"),
    }
}

/// The kit's world with a Codex home whose hooks `gatehouse install codex` wrote.
type World = AgentWorld<CodexEnv>;

impl World {
    fn new(script: &[&str]) -> Option<World> {
        World::with_calls(write_calls(script))
    }

    fn with_calls(script: Vec<ScriptedCall>) -> Option<World> {
        let world = World::for_agent(
            &gatehouse_adapter_codex::AGENT,
            ("GATEHOUSE_CODEX_BIN", "codex"),
            || fake_responses::start(script).unwrap(),
            |bin, gateway, fake| {
                // The same HOME and XDG folders as the sandbox's gatehouse commands, so the hook
                // finds the gateway and the probe record.
                let env = sandbox_env(gateway, true);
                CodexEnv::new(bin, gateway.sandbox.folder.path(), fake, &env)
            },
        )?;
        let stdout = world.install(&[("CODEX_HOME", &world.agent.home.codex_home)]);
        assert!(
            stdout.contains("Hooks need review"),
            "install says Codex asks for a review: {stdout}"
        );
        Some(world)
    }

    /// Submits a turn and returns the prompt the gateway lists for it.
    fn prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.prompt_for_writing(tmux, name, None, DEADLINE)
    }

    /// Submits a turn whose call is `patch_call(name)` and returns the prompt listed for it.
    fn patch_prompt_for(&self, tmux: &Tmux, name: &str) -> Value {
        self.agent.submit(tmux, &format!("please add {name}.txt"));
        let prompt = self.the_one_listed(tmux, DEADLINE);
        assert_eq!(prompt["tool"], "apply_patch");
        assert_eq!(prompt["summary"], format!("apply_patch: add {name}.txt"));
        assert_eq!(prompt["preview"]["format"], "diff");
        assert_eq!(
            prompt["preview"]["text"],
            format!("--- /dev/null\n+++ b/{name}.txt\n@@ -0,0 +1,1 @@ new file\n+{name}\n")
        );
        prompt
    }

    /// How many times the audit log mentions `text`.
    fn mentions_in_log(&self, text: &str) -> usize {
        let log = self.gateway.run(&["log", "--json"]);
        String::from_utf8_lossy(&log.stdout).matches(text).count()
    }
}

#[test]
fn read_only_until_probed_codex_decides_and_its_answers_withdraw_the_prompt() {
    let Some(world) = World::new(&["yes", "esc"]) else {
        return;
    };
    assert_eq!(world.flags()["actions"][0]["verified"], false);
    let tmux = world.agent.start();

    // Yes in Codex's terminal: the command runs and PostToolUse withdraws the prompt.
    let prompt = world.prompt_for(&tmux, "yes");
    let yes = || {
        assert_eq!(
            world.written_by("yes"),
            None,
            "ran before Codex's prompt was answered"
        );
        tmux.send_keys(&["y"]);
        world.output_for("call_yes", DEADLINE);
        assert_eq!(world.written_by("yes").as_deref(), Some("yes"));
    };
    let dialog = (&tmux, APPROVAL_PROMPT_TEXT);
    world.read_only_and_yes_in_the_terminal_withdraws_it(dialog, &prompt, yes, DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // Esc in Codex's terminal: the turn is interrupted and the Interrupt hook withdraws the prompt.
    let prompt = world.prompt_for(&tmux, "esc");
    world.esc_in_the_terminal(&tmux, APPROVAL_PROMPT_TEXT, DEADLINE);
    tmux.wait_for_text(INTERRUPTED_TEXT, DEADLINE);
    world.withdrawn(
        &prompt,
        "the prompt answered Esc to be withdrawn",
        "once",
        DEADLINE,
    );
    assert_eq!(world.written_by("esc"), None);
}

#[test]
fn the_probe_unlocks_once_and_deny_for_that_codex_version_only() {
    let Some(mut world) = World::new(&["once", "deny", "again"]) else {
        return;
    };
    let stdout = world.probe(&world.agent.bin);
    assert!(
        stdout.contains("offers them now, from the next prompt on"),
        "the running gateway read the new record at once: {stdout}"
    );
    let bash = world.wait_until_verified("Codex 0.171.0");
    assert_eq!(bash["tool"], "Bash");

    let tmux = world.agent.start();
    // Once from the gateway: Codex never shows its own prompt, and the command runs.
    let prompt = world.prompt_for(&tmux, "once");
    assert_eq!(
        prompt["actions"],
        json!(["once", "deny", "always"]),
        "always: the probe proved the rule for the next session"
    );
    let screens = (APPROVAL_PROMPT_TEXT, READY_TEXT);
    world.once_from_the_gateway_runs_it(&tmux, &prompt, "once", screens, DEADLINE);

    // Deny with a message: the command does not run and the model reads the message.
    let prompt = world.prompt_for(&tmux, "deny");
    let output = world.deny_from_the_gateway(&prompt, "deny", "use make clean instead", DEADLINE);
    assert!(output.contains("use make clean instead"), "{output}");
    tmux.wait_for_text("Blocked by hook", DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // A record for another version: read-only again, and Codex's own prompt decides.
    world.record_another_version("codex_version", "0.170.9", "Codex 0.171.0");
    let prompt = world.prompt_for(&tmux, "again");
    assert_eq!(prompt["actions"], json!([]));
    tmux.wait_for_text(APPROVAL_PROMPT_TEXT, DEADLINE);
    tmux.send_keys(&["y"]);
    world.output_for("call_again", DEADLINE);
    wait_for(DEADLINE, "the read-only prompt to be withdrawn", || {
        world.gateway.list().is_empty()
    });
}

/// Issue 19: a passing probe counts for the very next prompt. Codex runs while the probe passes,
/// and the person goes straight back to it: the next Bash prompt is answerable at once (no
/// refresh waited for), and `once` from the gateway runs the command.
#[test]
fn a_probe_then_at_once_a_prompt_is_answerable_and_once_from_the_gateway_runs_it() {
    let Some(world) = World::new(&["atonce"]) else {
        return;
    };
    let tmux = world.agent.start();
    let actions = json!(["once", "deny", "always"]);
    world.a_probe_then_at_once_once_runs_it(&tmux, None, actions, DEADLINE);
}

/// File changes and "always", end to end: a patch prompt is read-only (with its diff) before the
/// probe and Codex's own prompt decides; after the probe `once` applies a patch with no prompt of
/// Codex's and `deny` reaches the model; "always" allows the command now and writes the rule, and
/// after `/new` the same command runs without asking anyone.
#[test]
fn patches_are_answerable_once_probed_and_always_counts_from_the_next_session() {
    let again = ScriptedCall {
        call_id: "call_always_again".into(),
        ..write_call("always")
    };
    let script = vec![
        patch_call("before"),
        patch_call("patchonce"),
        patch_call("patchdeny"),
        write_call("always"),
        again,
    ];
    let Some(world) = World::with_calls(script) else {
        return;
    };
    let tmux = world.agent.start();

    // Before the probe: read-only, with the whole diff; Codex's own prompt decides.
    let prompt = world.patch_prompt_for(&tmux, "before");
    world.assert_read_only_until_probed(&prompt);
    tmux.wait_for_text(PATCH_PROMPT_TEXT, DEADLINE);
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");
    tmux.send_keys(&["y"]);
    let output = world.output_for("call_before", DEADLINE);
    assert!(output.contains("Success."), "{output}");
    assert_eq!(world.written_by("before").as_deref(), Some("before\n"));
    wait_for(
        DEADLINE,
        "the patch applied in Codex to be withdrawn",
        || world.gateway.list().is_empty(),
    );
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    let stdout = world.probe(&world.agent.bin);
    for case in [
        "patch-allow",
        "patch-deny",
        "patch-no-verdict",
        "always-next-session",
    ] {
        assert!(stdout.contains(&format!("case {case}:")), "{stdout}");
    }
    world.wait_until_verified("Codex 0.171.0");
    let patches = adapter_rule(&world.gateway, "codex", Some("apply_patch"));
    assert_eq!(patches["actions"][0]["verified"], true, "{patches}");

    // Once from the gateway: no prompt of Codex's, and the patch is applied.
    let prompt = world.patch_prompt_for(&tmux, "patchonce");
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert!(!tmux.screen().contains(PATCH_PROMPT_TEXT));
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    let output = world.output_for("call_patchonce", DEADLINE);
    assert!(output.contains("Success."), "{output}");
    assert_eq!(
        world.written_by("patchonce").as_deref(),
        Some("patchonce\n")
    );
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    wait_for(DEADLINE, "the applied patch's prompt to end", || {
        world.gateway.list().is_empty()
    });

    // Deny with a message: not applied, and the model reads the message as the call's output.
    let prompt = world.patch_prompt_for(&tmux, "patchdeny");
    let message = "keep the files as they are";
    let output = world.deny_from_the_gateway(&prompt, "patchdeny", message, DEADLINE);
    assert_eq!(output, message);
    tmux.wait_for_text("Blocked by hook", DEADLINE);
    tmux.wait_for_text(READY_TEXT, DEADLINE);

    // "always": allowed now, and the rule is written for the next session.
    let prompt = world.prompt_for(&tmux, "always");
    assert_eq!(
        prompt["actions"],
        json!(["once", "deny", "always"]),
        "{prompt}"
    );
    let summary = prompt["suggestions"][0]["summary"].as_str().unwrap();
    assert!(
        summary.contains("from your next Codex session on; this session will still ask"),
        "{summary}"
    );
    assert!(world
        .answer(&prompt["id"], &["always", "--scope", "user"])
        .status
        .success());
    world.output_for("call_always", DEADLINE);
    assert_eq!(world.written_by("always").as_deref(), Some("always"));
    let rules = std::fs::read_to_string(world.agent.rules_file()).unwrap();
    assert!(
        rules.contains(r#"prefix_rule(pattern=["/bin/bash", "-lc", "printf always > always.txt"], decision="allow")"#),
        "{rules}"
    );
    tmux.wait_for_text(READY_TEXT, DEADLINE);
    wait_for(DEADLINE, "the allowed prompt to end", || {
        world.gateway.list().is_empty()
    });

    // The next session: the same command runs with no PermissionRequest at all.
    std::fs::remove_file(world.agent.marker("always.txt")).unwrap();
    let asked_before = world.mentions_in_log("printf always > always.txt");
    world.agent.new_session(&tmux, "please write always.txt");
    world.agent.submit(&tmux, "please write always.txt again");
    world.output_for("call_always_again", DEADLINE);
    assert_eq!(world.written_by("always").as_deref(), Some("always"));
    assert!(!tmux.screen().contains(APPROVAL_PROMPT_TEXT));
    assert!(world.gateway.list().is_empty());
    assert_eq!(
        world.mentions_in_log("printf always > always.txt"),
        asked_before,
        "no prompt was raised for the command the rule allows"
    );
}

/// With the gateway down, Codex behaves as if gatehouse were not installed: its own patch prompt
/// shows and decides.
#[test]
fn with_the_gateway_down_codex_asks_about_a_patch_itself() {
    let Some(mut world) = World::with_calls(vec![patch_call("down")]) else {
        return;
    };
    let tmux = world.agent.start();
    world.gateway.kill();
    world.agent.submit(&tmux, "please add down.txt");
    tmux.wait_for_text(PATCH_PROMPT_TEXT, DEADLINE);
    assert_eq!(world.written_by("down"), None);
    tmux.send_keys(&["y"]);
    let output = world.output_for("call_down", DEADLINE);
    assert!(output.contains("Success."), "{output}");
    assert_eq!(world.written_by("down").as_deref(), Some("down\n"));
}

/// A hostile patch, straight into `gatehouse hook codex` (no Codex needed): `list` and `show`
/// name every file, show every line with escapes made visible, and say which files land outside
/// the session's folder; nothing of the patch is dropped.
#[test]
fn a_hostile_patch_is_listed_whole_escaped_and_says_what_lands_outside_the_folder() {
    let gateway = Gateway::start();
    let patch = "*** Begin Patch\n\
                 *** Update File: src/main.rs\n\
                 @@ fn main() {\n\
                 -    old();\n\
                 +    \u{1b}[2J\u{1b}[31mnew();\u{202e}\n\
                 *** Add File: ../../../etc/cron.d/evil\n\
                 +* * * * * root sh\n\
                 *** Delete File: /home/dev/.bashrc\n\
                 *** End Patch";
    let event = json!({
        "session_id": "s", "turn_id": "t", "cwd": "/home/dev/project",
        "hook_event_name": "PermissionRequest", "model": "gpt-5.1-codex",
        "permission_mode": "default", "tool_name": "apply_patch",
        "tool_input": { "command": patch },
    });
    let hook = gateway.spawn_hook("codex", event.to_string().as_bytes(), &[]);
    crate::common::finished_silently(hook, DEADLINE, "a read-only prompt gets no verdict");
    let listed = gateway.wait_for_pending(1);
    assert_eq!(listed[0]["actions"], json!([]));
    let list = gateway.list_text();
    for expected in [
        "apply_patch: update src/main.rs, add ../../../etc/cron.d/evil",
        "diff: Codex patch: 3 files; OUTSIDE the session's folder /home/dev/project: ../../../etc/cron.d/evil, /home/dev/.bashrc",
        "--- a/src/main.rs",
        "+++ b/../../../etc/cron.d/evil",
        "+* * * * * root sh",
        "--- a//home/dev/.bashrc",
        r"+    \e[2J\e[31mnew();\u{202e}",
    ] {
        assert!(list.contains(expected), "list lacks {expected:?}:\n{list}");
    }
    assert!(
        !list.contains('\u{1b}') && !list.contains('\u{202e}'),
        "{list}"
    );
    let id = listed[0]["id"].as_str().unwrap();
    let shown = String::from_utf8_lossy(&gateway.run(&["show", id]).stdout).into_owned();
    assert!(shown.contains("+++ /dev/null"), "{shown}");
    assert!(
        shown.contains("apply_patch: update src/main.rs, add ../../../etc/cron.d/evil, delete /home/dev/.bashrc; OUTSIDE"),
        "the summary whole: {shown}"
    );
    assert!(!shown.contains('\u{1b}'), "{shown}");
}
