//! The console's state, with no I/O: the pending prompts as the gateway last reported them, which
//! one the person has selected, what they are typing, and the connection's health.
//!
//! Keys go in through `ConsoleState::handle_key` (in `keys.rs`) and come out as an [`Intent`];
//! gateway news goes in through [`ConsoleState::apply_update`]. Time is handed in by the caller,
//! so every rule here can be driven by tests.
//!
//! Safety rules kept here:
//! - The selection follows a prompt's decision id, never a row number, and every command names the
//!   id it was drawn for.
//! - When the selected prompt goes away it stays on screen, marked gone, until the person moves;
//!   any action on it is refused with a notice and nothing is sent.
//! - When the rows at or above the cursor changed less than [`SETTLE_TIME`] ago, action keys are
//!   ignored and the person is asked to look again.
//! - What a prompt allows comes only from its own `actions`; a read-only prompt has no action keys.
//! - A notice goes once it stops being true: with the prompt it was about, on the next answer, or
//!   after a few seconds (`notices.rs`); gateway news is applied in `news.rs`.

use std::time::{Duration, Instant};

use gatehouse_core::{Action, AdapterCapabilities, DecisionId, Prompt, PromptState};

use super::answer_form::AnswerForm;
pub use super::messages::{Alert, GatewayCommand, GatewayRequest, GatewayUpdate, Intent};

mod keys;
mod news;
mod notices;
mod words;

pub use keys::always_scope;
pub use notices::{Notice, Tone};
use words::request_word;
pub use words::{action_word, answers_in_words, scope_words, short};

/// How long after the rows under the cursor changed that action keys are ignored.
/// Long enough to read what moved under the cursor (a second press of the same key 0.9 s after
/// an answer approved the prompt that had moved there, at 750 ms); a key pressed meanwhile starts
/// the wait again, so that a key held or pressed again and again never gets through.
pub const SETTLE_TIME: Duration = Duration::from_millis(2_000);

/// How many of its own answers the console remembers (see [`ConsoleState::answered_here`]).
pub const ANSWERED_HERE_KEPT: usize = 64;

/// The health of the connection to the gateway.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionState {
    Connecting,
    Connected {
        server: String,
    },
    Gone {
        reason: String,
        retry_at: Instant,
        attempt: u32,
    },
}

/// A prompt that was selected when it stopped being pending. It stays on screen, marked gone,
/// until the person moves the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct VanishedPrompt {
    pub prompt: Prompt,
    /// Its last known state, when the gateway said (not after a disconnect).
    pub state: Option<PromptState>,
    /// Why it went, in words.
    pub reason: String,
}

impl VanishedPrompt {
    /// Whether it went with a verdict (answered), rather than withdrawn, expired or released.
    pub fn has_verdict(&self) -> bool {
        self.state.is_some_and(PromptState::has_verdict)
    }

    /// How it went, in words: "was answered" or "has gone".
    pub fn went(&self) -> &'static str {
        if self.has_verdict() {
            "was answered"
        } else {
            "has gone"
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Selection {
    Nothing,
    Pending(DecisionId),
    Vanished(Box<VanishedPrompt>),
}

/// What the keys are doing right now.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Browsing,
    /// Typing the optional message of a deny for the prompt with this id.
    DenyMessage {
        id: DecisionId,
        message: String,
    },
    /// Filling in the answers to a question prompt.
    Answering(AnswerForm),
}

/// One row of the prompt list: a pending prompt, or the selected prompt that has gone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Row<'a> {
    Pending(&'a Prompt),
    Vanished(&'a VanishedPrompt),
}

impl<'a> Row<'a> {
    pub fn prompt(&self) -> &'a Prompt {
        match self {
            Row::Pending(prompt) => prompt,
            Row::Vanished(vanished) => &vanished.prompt,
        }
    }

    fn identity(&self) -> (DecisionId, bool) {
        match self {
            Row::Pending(prompt) => (prompt.id, true),
            Row::Vanished(vanished) => (vanished.prompt.id, false),
        }
    }
}

/// What the drawings of the detail pane showed of one prompt, in wrapped lines of the pane's
/// width. The view writes it each frame; paging and the approving keys read it.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailDrawn {
    pub id: DecisionId,
    /// The pane's inner width and height.
    pub width: u16,
    pub height: usize,
    /// How many wrapped lines the detail has, and the first one drawn last.
    pub total: usize,
    pub scroll: usize,
    /// For each wrapped line, whether some drawing showed it. Starts over when the prompt, the
    /// width or the number of lines changes (the lines are then not the same).
    pub seen: Vec<bool>,
    /// With the answer form open: the question and row that had the cursor in the last drawing,
    /// and whether that question's options were on screen.
    pub answer_focus: Option<(usize, usize, bool)>,
}

impl DetailDrawn {
    /// Whether every line of the detail has been on screen.
    pub fn all_seen(&self) -> bool {
        self.seen.iter().all(|seen| *seen)
    }

