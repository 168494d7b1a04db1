//! The arbiter: the one owner of every decision. It registers prompts, works out which actions
//! each may offer, accepts at most one answer per prompt, and moves prompts through their states.
//!
//! Invariant: nothing but [`Arbiter::answer`] with an offered action and a valid answer produces
//! a verdict. Deadlines, withdrawals, releases, disconnects and unknown ids never do.

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::adapter::Observation;
use crate::answer::{Answer, Verdict};
use crate::capability::{Action, AdapterCapabilities};
use crate::prompt::{DecisionId, NewPrompt, Origin, Prompt, PromptState};
use crate::short_id::{IdIndex, IdQuery, IdQueryError};
use crate::time::Timestamp;

/// How many finished prompts are remembered, so that a late answer to one is refused as
/// `not_pending` (with its final state) rather than `not_found`.
const REMEMBERED_FINISHED_PROMPTS: usize = 65_536;

/// How many allowed tool calls are remembered until their own `ToolFinished` arrives.
const REMEMBERED_ALLOWED_CALLS: usize = 1_024;

/// How many known ids a typed prefix may name before the list of them is cut short.
const LISTED_MATCHES: usize = 8;

/// How many recent observations are remembered, so that a prompt registered again after a
/// gateway restart is withdrawn at once if the terminal settled it while no gateway ran.
const REMEMBERED_OBSERVATIONS: usize = 1_024;

/// A transition, as front ends see it. Events are encoded once when published and rarely kept,
/// so the size of the `Added` variant does not matter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)]
pub enum Event {
    /// A prompt was registered and is pending.
    Added { prompt: Prompt },
    /// A prompt moved to a new state.
    Changed {
        id: DecisionId,
        state: PromptState,
        at: Timestamp,
        /// The front end that answered or released it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        /// The action taken, for `resolved`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<Action>,
        /// Why, for `withdrawn` and the other endings, in words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

impl Event {
    pub fn id(&self) -> DecisionId {
        match self {
            Event::Added { prompt } => prompt.id,
            Event::Changed { id, .. } => *id,
        }
    }
}

/// How a held prompt ended, as its waiting hook learns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// A front end answered; the hook delivers this verdict to the agent.
    Verdict { verdict: Verdict },
    /// Handed back to the agent's own terminal.
    Released,
    /// Answered in the terminal, or otherwise over.
    Withdrawn { reason: String },
    /// The deadline passed with no answer.
    Expired,
    /// Nothing is offered for the prompt, so it is only watched: the hook returns at once and the
    /// agent's own prompt decides (`hook.hold` with `watch_if_read_only`).
    Watched,
}

/// Why the arbiter refused a request. Each variant has a stable name for the wire.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArbiterError {
    #[error("no adapter named `{adapter}` is known to this gateway")]
    UnknownAdapter { adapter: String },
    #[error("no prompt has the id {id}")]
    NotFound { id: DecisionId },
    #[error(transparent)]
    InvalidId(#[from] IdQueryError),
    #[error("no prompt this gateway knows has an id or short id starting with `{given}`")]
    UnknownId { given: String },
    #[error("`{given}` names prompt {} ({}), which {}; nothing was done", named.short_id, named.id, named.fate())]
    IdNamesAnEndedPrompt { given: String, named: IdMatch },
    #[error("`{given}` could name {} prompts: {}; nothing was done, give the short id of the one you mean", matches.len(), describe_matches(matches))]
    AmbiguousId {
        given: String,
        matches: Vec<IdMatch>,
    },
    #[error("`{given}` is only the start of full ids (the time they were made), which names no prompt; it starts {}; nothing was done, give the short id of the one you mean", describe_matches(matches))]
    StartOfFullIds {
        given: String,
        matches: Vec<IdMatch>,
    },
    #[error("prompt {id} is no longer pending: it is {state}")]
    NotPending { id: DecisionId, state: PromptState },
    #[error("prompt {id} is read-only: {reason}")]
    ReadOnly { id: DecisionId, reason: String },
    #[error("`{action}` is not offered for prompt {id}; it offers: {offered}")]
    ActionNotOffered {
        id: DecisionId,
        action: Action,
        offered: String,
    },
    #[error("the answer for prompt {id} is not valid: {problem}")]
    InvalidAnswer { id: DecisionId, problem: String },
    #[error("prompt {id} is {state}, so no verdict of it awaits a delivery receipt")]
    NoVerdictAwaitingReceipt { id: DecisionId, state: PromptState },
}

impl ArbiterError {
    /// The stable name of the error, as used on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            ArbiterError::UnknownAdapter { .. } => "unknown_adapter",
            ArbiterError::NotFound { .. } | ArbiterError::UnknownId { .. } => "not_found",
            ArbiterError::InvalidId(_) => "invalid_id",
            ArbiterError::IdNamesAnEndedPrompt { .. } => "not_pending",
            ArbiterError::AmbiguousId { .. } | ArbiterError::StartOfFullIds { .. } => {
                "ambiguous_id"
            }
            ArbiterError::NotPending { .. } => "not_pending",
            ArbiterError::ReadOnly { .. } => "read_only",
            ArbiterError::ActionNotOffered { .. } => "action_not_offered",
            ArbiterError::InvalidAnswer { .. } => "invalid_answer",
            ArbiterError::NoVerdictAwaitingReceipt { .. } => "no_verdict_awaiting_receipt",
        }
    }
}

