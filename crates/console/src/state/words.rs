//! The console's words for people: how a prompt ended, what the gateway said to a command, the
//! names of actions, and short forms of long texts.

use gatehouse_core::text::{truncate, visible, ELLIPSIS};
use gatehouse_core::{Action, AlwaysScope, Answer, PromptState, QuestionResponse};

use super::{GatewayCommand, GatewayRequest, Tone};

/// How a prompt stopped being pending, in words.
pub(super) fn ending_in_words(
    state: PromptState,
    by: Option<&str>,
    action: Option<Action>,
    reason: Option<&str>,
) -> String {
    let mut words = match action {
        Some(action) if state.has_verdict() => {
            format!("{}: {}", state.as_str(), action_word(action))
        }
        _ => state.as_str().to_owned(),
    };
    if let Some(by) = by {
        words.push_str(&format!(" by {by}"));
    }
    if let Some(reason) = reason {
        words.push_str(&format!(", {reason}"));
    }
    words
}

/// The notice for the gateway's reply to a command.
pub(super) fn outcome_notice(
    command: &GatewayCommand,
    result: Result<PromptState, String>,
) -> (Tone, String) {
    let summary = short(&command.summary);
    match result {
        Ok(_) => {
            let done = match &command.request {
                GatewayRequest::Answer(Answer::Once) => "Allowed once".to_owned(),
                GatewayRequest::Answer(Answer::Deny {
                    message: Some(message),
                }) => format!("Denied (\"{}\")", short(message)),
                GatewayRequest::Answer(Answer::Deny { message: None }) => "Denied".to_owned(),
                GatewayRequest::Answer(Answer::Answer { responses }) => {
                    return (
                        Tone::Success,
                        format!("Answered: {} ({summary})", answers_in_words(responses)),
                    );
                }
                // From when the rule counts is the suggestion's to say (Codex: its next
                // session), so not "from now on".
                GatewayRequest::Answer(Answer::Always { scope, .. }) => {
                    format!("Allowed, and always by its rule ({})", scope_words(*scope))
                }
                GatewayRequest::Release => "Handed back to the agent's terminal".to_owned(),
            };
            (Tone::Success, format!("{done}: {summary}"))
        }
        Err(words) => (
            Tone::Error,
            format!(
                "The gateway refused {}: {words}",
                request_word(&command.request)
            ),
        ),
    }
}

/// For how long, or where, an always rule is kept, in words: "for this session".
pub fn scope_words(scope: AlwaysScope) -> &'static str {
    match scope {
        AlwaysScope::Session => "for this session",
        AlwaysScope::Project => "for this project",
        AlwaysScope::User => "for every project",
    }
}

pub fn action_word(action: Action) -> &'static str {
    match action {
        Action::Once => "allow once",
        Action::Deny => "deny",
        Action::Answer => "answer",
        Action::Always => "always",
    }
}

pub(super) fn request_word(request: &GatewayRequest) -> &'static str {
    match request {
        GatewayRequest::Answer(answer) => action_word(answer.action()),
        GatewayRequest::Release => "release",
    }
}

/// The first line of a text, made visible and cut to a length that fits a notice; `…` says
/// that something was cut or that more lines follow.
pub fn short(text: &str) -> String {
    const WIDTH: usize = 60;
    match text.split_once('\n') {
        None => truncate(text, WIDTH),
        Some((first_line, _)) => truncate(&format!("{first_line}{ELLIPSIS}"), WIDTH),
    }
}

/// What an answer to a question prompt says, for a notice: the chosen labels and own words of
/// each question, made visible, `/` between questions (own words in quotes), cut to fit the notice lines.
pub fn answers_in_words(responses: &[QuestionResponse]) -> String {
    const WIDTH: usize = 120;
    let words = responses
        .iter()
        .map(|response| {
            let mut parts: Vec<String> = response
                .picks
                .iter()
                .map(|pick| visible(pick).into_owned())
                .collect();
            if let Some(text) = &response.text {
                parts.push(format!("\"{}\"", visible(text)));
            }
            parts.join(", ")
        })
        .collect::<Vec<_>>()
        .join(" / ");
    truncate(&words, WIDTH)
}
