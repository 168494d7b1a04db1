//! The one integration-test binary: every test here runs the real `gatehouse` binary.
//!
//! - `cli`: the command-line contract, against a real `gatehouse serve` on a temporary socket.
//! - `client_library`: the same gateway driven through the client library.
//! - `e2e_claude`: the real Claude Code in tmux against a scripted model, with gatehouse's hooks
//!   (`e2e_codex`, `e2e_copilot` and `e2e_qwen` likewise for Codex, GitHub Copilot CLI and Qwen
//!   Code).
//! - `e2e_claude_more`: the same for edits, `always` and plans, unlocked by `gatehouse probe claude`.
//! - `restart`, `security`, `load`: crashes and restarts; who may talk to the gateway; 200 hooks at once.
//! - `hook_work_bounds`: the hook's CPU and memory on hostile events (previews, many JSON values).
//! - `web`: `gatehouse web` in the real Chromium (WebDriver), answering the real Claude Code;
//!   `web_attacks`: another local user's server visited by the paired browser, and a flood;
//!   `web_page`: the page at a phone's width and a desktop's: what each card shows, the title,
//!   the manifest and service worker, pairing in the same tab, the buttons' contrast.
//!   `web_push`: Web Push (through the page's own button) and ntfy, against a loopback push service.
//! - `architecture`: docs/ARCHITECTURE.md's dependency rules and paths hold.
//! - `hold_ends`: a held prompt says in `list --json`, `list` and `show` when its hold ends and
//!   what happens then (Qwen Code's dialog); a watched one says nothing of a hold.
//! - `claude_running_version`, `agent_version_reported`: what is offered follows the agent that
//!   runs the hook, as it reports itself, decided by the gateway per prompt.
//! - `common`: the gateway fixture; `support`: the end-to-end world (`support/world.rs`), the fake
//!   model APIs, tmux and each agent's private home.

mod agent_version_reported;
mod architecture;
mod claude_running_version;
mod cli;
mod client_library;
mod common;
mod console;
mod e2e_claude;
mod e2e_claude_more;
mod e2e_cline;
mod e2e_codex;
mod e2e_copilot;
mod e2e_droid;
mod e2e_gemini;
mod e2e_gemini_paused;
mod e2e_kilo;
mod e2e_opencode;
mod e2e_pi;
mod e2e_qwen;
mod gemini_hook_answers;
mod hold_ends;
mod hook_never_blocks;
mod hook_paused;
mod hook_work_bounds;
mod hooks_peer;
mod hosts;
mod install_hold;
mod install_output;
mod install_program;
mod load;
mod remote;
mod restart;
mod rules_applied_hook;
mod rules_cli;
mod security;
mod service;
mod setup_doctor;
mod socket_activation;
mod support;
mod typed_ids;
mod untrusted_gateway;
mod web;
mod web_attacks;
mod web_page;
mod web_push;
