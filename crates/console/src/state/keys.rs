//! Key handling for the console's state: browsing the list, the deny message editor and the
//! answer form. Every key that would act checks the selection first (gone, read-only, settling,
//! already answered) and says in the notice line why it did nothing.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use gatehouse_core::{Action, AlwaysScope, Answer, DecisionId, Prompt, Suggestion};

use super::{
    action_word, answers_in_words, request_word, short, ConnectionState, ConsoleState,
    GatewayCommand, GatewayRequest, Intent, Mode, Row, Selection, Tone,
};
use crate::answer_form::{AnswerForm, FormOutcome};

/// The scope `A` keeps `suggestion` for: this session, or the first scope it allows when it
/// cannot be kept for the session (Codex's rules: every project, from its next session on).
pub fn always_scope(suggestion: &Suggestion) -> AlwaysScope {
    match suggestion.scopes.first() {
        Some(first) if !suggestion.scopes.contains(&AlwaysScope::Session) => *first,
        _ => AlwaysScope::Session,
    }
}

impl ConsoleState {
    pub fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Intent {
        if key.kind == KeyEventKind::Release {
            return Intent::Nothing;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d'))
        {
            return Intent::Quit;
        }
        match std::mem::replace(&mut self.mode, Mode::Browsing) {
            Mode::Browsing => self.browsing_key(key, now),
            Mode::DenyMessage { id, message } => self.deny_message_key(key, id, message),
            Mode::Answering(form) => self.answering_key(key, form),
        }
    }

    fn browsing_key(&mut self, key: KeyEvent, now: Instant) -> Intent {
        match key.code {
            KeyCode::Char('q') => Intent::Quit,
            KeyCode::Up | KeyCode::Char('k') => {
                self.move_cursor(-1);
                Intent::Nothing
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.move_cursor(1);
                Intent::Nothing
            }
            KeyCode::Home | KeyCode::Char('g') => {
                self.move_cursor(-(self.prompts.len() as isize) - 1);
                Intent::Nothing
            }
            KeyCode::End | KeyCode::Char('G') => {
                self.move_cursor(self.prompts.len() as isize + 1);
                Intent::Nothing
            }
            KeyCode::PageDown => {
                self.page(true);
                Intent::Nothing
            }
            KeyCode::PageUp => {
                self.page(false);
                Intent::Nothing
            }
            KeyCode::Char('o') => self.action_key(Action::Once, now),
            KeyCode::Char('d') => self.action_key(Action::Deny, now),
            KeyCode::Char('a') | KeyCode::Enter => self.action_key(Action::Answer, now),
            KeyCode::Char('r') => self.release_key(now),
            KeyCode::Char('A') => self.action_key(Action::Always, now),
            KeyCode::Char('t') => self.pane_key(),
            _ => Intent::Nothing,
        }
    }

    /// Scrolls the detail pane by exactly the height it was last drawn with, and no further than
    /// its last page: no line is skipped and no empty page shown.
    /// Before the selected prompt was drawn, it moves one line.
    fn page(&mut self, down: bool) {
        let drawn = self.detail_drawn.borrow().clone();
        let selected = self.selected_id();
        let scroll = match drawn.filter(|drawn| Some(drawn.id) == selected) {
            Some(drawn) => {
                let from = usize::from(self.detail_scroll).min(drawn.last_scroll());
                let step = drawn.height.max(1);
                if down {
                    (from + step).min(drawn.last_scroll())
                } else {
                    from.saturating_sub(step)
                }
            }
            None if down => usize::from(self.detail_scroll) + 1,
            None => usize::from(self.detail_scroll).saturating_sub(1),
        };
        self.detail_scroll = u16::try_from(scroll).unwrap_or(u16::MAX);
    }

    /// Moves the cursor by `step` rows, clamped to the list. Leaving a vanished prompt forgets it.
    fn move_cursor(&mut self, step: isize) {
        let rows = self.rows();
        let Some(current) = self.selected_row_index() else {
            self.selection = self.first_prompt_selection();
            return;
        };
        let target = (current as isize + step).clamp(0, rows.len() as isize - 1) as usize;
        let Row::Pending(target_prompt) = rows[target] else {
            return;
        };
        let target_id = target_prompt.id;
        if self.selected_id() != Some(target_id) {
            self.detail_scroll = 0;
            self.notice = None;
        }
        self.selection = Selection::Pending(target_id);
    }

    /// Checks that the selected prompt can take an action now, and says why not when it cannot.
    fn checked_selection(&mut self, wanted: &str, now: Instant) -> Option<Prompt> {
        let refusal = match &self.selection {
            Selection::Nothing => Some(("There is no prompt to act on.".to_owned(), Tone::Info)),
            Selection::Vanished(vanished) => Some((
                format!(
                    "That prompt {} ({}); nothing was sent. Move the cursor to choose another.",
                    vanished.went(),
                    vanished.reason
                ),
                Tone::Warning,
            )),
            Selection::Pending(_) => None,
        };
        if let Some((text, tone)) = refusal {
            self.say(tone, text);
            return None;
        }
        let prompt = self.selected_pending_prompt()?.clone();
        if prompt.is_read_only() {
            // Why is at the end of the detail, in full; the notice's two lines would cut it.
            self.say(
                Tone::Warning,
                "This prompt is read-only: answer it in the agent's terminal; nothing was sent. Why is at the end of its detail.",
            );
            return None;
        }
        if self.is_settling(now) {
            // Pressed again before the wait ended: the wait starts over.
            self.list_changed_at = Some(now);
            self.say(Tone::Warning, format!("The list just changed under the cursor: {wanted} was ignored. Read the selected prompt; its keys work once nothing has been pressed for 2 s."));
            return None;
        }
        if self.awaiting_reply.contains(&prompt.id) {
            self.say(
                Tone::Info,
                "An answer to this prompt is already on its way; waiting for the gateway.",
            );
            return None;
        }
        Some(prompt)
    }

    fn action_key(&mut self, action: Action, now: Instant) -> Intent {
        let Some(prompt) = self.checked_selection(action_word(action), now) else {
            return Intent::Nothing;
        };
        if !prompt.actions.contains(&action) {
            let offered = prompt
                .actions
                .iter()
                .map(|action| action_word(*action))
                .collect::<Vec<_>>()
                .join(", ");
            self.say(
                Tone::Info,
                format!(
                    "This prompt does not offer {}; it offers: {offered}.",
                    action_word(action)
                ),
            );
            return Intent::Nothing;
        }
        if matches!(action, Action::Once | Action::Always) {
            if let Some(why) = self.not_seen_whole(&prompt) {
                self.say(Tone::Warning, format!("Not approved: {why}"));
                return Intent::Nothing;
            }
        }
        match action {
            Action::Once => self.send(&prompt, GatewayRequest::Answer(Answer::Once)),
            Action::Deny => {
                self.mode = Mode::DenyMessage {
                    id: prompt.id,
                    message: String::new(),
                };
                self.notice = None;
                Intent::Nothing
            }
            Action::Answer => {
                self.mode = Mode::Answering(AnswerForm::new(prompt.id, &prompt.prompt.questions));
                self.notice = None;
                Intent::Nothing
            }
            // For this session (or, for a suggestion that cannot be kept for the session, its
            // first scope), by the agent's first suggestion, named so that the gateway checks
            // exactly that one; other scopes are `gatehouse answer ID always --scope`.
            Action::Always => match prompt.prompt.extra.suggestions.first() {
                Some(suggestion) => {
                    let answer = Answer::Always {
                        suggestion: Some(suggestion.id.clone()),
                        scope: always_scope(suggestion),
                    };
                    self.send(&prompt, GatewayRequest::Answer(answer))
                }
                None => Intent::Nothing,
            },
        }
    }

    /// Why approving `prompt` here would approve something the person was not shown: a prompt
    /// the gateway sent cut, or a detail pane with a line not drawn yet.
    fn not_seen_whole(&self, prompt: &Prompt) -> Option<String> {
        if !crate::output::detail_shows_whole(prompt) {
            let id = crate::output::shown_id(prompt);
            return Some(format!(
                "this prompt came cut, longer than the gateway sends whole; read it with `gatehouse show {id}` and approve it there with the --seen it prints."
            ));
        }
        match &*self.detail_drawn.borrow() {
            Some(drawn) if drawn.id == prompt.id && !drawn.all_seen() => Some(
                "not every line of the detail has been on screen; scroll it to the end (PgDn) and press the key again.".into(),
            ),
            _ => None,
        }
    }

    /// Whether the selected prompt's agent runs in a pane of the console's own tmux server.
    pub fn can_switch_to_pane(&self) -> bool {
        self.pane_target().is_some()
    }

    fn pane_target(&self) -> Option<(String, String)> {
        let terminal = self
            .selected_pending_prompt()?
            .prompt
            .extra
            .terminal
            .as_ref()?;
        let own = self.own_tmux_socket.as_deref()?;
        (!terminal.tmux_pane.is_empty() && terminal.tmux_socket == own)
            .then(|| (terminal.tmux_socket.clone(), terminal.tmux_pane.clone()))
    }

    fn pane_key(&mut self) -> Intent {
        if let Some((socket, pane)) = self.pane_target() {
            return Intent::SwitchPane { socket, pane };
        }
        let where_ = self
            .selected_pending_prompt()
            .and_then(|prompt| prompt.prompt.extra.terminal.as_ref())
            .map(|terminal| gatehouse_core::text::visible(&terminal.describe()).into_owned());
        self.say(Tone::Info, match where_ {
                Some(where_) if !where_.is_empty() => format!("The agent runs in {where_}, not in this console's tmux server: switch there by hand."),
                _ => "The agent's hook did not say which terminal it runs in.".into(),
            });
        Intent::Nothing
    }

    fn release_key(&mut self, now: Instant) -> Intent {
        match self.checked_selection("release", now) {
            Some(prompt) => self.send(&prompt, GatewayRequest::Release),
            None => Intent::Nothing,
        }
    }

    fn send(&mut self, prompt: &Prompt, request: GatewayRequest) -> Intent {
        self.send_for(prompt.id, prompt.prompt.summary.clone(), request)
    }

    /// Sends a command for `id` unless that prompt has gone or the gateway is away.
    fn send_for(&mut self, id: DecisionId, summary: String, request: GatewayRequest) -> Intent {
        if let Some(vanished) = self.vanished(id) {
            self.say_about(
                Some(id),
                Tone::Warning,
                format!(
                    "That prompt {} ({}); nothing was sent.",
                    vanished.went(),
                    vanished.reason
                ),
            );
            return Intent::Nothing;
        }
        if self.pending_prompt(id).is_none() {
            self.say_about(
                Some(id),
                Tone::Warning,
                "That prompt is no longer pending; nothing was sent.",
            );
            return Intent::Nothing;
        }
        if !matches!(self.connection, ConnectionState::Connected { .. }) {
            self.say_about(
                Some(id),
                Tone::Error,
                "The gateway is not connected; nothing was sent.",
            );
            return Intent::Nothing;
        }
        self.awaiting_reply.push(id);
        if matches!(request, GatewayRequest::Answer(_)) {
            if self.answered_here.len() == super::ANSWERED_HERE_KEPT {
                self.answered_here.remove(0);
            }
            self.answered_here.push(id);
        }
        self.say_about(
            Some(id),
            Tone::Info,
            format!(
                "Sending {} for: {}",
                request_word(&request),
                short(&summary)
            ),
        );
        Intent::Send(GatewayCommand {
            id,
            request,
            summary,
        })
    }

    fn deny_message_key(&mut self, key: KeyEvent, id: DecisionId, mut message: String) -> Intent {
        match key.code {
            KeyCode::Esc => {
                self.say(Tone::Info, "Deny cancelled; nothing was sent.");
                Intent::Nothing
            }
            KeyCode::Enter => {
                let summary = self
                    .known_prompt(id)
                    .map(|prompt| prompt.prompt.summary.clone())
                    .unwrap_or_default();
                let message = Some(message.trim().to_owned()).filter(|message| !message.is_empty());
                self.send_for(
                    id,
                    summary,
                    GatewayRequest::Answer(Answer::Deny { message }),
                )
            }
            KeyCode::Backspace => {
                message.pop();
                self.mode = Mode::DenyMessage { id, message };
                Intent::Nothing
            }
            KeyCode::Char(character) => {
                message.push(character);
                self.mode = Mode::DenyMessage { id, message };
                Intent::Nothing
            }
            _ => {
                self.mode = Mode::DenyMessage { id, message };
                Intent::Nothing
            }
        }
    }

    fn answering_key(&mut self, key: KeyEvent, mut form: AnswerForm) -> Intent {
        let questions = self
            .known_prompt(form.id)
            .map(|prompt| prompt.prompt.questions.clone())
            .unwrap_or_default();
        let picks_or_sends = matches!(
            key.code,
            KeyCode::Enter | KeyCode::Char(_) | KeyCode::Backspace
        );
        if picks_or_sends && !self.focused_options_drawn(&form) {
            self.say(Tone::Warning, "The options of this question are not on screen yet; nothing was chosen or sent. Look at them and press the key again.");
            self.mode = Mode::Answering(form);
            return Intent::Nothing;
        }
        match form.handle_key(key, &questions) {
            FormOutcome::Editing => {
                self.mode = Mode::Answering(form);
                Intent::Nothing
            }
            FormOutcome::Cancelled => {
                self.say(Tone::Info, "Answer cancelled; nothing was sent.");
                Intent::Nothing
            }
            FormOutcome::Incomplete(problem) => {
                self.say(Tone::Warning, problem);
                self.mode = Mode::Answering(form);
                Intent::Nothing
            }
            FormOutcome::Submitted(responses) => {
                let id = form.id;
                let summary = self
                    .known_prompt(id)
                    .map(|prompt| prompt.prompt.summary.clone())
                    .unwrap_or_default();
                let intent = self.send_for(
                    id,
                    summary,
                    GatewayRequest::Answer(Answer::Answer { responses }),
                );
                if let Intent::Send(command) = &intent {
                    if let GatewayRequest::Answer(Answer::Answer { responses }) = &command.request {
                        self.say(
                            Tone::Info,
                            format!("Sending the answer: {}", answers_in_words(responses)),
                        );
                    }
                }
                if intent == Intent::Nothing {
                    // Keep the form open over a prompt that is gone, so that typing goes on landing
                    // in it rather than on action keys; Esc closes it.
                    self.mode = Mode::Answering(form);
                }
                intent
            }
        }
    }

    /// Whether the last drawing showed the options of the question that has the cursor, with
    /// the cursor where it is now (nothing drawn yet, as in tests of the rules alone, holds
    /// nothing back).
    fn focused_options_drawn(&self, form: &AnswerForm) -> bool {
        match &*self.detail_drawn.borrow() {
            None => true,
            Some(drawn) => {
                drawn.id == form.id
                    && drawn.answer_focus == Some((form.question_index, form.row, true))
            }
        }
    }
}
