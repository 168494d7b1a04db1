//! The probe's cases: the kit's standard three for shell commands, the same three for patches
//! (the model calls `apply_patch`), and the "always" case ([`super::always`]), in that order.

use std::path::Path;

use gatehouse_core::NewPrompt;
use gatehouse_harness::model::ScriptedCall;
use gatehouse_harness::probe::{self as driver, CommandCase, HookAnswer};

use super::always::AlwaysCase;
use super::{APPROVAL_PROMPT_TEXT, PATCH_PROMPT_TEXT};
use crate::events::{ANSWERABLE_TOOL, PATCH_TOOL};
use crate::record::PATCH_CASES;

/// Which of Codex's prompts a case meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialog {
    /// "Would you like to run the following command?"
    Command,
    /// "Would you like to make the following edits?"
    Patch,
}

impl Dialog {
    /// The text of Codex's own prompt.
    pub fn prompt_text(self) -> &'static str {
        match self {
            Dialog::Command => APPROVAL_PROMPT_TEXT,
            Dialog::Patch => PATCH_PROMPT_TEXT,
        }
    }

    /// What the call is, in the evidence.
    pub fn what(self) -> &'static str {
        match self {
            Dialog::Command => "command",
            Dialog::Patch => "patch",
        }
    }

    /// Whether `prompt`, as the production parser read it, is the scripted call `command`.
    pub fn is_call(self, prompt: &NewPrompt, command: &str) -> bool {
        match self {
            Dialog::Command => prompt.tool == ANSWERABLE_TOOL && prompt.summary == command,
            Dialog::Patch => {
                prompt.tool == PATCH_TOOL
                    && prompt.input["command"]
                        .as_str()
                        .map(|patch| patch.trim_end_matches('\n'))
                        == Some(command.trim_end_matches('\n'))
            }
        }
    }
}

/// A case that answers one call.
#[derive(Debug, Clone)]
pub struct Case {
    pub command: CommandCase,
    pub dialog: Dialog,
}

/// One case of the probe.
#[derive(Debug, Clone)]
pub enum ProbeCase {
    Answer(Case),
    Always(AlwaysCase),
}

impl ProbeCase {
    /// The calls the scripted model hands out for this case, in order.
    pub fn calls(&self) -> Vec<ScriptedCall> {
        match self {
            ProbeCase::Answer(case) => vec![case.command.call.clone()],
            ProbeCase::Always(case) => case.calls(),
        }
    }

    /// The case's name and what it checks, for the progress line.
    pub fn name_and_description(&self) -> (&str, String) {
        match self {
            ProbeCase::Answer(Case {
                command,
                dialog: Dialog::Command,
            }) => (command.name, command.answer.describe("Codex", "prompt")),
            ProbeCase::Answer(Case {
                command,
                dialog: Dialog::Patch,
            }) => (command.name, patch_description(command.answer)),
            ProbeCase::Always(case) => (case.name, case.description()),
        }
    }
}

fn patch_description(answer: HookAnswer) -> String {
    match answer {
        HookAnswer::Allow => "gatehouse answers allow to a patch; it must be applied, with no prompt from Codex".into(),
        HookAnswer::Deny => "gatehouse answers deny to a patch; it must not be applied, with no prompt from Codex, and the model must read the message".into(),
        HookAnswer::NoVerdict => "gatehouse gives no verdict on a patch; Codex's own prompt must appear and decide".into(),
    }
}

/// The patch of a patch case: it adds `file` holding `text`.
pub fn patch_adding(file: &str, text: &str) -> String {
    format!("*** Begin Patch\n*** Add File: {file}\n+{text}\n*** End Patch\n")
}

/// Every case, their files in `workspace`.
pub fn all(workspace: &Path) -> Vec<ProbeCase> {
    let mut cases: Vec<ProbeCase> = driver::standard_cases(workspace)
        .into_iter()
        .map(|command| {
            ProbeCase::Answer(Case {
                command,
                dialog: Dialog::Command,
            })
        })
        .collect();
    let answers = [HookAnswer::Allow, HookAnswer::Deny, HookAnswer::NoVerdict];
    for (name, answer) in PATCH_CASES.into_iter().zip(answers) {
        let file = format!("gatehouse-probe-{name}.txt");
        cases.push(ProbeCase::Answer(Case {
            command: CommandCase {
                name,
                answer,
                call: ScriptedCall {
                    call_id: format!("call_probe_{}", name.replace('-', "_")),
                    command: patch_adding(&file, name),
                    reason: format!("gatehouse probe, case {name}"),
                },
                marker: workspace.join(file),
            },
            dialog: Dialog::Patch,
        }));
    }
    cases.push(ProbeCase::Always(AlwaysCase::new(workspace)));
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Kind;

    #[test]
    fn every_kind_has_its_cases_and_every_call_its_own_id() {
        let cases = all(Path::new("/w"));
        let names: Vec<&str> = cases
            .iter()
            .map(|case| case.name_and_description().0)
            .collect();
        let expected: Vec<&str> = Kind::ALL
            .iter()
            .flat_map(|kind| kind.cases().iter().copied())
            .collect();
        assert_eq!(names, expected);
        let ids: Vec<String> = cases
            .iter()
            .flat_map(ProbeCase::calls)
            .map(|call| call.call_id)
            .collect();
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        let ProbeCase::Answer(patch) = &cases[3] else {
            panic!()
        };
        assert_eq!(
            crate::patch::parse(&patch.command.call.command)
                .unwrap()
                .len(),
            1,
            "the probe's patch is one the adapter reads"
        );
    }
}
