//! What adapters share in reading hook events: the JSON read with the agent's parse errors, the
//! fields of a payload in Claude Code's shape (which Codex, Gemini CLI and Qwen Code send too), a
//! permission prompt built from its parts and held while the gateway offers an action, a call
//! correlated by its command, and the observations that settle prompts.

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{HoldMode, HookEvent, NewPrompt, Observation, ParseError, PromptKind};
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
    /// Claude Code's suggestions for allowing such calls from now on; other agents send none.
    #[serde(default)]
    pub permission_suggestions: Option<Value>,
}

impl ClaudeShapePayload {
    /// The tool call the event is about, taken out of it (the input may be as large as the
    /// hook's stdin): its name and input, else which of them the event lacks.
    pub fn take_tool_call(&mut self) -> Result<(String, Value), ParseError> {
        let tool = required(self.tool_name.take(), &self.hook_event_name, "tool_name")?;
        let input = required(self.tool_input.take(), &self.hook_event_name, "tool_input")?;
        Ok((tool, input))
    }
}

/// `value`, else the error that an `event` event lacks `field`.
pub fn required<T>(value: Option<T>, event: &str, field: &str) -> Result<T, ParseError> {
    value.ok_or_else(|| ParseError::NotAnEvent(format!("a {event} event without `{field}`")))
}

/// The correlation of a call that its command alone identifies (another event of the same call
/// may add a `description`), else its whole input.
pub fn command_correlation(tool: &str, input: &Value) -> String {
    correlation_key(tool, input.get("command").unwrap_or(input))
}

/// A call of `adapter`'s `session` finished (the person allowed it in the agent, or the agent
/// ran it by itself): it settles the prompt with `correlation`.
pub fn tool_finished(adapter: &str, session: String, correlation: String) -> HookEvent {
    HookEvent::Observe(Observation::ToolFinished {
        adapter: adapter.to_owned(),
        session,
        correlation,
    })
}

/// The turn of `adapter`'s `session` ended: whatever it asked is over.
pub fn turn_ended(adapter: &str, session: String) -> HookEvent {
    HookEvent::Observe(Observation::TurnEnded {
        adapter: adapter.to_owned(),
        session,
    })
}

/// `adapter`'s `session` ended.
pub fn session_ended(adapter: &str, session: String) -> HookEvent {
    HookEvent::Observe(Observation::SessionEnded {
        adapter: adapter.to_owned(),
        session,
    })
}

/// Which events of an agent in Claude Code's shape settle its prompts, by name, and how a
/// finished call is correlated with its prompt.
#[derive(Debug, Clone, Copy)]
pub struct Settling {
    /// The adapter's id.
    pub adapter: &'static str,
    /// The event of a finished call (such as `PostToolUse`), with its tool and input.
    pub tool_finished: &'static str,
    /// The events that end the session's turn (such as `Stop`).
    pub turn_ended: &'static [&'static str],
    /// The event that ends the session (such as `SessionEnd`).
    pub session_ended: &'static str,
    /// The correlation of a finished call, as of its prompt.
    pub correlation: fn(&str, &Value) -> String,
}

impl Settling {
    /// Claude Code's settling events, which Qwen Code sends too: `PostToolUse`, `Stop` and
    /// `SessionEnd`.
    pub const fn claude_code(
        adapter: &'static str,
        correlation: fn(&str, &Value) -> String,
    ) -> Self {
        Settling {
            adapter,
            tool_finished: "PostToolUse",
            turn_ended: &["Stop"],
            session_ended: "SessionEnd",
            correlation,
        }
    }

    /// What `payload` settles: a finished call (else which field it lacks), the end of a turn or
    /// of the session; [`HookEvent::Ignore`] for any other event.
    pub fn observe(&self, mut payload: ClaudeShapePayload) -> Result<HookEvent, ParseError> {
        let name = payload.hook_event_name.as_str();
        Ok(if name == self.tool_finished {
            let (tool, input) = payload.take_tool_call()?;
            let correlation = (self.correlation)(&tool, &input);
            tool_finished(self.adapter, payload.session_id, correlation)
        } else if self.turn_ended.contains(&name) {
            turn_ended(self.adapter, payload.session_id)
        } else if name == self.session_ended {
            session_ended(self.adapter, payload.session_id)
        } else {
            HookEvent::Ignore
        })
    }
}

