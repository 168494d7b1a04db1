//! What gatehouse's rules need to know of a Claude Code call ([`RuleFacts`]), read from the
//! tool's input as Claude Code sent it: the script a `Bash` call runs, and the file an edit, a
//! write, a notebook edit or a read touches. Any other tool gives no facts, so no rule decides it.

use gatehouse_core::adapter::RuleFacts;
use gatehouse_core::NewPrompt;
use serde_json::Value;

/// Claude Code's shell tool.
const SHELL_TOOL: &str = "Bash";

/// The file tools, each with the input field that names the one file it touches.
const FILE_TOOLS: [(&str, &str); 5] = [
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("Write", "file_path"),
    ("Read", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// The facts of `prompt`: for `Bash`, its `command` (`Some("")` when it is missing or not text,
/// which no rule allows); for a file tool, its one file (`paths: None` when that is missing or
/// not text); `None` for every other tool.
pub fn rule_facts(prompt: &NewPrompt) -> Option<RuleFacts> {
    let text = |field: &str| prompt.input.get(field).and_then(Value::as_str);
    if prompt.tool == SHELL_TOOL {
        return Some(RuleFacts {
            command: Some(text("command").unwrap_or_default().to_owned()),
            paths: None,
        });
    }
    let (_, field) = FILE_TOOLS.iter().find(|(tool, _)| *tool == prompt.tool)?;
    Some(RuleFacts {
        command: None,
        paths: text(field)
            .filter(|path| !path.is_empty())
            .map(|path| vec![path.to_owned()]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatehouse_core::HookEvent;

    /// The prompt the adapter reads from a captured PermissionRequest.
    fn captured(event: &[u8]) -> NewPrompt {
        match crate::events::parse(event).unwrap() {
            HookEvent::Prompt { prompt, .. } => prompt,
            other => panic!("not a prompt: {other:?}"),
        }
    }

    fn with_input(mut prompt: NewPrompt, tool: &str, input: Value) -> NewPrompt {
        prompt.tool = tool.into();
        prompt.input = input;
        prompt
    }

    fn bash() -> NewPrompt {
        captured(include_bytes!(
            "../tests/data/claude-code-2.1.332/PermissionRequest-Bash.json"
        ))
    }

    #[test]
    fn a_captured_bash_call_gives_its_command_exactly() {
        let facts = rule_facts(&bash()).unwrap();
        assert_eq!(facts.command.as_deref(), Some("printf hi > hi.txt"));
        assert_eq!(facts.paths, None);
        let redirect = captured(include_bytes!(
            "../tests/data/claude-code-2.1.332/PermissionRequest-Bash-redirect.json"
        ));
        let expected = redirect.input["command"].as_str().unwrap().to_owned();
        assert_eq!(rule_facts(&redirect).unwrap().command, Some(expected));
    }

    #[test]
    fn a_bash_call_whose_command_cannot_be_taken_gives_an_empty_one_never_none() {
        for input in [
            serde_json::json!({}),
            serde_json::json!({ "command": ["cargo", "test"] }),
            serde_json::json!({ "command": 7 }),
            serde_json::json!("cargo test"),
        ] {
            let facts = rule_facts(&with_input(bash(), "Bash", input.clone())).unwrap();
            assert_eq!(facts.command.as_deref(), Some(""), "{input}");
        }
    }

    #[test]
    fn captured_writes_and_edits_give_their_one_file() {
        for event in [
            &include_bytes!("../tests/data/claude-code-2.1.332/PermissionRequest-Write.json")[..],
            &include_bytes!("../tests/data/claude-code-2.1.332/PermissionRequest-Edit.json")[..],
        ] {
            let prompt = captured(event);
            let path = prompt.input["file_path"].as_str().unwrap().to_owned();
            let facts = rule_facts(&prompt).unwrap();
            assert_eq!(facts.command, None, "{}", prompt.tool);
            assert_eq!(facts.paths, Some(vec![path]), "{}", prompt.tool);
        }
    }

    #[test]
    fn every_file_tool_names_its_file_and_none_when_it_is_missing_or_not_text() {
        for (tool, field) in FILE_TOOLS {
            let named = with_input(bash(), tool, serde_json::json!({ field: "/p/a.rs" }));
            assert_eq!(
                rule_facts(&named).unwrap().paths,
                Some(vec!["/p/a.rs".to_owned()]),
                "{tool}"
            );
            for input in [
                serde_json::json!({}),
                serde_json::json!({ field: 1 }),
                serde_json::json!({ field: "" }),
            ] {
                let facts = rule_facts(&with_input(bash(), tool, input)).unwrap();
                assert_eq!(facts, RuleFacts::default(), "{tool}");
            }
        }
    }

    #[test]
    fn other_tools_give_no_facts_so_no_rule_decides_them() {
        for tool in [
            "WebFetch",
            "mcp__x__y",
            "AskUserQuestion",
            "ExitPlanMode",
            "bash",
        ] {
            let prompt = with_input(bash(), tool, serde_json::json!({ "command": "ls" }));
            assert_eq!(rule_facts(&prompt), None, "{tool}");
        }
    }
}
