//! End-to-end: the real Claude Code (npm `@anthropic-ai/claude-code`, pinned in package.json) in
//! tmux, against a scripted fake of the Anthropic API on loopback, with gatehouse's hooks
//! installed by `gatehouse install claude` as a user would. What the fake records is the proof
//! of what reached the model; what tmux shows is what the person saw.
//!
//! Without Claude Code installed these tests are skipped locally, and fail in CI (`CI` set).

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{wait_for, Gateway};
use crate::support::claude_env::{
    answer_dialog, find_claude_bin, wait_idle, BASH_DIALOG, INTERRUPTED_TEXT, QUESTION_DIALOG,
    WRITE_DIALOG,
};
use crate::support::claude_world::{bash_turn, question_turn, ClaudeWorld};
use crate::support::fake_anthropic::{tool_result_text, ScriptedTurn};
use crate::support::world::{refused, required_bin};

const DEADLINE: Duration = Duration::from_secs(30);

/// One test's world (a gateway, the fake model, a private Claude Code home with gatehouse's
/// hooks installed), Claude Code not started yet; `with_gateway: false` stops the gateway after
/// installing, to show Claude Code as if gatehouse were not there.
fn claude_world(script: Vec<ScriptedTurn>, with_gateway: bool) -> Option<ClaudeWorld> {
    let bin = required_bin("Claude Code", find_claude_bin())?;
    let mut world = ClaudeWorld::with_claude(&bin, Gateway::start(), script, |_| {});
    if !with_gateway {
        world.gateway.kill();
    }
    Some(world)
}

/// One test's world with Claude Code started on `message` and `turn` scripted, and the prompt
/// the gateway holds for it.
fn holding(turn: ScriptedTurn, message: &str) -> Option<(ClaudeWorld, Value)> {
    let mut world = claude_world(vec![turn], true)?;
    world.start(message);
    let prompt = world.held_prompt();
    Some((world, prompt))
}

#[test]
fn once_from_the_gateway_runs_the_command() {
    let Some((world, prompt)) = holding(bash_turn("printf hi > hi.txt"), "write hi.txt") else {
        return;
    };
    assert_eq!(prompt["actions"], json!(["once", "deny"]));
    assert_eq!(prompt["summary"], "printf hi > hi.txt");
    world.tmux().wait_for_text(BASH_DIALOG, DEADLINE);
    assert!(world.answer(&prompt["id"], &["once"]).status.success());
    world.tool_result_starting(1, false, "(Bash completed with no output)");
    assert_eq!(
        std::fs::read_to_string(world.workspace_file("hi.txt")).unwrap(),
        "hi"
    );
    world
        .tmux()
        .wait_for_text("Allowed by PermissionRequest hook", DEADLINE);
    assert!(world.gateway.list().is_empty());
}

#[test]
fn deny_with_a_message_stops_the_command_and_the_model_reads_the_message() {
    let Some((world, prompt)) = holding(
        bash_turn("rm -rf build && printf x > gone.txt"),
        "clean the build",
    ) else {
        return;
    };
    world.tmux().wait_for_text(BASH_DIALOG, DEADLINE);
    assert!(world
        .answer(
            &prompt["id"],
            &["deny", "--message", "use make clean instead"]
        )
        .status
        .success());
    world.tool_result_starting(1, true, "use make clean instead");
    assert!(
        !world.workspace_file("gone.txt").exists(),
        "the command did not run"
    );
    world
        .tmux()
        .wait_for_text("Denied by PermissionRequest hook", DEADLINE);
}

