//! Prompts: what an agent asks, as an adapter describes it ([`NewPrompt`]), and the same prompt
//! once the arbiter holds it ([`Prompt`]), with its decision id, offered actions and state.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::capability::Action;
use crate::time::Timestamp;

/// The opaque id the arbiter gives a prompt when it registers it: a UUID v7, never derived from
/// the prompt's text, so an id drawn for one prompt can never name another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DecisionId(Uuid);

impl DecisionId {
    /// A fresh id. Version 7 ids sort by creation time (to the millisecond), which keeps
    /// listings in arrival order. Its 74 other bits are all random, with no counter: short ids
    /// are prefixes of them (see [`crate::short_id`]), so ids made in the same millisecond must
    /// not share them.
    pub fn new_v7() -> Self {
        DecisionId(Uuid::new_v7(uuid::Timestamp::now(uuid::NoContext)))
    }

    /// The id as one number: its hex digits, most significant first.
    pub fn as_u128(self) -> u128 {
        self.0.as_u128()
    }

    pub fn from_u128(value: u128) -> Self {
        DecisionId(Uuid::from_u128(value))
    }
}

impl fmt::Display for DecisionId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(formatter)
    }
}

impl FromStr for DecisionId {
    type Err = uuid::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Uuid::parse_str(text).map(DecisionId)
    }
}

/// What sort of prompt the agent shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptKind {
    /// "May I use this tool with this input?"
    Permission,
    /// One or more multiple-choice questions to the person.
    Question,
    /// A plan the agent wants approved before it acts.
    Plan,
    /// Something to look at that asks for nothing.
    Notice,
}

impl PromptKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PromptKind::Permission => "permission",
            PromptKind::Question => "question",
            PromptKind::Plan => "plan",
            PromptKind::Notice => "notice",
        }
    }
}

/// One choice of a [`Question`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    pub label: String,
    #[serde(default)]
    pub description: String,
}

/// One question of a question prompt. `id` is gatehouse's own (`q1`, `q2`, ...), stable for the
/// prompt's life; the agent's own key for the question is the adapter's business at delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub header: String,
    /// Whether several options may be chosen.
    #[serde(default)]
    pub multi: bool,
    pub options: Vec<QuestionOption>,
}

/// A prompt as an adapter hands it over, before the arbiter has seen it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewPrompt {
    /// The id of the adapter that raised it, such as `claude`.
    pub adapter: String,
    /// The agent's own session id.
    pub session: String,
    /// The folder the agent works in.
    pub cwd: String,
    pub kind: PromptKind,
    /// The agent's name for the tool, such as `Bash`.
    pub tool: String,
    /// A snapshot of the agent's native input for the tool, exactly as the agent sent it.
    pub input: serde_json::Value,
    /// One line for people, such as the command to run.
    pub summary: String,
    /// The questions of a question prompt, empty for every other kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Question>,
    /// The adapter's key for recognising the same tool call in later observations: a tool that
    /// finished with the same key in the same session withdraws this prompt.
    #[serde(default)]
    pub correlation: String,
    /// Set by the adapter when this particular prompt cannot be answered safely, whatever its
    /// capability flags say; the text says why, and the prompt is read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_reason: Option<String>,
    /// The host name of the machine whose hook raised it, as that hook says (untrusted text, like
    /// every other field); empty when unknown. Set by the hook, not by the adapter.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub host: String,
    /// A preview, the agent's suggestions and where the agent runs, when the adapter knows
    /// them (see [`crate::extra`]); on the wire, its fields sit beside these.
    #[serde(flatten, default)]
    pub extra: crate::extra::PromptExtra,
}

/// Where a prompt is in its life. Every change is an [`crate::Event`].
///
/// ```text
/// pending ─┬─> resolved ─┬─> delivered
///          │             └─> unconfirmed
///          ├─> withdrawn   (answered in the terminal, or the waiting hook went away)
///          ├─> expired     (deadline)
///          └─> released    (handed back to the terminal)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptState {
    Pending,
    Resolved,
    Delivered,
    Unconfirmed,
    Withdrawn,
    Expired,
    Released,
}

impl PromptState {
    pub fn as_str(self) -> &'static str {
        match self {
            PromptState::Pending => "pending",
            PromptState::Resolved => "resolved",
            PromptState::Delivered => "delivered",
            PromptState::Unconfirmed => "unconfirmed",
            PromptState::Withdrawn => "withdrawn",
            PromptState::Expired => "expired",
            PromptState::Released => "released",
        }
    }

    /// Whether the prompt was answered: a verdict was given (delivered or not yet).
    pub fn has_verdict(self) -> bool {
        matches!(
            self,
            PromptState::Resolved | PromptState::Delivered | PromptState::Unconfirmed
        )
    }

    /// Whether no further transition can happen.
    pub fn is_final(self) -> bool {
        !matches!(self, PromptState::Pending | PromptState::Resolved)
    }
}

impl fmt::Display for PromptState {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// Where a prompt came from, as the gateway knows it from the socket its hook reached, never
/// from anything the hook or its link says (a host name, a hello, a field of the prompt).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The gateway's own socket, which only this machine's user reaches.
    Local,
    /// The hooks socket, which `gatehouse remote` forwards to other machines (and a container
    /// may be given): the prompt's `host` is its link's name. What is not known to be local is
    /// remote, so a prompt recorded by an older gateway reads as remote.
    #[default]
    Remote,
}

