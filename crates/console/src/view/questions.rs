//! A question prompt's questions and options in the detail pane, each named by the agent's own
//! header; with the answer form open, what is chosen and where the cursor is.

use gatehouse_core::text::visible;
use gatehouse_core::Prompt;
use ratatui::style::Stylize;
use ratatui::text::Line;

use super::detail_pane::AnswerFocus;
use crate::answer_form::AnswerForm;

/// The questions and their options; with the form open, what is chosen and where the cursor is.
pub(super) fn question_lines(
    prompt: &Prompt,
    form: Option<&AnswerForm>,
) -> (Vec<Line<'static>>, Option<AnswerFocus>) {
    let mut lines = Vec::new();
    let mut focus = None;
    for (question_index, question) in prompt.prompt.questions.iter().enumerate() {
        let focused = form.is_some_and(|form| form.question_index == question_index);
        let start = lines.len();
        let choose = crate::output::how_many_to_choose(question);
        // The agent's own header names the question (its id is for scripts); a question
        // without one is named by its text alone.
        let header = if question.header.is_empty() {
            String::new()
        } else {
            format!("{}: ", visible(&question.header))
        };
        let heading = format!(
            "{}{header}{} ({choose})",
            if focused { "▸ " } else { "" },
            visible(&question.text)
        );
        lines.push(Line::raw(heading).bold());
        let draft = form.and_then(|form| form.drafts.get(question_index));
        for (option_index, option) in question.options.iter().enumerate() {
            let cursor = if focused && form.is_some_and(|form| form.row == option_index) {
                "> "
            } else {
                "  "
            };
            let mark = match (draft, question.multi) {
                (None, _) => "-".to_owned(),
                (Some(draft), true) => if draft.chosen[option_index] {
                    "[x]"
                } else {
                    "[ ]"
                }
                .to_owned(),
                (Some(draft), false) => if draft.chosen[option_index] {
                    "(•)"
                } else {
                    "( )"
                }
                .to_owned(),
            };
            let description = if option.description.is_empty() {
                String::new()
            } else {
                format!(": {}", visible(&option.description))
            };
            lines.push(Line::raw(format!(
                "  {cursor}{mark} {}{description}",
                visible(&option.label)
            )));
        }
        if let Some(draft) = draft {
            let on_text_row =
                focused && form.is_some_and(|form| form.row == question.options.len());
            let cursor = if on_text_row { "> " } else { "  " };
            let caret = if on_text_row { "_" } else { "" };
            lines.push(Line::raw(format!(
                "  {cursor}Other (type your own): {}{caret}",
                visible(&draft.text)
            )));
        }
        if let Some(form) = form.filter(|_| focused) {
            focus = Some(AnswerFocus {
                question: question_index,
                row: form.row,
                block: start..lines.len(),
                cursor: {
                    let row = (start + 1 + form.row).min(lines.len().saturating_sub(1));
                    row..row + 1
                },
            });
        }
    }
    (lines, focus)
}
