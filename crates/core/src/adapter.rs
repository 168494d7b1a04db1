//! The `Adapter` trait: everything gatehouse knows about one agent, behind one interface. An
//! adapter turns the agent's hook events into prompts and observations, turns verdicts back into
//! the agent's native output, and states its capability flags. Adapters are registered by id in
//! an [`AdapterRegistry`].

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::answer::Verdict;
use crate::capability::AdapterCapabilities;
use crate::kit::{AgentProbe, HookInstaller};
use crate::prompt::NewPrompt;

/// Something a hook saw the agent do that may settle pending prompts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Observation {
    /// A tool call finished: the person allowed it somewhere, so a pending prompt for the same
    /// call (same adapter, session and correlation key) is over.
    ToolFinished {
        adapter: String,
        session: String,
        correlation: String,
    },
    /// The agent's turn ended: nothing of that session is still waiting.
    TurnEnded { adapter: String, session: String },
    /// The session ended.
    SessionEnded { adapter: String, session: String },
}

impl Observation {
    /// Why the prompts this observation settles are withdrawn, in words.
    pub fn withdrawal_reason(&self) -> &'static str {
        match self {
            Observation::ToolFinished { .. } => {
                "the tool ran: it was allowed in the agent's terminal"
            }
            Observation::TurnEnded { .. } => "the agent's turn ended",
            Observation::SessionEnded { .. } => "the agent's session ended",
        }
    }
}

/// How long the hook of a prompt stays with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldMode {
    /// Wait for a verdict, a release, a withdrawal or the deadline.
    UntilOutcome,
    /// Register the prompt for watching and return at once, with no verdict.
    RegisterOnly,
    /// Wait as `UntilOutcome` if the gateway offers an action for the prompt; otherwise it is
    /// registered for watching and the hook returns at once. For an agent that shows no prompt
    /// of its own while its hook waits: the gateway, which owns the capability flags, decides.
    WhileActionable,
}

/// What one hook event asks of gatehouse. One is made per hook run, so the size of the prompt
/// variant does not matter.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum HookEvent {
    /// The agent shows a prompt.
    Prompt { prompt: NewPrompt, hold: HoldMode },
    /// The agent did something that may settle prompts.
    Observe(Observation),
    /// Nothing for gatehouse.
    Ignore,
}

/// What a hook knows of the agent that runs it, sent with a held prompt so that the gateway
/// decides what is offered for that very agent ([`Adapter::capabilities_for_agent`]) rather than
/// for whichever one it finds installed. Untrusted, like every field from a hook: it can only
/// select which probe record entry applies, never unlock what no probe proved.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RunningAgent {
    /// The executable that runs the hook (or the one asked instead), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable: Option<String>,
    /// Its version, as the adapter's version parser reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why the version cannot be told, when it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl RunningAgent {
    /// What a hook found: the executable asked, and its version or why there is none.
    pub fn new(executable: Option<String>, version: Result<String, String>) -> Self {
        let (version, problem) = match version {
            Ok(version) => (Some(version), None),
            Err(problem) => (None, Some(problem)),
        };
        RunningAgent {
            executable,
            version,
            problem,
        }
    }

    /// The version, or why there is none: what an unlock rule takes.
    pub fn version(&self) -> Result<&str, String> {
        match (&self.version, &self.problem) {
            (Some(version), _) => Ok(version),
            (None, Some(problem)) => Err(problem.clone()),
            (None, None) => Err("the hook did not say which version runs it".into()),
        }
    }
}

/// What a hook must print when it has no verdict, for an agent that reads a hook that prints
/// nothing (or fails, or times out) as an approval. Gemini CLI with a policy that allows its
/// shell tool is such an agent: for it, silence runs the call unasked, so the hook answers
/// "ask the person in your own dialog" on every path where it has no verdict (no gateway, a
/// wedged gateway, bad input, its own error or panic, a release, a withdrawal, its deadline).
/// The hook applies it in one place; every other agent has none, and the hook prints nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WithoutVerdict {
    /// What the hook prints on stdout (followed by a newline) when it has no verdict.
    pub output: &'static str,
    /// The hook prints `output` and exits at the latest this long after it started, whatever it
    /// is waiting for: well before the hook timeout the installer writes into the agent's
    /// settings. A held prompt is held for less ([`WithoutVerdict::hold_at_most`]).
    pub answer_within: std::time::Duration,
}

