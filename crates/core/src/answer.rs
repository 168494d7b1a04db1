//! Answers from front ends, and the verdicts the arbiter hands to a waiting hook once an answer
//! has been checked against the prompt.

use serde::{Deserialize, Serialize};

use crate::capability::Action;

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
    Answer { responses: Vec<QuestionResponse> },
}

impl Answer {
    pub fn action(&self) -> Action {
        match self {
            Answer::Once => Action::Once,
            Answer::Deny { .. } => Action::Deny,
            Answer::Answer { .. } => Action::Answer,
        }
    }
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