/// A known prompt that a typed id could name, and where it is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdMatch {
    pub id: DecisionId,
    pub short_id: String,
    pub state: PromptState,
    /// How long ago it reached that state, for a prompt that is no longer pending.
    pub millis_ago: Option<u64>,
}

impl IdMatch {
    /// What happened to it, in words: "is pending", "was released 12 s ago".
    pub fn fate(&self) -> String {
        match self.millis_ago {
            None => format!("is {}", self.state),
            Some(millis) => format!("was {} {} ago", self.state, words_for_age(millis)),
        }
    }
}

fn describe_matches(matches: &[IdMatch]) -> String {
    let described: Vec<String> = matches
        .iter()
        .map(|found| format!("{} ({})", found.short_id, found.fate()))
        .collect();
    described.join(", ")
}

/// An age for people, in its largest whole unit: "12 s", "5 min", "3 h", "2 d".
fn words_for_age(millis: u64) -> String {
    crate::time::in_largest_unit(millis, [" s", " min", " h", " d"])
}

/// How a finished prompt ended, and when.
#[derive(Debug, Clone, Copy)]
struct Finished {
    state: PromptState,
    at: Timestamp,
}

/// A tool call allowed from a front end whose `ToolFinished` has not come yet: that observation
/// is its own, not a pending twin's.
#[derive(Debug)]
struct AllowedCall {
    id: DecisionId,
    adapter: String,
    session: String,
    correlation: String,
}

/// Owns every prompt that is pending or resolved, and remembers how recent others ended.
#[derive(Debug, Default)]
pub struct Arbiter {
    adapters: BTreeMap<String, AdapterCapabilities>,
    live: HashMap<DecisionId, Prompt>,
    /// When each live prompt reached its state, for a resolved one that a typed id names.
    resolved_at: HashMap<DecisionId, Timestamp>,
    /// The order in which live prompts were registered: ids made in the same millisecond do not
    /// sort by creation (their digits after the timestamp are random).
    registration_order: HashMap<DecisionId, u64>,
    registrations: u64,
    finished: HashMap<DecisionId, Finished>,
    finished_order: VecDeque<DecisionId>,
    /// Every id in `live` and `finished`: what a typed id is matched against.
    known_ids: IdIndex,
    recent_observations: VecDeque<(Observation, Timestamp)>,
    allowed_calls: VecDeque<AllowedCall>,
}

impl Arbiter {
    pub fn new(adapters: impl IntoIterator<Item = AdapterCapabilities>) -> Self {
        let adapters = adapters
            .into_iter()
            .map(|caps| (caps.adapter.clone(), caps))
            .collect();
        Arbiter {
            adapters,
            ..Arbiter::default()
        }
    }

