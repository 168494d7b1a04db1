//! The messages between the console's parts: what the connection task reports to the screen,
//! the commands the screen sends to the gateway, and what a key asks of the run loop. Data only.

use std::time::Duration;

use gatehouse_core::{AdapterCapabilities, Answer, DecisionId, Event, Prompt, PromptState};

/// The name the console gives itself to the gateway, shown as who answered.
pub const CLIENT_NAME: &str = "gatehouse-console";

/// What the connection task reports to the screen.
#[derive(Debug, Clone, PartialEq)]
pub enum GatewayUpdate {
    /// Connected and subscribed: the gateway's name, its adapters' capability flags, and every
    /// pending prompt.
    Connected {
        server: String,
        adapters: Vec<AdapterCapabilities>,
        snapshot: Vec<Prompt>,
    },
    /// A fresh list that replaces the current one (sent to a subscriber that fell behind).
    Snapshot { prompts: Vec<Prompt> },
    /// One live change (boxed: it is far larger than the other updates).
    Event(Box<Event>),
    /// The connection is lost, or could not be made; the next attempt comes after `retry_in`.
    Disconnected {
        reason: String,
        retry_in: Duration,
        attempt: u32,
    },
    /// The gateway's reply to a command: the prompt's new state, or the refusal in words.
    CommandFinished {
        command: GatewayCommand,
        result: Result<PromptState, String>,
    },
}

/// A request to the gateway, always bound to the decision id it was drawn for.
#[derive(Debug, Clone, PartialEq)]
pub struct GatewayCommand {
    pub id: DecisionId,
    pub request: GatewayRequest,
    /// The prompt's one-line summary, for the notices about this command.
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GatewayRequest {
    Answer(Answer),
    Release,
}

/// What the run loop should do after a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    Nothing,
    Send(GatewayCommand),
    Quit,
    /// Switch the person's tmux client to the pane of the selected prompt's agent
    /// (`tmux -S SOCKET switch-client -t PANE`).
    SwitchPane {
        socket: String,
        pane: String,
    },
}

/// A desktop notification to raise (when the person asked for them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub title: String,
    pub body: String,
}
