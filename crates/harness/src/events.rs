//! What adapters share in reading hook events: the JSON read with the agent's parse errors, the
//! fields of a payload in Claude Code's shape (which Codex and Qwen Code send too), and a
//! permission prompt built from its parts.

use gatehouse_core::{NewPrompt, ParseError, PromptKind};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// The fields of a hook payload in Claude Code's shape: the event's name, the session, its
/// folder, and a tool call's name and input when the event is about one.
#[derive(Debug, Clone, Deserialize)]
pub struct ClaudeShapePayload {
    pub hook_event_name: String,
    pub session_id: String,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub tool_name: Option<String>,
    #[serde(default)]
    pub tool_input: Option<Value>,
}

/// Reads `stdin` as JSON (else [`ParseError::NotJson`]) and then as `T` (else
/// [`ParseError::NotAnEvent`]); returns both.
pub fn read<T: DeserializeOwned>(stdin: &[u8]) -> Result<(Value, T), ParseError> {
    let value: Value =
        serde_json::from_slice(stdin).map_err(|error| ParseError::NotJson(error.to_string()))?;
    let event =
        T::deserialize(&value).map_err(|error| ParseError::NotAnEvent(error.to_string()))?;
    Ok((value, event))
}

/// The parts of a permission prompt that an adapter reads from its agent's event.
#[derive(Debug, Clone)]
pub struct PermissionParts {
    pub adapter: &'static str,
    pub session: String,
    pub cwd: String,
    pub tool: String,
    pub input: Value,
    pub correlation: String,
    /// Set when the adapter knows the prompt cannot be answered safely, saying why.
    pub read_only_reason: Option<String>,
}

impl PermissionParts {
    /// The prompt: its summary is the input's `command` when it has one, else the input as JSON;
    /// nothing else (host, terminal) is the adapter's to say.
    pub fn prompt(self) -> NewPrompt {
        let summary = match self.input.get("command").and_then(Value::as_str) {
            Some(command) if !command.is_empty() => command.to_owned(),
            _ => self.input.to_string(),
        };
        NewPrompt {
            adapter: self.adapter.to_owned(),
            session: self.session,
            cwd: self.cwd,
            kind: PromptKind::Permission,
            tool: self.tool,
            input: self.input,
            summary,
            questions: Vec::new(),
            correlation: self.correlation,
            read_only_reason: self.read_only_reason,
            host: String::new(),
            extra: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_payload_is_read_with_the_agents_errors_and_a_prompt_summarises_its_command() {
        assert!(matches!(
            read::<ClaudeShapePayload>(b"nope"),
            Err(ParseError::NotJson(_))
        ));
        assert!(matches!(
            read::<ClaudeShapePayload>(br#"{"session_id": "s"}"#),
            Err(ParseError::NotAnEvent(_))
        ));
        let (_, payload) = read::<ClaudeShapePayload>(
            br#"{"hook_event_name": "PermissionRequest", "session_id": "s", "tool_name": "t"}"#,
        )
        .unwrap();
        assert_eq!((payload.cwd.as_str(), payload.tool_input), ("", None));
        let parts = |input: Value| PermissionParts {
            adapter: "agent",
            session: "s".into(),
            cwd: "/w".into(),
            tool: "shell".into(),
            input,
            correlation: "c".into(),
            read_only_reason: None,
        };
        assert_eq!(
            parts(json!({ "command": "ls -l" })).prompt().summary,
            "ls -l"
        );
        let other = parts(json!({ "path": "a.txt" })).prompt();
        assert_eq!(other.summary, r#"{"path":"a.txt"}"#);
        assert_eq!(
            (other.adapter.as_str(), other.kind),
            ("agent", PromptKind::Permission)
        );
    }
}