#[test]
fn a_question_answered_from_the_gateway_reaches_the_model() {
    let turn = question_turn("Which color?", false, &["Red", "Blue"]);
    let Some((world, prompt)) = holding(turn, "ask me a color") else {
        return;
    };
    assert_eq!(prompt["kind"], "question");
    assert_eq!(prompt["questions"][0]["id"], "q1");
    world.tmux().wait_for_text(QUESTION_DIALOG, DEADLINE);
    assert!(world
        .answer(&prompt["id"], &["--pick", "q1=Blue"])
        .status
        .success());
    let text = tool_result_text(&world.tool_result(1));
    assert!(text.contains(r#""Which color?"="Blue""#), "{text}");
}

#[test]
fn a_multi_select_question_with_free_text_reaches_the_model() {
    let turn = question_turn("Which toppings?", true, &["Cheese", "Olives", "Basil"]);
    let Some((world, prompt)) = holding(turn, "ask me toppings") else {
        return;
    };
    assert_eq!(prompt["questions"][0]["multi"], true);
    world.tmux().wait_for_text("Which toppings?", DEADLINE);
    let answered = world.answer(
        &prompt["id"],
        &[
            "--pick",
            "q1=Cheese",
            "--pick",
            "q1=Olives",
            "--text",
            "q1=extra garlic",
        ],
    );
    assert!(
        answered.status.success(),
        "{}",
        String::from_utf8_lossy(&answered.stderr)
    );
    let text = tool_result_text(&world.tool_result(1));
    assert!(
        text.contains(r#""Which toppings?"="Cheese, Olives, extra garlic""#),
        "{text}"
    );
}

#[test]
fn yes_in_the_terminal_withdraws_the_prompt_and_a_late_answer_is_refused() {
    let Some((world, prompt)) = holding(bash_turn("printf yes > yes.txt"), "write yes.txt") else {
        return;
    };
    answer_dialog(world.tmux(), BASH_DIALOG, "1", DEADLINE);
    world.tool_result(1);
    world.withdrawn(&prompt, "the prompt to be withdrawn", "deny", DEADLINE);
    assert!(world.workspace_file("yes.txt").exists());
}

#[test]
fn esc_in_the_terminal_withdraws_the_prompt_and_a_late_answer_is_refused() {
    let Some((world, prompt)) = holding(bash_turn("printf esc > esc.txt"), "write esc.txt") else {
        return;
    };
    answer_dialog(world.tmux(), BASH_DIALOG, "Escape", DEADLINE);
    world.tmux().wait_for_text(INTERRUPTED_TEXT, DEADLINE);
    // A late Once must never run the command.
    world.withdrawn(&prompt, "the prompt to be withdrawn", "once", DEADLINE);
    assert!(!world.workspace_file("esc.txt").exists());
}

#[test]
fn a_write_prompt_is_read_only_and_the_terminal_decides() {
    let turn = ScriptedTurn::tool_use(
        "Write",
        json!({ "file_path": "notes.txt", "content": "hello\n" }),
    );
    let Some((world, prompt)) = holding(turn, "write notes") else {
        return;
    };
    assert_eq!(prompt["tool"], "Write");
    assert_eq!(prompt["actions"], json!([]));
    refused(&world.answer(&prompt["id"], &["once"]), "read_only");
    answer_dialog(world.tmux(), WRITE_DIALOG, "1", DEADLINE);
    world.tool_result(1);
    assert_eq!(
        std::fs::read_to_string(world.workspace_file("notes.txt")).unwrap(),
        "hello\n"
    );
    wait_for(DEADLINE, "the read-only prompt to be withdrawn", || {
        world.gateway.list().is_empty()
    });
}

#[test]
fn with_the_gateway_down_claude_shows_its_own_prompt_as_usual() {
    let Some(mut world) = claude_world(vec![bash_turn("printf down > down.txt")], false) else {
        return;
    };
    world.start("write down.txt");
    answer_dialog(world.tmux(), BASH_DIALOG, "1", DEADLINE);
    let result = world.tool_result(1);
    assert_eq!(result["is_error"], json!(false), "{result}");
    assert_eq!(
        std::fs::read_to_string(world.workspace_file("down.txt")).unwrap(),
        "down"
    );
    wait_idle(world.tmux(), DEADLINE);
}