impl WithoutVerdict {
    /// How much of [`WithoutVerdict::answer_within`] is kept for connecting, the gateway's
    /// grace and printing, rather than holding the prompt.
    pub const SPARE: std::time::Duration = std::time::Duration::from_secs(10);

    /// The longest a prompt may be held, whatever the hook's configured wait.
    pub fn hold_at_most(&self) -> std::time::Duration {
        self.answer_within.saturating_sub(Self::SPARE)
    }
}

/// A check the hook runs now and then while it holds a prompt: `true` once the agent has ended
/// the call by itself (see [`Adapter::cancellation_check`]).
pub type CancellationCheck = Box<dyn FnMut() -> bool + Send>;

/// Why a hook's input could not be read as an event of the agent.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("the hook input is not JSON: {0}")]
    NotJson(String),
    #[error("the hook input is JSON but not a hook event: {0}")]
    NotAnEvent(String),
}

/// What gatehouse's rules need to know of a call beyond the prompt's own fields, as its adapter
/// reads the agent's input ([`Adapter::rule_facts`]; see [`crate::rules::PromptFacts`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RuleFacts {
    /// The shell command, for every call that runs one: `Some("")` when the adapter cannot
    /// extract its script (no rule allows that), never `None` for a shell call (Codex's
    /// `["bash","-lc",s]` is `s`).
    pub command: Option<String>,
    /// Every file the call reads or writes, or `None` when the adapter cannot tell.
    pub paths: Option<Vec<String>>,
}

/// One agent. An adapter owns everything about its agent: reading its hook events, writing its
/// verdicts, its capability flags, installing its hooks ([`Adapter::installer`]) and proving what
/// it can do ([`Adapter::probe`]). It knows nothing of the socket. The binary registers adapters
/// by id in an [`AdapterRegistry`] and has no other code per agent.
pub trait Adapter: Send + Sync {
    /// A short stable id, such as `claude`; used in commands, prompts and the wire.
    fn id(&self) -> &'static str;

    /// The agent's name for people, such as `Claude Code`.
    fn name(&self) -> &'static str;

    /// The adapter's capability flags. It may look at the installed agent (its version, a probe
    /// record) to know what is proven, so it may block for a moment: async callers run it on a
    /// blocking thread ([`AdapterRegistry::capabilities`] is that call for every adapter).
    fn capabilities(&self) -> AdapterCapabilities;

    /// Reads one hook event from the bytes the agent wrote to the hook's stdin. `event` is the
    /// event's name when the hook command carries it (`gatehouse hook AGENT EVENT`), for agents
    /// whose events do not name themselves.
    fn parse_hook_event(&self, stdin: &[u8], event: Option<&str>) -> Result<HookEvent, ParseError>;

    /// The bytes the hook writes to stdout so that the agent applies `verdict` to `prompt`.
    fn render_verdict(&self, prompt: &NewPrompt, verdict: &Verdict) -> String;

    /// The actions whose verdicts the hook may deliver for `prompt` as this adapter parsed it,
    /// without looking at the installed agent: none for a prompt it marked read-only, else the
    /// most its flags can offer (every probe passed; the gateway narrows that per version). The
    /// hook drops any other verdict, so a gateway that is wrong cannot make it print an
    /// approval this adapter never proved. See [`AdapterCapabilities::deliverable`].
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<crate::Action>;

    /// What the hook knows of the agent that runs it, for a prompt whose offered actions depend
    /// on that agent's version (a probe unlocks them per version); `None` when they do not.
    /// Runs in the hook, once per prompt: an adapter reads the version from the environment or a
    /// cache where it can, and runs `--version` only when neither tells.
    fn running_agent(&self, _prompt: &NewPrompt) -> Option<RunningAgent> {
        None
    }

