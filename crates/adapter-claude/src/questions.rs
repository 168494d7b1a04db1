//! AskUserQuestion: Claude Code's questions become gatehouse questions with stable ids (`q1`,
//! `q2`, ...), and answers go back keyed by each question's text, as Claude Code expects. The
//! translation to text keys happens only here, at delivery.

use std::collections::HashSet;

use gatehouse_core::{Question, QuestionOption, QuestionResponse};
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Deserialize)]
struct RawQuestion {
    question: String,
    #[serde(default)]
    header: String,
    #[serde(default, rename = "multiSelect")]
    multi_select: bool,
    options: Vec<RawOption>,
}

#[derive(Deserialize)]
struct RawOption {
    label: String,
    #[serde(default)]
    description: String,
}

/// Reads the questions of an AskUserQuestion input. An error is the reason the prompt cannot be
/// answered safely, so it becomes read-only.
pub fn from_input(input: &Value) -> Result<Vec<Question>, String> {
    let raw = input
        .get("questions")
        .cloned()
        .ok_or("the input has no `questions`; answer it in the terminal")?;
    let raw: Vec<RawQuestion> = serde_json::from_value(raw).map_err(|error| {
        format!("the questions could not be read ({error}); answer them in the terminal")
    })?;
    if raw.is_empty() {
        return Err("the prompt has no questions; answer it in the terminal".into());
    }
    let mut texts = HashSet::new();
    if let Some(repeated) = raw
        .iter()
        .find(|question| !texts.insert(question.question.as_str()))
    {
        return Err(format!(
            "two questions share the text \"{}\", and Claude Code keys answers by text, so one would be lost; answer them in the terminal",
            repeated.question
        ));
    }
    Ok(raw
        .into_iter()
        .enumerate()
        .map(|(index, question)| Question {
            id: format!("q{}", index + 1),
            text: question.question,
            header: question.header,
            multi: question.multi_select,
            options: question
                .options
                .into_iter()
                .map(|option| QuestionOption {
                    label: option.label,
                    description: option.description,
                })
                .collect(),
        })
        .collect())
}

/// The `answers` object Claude Code reads: each question's text to the chosen labels joined with
/// ", ", followed by any free text.
pub fn answers_by_text(
    questions: &[Question],
    responses: &[QuestionResponse],
) -> Map<String, Value> {
    let mut answers = Map::new();
    for response in responses {
        let Some(question) = questions
            .iter()
            .find(|question| question.id == response.question)
        else {
            continue;
        };
        let text = response
            .text
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty());
        let parts: Vec<&str> = response
            .picks
            .iter()
            .map(String::as_str)
            .chain(text)
            .collect();
        answers.insert(question.text.clone(), Value::String(parts.join(", ")));
    }
    answers
}
