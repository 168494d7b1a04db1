//! The domain of gatehouse, with no I/O: what a prompt is, which actions an adapter may offer,
//! what an answer and a verdict are, and the arbiter that owns every pending decision.
//!
//! Architecture invariant: this crate knows no wire format, no socket and no particular agent.
//! Time comes in as a [`Timestamp`] from the caller, so every transition is deterministic and can
//! be driven by tests.

pub mod adapter;
pub mod answer;
pub mod arbiter;
pub mod capability;
pub mod correlation;
pub mod extra;
pub mod json_shape;
pub mod kit;
pub mod prompt;
pub mod rule_match;
pub mod rules;
pub mod safe_words;
pub mod short_id;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod time;

pub use adapter::{
    Adapter, AdapterRegistry, CancellationCheck, HoldMode, HookEvent, Observation, ParseError,
    RunningAgent, WithoutVerdict,
};
pub use answer::{AlwaysScope, Answer, QuestionResponse, Verdict};
pub use arbiter::{Arbiter, ArbiterError, Event, Outcome};
pub use capability::{Action, ActionFlag, AdapterCapabilities, CapabilityRule};
pub use extra::{Preview, PreviewFormat, PromptExtra, Suggestion, TerminalLocation};
pub use prompt::{
    CutNote, DecisionId, NewPrompt, Origin, Prompt, PromptKind, PromptState, Question,
    QuestionOption, WhileHeld,
};
pub use rule_match::RuleMatch;
pub use short_id::{IdIndex, IdQuery, IdQueryError};
pub use time::Timestamp;