    /// The capability flags for the agent a hook reported: the unlock rule applied to the probe
    /// record as it is now, for that agent's version. The one place the rule is applied: the
    /// gateway calls it for each held prompt that carries a [`RunningAgent`], and the hook calls
    /// it again before it prints a verdict ([`Adapter::deliverable_for`]). It reads a small file
    /// at most and never runs a program, so it may be called per prompt.
    fn capabilities_for_agent(&self, _agent: &RunningAgent) -> AdapterCapabilities {
        self.capabilities()
    }

    /// What the hook may deliver for `prompt`: with the agent it reported, what
    /// [`Adapter::capabilities_for_agent`] offers; without, [`Adapter::deliverable_actions`].
    fn deliverable_for(
        &self,
        prompt: &NewPrompt,
        agent: Option<&RunningAgent>,
    ) -> Vec<crate::Action> {
        match agent {
            Some(agent) => {
                let mut actions = self.capabilities_for_agent(agent).deliverable(prompt);
                let at_most = self.deliverable_actions(prompt);
                actions.retain(|action| at_most.contains(action));
                actions
            }
            None => self.deliverable_actions(prompt),
        }
    }

    /// What the hook prints when it has no verdict for the hook event `event` (the event name
    /// from the hook's command line, known before its input is read): `None`, the default,
    /// prints nothing, which every agent but one reads as "no opinion". See [`WithoutVerdict`].
    fn without_verdict(&self, _event: Option<&str>) -> Option<WithoutVerdict> {
        None
    }

    /// For an agent that does not tell its hook when the person cancels the call the hook holds
    /// (Gemini CLI goes on waiting for nothing, and ignores the hook's later answer), a check
    /// made from the hook's input (`stdin`, the event's raw bytes) as the hold starts. The hook
    /// runs it every half second while it holds the prompt; once it says the call is over, the
    /// hook stops holding (the gateway withdraws the prompt: its hook went away) and prints what
    /// it prints without a verdict. `None`, the default: nothing to watch.
    fn cancellation_check(&self, _stdin: &[u8]) -> Option<CancellationCheck> {
        None
    }

    /// What the agent does while its hook holds one of its prompts: keeps its own prompt live
    /// (the first answer wins), or shows none and shows its own dialog when the hold ends. The
    /// gateway words it for each held prompt ([`crate::Prompt::after_hold`]); `None`, the
    /// default, gets words true of every agent ("then its own prompt decides").
    fn while_held(&self) -> Option<crate::WhileHeld> {
        None
    }

    /// What gatehouse's rules need to know of `prompt` ([`RuleFacts`]): the command a shell call
    /// runs (always `Some` for one, `Some("")` when its script cannot be taken) and the files a
    /// file tool touches. `None`, the default: the adapter cannot say, and no rule decides it.
    fn rule_facts(&self, _prompt: &NewPrompt) -> Option<RuleFacts> {
        None
    }

    /// How gatehouse's hooks are installed into this agent's settings, if they can be.
    fn installer(&self) -> Option<&dyn HookInstaller> {
        None
    }

    /// The live probe that proves this agent's capabilities per version, if it has one.
    fn probe(&self) -> Option<&dyn AgentProbe> {
        None
    }
}

/// Adapters by id.
#[derive(Default, Clone)]
pub struct AdapterRegistry {
    adapters: BTreeMap<&'static str, Arc<dyn Adapter>>,
}

impl AdapterRegistry {
    pub fn new() -> Self {
        AdapterRegistry::default()
    }

    pub fn register(&mut self, adapter: Arc<dyn Adapter>) {
        self.adapters.insert(adapter.id(), adapter);
    }

    pub fn get(&self, id: &str) -> Option<Arc<dyn Adapter>> {
        self.adapters.get(id).cloned()
    }

    pub fn ids(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.adapters.keys().copied()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Adapter>> {
        self.adapters.values()
    }

    /// Every adapter's capability flags, in id order. This may block (see
    /// [`Adapter::capabilities`]): from async code, call it on a blocking thread.
    pub fn capabilities(&self) -> Vec<AdapterCapabilities> {
        self.adapters
            .values()
            .map(|adapter| adapter.capabilities())
            .collect()
    }
}
