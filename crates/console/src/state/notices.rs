//! The one-line notice at the bottom of the screen, and when it stops being true.
//!
//! A notice carries the prompt it is about and the moment it was first drawn. It goes:
//! - when it was about a pending prompt ("not approved: scroll first", a refusal, "sending…")
//!   and that prompt is pending no more;
//! - when it tells how a prompt ended ("Allowed once: …", "that prompt has gone") and another
//!   prompt is answered since;
//! - [`NOTICE_LIFETIME`] after it was first drawn, unless an answer it announces is still on
//!   its way.

use std::time::{Duration, Instant};

use gatehouse_core::DecisionId;

use super::{ConsoleState, Selection};

/// How long a notice stays on screen at most.
pub const NOTICE_LIFETIME: Duration = Duration::from_secs(8);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Info,
    Success,
    Warning,
    Error,
}

/// Which prompt a notice is about, and so when it stops being true.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About {
    /// No prompt (the gateway is away, nothing to act on).
    Nothing,
    /// A prompt that was pending when the notice was made: true only while it is.
    Pending(DecisionId),
    /// A prompt that had ended (answered or gone) when the notice was made: how it ended.
    Ended(DecisionId),
}

/// The one-line message at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub tone: Tone,
    pub about: About,
    /// When it was first drawn ([`ConsoleState::tick`] stamps it).
    pub shown_at: Option<Instant>,
}

impl ConsoleState {
    /// Shows `text` as the notice about the selected prompt.
    pub(crate) fn say(&mut self, tone: Tone, text: impl Into<String>) {
        let about = self.selected_id();
        self.say_about(about, tone, text);
    }

    /// Shows `text` as the notice that tells how the prompt with this id ended.
    pub(crate) fn say_ended(&mut self, id: DecisionId, tone: Tone, text: impl Into<String>) {
        self.say_about(None, tone, text);
        if let Some(notice) = &mut self.notice {
            notice.about = About::Ended(id);
        }
    }

    /// Shows `text` as the notice about the prompt with id `about`, if any.
    pub(crate) fn say_about(
        &mut self,
        about: Option<DecisionId>,
        tone: Tone,
        text: impl Into<String>,
    ) {
        let about = match about {
            None => About::Nothing,
            Some(id) if self.pending_prompt(id).is_some() => About::Pending(id),
            Some(id) => About::Ended(id),
        };
        self.notice = Some(Notice {
            text: text.into(),
            tone,
            about,
            shown_at: None,
        });
    }

    /// Called before each drawing: stamps a new notice with `now` and drops one that has been
    /// on screen for [`NOTICE_LIFETIME`] (or stopped being true).
    pub fn tick(&mut self, now: Instant) {
        if let Some(notice) = &mut self.notice {
            let shown_at = *notice.shown_at.get_or_insert(now);
            let awaited = match notice.about {
                About::Pending(id) => self.awaiting_reply.contains(&id),
                _ => false,
            };
            if !awaited && now.saturating_duration_since(shown_at) >= NOTICE_LIFETIME {
                self.notice = None;
            }
        }
        self.forget_stale_notice(None);
    }

    /// Drops the notice if the prompt it was about is pending no more, or, for one that tells
    /// how a prompt ended, if `answered` (another prompt that was just answered) says so.
    pub(super) fn forget_stale_notice(&mut self, answered: Option<DecisionId>) {
        let stale = match self.notice.as_ref().map(|notice| notice.about) {
            Some(About::Pending(id)) => self.pending_prompt(id).is_none(),
            Some(About::Ended(id)) => answered.is_some_and(|answered| answered != id),
            _ => false,
        };
        if stale {
            self.notice = None;
        }
    }

    /// Whether the prompt with this id is the selected one that has gone.
    pub(super) fn is_vanished_selection(&self, id: DecisionId) -> bool {
        matches!(&self.selection, Selection::Vanished(vanished) if vanished.prompt.id == id)
    }
}