/// A permission prompt that the gateway decides, for the agent version the hook reports: held
/// only while the gateway offers an action for it, else listed read-only and let go at once; one
/// the adapter marked read-only is registered for watching only.
pub fn held_while_actionable(prompt: NewPrompt) -> HookEvent {
    let hold = match prompt.read_only_reason {
        None => HoldMode::WhileActionable,
        Some(_) => HoldMode::RegisterOnly,
    };
    HookEvent::Prompt { prompt, hold }
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

    /// The prompt, [`held_while_actionable`].
    pub fn held_while_actionable(self) -> HookEvent {
        held_while_actionable(self.prompt())
    }
}

/// The bytes of the hook payload `name` that an agent wrote, captured in the calling crate's
/// `tests/data/<folder>/<name><suffix>` (the suffix `.json` unless given).
#[cfg(any(test, feature = "testing"))]
#[macro_export]
macro_rules! captured_payload {
    ($folder:literal, $name:literal) => {
        $crate::captured_payload!($folder, $name, ".json")
    };
    ($folder:literal, $name:literal, $suffix:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/",
            $folder,
            "/",
            $name,
            $suffix
        ))
    };
}

/// What adapters' tests share about events (the kit's feature `testing`).
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use gatehouse_core::{HoldMode, HookEvent, NewPrompt, ParseError, PromptKind};

    /// Asserts that `prompt` is `adapter`'s permission prompt for a call of `tool` in `session`,
    /// summed up as `summary`, in the folder the fixtures were captured in (`/home/dev/project`).
    pub fn assert_permission_prompt(
        prompt: &NewPrompt,
        adapter: &str,
        session: &str,
        tool: &str,
        summary: &str,
    ) {
        assert_eq!(prompt.adapter, adapter);
        assert_eq!(prompt.session, session);
        assert_eq!(prompt.cwd, "/home/dev/project");
        assert_eq!(prompt.kind, PromptKind::Permission);
        assert_eq!(prompt.tool, tool);
        assert_eq!(prompt.summary, summary);
    }

    /// The prompt `event` is, and how it is held; panics for any other event.
    pub fn prompt_of(event: HookEvent) -> (NewPrompt, HoldMode) {
        match event {
            HookEvent::Prompt { prompt, hold } => (prompt, hold),
            other => panic!("not a prompt: {other:?}"),
        }
    }

    /// The prompt `event` is, asserting that it is held as `hold`.
    pub fn held_as(event: HookEvent, hold: HoldMode) -> NewPrompt {
        let (prompt, held) = prompt_of(event);
        assert_eq!(held, hold, "{prompt:?}");
        prompt
    }

    /// Asserts that `parse` finds no JSON in `not json`, and no event in `{}` nor in
    /// `without_input` (an event that lacks a field it needs).
    pub fn assert_not_events(
        parse: impl Fn(&[u8]) -> Result<HookEvent, ParseError>,
        without_input: &[u8],
    ) {
        assert!(matches!(parse(b"not json"), Err(ParseError::NotJson(_))));
        assert!(matches!(parse(b"{}"), Err(ParseError::NotAnEvent(_))));
        let lacking = parse(without_input);
        assert!(
            matches!(lacking, Err(ParseError::NotAnEvent(_))),
            "{lacking:?}"
        );
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

    #[test]
    fn a_tool_call_is_required_and_its_command_alone_correlates_it() {
        let (_, mut payload) = read::<ClaudeShapePayload>(
            br#"{"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "t"}"#,
        )
        .unwrap();
        let error = payload.take_tool_call().unwrap_err();
        assert_eq!(
            error.to_string(),
            ParseError::NotAnEvent("a PostToolUse event without `tool_input`".into()).to_string()
        );
        let (_, mut payload) = read::<ClaudeShapePayload>(
            br#"{"hook_event_name": "X", "session_id": "s", "tool_input": {}}"#,
        )
        .unwrap();
        assert!(payload
            .take_tool_call()
            .unwrap_err()
            .to_string()
            .contains("a X event without `tool_name`"));
        let (_, mut payload) = read::<ClaudeShapePayload>(
            br#"{"hook_event_name": "X", "session_id": "s", "tool_name": "t", "tool_input": {"command": "ls"}}"#,
        )
        .unwrap();
        assert_eq!(
            payload.take_tool_call().unwrap(),
            ("t".to_owned(), json!({ "command": "ls" }))
        );
        assert_eq!(payload.tool_input, None, "taken, not copied");
        assert_eq!(
            command_correlation("t", &json!({ "command": "ls", "description": "d" })),
            correlation_key("t", &json!("ls"))
        );
        assert_eq!(
            command_correlation("t", &json!({ "path": "a" })),
            correlation_key("t", &json!({ "path": "a" }))
        );
    }

    #[test]
    fn the_settling_events_are_observed_by_name_and_others_ignored() {
        const SETTLING: Settling = Settling {
            adapter: "agent",
            tool_finished: "Done",
            turn_ended: &["Stop", "Interrupt"],
            session_ended: "End",
            correlation: command_correlation,
        };
        let observe = |json: &str| SETTLING.observe(read(json.as_bytes()).unwrap().1);
        let finished = observe(
            r#"{"hook_event_name": "Done", "session_id": "s", "tool_name": "t", "tool_input": {"command": "ls", "description": "d"}}"#,
        )
        .unwrap();
        assert!(matches!(
            finished,
            HookEvent::Observe(Observation::ToolFinished { adapter, session, correlation })
                if (adapter.as_str(), session.as_str()) == ("agent", "s")
                    && correlation == correlation_key("t", &json!("ls"))
        ));
        assert!(
            observe(r#"{"hook_event_name": "Done", "session_id": "s", "tool_name": "t"}"#)
                .unwrap_err()
                .to_string()
                .contains("a Done event without `tool_input`")
        );
        for turn in ["Stop", "Interrupt"] {
            let json = format!(r#"{{"hook_event_name": "{turn}", "session_id": "s"}}"#);
            assert!(matches!(
                observe(&json).unwrap(),
                HookEvent::Observe(Observation::TurnEnded { .. })
            ));
        }
        assert!(matches!(
            observe(r#"{"hook_event_name": "End", "session_id": "s"}"#).unwrap(),
            HookEvent::Observe(Observation::SessionEnded { .. })
        ));
        assert!(matches!(
            observe(r#"{"hook_event_name": "Other", "session_id": "s"}"#).unwrap(),
            HookEvent::Ignore
        ));
    }

    #[test]
    fn a_prompt_marked_read_only_is_only_watched_and_observations_name_their_session() {
        let prompt = |read_only_reason: Option<String>| PermissionParts {
            adapter: "agent",
            session: "s".into(),
            cwd: "/w".into(),
            tool: "shell".into(),
            input: json!({ "command": "ls" }),
            correlation: "c".into(),
            read_only_reason,
        };
        let hold = |event: HookEvent| match event {
            HookEvent::Prompt { hold, .. } => hold,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            hold(prompt(None).held_while_actionable()),
            HoldMode::WhileActionable
        );
        assert_eq!(
            hold(prompt(Some("why".into())).held_while_actionable()),
            HoldMode::RegisterOnly
        );
        assert!(matches!(
            tool_finished("agent", "s".into(), "c".into()),
            HookEvent::Observe(Observation::ToolFinished { adapter, session, correlation })
                if (adapter.as_str(), session.as_str(), correlation.as_str()) == ("agent", "s", "c")
        ));
        assert!(matches!(
            turn_ended("agent", "s".into()),
            HookEvent::Observe(Observation::TurnEnded { adapter, session })
                if (adapter.as_str(), session.as_str()) == ("agent", "s")
        ));
        assert!(matches!(
            session_ended("agent", "s".into()),
            HookEvent::Observe(Observation::SessionEnded { adapter, session })
                if (adapter.as_str(), session.as_str()) == ("agent", "s")
        ));
    }
}
