//! Answers from front ends, and the verdicts the arbiter hands to a waiting hook once an answer
//! has been checked against the prompt.

use serde::{Deserialize, Serialize};

use std::collections::HashSet;

use crate::capability::Action;
use crate::prompt::Prompt;

/// One question's answer: chosen option labels, free text, or both for a multi-select question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionResponse {
    /// gatehouse's question id (`q1`, ...).
    pub question: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub picks: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// What a front end asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Answer {
    Once,
    Deny {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    Answer {
        responses: Vec<QuestionResponse>,
    },
    /// Allow this call and stop asking for calls like it, by one of the agent's own suggestions
    /// (`NewPrompt::extra.suggestions`). With no suggestion named, the prompt's only one; the
    /// arbiter fills it in, so a verdict always names it.
    Always {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        suggestion: Option<String>,
        #[serde(default)]
        scope: AlwaysScope,
    },
}

/// Where an `always` answer is kept, as the person chose.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlwaysScope {
    /// For the agent's current session only; nothing is written.
    #[default]
    Session,
    /// For this project (the agent's project settings).
    Project,
    /// For every project of this user (the agent's user settings).
    User,
}

impl AlwaysScope {
    pub fn as_str(self) -> &'static str {
        match self {
            AlwaysScope::Session => "session",
            AlwaysScope::Project => "project",
            AlwaysScope::User => "user",
        }
    }
}

impl Answer {
    pub fn action(&self) -> Action {
        match self {
            Answer::Once => Action::Once,
            Answer::Deny { .. } => Action::Deny,
            Answer::Answer { .. } => Action::Answer,
            Answer::Always { .. } => Action::Always,
        }
    }
}

/// What an agent tells its model when the person denies without a message of their own.
pub const DEFAULT_DENY_MESSAGE: &str =
    "The person denied this from gatehouse. Do not retry it; ask them what to do instead.";

/// The message a deny carries to the agent's model: the person's, trimmed, or
/// [`DEFAULT_DENY_MESSAGE`] when they gave none (or only blanks).
pub fn deny_message(message: &Option<String>) -> &str {
    message
        .as_deref()
        .map(str::trim)
        .filter(|message| !message.is_empty())
        .unwrap_or(DEFAULT_DENY_MESSAGE)
}

/// A checked answer, as delivered to the hook. Its shape is the answer's: the difference is that
/// a verdict exists only after the arbiter accepted the answer for a pending prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Verdict(pub Answer);

impl Verdict {
    /// Whether delivering this verdict lets the agent go ahead.
    pub fn allows(&self) -> bool {
        !matches!(self.0, Answer::Deny { .. })
    }
}

/// Checks a question answer: every question answered once, by known labels or text, and a
/// single-choice question with exactly one choice.
pub(crate) fn check_responses(
    prompt: &Prompt,
    responses: &[QuestionResponse],
) -> Result<(), String> {
    let questions = &prompt.prompt.questions;
    let mut answered = HashSet::new();
    for response in responses {
        let question = questions
            .iter()
            .find(|question| question.id == response.question)
            .ok_or_else(|| {
                format!(
                    "there is no question `{}`; this prompt has {}",
                    response.question,
                    question_ids(prompt)
                )
            })?;
        if !answered.insert(question.id.as_str()) {
            return Err(format!("question `{}` is answered twice", question.id));
        }
        for pick in &response.picks {
            if !question.options.iter().any(|option| option.label == *pick) {
                let labels = question
                    .options
                    .iter()
                    .map(|option| format!("`{}`", option.label))
                    .collect::<Vec<_>>();
                return Err(format!(
                    "`{pick}` is not an option of `{}`; its options are {}",
                    question.id,
                    labels.join(", ")
                ));
            }
        }
        let text = response
            .text
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty());
        let choices = response.picks.len() + usize::from(text.is_some());
        if choices == 0 {
            return Err(format!(
                "question `{}` has neither a pick nor text",
                question.id
            ));
        }
        if !question.multi && choices > 1 {
            return Err(format!(
                "question `{}` takes one choice, and the answer has {choices}",
                question.id
            ));
        }
    }
    if let Some(missing) = questions
        .iter()
        .find(|question| !answered.contains(question.id.as_str()))
    {
        return Err(format!(
            "question `{}` ({}) has no answer; every question needs one",
            missing.id, missing.text
        ));
    }
    Ok(())
}

fn question_ids(prompt: &Prompt) -> String {
    prompt
        .prompt
        .questions
        .iter()
        .map(|question| format!("`{}`", question.id))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks an `always` answer: its suggestion must be one of the prompt's, and with none named
/// the prompt must have exactly one. Returns the suggestion's id.
pub(crate) fn check_suggestion(
    prompt: &Prompt,
    named: Option<&str>,
    scope: AlwaysScope,
) -> Result<String, String> {
    let suggestions = &prompt.prompt.extra.suggestions;
    let ids = || {
        suggestions
            .iter()
            .map(|suggestion| format!("`{}`", suggestion.id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match named {
        Some(id) if suggestions.iter().any(|suggestion| suggestion.id == id) => id.to_owned(),
        Some(id) => {
            return Err(format!(
                "there is no suggestion `{id}`; this prompt has {}",
                ids()
            ))
        }
        None => match suggestions.as_slice() {
            [only] => only.id.clone(),
            [] => return Err("this prompt has no suggestion to allow from now on".into()),
            _ => {
                return Err(format!(
                    "this prompt has several suggestions; name one of {}",
                    ids()
                ))
            }
        },
    };
    let suggestion = suggestions
        .iter()
        .find(|suggestion| suggestion.id == chosen)
        .expect("chosen among them");
    if !suggestion.scopes.is_empty() && !suggestion.scopes.contains(&scope) {
        let scopes: Vec<&str> = suggestion
            .scopes
            .iter()
            .map(|scope| scope.as_str())
            .collect();
        return Err(format!(
            "suggestion `{chosen}` can be kept for {} only, not for {}",
            scopes.join(", "),
            scope.as_str()
        ));
    }
    Ok(chosen)
}