    /// The first line of the last page: scrolling further would show empty lines.
    pub fn last_scroll(&self) -> usize {
        self.total.saturating_sub(self.height)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleState {
    pub prompts: Vec<Prompt>,
    pub adapters: Vec<AdapterCapabilities>,
    pub selection: Selection,
    pub mode: Mode,
    pub connection: ConnectionState,
    pub notice: Option<Notice>,
    /// When the rows at or above the cursor last changed by something other than the person.
    pub list_changed_at: Option<Instant>,
    /// Prompts for which a command was sent and no reply has come yet.
    pub awaiting_reply: Vec<DecisionId>,
    /// The last prompts this console sent an answer for (at most [`ANSWERED_HERE_KEPT`]): when
    /// one of them ends with a verdict, the cursor moves on to the next pending prompt.
    pub answered_here: Vec<DecisionId>,
    /// How many lines the detail pane is scrolled down.
    pub detail_scroll: u16,
    /// What the drawings showed of the selected prompt's detail (see [`DetailDrawn`]).
    /// Approving keys need every line of what is approved to have been drawn (nothing
    /// recorded, as before the first drawing, holds nothing back).
    pub detail_drawn: std::cell::RefCell<Option<DetailDrawn>>,
    /// The socket of the tmux server the console runs in (from `TMUX`), if any: a prompt's pane
    /// in the same server can be switched to.
    pub own_tmux_socket: Option<String>,
}

impl Default for ConsoleState {
    fn default() -> Self {
        ConsoleState {
            prompts: Vec::new(),
            adapters: Vec::new(),
            selection: Selection::Nothing,
            mode: Mode::Browsing,
            connection: ConnectionState::Connecting,
            notice: None,
            list_changed_at: None,
            awaiting_reply: Vec::new(),
            answered_here: Vec::new(),
            detail_scroll: 0,
            detail_drawn: std::cell::RefCell::new(None),
            own_tmux_socket: None,
        }
    }
}

impl ConsoleState {
    /// The rows as shown: pending prompts oldest first, with the vanished selection in its place.
    pub fn rows(&self) -> Vec<Row<'_>> {
        let mut rows: Vec<Row<'_>> = self.prompts.iter().map(Row::Pending).collect();
        if let Selection::Vanished(vanished) = &self.selection {
            let position = self
                .prompts
                .iter()
                .filter(|prompt| prompt.id < vanished.prompt.id)
                .count();
            rows.insert(position, Row::Vanished(vanished));
        }
        rows
    }

    /// The index of the selected row in [`ConsoleState::rows`].
    pub fn selected_row_index(&self) -> Option<usize> {
        let selected_id = self.selected_id()?;
        self.rows()
            .iter()
            .position(|row| row.prompt().id == selected_id)
    }

    pub fn selected_id(&self) -> Option<DecisionId> {
        match &self.selection {
            Selection::Nothing => None,
            Selection::Pending(id) => Some(*id),
            Selection::Vanished(vanished) => Some(vanished.prompt.id),
        }
    }

    /// The selected prompt while it is still pending.
    pub fn selected_pending_prompt(&self) -> Option<&Prompt> {
        match &self.selection {
            Selection::Pending(id) => self.pending_prompt(*id),
            _ => None,
        }
    }

    /// The selected prompt, pending or gone.
    pub fn selected_prompt(&self) -> Option<&Prompt> {
        match &self.selection {
            Selection::Nothing => None,
            Selection::Pending(id) => self.pending_prompt(*id),
            Selection::Vanished(vanished) => Some(&vanished.prompt),
        }
    }

    pub fn pending_prompt(&self, id: DecisionId) -> Option<&Prompt> {
        self.prompts.iter().find(|prompt| prompt.id == id)
    }

    /// The prompt with this id, pending or the vanished selection.
    fn known_prompt(&self, id: DecisionId) -> Option<&Prompt> {
        self.pending_prompt(id).or_else(|| match &self.selection {
            Selection::Vanished(vanished) if vanished.prompt.id == id => Some(&vanished.prompt),
            _ => None,
        })
    }

    /// The vanished selection, if the prompt with this id is it.
    pub fn vanished(&self, id: DecisionId) -> Option<&VanishedPrompt> {
        match &self.selection {
            Selection::Vanished(vanished) if vanished.prompt.id == id => Some(vanished),
            _ => None,
        }
    }

    /// The actions the selected prompt offers: its own `actions`, so nothing for a read-only or a
    /// vanished prompt. Release goes with these: it is offered only when this is not empty.
    pub fn available_actions(&self) -> Vec<Action> {
        self.selected_pending_prompt()
            .map(|prompt| prompt.actions.clone())
            .unwrap_or_default()
    }

    /// Whether the rows under the cursor changed too recently for an action key to count.
    pub fn is_settling(&self, now: Instant) -> bool {
        self.list_changed_at
            .is_some_and(|changed| now.saturating_duration_since(changed) < SETTLE_TIME)
    }

    /// The capability flags of the adapter that raised a prompt, as `hello` reported them.
    pub fn adapter(&self, adapter_id: &str) -> Option<&AdapterCapabilities> {
        self.adapters
            .iter()
            .find(|adapter| adapter.adapter == adapter_id)
    }

    /// Why a prompt is read-only, in words: the gateway says so in every read-only prompt. Its
    /// closing advice to answer in the agent's terminal goes: the console says that itself.
    pub fn read_only_reason(&self, prompt: &Prompt) -> String {
        let reason = prompt
            .prompt
            .read_only_reason
            .as_deref()
            .unwrap_or("nothing is offered for it");
        let reason = [
            "; answer it in the agent's terminal",
            "; answer it in the terminal",
        ]
        .iter()
        .find_map(|advice| reason.strip_suffix(advice))
        .unwrap_or(reason);
        reason.to_owned()
    }
}

#[cfg(test)]
pub(super) mod tests;

#[cfg(test)]
mod extra_tests;

#[cfg(test)]
mod notice_tests;
