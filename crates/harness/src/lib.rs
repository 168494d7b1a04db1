//! The agent kit: what gatehouse's probes (in the adapter crates) and its end-to-end tests share
//! to drive the real agents, offline, so that an adapter brings only its own events, verdicts,
//! model dialect and private home:
//!
//! - [`terminal`]: one interactive program in a private tmux server, read and typed into.
//! - [`events`]: reading hook events: JSON with the agent's errors, Claude Code's payload shape,
//!   a permission prompt from its parts.
//! - [`executable`]: which agent executable is in use, and its version.
//! - [`gated`]: the adapter of a probe-gated agent, which states what it is once
//!   ([`gated::AgentDescription`]) and brings its own events, verdicts, installer and probe.
//! - [`record`]: a probe's record of what it proved, read and written atomically.
//! - [`own_file`]: a file of gatehouse's own in an agent's folders (a plugin, an extension),
//!   written owner-only and atomically, never over or removing a file that is not gatehouse's.
//! - [`http`]: an HTTP/1.1 server on a loopback port that answers with a handler's responses.
//! - [`model`]: one scripted model on that server, with a dialect per API (Anthropic messages,
//!   OpenAI responses, chat completions, Gemini): the script, what was served and what came
//!   back, kept once.
//! - [`verdict`]: verdicts in the shape of Claude Code's `PermissionRequest` hooks, which other
//!   agents read too.
//! - [`probe`]: one probe driver: the standard cases (allow, deny, no verdict), the hook that
//!   saves events and prints the case's verdict, the loop over the cases and their judgement.
//!
//! Architecture invariant: knows no agent and nothing of gatehouse's socket; it depends on
//! `serde`, `serde_json` and `thiserror` only, so an adapter's probe can use it as a normal
//! dependency.

pub mod events;
pub mod executable;
pub mod gated;
pub mod http;
pub mod model;
pub mod own_file;
pub mod probe;
pub mod record;
pub mod terminal;
pub mod verdict;
