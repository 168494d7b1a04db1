//! Snapshots of the text that people read.

use gatehouse_core::{
    Action, Event, NewPrompt, Prompt, PromptKind, PromptState, Question, QuestionOption, Timestamp,
};
use insta::assert_snapshot;

use super::*;

const NOW: Timestamp = Timestamp(1_796_008_413_000);

fn prompt(id: &str, tool: &str, summary: &str, actions: Vec<Action>, age_seconds: u64) -> Prompt {
    Prompt {
        id: id.parse().unwrap(),
        short_id: String::new(),
        prompt: NewPrompt {
            adapter: "claude".into(),
            session: "s1".into(),
            cwd: "/home/dev/project".into(),
            kind: PromptKind::Permission,
            tool: tool.into(),
            input: serde_json::json!({}),
            summary: summary.into(),
            questions: vec![],
            correlation: String::new(),
            read_only_reason: None,
        },
        actions,
        state: PromptState::Pending,
        created_at: Timestamp(NOW.0 - age_seconds * 1_000),
        held_since: Timestamp(NOW.0 - age_seconds * 1_000),
    }
}

#[test]
fn an_empty_list_says_so() {
    assert_snapshot!(prompt_table(&[], NOW), @"No pending prompts.");
}

#[test]
fn the_table_aligns_and_shows_questions_and_read_only_prompts() {
    let mut question = prompt(
        "01a22a7c-7188-7237-8fc2-73dc2e832b2a",
        "AskUserQuestion",
        "Which color?",
        vec![Action::Answer],
        75,
    );
    question.prompt.kind = PromptKind::Question;
    question.prompt.questions = vec![Question {
        id: "q1".into(),
        text: "Which color?".into(),
        header: "Color".into(),
        multi: true,
        options: vec![
            QuestionOption {
                label: "Red".into(),
                description: "warm".into(),
            },
            QuestionOption {
                label: "Blue".into(),
                description: "cool".into(),
            },
        ],
    }];
    let long_command = format!("cargo build && {}", "x".repeat(100));
    let prompts = vec![
        prompt(
            "01a22a7c-7184-7520-bb65-4d44b4eba60b",
            "Bash",
            &long_command,
            vec![Action::Once, Action::Deny],
            5,
        ),
        question,
        prompt(
            "01a22a7c-7189-7288-bc6e-a471f3e08e22",
            "Write",
            "/home/dev/project/notes.txt",
            vec![],
            7_200,
        ),
    ];
    assert_snapshot!(prompt_table(&prompts, NOW), @r"
    ID                                    AGENT   TOOL             AGE  ACTIONS    SUMMARY
    01a22a7c-7184-7520-bb65-4d44b4eba60b  claude  Bash             5s   once,deny  cargo build && xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…
    01a22a7c-7188-7237-8fc2-73dc2e832b2a  claude  AskUserQuestion  1m   answer     Which color?
        q1: Which color? (choose any: Red | Blue)
    01a22a7c-7189-7288-bc6e-a471f3e08e22  claude  Write            2h   read-only  /home/dev/project/notes.txt
    ");
}

#[test]
fn status_lists_each_adapter_and_what_it_offers() {
    let report = StatusResult {
        server: "gatehouse 0.1.0".into(),
        protocol: 1,
        pid: 4242,
        socket: "/run/user/1000/gatehouse/gatehouse.sock".into(),
        started_at: Timestamp(NOW.0 - 300_000),
        pending: 1,
        connections: 2,
        adapters: vec![
            gatehouse_adapter_claude::capabilities(),
            gatehouse_adapter_codex::capabilities(),
        ],
    };
    assert_snapshot!(status(&report, NOW), @r"
    gatehouse 0.1.0 is running on /run/user/1000/gatehouse/gatehouse.sock
    pid 4242, up 5m, protocol 1; 1 pending prompt, 2 connections

    Claude Code (claude)
      permission Bash              once, deny
      question (any tool)          answer
      permission (any tool)        read-only: not verified against Claude Code; answer it in the terminal
      plan (any tool)              read-only: not verified against Claude Code; answer it in the terminal

    Codex (codex)
      permission (any tool)        read-only: no probe has checked that this Codex honours gatehouse's answers
    ");
}

#[test]
fn events_read_as_one_line_each() {
    let id = "01a22a7c-7184-7520-bb65-4d44b4eba60b".parse().unwrap();
    let resolved = Event::Changed {
        id,
        state: PromptState::Resolved,
        at: NOW,
        by: Some("gatehouse-cli".into()),
        action: Some(Action::Once),
        reason: None,
    };
    assert_snapshot!(event_line(&resolved), @"2026-11-30T03:13:33.000Z  resolved     01a22a7c-7184-7520-bb65-4d44b4eba60b  once  by gatehouse-cli");
    let added = Event::Added {
        prompt: prompt(
            "01a22a7c-7184-7520-bb65-4d44b4eba60b",
            "Bash",
            "ls",
            vec![],
            0,
        ),
    };
    assert_snapshot!(event_line(&added), @"2026-11-30T03:13:33.000Z  added        01a22a7c-7184-7520-bb65-4d44b4eba60b  claude Bash: ls");
}
