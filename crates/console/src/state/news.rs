//! Gateway news in the console's state: a new connection's list, a fresh list, one live
//! change, a lost connection and the reply to a command. The selection follows its decision id
//! through all of them; an answer sent from here moves the cursor on to the next pending prompt.

use std::time::Instant;

use gatehouse_core::text::visible;
use gatehouse_core::{Event, Prompt, PromptState};

use super::words::{ending_in_words, outcome_notice};
use super::{
    Alert, ConnectionState, ConsoleState, DecisionId, GatewayCommand, GatewayUpdate, Row,
    Selection, VanishedPrompt,
};

impl ConsoleState {
    /// Applies news from the connection task. Returns the alerts to raise for new actionable
    /// prompts (the caller decides whether desktop notifications are wanted).
    pub fn apply_update(&mut self, update: GatewayUpdate, now: Instant) -> Vec<Alert> {
        match update {
            GatewayUpdate::Connected {
                server,
                adapters,
                snapshot,
            } => {
                self.connection = ConnectionState::Connected { server };
                self.adapters = adapters;
                self.replace_prompts(
                    snapshot,
                    now,
                    "it is no longer pending in the gateway's list",
                );
                Vec::new()
            }
            GatewayUpdate::Snapshot { prompts } => {
                self.replace_prompts(
                    prompts,
                    now,
                    "it is no longer pending in the gateway's list",
                );
                Vec::new()
            }
            GatewayUpdate::Event(event) => self.apply_event(*event, now),
            GatewayUpdate::Disconnected {
                reason,
                retry_in,
                attempt,
            } => {
                self.connection = ConnectionState::Gone {
                    reason,
                    retry_at: now + retry_in,
                    attempt,
                };
                self.awaiting_reply.clear();
                self.replace_prompts(Vec::new(), now, "the gateway went away");
                Vec::new()
            }
            GatewayUpdate::CommandFinished { command, result } => {
                self.awaiting_reply.retain(|id| *id != command.id);
                self.command_finished(command, result, now);
                Vec::new()
            }
        }
    }

    fn apply_event(&mut self, event: Event, now: Instant) -> Vec<Alert> {
        match event {
            Event::Added { prompt } => {
                let alert = (!prompt.is_read_only()).then(|| Alert {
                    title: format!(
                        "{} asks: {}",
                        visible(&prompt.prompt.adapter),
                        visible(&prompt.prompt.tool)
                    ),
                    body: format!(
                        "{}\n{}",
                        visible(&prompt.prompt.summary),
                        visible(&prompt.prompt.cwd)
                    ),
                });
                let mut prompts = self.prompts.clone();
                prompts.retain(|existing| existing.id != prompt.id);
                prompts.push(prompt);
                self.replace_prompts(prompts, now, "");
                alert.into_iter().collect()
            }
            Event::Changed {
                id,
                state,
                by,
                action,
                reason,
                ..
            } => {
                let words = ending_in_words(state, by.as_deref(), action, reason.as_deref());
                if let Selection::Vanished(vanished) = &mut self.selection {
                    if vanished.prompt.id == id {
                        // A later step (such as delivered after resolved) adds to the story.
                        vanished.reason = format!("{}, then {words}", vanished.reason);
                        vanished.state = Some(state);
                    }
                }
                if state != PromptState::Pending {
                    let mut prompts = self.prompts.clone();
                    prompts.retain(|prompt| prompt.id != id);
                    self.replace_prompts_with_state(prompts, now, &words, Some(state));
                }
                self.forget_stale_notice(state.has_verdict().then_some(id));
                Vec::new()
            }
        }
    }

    fn replace_prompts(&mut self, prompts: Vec<Prompt>, now: Instant, vanished_reason: &str) {
        self.replace_prompts_with_state(prompts, now, vanished_reason, None);
    }

    /// Replaces the pending list, keeps the selection on the same decision id (or marks it gone),
    /// and notes the moment if the rows at or above the cursor changed.
    fn replace_prompts_with_state(
        &mut self,
        mut prompts: Vec<Prompt>,
        now: Instant,
        vanished_reason: &str,
        vanished_state: Option<PromptState>,
    ) {
        let rows_before = self.rows_through_cursor();
        prompts.retain(|prompt| prompt.state == PromptState::Pending);
        prompts.sort_by_key(|prompt| prompt.id);
        let old_prompts = std::mem::replace(&mut self.prompts, prompts);
        self.selection = match std::mem::replace(&mut self.selection, Selection::Nothing) {
            Selection::Pending(id) if self.pending_prompt(id).is_some() => Selection::Pending(id),
            // Answered from here: the person is done with it, and the cursor moves on (action
            // keys settle first, as for any change under the cursor).
            Selection::Pending(id)
                if self.answered_here.contains(&id)
                    && vanished_state.is_some_and(PromptState::has_verdict) =>
            {
                self.selection_after(id)
            }
            Selection::Pending(id) => {
                match old_prompts.into_iter().find(|prompt| prompt.id == id) {
                    Some(prompt) => Selection::Vanished(Box::new(VanishedPrompt {
                        prompt,
                        state: vanished_state,
                        reason: vanished_reason.to_owned(),
                    })),
                    None => self.first_prompt_selection(),
                }
            }
            Selection::Vanished(vanished) if self.pending_prompt(vanished.prompt.id).is_some() => {
                Selection::Pending(vanished.prompt.id)
            }
            Selection::Vanished(vanished) => Selection::Vanished(vanished),
            Selection::Nothing => self.first_prompt_selection(),
        };
        let rows_after = self.rows_through_cursor();
        if rows_after.last().map(|row| row.0) != rows_before.last().map(|row| row.0) {
            self.detail_scroll = 0;
        }
        if rows_after != rows_before {
            self.list_changed_at = Some(now);
        }
    }

    /// The first pending prompt after `id` in the list's order, else the last one before it.
    pub(super) fn selection_after(&self, id: DecisionId) -> Selection {
        self.prompts
            .iter()
            .find(|prompt| prompt.id > id)
            .or_else(|| self.prompts.last())
            .map_or(Selection::Nothing, |prompt| Selection::Pending(prompt.id))
    }

    pub(super) fn first_prompt_selection(&self) -> Selection {
        self.prompts
            .first()
            .map_or(Selection::Nothing, |prompt| Selection::Pending(prompt.id))
    }

    /// The identities of the rows from the top through the cursor: what the person has read.
    pub(super) fn rows_through_cursor(&self) -> Vec<(DecisionId, bool)> {
        match self.selected_row_index() {
            Some(index) => self.rows()[..=index].iter().map(Row::identity).collect(),
            None => Vec::new(),
        }
    }

    /// The gateway's reply to a command sent from here: says it, and once an answer has been
    /// taken, moves the cursor on from its prompt if it still stands there, ended.
    fn command_finished(
        &mut self,
        command: GatewayCommand,
        result: Result<PromptState, String>,
        now: Instant,
    ) {
        let answered = result.as_ref().is_ok_and(|state| state.has_verdict());
        let (tone, text) = outcome_notice(&command, result);
        if answered {
            self.say_ended(command.id, tone, text);
            if self.is_vanished_selection(command.id) {
                let rows_before = self.rows_through_cursor();
                self.selection = self.selection_after(command.id);
                self.detail_scroll = 0;
                if self.rows_through_cursor() != rows_before {
                    self.list_changed_at = Some(now);
                }
            }
        } else {
            self.say_about(Some(command.id), tone, text);
        }
    }
}
