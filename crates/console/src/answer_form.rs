//! The form for answering a question prompt: one draft per question, the options chosen and any
//! free text, with a cursor over the options and the free-text row. No I/O.
//!
//! A single-choice question takes exactly one answer, so choosing an option clears the text and
//! typing text clears the option; a multi-select question takes any options and text together.

use crossterm::event::{KeyCode, KeyEvent};
use gatehouse_core::{DecisionId, Question, QuestionResponse};

/// What the person has chosen for one question so far.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QuestionDraft {
    /// One flag per option, in the question's order.
    pub chosen: Vec<bool>,
    /// Their own words.
    pub text: String,
}

/// The answers being filled in for the prompt with decision id `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerForm {
    pub id: DecisionId,
    /// The question that has the cursor.
    pub question_index: usize,
    /// The row that has the cursor: an option's index, or the number of options for the
    /// free-text row.
    pub row: usize,
    pub drafts: Vec<QuestionDraft>,
}

/// What a key did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormOutcome {
    Editing,
    Cancelled,
    /// Enter was pressed but a question has no answer yet; the words say which.
    Incomplete(String),
    Submitted(Vec<QuestionResponse>),
}

impl AnswerForm {
    pub fn new(id: DecisionId, questions: &[Question]) -> Self {
        let drafts = questions
            .iter()
            .map(|question| QuestionDraft {
                chosen: vec![false; question.options.len()],
                text: String::new(),
            })
            .collect();
        AnswerForm {
            id,
            question_index: 0,
            row: 0,
            drafts,
        }
    }

    /// Whether the cursor is on the free-text row of the current question.
    pub fn on_text_row(&self, questions: &[Question]) -> bool {
        questions
            .get(self.question_index)
            .is_some_and(|question| self.row >= question.options.len())
    }

    pub fn handle_key(&mut self, key: KeyEvent, questions: &[Question]) -> FormOutcome {
        let Some(question) = questions.get(self.question_index) else {
            return match key.code {
                KeyCode::Esc => FormOutcome::Cancelled,
                _ => FormOutcome::Editing,
            };
        };
        let on_text_row = self.on_text_row(questions);
        match key.code {
            KeyCode::Esc => return FormOutcome::Cancelled,
            KeyCode::Enter => {
                // As in the agent's own dialog, Enter picks the option under the cursor of a
                // question that has no answer yet, or of a single-choice question.
                let draft = &self.drafts[self.question_index];
                let unanswered = draft.text.trim().is_empty() && !draft.chosen.contains(&true);
                if !on_text_row && (unanswered || !question.multi) {
                    self.choose(self.row, question.multi);
                }
                return match self.responses(questions) {
                    Ok(responses) => FormOutcome::Submitted(responses),
                    Err((index, problem)) => {
                        self.go_to_question(index, questions);
                        FormOutcome::Incomplete(problem)
                    }
                };
            }
            KeyCode::Up => self.row = self.row.saturating_sub(1),
            KeyCode::Down => self.row = (self.row + 1).min(question.options.len()),
            KeyCode::Tab => self.go_to_question(self.question_index + 1, questions),
            KeyCode::BackTab => {
                self.go_to_question(self.question_index.saturating_sub(1), questions)
            }
            KeyCode::Right if !on_text_row => {
                self.go_to_question(self.question_index + 1, questions)
            }
            KeyCode::Left if !on_text_row => {
                self.go_to_question(self.question_index.saturating_sub(1), questions)
            }
            KeyCode::Char(' ') if !on_text_row => self.choose(self.row, question.multi),
            KeyCode::Char(character) if on_text_row => {
                self.type_character(character, question.multi)
            }
            KeyCode::Backspace if on_text_row => {
                self.drafts[self.question_index].text.pop();
            }
            _ => {}
        }
        FormOutcome::Editing
    }

    fn go_to_question(&mut self, index: usize, questions: &[Question]) {
        if index < questions.len() && index != self.question_index {
            self.question_index = index;
            self.row = 0;
        }
    }

    /// Selects an option of a single-choice question, or toggles one of a multi-select question.
    fn choose(&mut self, option: usize, multi: bool) {
        let draft = &mut self.drafts[self.question_index];
        if multi {
            draft.chosen[option] = !draft.chosen[option];
        } else {
            draft.chosen.iter_mut().for_each(|chosen| *chosen = false);
            draft.chosen[option] = true;
            draft.text.clear();
        }
    }

    fn type_character(&mut self, character: char, multi: bool) {
        let draft = &mut self.drafts[self.question_index];
        draft.text.push(character);
        if !multi {
            draft.chosen.iter_mut().for_each(|chosen| *chosen = false);
        }
    }

    /// The answers, or the first question that still has none (its index, and words).
    pub fn responses(
        &self,
        questions: &[Question],
    ) -> Result<Vec<QuestionResponse>, (usize, String)> {
        questions
            .iter()
            .zip(&self.drafts)
            .enumerate()
            .map(|(index, (question, draft))| {
                let picks: Vec<String> = question
                    .options
                    .iter()
                    .zip(&draft.chosen)
                    .filter(|(_, chosen)| **chosen)
                    .map(|(option, _)| option.label.clone())
                    .collect();
                let text = Some(draft.text.trim().to_owned()).filter(|text| !text.is_empty());
                if picks.is_empty() && text.is_none() {
                    return Err((index, format!(
                        "\"{}\" has no answer yet: choose an option (Enter or Space), or type on the last row.",
                        question.text
                    )));
                }
                Ok(QuestionResponse { question: question.id.clone(), picks, text })
            })
            .collect()
    }
}