    /// The adapters and their capability flags, in id order.
    pub fn adapters(&self) -> impl Iterator<Item = &AdapterCapabilities> {
        self.adapters.values()
    }

    /// Replaces the adapters' capability flags (for example after a probe proved more), and says
    /// whether they changed. Prompts already registered keep the actions they were offered.
    pub fn replace_adapters(
        &mut self,
        adapters: impl IntoIterator<Item = AdapterCapabilities>,
    ) -> bool {
        let adapters: BTreeMap<String, AdapterCapabilities> = adapters
            .into_iter()
            .map(|caps| (caps.adapter.clone(), caps))
            .collect();
        let changed = adapters != self.adapters;
        self.adapters = adapters;
        changed
    }

    /// Registers a prompt, gives it a fresh decision id and works out its actions.
    pub fn register(
        &mut self,
        new_prompt: NewPrompt,
        now: Timestamp,
    ) -> Result<Event, ArbiterError> {
        let mut events = self.register_held_since(new_prompt, now, now)?;
        Ok(events.remove(0))
    }

    /// Registers a prompt that its hook has held since `held_since`: earlier than `now` when the
    /// hook registers it again after a gateway restart. The first event adds the prompt; if an
    /// observation made since `held_since` already settled it (the person answered in the
    /// terminal while no gateway ran), a second event withdraws it at once.
    pub fn register_held_since(
        &mut self,
        new_prompt: NewPrompt,
        held_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<Event>, ArbiterError> {
        self.register_with_id(DecisionId::new_v7(), new_prompt, None, held_since, now)
    }

    /// [`Arbiter::register_held_since`] with the capability flags that apply to this prompt
    /// alone (those for the agent version its hook reported), instead of the adapter's. They must
    /// be the prompt's adapter's: flags of another adapter are refused as an unknown adapter.
    pub fn register_with_capabilities(
        &mut self,
        new_prompt: NewPrompt,
        capabilities: AdapterCapabilities,
        held_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<Event>, ArbiterError> {
        self.register_with_id(
            DecisionId::new_v7(),
            new_prompt,
            Some(capabilities),
            held_since,
            now,
        )
    }

    /// [`Arbiter::register_held_since`] with the id chosen by the caller: tests choose ids that
    /// share digits.
    fn register_with_id(
        &mut self,
        id: DecisionId,
        new_prompt: NewPrompt,
        for_this_prompt: Option<AdapterCapabilities>,
        held_since: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<Event>, ArbiterError> {
        let unknown = || ArbiterError::UnknownAdapter {
            adapter: new_prompt.adapter.clone(),
        };
        let registered = self.adapters.get(&new_prompt.adapter).ok_or_else(unknown)?;
        let capabilities = match &for_this_prompt {
            Some(flags) if flags.adapter == new_prompt.adapter => flags,
            Some(_) => return Err(unknown()),
            None => registered,
        };
        let mut new_prompt = new_prompt;
        let actions = if new_prompt.read_only_reason.is_some() {
            Vec::new()
        } else {
            capabilities.offered_for(&new_prompt)
        };
        if actions.is_empty() && new_prompt.read_only_reason.is_none() {
            // Every read-only prompt says why, so that front ends need not work it out.
            new_prompt.read_only_reason = Some(read_only_reason(capabilities, &new_prompt));
        }
        if !actions.contains(&Action::Always) {
            // The agent's suggestions are what `always` picks from: listed only with it.
            new_prompt.extra.suggestions.clear();
        }
        self.known_ids.insert(id);
        let prompt = Prompt {
            id,
            short_id: self.known_ids.short_id(id),
            prompt: new_prompt,
            origin: Origin::default(),
            actions,
            state: PromptState::Pending,
            created_at: now,
            held_since: held_since.min(now),
            cut: None,
            hold_ends_at: None,
            after_hold: None,
        };
        let settled_by = self
            .recent_observations
            .iter()
            .find(|(observation, observed_at)| {
                *observed_at >= prompt.held_since && settles(observation, &prompt)
            })
            .map(|(observation, _)| observation.withdrawal_reason());
        self.live.insert(id, prompt.clone());
        self.registrations += 1;
        self.registration_order.insert(id, self.registrations);
        let mut events = vec![Event::Added { prompt }];
        if let Some(reason) = settled_by {
            events.push(self.set_state(id, PromptState::Withdrawn, now, None, None, Some(reason)));
        }
        Ok(events)
    }

    /// Remembers a prompt that an earlier gateway ended (from its audit log), so that its id,
    /// typed from an old list, is refused as ended rather than matched against new prompts. Ids
    /// already known are left alone.
    pub fn remember_ended(&mut self, id: DecisionId, state: PromptState, at: Timestamp) {
        if self.live.contains_key(&id) || self.finished.contains_key(&id) || !state.is_final() {
            return;
        }
        self.known_ids.insert(id);
        self.remember_finished(id, Finished { state, at });
    }

    /// Notes on the pending prompt `id` when the hold of its hook ends and what happens then
    /// (see [`Prompt::hold_ends_at`]), and returns it as it is now; `None` if it is not pending.
    pub fn note_hold(
        &mut self,
        id: DecisionId,
        ends_at: Timestamp,
        after_hold: String,
    ) -> Option<&Prompt> {
        let prompt = self
            .live
            .get_mut(&id)
            .filter(|prompt| prompt.state == PromptState::Pending)?;
        prompt.hold_ends_at = Some(ends_at);
        prompt.after_hold = Some(after_hold);
        Some(prompt)
    }

    /// Notes on the live prompt `id` where it came from (see [`Origin`]: a prompt is registered
    /// as remote until its gateway says otherwise). A prompt that is no longer live is left as
    /// it was.
    pub fn note_origin(&mut self, id: DecisionId, origin: Origin) {
        if let Some(prompt) = self.live.get_mut(&id) {
            prompt.origin = origin;
        }
    }

    /// The prompts that are pending, oldest first, with their short ids as they are now.
    pub fn pending(&self) -> Vec<Prompt> {
        let mut prompts: Vec<Prompt> = self
            .live
            .values()
            .filter(|prompt| prompt.state == PromptState::Pending)
            .map(|prompt| Prompt {
                short_id: self.known_ids.short_id(prompt.id),
                ..prompt.clone()
            })
            .collect();
        prompts.sort_by_key(|prompt| self.registration_order.get(&prompt.id).copied());
        prompts
    }

    /// The one pending prompt that `given` (a full id, a short id, or a prefix of either) names.
    /// The text is matched against every id this arbiter knows, pending or finished, so an id
    /// that could name anything else, or names a prompt that has ended, is refused and says why.
    pub fn resolve(&self, given: &str, now: Timestamp) -> Result<DecisionId, ArbiterError> {
        let query = IdQuery::parse(given)?;
        let found = self.known_ids.matching(&query, LISTED_MATCHES + 1);
        let mut matches: Vec<IdMatch> =
            found.into_iter().map(|id| self.describe(id, now)).collect();
        match matches.len() {
            0 => {
                // The start of full ids (their timestamp) names nothing; say whose start it is.
                let starting = self.known_ids.full_ids_starting(&query, LISTED_MATCHES);
                if starting.is_empty() {
                    return Err(ArbiterError::UnknownId {
                        given: given.to_owned(),
                    });
                }
                let matches = starting
                    .into_iter()
                    .map(|id| self.describe(id, now))
                    .collect();
                Err(ArbiterError::StartOfFullIds {
                    given: given.to_owned(),
                    matches,
                })
            }
            1 if matches[0].state == PromptState::Pending => Ok(matches[0].id),
            1 => Err(ArbiterError::IdNamesAnEndedPrompt {
                given: given.to_owned(),
                named: matches.remove(0),
            }),
            _ => {
                matches.truncate(LISTED_MATCHES);
                Err(ArbiterError::AmbiguousId {
                    given: given.to_owned(),
                    matches,
                })
            }
        }
    }

    /// The pending prompt that `given` names, as [`Arbiter::resolve`] finds it, with its short
    /// id as it is now.
    pub fn resolve_pending(
        &self,
        given: &str,
        now: Timestamp,
    ) -> Result<(DecisionId, Prompt), ArbiterError> {
        let id = self.resolve(given, now)?;
        let prompt = self
            .live
            .get(&id)
            .expect("resolve returns only live, pending prompts");
        Ok((
            id,
            Prompt {
                short_id: self.known_ids.short_id(id),
                ..prompt.clone()
            },
        ))
    }

    /// A known id, its short id, its state and how long it has been in it.
    fn describe(&self, id: DecisionId, now: Timestamp) -> IdMatch {
        let (state, since) = match (self.live.get(&id), self.finished.get(&id)) {
            (Some(prompt), _) => (prompt.state, self.resolved_at.get(&id).copied()),
            (None, Some(finished)) => (finished.state, Some(finished.at)),
            (None, None) => unreachable!("the index holds only live and finished ids"),
        };
        IdMatch {
            id,
            short_id: self.known_ids.short_id(id),
            state,
            millis_ago: since.map(|since| now.millis_since(since)),
        }
    }

    pub fn pending_count(&self) -> usize {
        self.live
            .values()
            .filter(|prompt| prompt.state == PromptState::Pending)
            .count()
    }

    pub fn get(&self, id: DecisionId) -> Option<&Prompt> {
        self.live.get(&id)
    }

    /// The state of any prompt this arbiter knows, live or recently finished.
    pub fn state_of(&self, id: DecisionId) -> Option<PromptState> {
        self.live
            .get(&id)
            .map(|prompt| prompt.state)
            .or_else(|| self.finished.get(&id).map(|finished| finished.state))
    }

    /// Accepts a front end's answer if it is the first valid one, and returns the verdict.
    pub fn answer(
        &mut self,
        id: DecisionId,
        answer: Answer,
        by: &str,
        now: Timestamp,
    ) -> Result<(Verdict, Event), ArbiterError> {
        let prompt = self.pending_prompt(id)?;
        if prompt.is_read_only() {
            let reason = prompt
                .prompt
                .read_only_reason
                .clone()
                .unwrap_or_else(|| "nothing is offered for it".into());
            return Err(ArbiterError::ReadOnly { id, reason });
        }
        let action = answer.action();
        if !prompt.actions.contains(&action) {
            let offered = prompt
                .actions
                .iter()
                .map(|action| action.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(ArbiterError::ActionNotOffered {
                id,
                action,
                offered,
            });
        }
        if let Answer::Answer { responses } = &answer {
            crate::answer::check_responses(prompt, responses)
                .map_err(|problem| ArbiterError::InvalidAnswer { id, problem })?;
        }
        let answer = match answer {
            Answer::Always { suggestion, scope } => {
                let suggestion =
                    crate::answer::check_suggestion(prompt, suggestion.as_deref(), scope)
                        .map_err(|problem| ArbiterError::InvalidAnswer { id, problem })?;
                Answer::Always {
                    suggestion: Some(suggestion),
                    scope,
                }
            }
            other => other,
        };
        let verdict = Verdict(answer);
        if verdict.allows() {
            let asked = &prompt.prompt;
            let call = AllowedCall {
                id,
                adapter: asked.adapter.clone(),
                session: asked.session.clone(),
                correlation: asked.correlation.clone(),
            };
            if self.allowed_calls.len() >= REMEMBERED_ALLOWED_CALLS {
                self.allowed_calls.pop_front();
            }
            self.allowed_calls.push_back(call);
        }
        let event = self.set_state(id, PromptState::Resolved, now, Some(by), Some(action), None);
        Ok((verdict, event))
    }

    /// Hands a pending prompt back to the agent's own terminal.
    pub fn release(
        &mut self,
        id: DecisionId,
        by: &str,
        now: Timestamp,
    ) -> Result<Event, ArbiterError> {
        self.end_pending(
            id,
            PromptState::Released,
            now,
            Some(by),
            "handed back to the terminal",
        )
    }

    /// Withdraws a pending prompt: it was answered elsewhere, or its waiting hook went away.
    pub fn withdraw(
        &mut self,
        id: DecisionId,
        reason: &str,
        now: Timestamp,
    ) -> Result<Event, ArbiterError> {
        self.end_pending(id, PromptState::Withdrawn, now, None, reason)
    }

    /// Ends a pending prompt whose deadline has passed. It never yields a verdict.
    pub fn expire(&mut self, id: DecisionId, now: Timestamp) -> Result<Event, ArbiterError> {
        self.end_pending(
            id,
            PromptState::Expired,
            now,
            None,
            "no answer before the deadline",
        )
    }

    /// Ends a pending prompt with no verdict (released, withdrawn or expired), for `reason`.
    fn end_pending(
        &mut self,
        id: DecisionId,
        state: PromptState,
        now: Timestamp,
        by: Option<&str>,
        reason: &str,
    ) -> Result<Event, ArbiterError> {
        self.pending_prompt(id)?;
        Ok(self.set_state(id, state, now, by, None, Some(reason)))
    }

    /// Records the hook's receipt: the verdict reached the agent.
    pub fn confirm_delivery(
        &mut self,
        id: DecisionId,
        now: Timestamp,
    ) -> Result<Event, ArbiterError> {
        self.resolved_prompt(id)?;
        Ok(self.set_state(id, PromptState::Delivered, now, None, None, None))
    }

    /// Records that no receipt came in time: the verdict may or may not have reached the agent.
    pub fn mark_unconfirmed(
        &mut self,
        id: DecisionId,
        now: Timestamp,
    ) -> Result<Event, ArbiterError> {
        self.mark_unconfirmed_because(id, "no delivery receipt in time", now)
    }

    /// Records that the verdict's delivery was never confirmed, and why. An allowed call that was
    /// not confirmed most likely never ran (the terminal answered first and the agent ended the
    /// hook), so it no longer claims the next `ToolFinished` of an identical call.
    pub fn mark_unconfirmed_because(
        &mut self,
        id: DecisionId,
        reason: &str,
        now: Timestamp,
    ) -> Result<Event, ArbiterError> {
        self.resolved_prompt(id)?;
        self.allowed_calls.retain(|call| call.id != id);
        Ok(self.set_state(id, PromptState::Unconfirmed, now, None, None, Some(reason)))
    }

    /// Applies what a hook saw the agent do just now, withdrawing the pending prompts it settles.
    pub fn observe(&mut self, observation: &Observation, now: Timestamp) -> Vec<Event> {
        self.observe_at(observation, now, now)
    }

    /// Applies what a hook saw the agent do at `observed_at` (earlier than `now` when the hook
    /// could not reach a gateway then and replays it). Only prompts held since before that moment
    /// are settled by it.
    pub fn observe_at(
        &mut self,
        observation: &Observation,
        observed_at: Timestamp,
        now: Timestamp,
    ) -> Vec<Event> {
        if let Observation::ToolFinished {
            adapter,
            session,
            correlation,
        } = observation
        {
            // The call a front end allowed has finished: it settles nothing else, not even an
            // identical call still pending in the same session.
            let allowed = self.allowed_calls.iter().position(|call| {
                call.adapter == *adapter
                    && call.session == *session
                    && call.correlation == *correlation
            });
            if let Some(index) = allowed {
                self.allowed_calls.remove(index);
                return Vec::new();
            }
        }
        if self.recent_observations.len() >= REMEMBERED_OBSERVATIONS {
            self.recent_observations.pop_front();
        }
        self.recent_observations
            .push_back((observation.clone(), observed_at));
        // No prompt is cloned here: this runs for every tool call of every agent.
        let candidates = self
            .live
            .values()
            .filter(|prompt| {
                prompt.state == PromptState::Pending
                    && prompt.held_since <= observed_at
                    && settles(observation, prompt)
            })
            .map(|prompt| prompt.id);
        let settled: Vec<DecisionId> = match observation {
            // Only the oldest match is withdrawn: two identical calls pending at once are two
            // prompts, and one finished call settles one of them.
            Observation::ToolFinished { .. } => candidates
                .min_by_key(|id| self.registration_order.get(id).copied())
                .into_iter()
                .collect(),
            Observation::SessionEnded { .. } | Observation::TurnEnded { .. } => {
                candidates.collect()
            }
        };
        let reason = observation.withdrawal_reason();
        settled
            .into_iter()
            .map(|id| self.set_state(id, PromptState::Withdrawn, now, None, None, Some(reason)))
            .collect()
    }

    fn pending_prompt(&self, id: DecisionId) -> Result<&Prompt, ArbiterError> {
        self.live_prompt_in(id, PromptState::Pending, |id, state| {
            ArbiterError::NotPending { id, state }
        })
    }

    fn resolved_prompt(&self, id: DecisionId) -> Result<&Prompt, ArbiterError> {
        self.live_prompt_in(id, PromptState::Resolved, |id, state| {
            ArbiterError::NoVerdictAwaitingReceipt { id, state }
        })
    }

    /// The live prompt `id` when it is in state `wanted`; else the error `elsewhere` makes of
    /// the state it is in (live or finished), or `NotFound` for an id never seen or forgotten.
    fn live_prompt_in(
        &self,
        id: DecisionId,
        wanted: PromptState,
        elsewhere: impl FnOnce(DecisionId, PromptState) -> ArbiterError,
    ) -> Result<&Prompt, ArbiterError> {
        let state = match (self.live.get(&id), self.finished.get(&id)) {
            (Some(prompt), _) if prompt.state == wanted => return Ok(prompt),
            (Some(prompt), _) => prompt.state,
            (None, Some(finished)) => finished.state,
            (None, None) => return Err(ArbiterError::NotFound { id }),
        };
        Err(elsewhere(id, state))
    }

    /// Moves a live prompt to `state` and builds the event. Callers have checked the transition.
    fn set_state(
        &mut self,
        id: DecisionId,
        state: PromptState,
        now: Timestamp,
        by: Option<&str>,
        action: Option<Action>,
        reason: Option<&str>,
    ) -> Event {
        if state.is_final() {
            self.live.remove(&id);
            self.resolved_at.remove(&id);
            self.registration_order.remove(&id);
            self.remember_finished(id, Finished { state, at: now });
        } else if let Some(prompt) = self.live.get_mut(&id) {
            prompt.state = state;
            self.resolved_at.insert(id, now);
        }
        Event::Changed {
            id,
            state,
            at: now,
            by: by.map(str::to_owned),
            action,
            reason: reason.map(str::to_owned),
        }
    }

    fn remember_finished(&mut self, id: DecisionId, finished: Finished) {
        if self.finished.len() >= REMEMBERED_FINISHED_PROMPTS {
            if let Some(oldest) = self.finished_order.pop_front() {
                self.finished.remove(&oldest);
                self.known_ids.remove(oldest);
            }
        }
        self.finished.insert(id, finished);
        self.finished_order.push_back(id);
    }
}

/// Why nothing is offered for a prompt, from its adapter's capability flags: the evidence of the
/// unverified actions says what is missing.
fn read_only_reason(capabilities: &AdapterCapabilities, prompt: &NewPrompt) -> String {
    let kind = prompt.kind.as_str();
    let why = capabilities
        .rule_for(prompt.kind, &prompt.tool)
        .and_then(|rule| {
            rule.actions
                .iter()
                .find(|flag| !flag.verified && flag.action != Action::Always)
        })
        .map_or_else(
            || "no action exists for it".to_owned(),
            |flag| flag.evidence.clone(),
        );
    format!("{} offers no verified action for {kind} prompts of {} ({why}); answer it in the agent's terminal", capabilities.name, prompt.tool)
}

/// Whether an observation concerns a prompt: the same tool call, or the prompt's session.
fn settles(observation: &Observation, prompt: &Prompt) -> bool {
    match observation {
        Observation::ToolFinished {
            adapter,
            session,
            correlation,
        } => {
            prompt.prompt.adapter == *adapter
                && prompt.prompt.session == *session
                && prompt.prompt.correlation == *correlation
        }
        Observation::SessionEnded { adapter, session }
        | Observation::TurnEnded { adapter, session } => {
            prompt.prompt.adapter == *adapter && prompt.prompt.session == *session
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod always_tests;
