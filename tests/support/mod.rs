//! Shared helpers for the end-to-end tests: the one end-to-end world ([`world`]; with Claude
//! Code, [`claude_world`]), the agent in it ([`agent`]), the scenarios the agents' files share
//! ([`scenarios`]; the OpenCode family's, [`opencode_family`]), a scripted fake Anthropic API,
//! a hook fed an agent's captured event ([`fed_hook`]), each agent's private home, a private tmux session, a polling helper with a deadline, and a
//! hook fed its event ([`spawn_fed`]).

// Each test uses only some of these helpers, so unused ones must not warn.
#![allow(dead_code)]

pub mod agent;
pub mod browser;
pub mod claude_env;
pub mod claude_world;
pub mod codex_env;
pub mod copilot_env;
pub mod fake_anthropic;
pub mod fed_hook;
pub mod gemini_env;
pub mod leftovers;
pub mod opencode_family;
pub mod push_service;
pub mod scenarios;
pub mod tmux;
pub mod world;

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How often `wait_until` checks its condition.
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Polls `f` until it returns true; it panics with a message naming `what` when `deadline`
/// passes first.
pub fn wait_until(deadline: Duration, what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    loop {
        if f() {
            return;
        }
        if start.elapsed() >= deadline {
            panic!("timed out after {deadline:?} waiting for {what}");
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Starts `command` with stdin, stdout and stderr piped, writes `input` to its stdin and closes
/// it, as an agent feeds its hook an event.
pub fn spawn_fed(command: &mut Command, input: &[u8]) -> Child {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child
}
