//! The probe's cases: the kit's standard three for shell commands, the same three for patches
//! (the model calls `apply_patch`), and the "always" case ([`super::always`]), in that order.

use std::path::Path;

use gatehouse_harness::model::ScriptedCall;
use gatehouse_harness::probe::screen::{AgentScreen, ProbeCase, Session};
use gatehouse_harness::probe::{self as driver, CommandCase, HookAnswer};

use super::always::AlwaysCase;
use super::PATCH_SCREEN;
use crate::record::PATCH_CASES;

/// One case of the probe.
#[derive(Debug, Clone)]
pub enum Case {
    /// A shell command: the kit's standard case, on Codex's command prompt.
    Command(CommandCase),
    /// A patch (the model calls `apply_patch`), on Codex's patch prompt.
    Patch(CommandCase),
    Always(AlwaysCase),
}

impl ProbeCase for Case {
    fn name(&self) -> &str {
        match self {
            Case::Command(case) | Case::Patch(case) => case.name,
            Case::Always(case) => case.name,
        }
    }

    fn description(&self, screen: &AgentScreen) -> String {
        match self {
            Case::Command(case) => case.description(screen),
            Case::Patch(case) => patch_description(case.answer),
            Case::Always(case) => case.description(),
        }
    }

    fn calls(&self) -> Vec<ScriptedCall> {
        match self {
            Case::Command(case) | Case::Patch(case) => case.calls(),
            Case::Always(case) => case.calls(),
        }
    }

    fn check(&self, session: &Session<'_>) -> Result<String, String> {
        match self {
            Case::Command(case) => session.check_command(case),
            Case::Patch(case) => Session {
                screen: &PATCH_SCREEN,
                ..*session
            }
            .check_command(case),
            // Two turns and a new session.
            Case::Always(case) => super::always::check(
                &Session {
                    case_deadline: session.case_deadline * 2,
                    ..*session
                },
                case,
            ),
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

/// Every case, their files in `workspace`: the standard three for shell commands, the same
/// three for patches, and "always".
pub fn all(workspace: &Path) -> Vec<Case> {
    let mut cases: Vec<Case> = driver::standard_cases(workspace)
        .into_iter()
        .map(Case::Command)
        .collect();
    let answers = [HookAnswer::Allow, HookAnswer::Deny, HookAnswer::NoVerdict];
    for (name, answer) in PATCH_CASES.into_iter().zip(answers) {
        let mut case = driver::command_case(workspace, name, answer);
        case.call.command = patch_adding(&format!("gatehouse-probe-{name}.txt"), name);
        cases.push(Case::Patch(case));
    }
    cases.push(Case::Always(AlwaysCase::new(workspace)));
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Kind;

    #[test]
    fn every_kind_has_its_cases_and_every_call_its_own_id() {
        let cases = all(Path::new("/w"));
        let names: Vec<&str> = cases.iter().map(ProbeCase::name).collect();
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
        let Case::Patch(patch) = &cases[3] else {
            panic!()
        };
        assert_eq!(
            crate::patch::parse(&patch.call.command).unwrap().len(),
            1,
            "the probe's patch is one the adapter reads"
        );
    }
}