/// A prompt held by the arbiter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    pub id: DecisionId,
    /// The shortest prefix of the id's random part that names this prompt alone among every
    /// prompt the gateway knows, as front ends show it (see [`crate::short_id`]). It may grow
    /// as other prompts arrive; the full id always works.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub short_id: String,
    #[serde(flatten)]
    pub prompt: NewPrompt,
    /// Where it came from, as the gateway stamped it from the connection (see [`Origin`]).
    /// Front ends show a prompt as this machine's only when this says `local`.
    #[serde(default)]
    pub origin: Origin,
    /// The actions a front end may take; empty means read-only.
    pub actions: Vec<Action>,
    pub state: PromptState,
    /// When this gateway registered the prompt.
    pub created_at: Timestamp,
    /// When the agent first asked: earlier than `created_at` when the hook registered the prompt
    /// again after a gateway restart. Observations from before this time do not settle it.
    pub held_since: Timestamp,
    /// Set when this copy of the prompt is cut (the gateway sends large prompts cut in `list`,
    /// `subscribe` and events): the content shown is an excerpt, and `prompt.get` has it whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutNote>,
    /// When the gateway's hold of this prompt ends, for a prompt a hook holds for an answer
    /// (set by the gateway from the wait the hook asked for); absent for a watched prompt. At
    /// that moment the hook gives the prompt back to the agent and a later answer is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_ends_at: Option<Timestamp>,
    /// What happens then, and meanwhile, in the gateway's words for people, such as "then Qwen
    /// Code shows its own dialog"; absent when `hold_ends_at` is (see [`WhileHeld`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_hold: Option<String>,
}

/// What an agent does while its hook holds one of its prompts, as its adapter states it
/// ([`crate::Adapter::while_held`]); the gateway words it for each held prompt
/// ([`Prompt::after_hold`]), so that front ends need not know agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhileHeld {
    /// The agent keeps its own prompt on screen, answerable in its terminal, while the hook
    /// waits (Claude Code, OpenCode): the first answer wins, and when the hold ends only the
    /// agent's own prompt is left.
    OwnPromptStaysLive,
    /// The agent shows no prompt of its own while the hook waits and takes the prompt back after
    /// a limit of its own (Qwen Code, Codex, Copilot CLI, Gemini CLI answerable): when the hold
    /// ends, the agent shows its own dialog.
    OwnDialogAfterHold,
}

impl WhileHeld {
    /// What happens when the hold of a prompt of `agent` (the agent's name for people) ends, as
    /// front ends show it after the time left: "then Qwen Code shows its own dialog". `None`
    /// (the adapter did not say) gets words that are true of every agent.
    pub fn after_hold(this: Option<WhileHeld>, agent: &str) -> String {
        match this {
            Some(WhileHeld::OwnDialogAfterHold) => format!(
                "then {agent} shows its own dialog (it shows none meanwhile), and an answer here is refused"
            ),
            Some(WhileHeld::OwnPromptStaysLive) => format!(
                "then only {agent}'s own prompt can answer it; that prompt is answerable in {agent}'s terminal meanwhile too, and the first answer wins"
            ),
            None => format!("then {agent}'s own prompt decides, and an answer here is refused"),
        }
    }
}

/// How a cut copy of a prompt differs from the whole (see [`Prompt::cut`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutNote {
    /// The size of the whole prompt's content (its [`NewPrompt`] as JSON), in bytes.
    pub full_bytes: u64,
    /// `sha256:<hex>` of the whole content; only in the audit log, never sent to front ends
    /// (they learn it from `prompt.get`, so that naming it proves they fetched the prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl Prompt {
    pub fn is_read_only(&self) -> bool {
        self.actions.is_empty()
    }

    /// Whether the gateway says it came from this machine (see [`Origin`]).
    pub fn is_local(&self) -> bool {
        self.origin == Origin::Local
    }
}

#[cfg(test)]
mod hold_tests {
    use super::*;

    #[test]
    fn the_words_for_the_end_of_a_hold_name_the_agent_and_what_it_does() {
        assert_eq!(
            WhileHeld::after_hold(Some(WhileHeld::OwnDialogAfterHold), "Qwen Code"),
            "then Qwen Code shows its own dialog (it shows none meanwhile), and an answer here is refused"
        );
        let live = WhileHeld::after_hold(Some(WhileHeld::OwnPromptStaysLive), "OpenCode");
        assert!(
            live.contains("answerable in OpenCode's terminal meanwhile too"),
            "{live}"
        );
        assert!(live.contains("the first answer wins"), "{live}");
        assert_eq!(
            WhileHeld::after_hold(None, "Codex"),
            "then Codex's own prompt decides, and an answer here is refused"
        );
    }

    #[test]
    fn a_prompt_from_an_older_gateway_reads_with_no_hold_and_one_without_a_hold_writes_none() {
        let older = serde_json::json!({
            "id": "01a22a7c-7184-7520-bb65-4d44b4eba601", "adapter": "claude", "session": "s",
            "cwd": "/p", "kind": "permission", "tool": "Bash", "input": {}, "summary": "ls",
            "actions": ["once"], "state": "pending",
            "created_at": "2026-11-30T03:13:20.000Z", "held_since": "2026-11-30T03:13:20.000Z",
        });
        let prompt: Prompt = serde_json::from_value(older.clone()).unwrap();
        assert_eq!(
            (prompt.hold_ends_at, prompt.after_hold.as_deref()),
            (None, None)
        );
        let written = serde_json::to_value(&prompt).unwrap();
        assert!(written.get("hold_ends_at").is_none() && written.get("after_hold").is_none());
        let mut held = older;
        held["hold_ends_at"] = "2026-11-30T03:13:58.000Z".into();
        held["after_hold"] = "then Qwen Code shows its own dialog".into();
        let prompt: Prompt = serde_json::from_value(held).unwrap();
        assert_eq!(
            prompt.hold_ends_at.unwrap().millis_since(prompt.created_at),
            38_000
        );
    }
}
