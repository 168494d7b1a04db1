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
use crate::prompt::{DecisionId, NewPrompt, Prompt, PromptState};
use crate::time::Timestamp;

/// How many finished prompts are remembered, so that a late answer to one is refused as
/// `not_pending` (with its final state) rather than `not_found`.
const REMEMBERED_FINISHED_PROMPTS: usize = 65_536;

/// How many allowed tool calls are remembered until their own `ToolFinished` arrives.
const REMEMBERED_ALLOWED_CALLS: usize = 1_024;

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
    #[error("no prompt has the id {id}; run `gatehouse list` to see the pending ones")]
    NotFound { id: DecisionId },
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
            ArbiterError::NotFound { .. } => "not_found",
            ArbiterError::NotPending { .. } => "not_pending",
            ArbiterError::ReadOnly { .. } => "read_only",
            ArbiterError::ActionNotOffered { .. } => "action_not_offered",
            ArbiterError::InvalidAnswer { .. } => "invalid_answer",
            ArbiterError::NoVerdictAwaitingReceipt { .. } => "no_verdict_awaiting_receipt",
        }
    }
}

/// Owns every prompt that is pending or resolved, and remembers how recent others ended.
#[derive(Debug, Default)]
pub struct Arbiter {
    adapters: BTreeMap<String, AdapterCapabilities>,
    live: HashMap<DecisionId, Prompt>,
    finished: HashMap<DecisionId, PromptState>,
    finished_order: VecDeque<DecisionId>,
    recent_observations: VecDeque<(Observation, Timestamp)>,
    /// Tool calls allowed from a front end whose `ToolFinished` has not come yet, as (adapter,
    /// session, correlation): that observation is theirs, not a pending twin's.
    allowed_calls: VecDeque<(String, String, String)>,
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
        let capabilities =
            self.adapters
                .get(&new_prompt.adapter)
                .ok_or_else(|| ArbiterError::UnknownAdapter {
                    adapter: new_prompt.adapter.clone(),
                })?;
        let mut new_prompt = new_prompt;
        let actions = if new_prompt.read_only_reason.is_some() {
            Vec::new()
        } else {
            capabilities.offered(new_prompt.kind, &new_prompt.tool)
        };
        if actions.is_empty() && new_prompt.read_only_reason.is_none() {
            // Every read-only prompt says why, so that front ends need not work it out.
            new_prompt.read_only_reason = Some(read_only_reason(capabilities, &new_prompt));
        }
        let prompt = Prompt {
            id: DecisionId::new_v7(),
            prompt: new_prompt,
            actions,
            state: PromptState::Pending,
            created_at: now,
            held_since: held_since.min(now),
        };
        let settled_by = self
            .recent_observations
            .iter()
            .find(|(observation, observed_at)| {
                *observed_at >= prompt.held_since && settles(observation, &prompt)
            })
            .map(|(observation, _)| observation.withdrawal_reason());
        let id = prompt.id;
        self.live.insert(id, prompt.clone());
        let mut events = vec![Event::Added { prompt }];
        if let Some(reason) = settled_by {
            events.push(self.set_state(id, PromptState::Withdrawn, now, None, None, Some(reason)));
        }
        Ok(events)
    }

    /// The prompts that are pending, oldest first.
    pub fn pending(&self) -> Vec<Prompt> {
        let mut prompts: Vec<Prompt> = self
            .live
            .values()
            .filter(|prompt| prompt.state == PromptState::Pending)
            .cloned()
            .collect();
        prompts.sort_by_key(|prompt| prompt.id);
        prompts
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
            .or_else(|| self.finished.get(&id).copied())
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
        let verdict = Verdict(answer);
        if verdict.allows() {
            let asked = &prompt.prompt;
            let call = (
                asked.adapter.clone(),
                asked.session.clone(),
                asked.correlation.clone(),
            );
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
        self.pending_prompt(id)?;
        Ok(self.set_state(
            id,
            PromptState::Released,
            now,
            Some(by),
            None,
            Some("handed back to the terminal"),
        ))
    }

    /// Withdraws a pending prompt: it was answered elsewhere, or its waiting hook went away.
    pub fn withdraw(
        &mut self,
        id: DecisionId,
        reason: &str,
        now: Timestamp,
    ) -> Result<Event, ArbiterError> {
        self.pending_prompt(id)?;
        Ok(self.set_state(id, PromptState::Withdrawn, now, None, None, Some(reason)))
    }

    /// Ends a pending prompt whose deadline has passed. It never yields a verdict.
    pub fn expire(&mut self, id: DecisionId, now: Timestamp) -> Result<Event, ArbiterError> {
        self.pending_prompt(id)?;
        Ok(self.set_state(
            id,
            PromptState::Expired,
            now,
            None,
            None,
            Some("no answer before the deadline"),
        ))
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
        self.resolved_prompt(id)?;
        Ok(self.set_state(
            id,
            PromptState::Unconfirmed,
            now,
            None,
            None,
            Some("no delivery receipt in time"),
        ))
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
            let allowed = self.allowed_calls.iter().position(
                |(allowed_adapter, allowed_session, allowed_correlation)| {
                    allowed_adapter == adapter
                        && allowed_session == session
                        && allowed_correlation == correlation
                },
            );
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
            // Only the oldest match (ids sort by creation) is withdrawn: two identical calls
            // pending at once are two prompts, and one finished call settles one of them.
            Observation::ToolFinished { .. } => candidates.min().into_iter().collect(),
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
        match self.live.get(&id) {
            Some(prompt) if prompt.state == PromptState::Pending => Ok(prompt),
            Some(prompt) => Err(ArbiterError::NotPending {
                id,
                state: prompt.state,
            }),
            None => match self.finished.get(&id) {
                Some(state) => Err(ArbiterError::NotPending { id, state: *state }),
                None => Err(ArbiterError::NotFound { id }),
            },
        }
    }

    fn resolved_prompt(&self, id: DecisionId) -> Result<&Prompt, ArbiterError> {
        match self.live.get(&id) {
            Some(prompt) if prompt.state == PromptState::Resolved => Ok(prompt),
            Some(prompt) => Err(ArbiterError::NoVerdictAwaitingReceipt {
                id,
                state: prompt.state,
            }),
            None => match self.finished.get(&id) {
                Some(state) => Err(ArbiterError::NoVerdictAwaitingReceipt { id, state: *state }),
                None => Err(ArbiterError::NotFound { id }),
            },
        }
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
            self.remember_finished(id, state);
        } else if let Some(prompt) = self.live.get_mut(&id) {
            prompt.state = state;
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

    fn remember_finished(&mut self, id: DecisionId, state: PromptState) {
        if self.finished.len() >= REMEMBERED_FINISHED_PROMPTS {
            if let Some(oldest) = self.finished_order.pop_front() {
                self.finished.remove(&oldest);
            }
        }
        self.finished.insert(id, state);
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
