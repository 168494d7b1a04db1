//! gatehouse's adapter for Codex: reads the events that Codex's hooks write to stdin and states
//! Codex's capability flags.
//!
//! Architecture invariant: this crate knows Codex and nothing of gatehouse's socket.
//!
//! Codex runs its PermissionRequest hooks before it shows its own approval prompt, and waits for
//! them. Until a probe proves that the installed Codex honours gatehouse's answers, every action
//! is unverified: the hook registers the prompt for watching and returns at once, so Codex's own
//! prompt is never delayed, and the prompt is listed read-only until Codex shows it is over.

use async_trait::async_trait;
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HoldMode, HookEvent, NewPrompt, Observation,
    ParseError, PromptKind, Verdict,
};
use serde::Deserialize;
use serde_json::{json, Value};

/// The adapter's id, as in `gatehouse hook codex`.
pub const ADAPTER_ID: &str = "codex";

/// The Codex adapter.
#[derive(Debug, Default, Clone, Copy)]
pub struct CodexAdapter;

#[async_trait]
impl Adapter for CodexAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        "Codex"
    }

    async fn capabilities(&self) -> AdapterCapabilities {
        capabilities()
    }

    fn parse_hook_event(&self, stdin: &[u8]) -> Result<HookEvent, ParseError> {
        parse(stdin)
    }

    fn render_verdict(&self, _prompt: &NewPrompt, verdict: &Verdict) -> String {
        let decision = match &verdict.0 {
            gatehouse_core::Answer::Deny { message } => {
                json!({ "behavior": "deny", "message": message.clone().unwrap_or_else(|| "Denied from gatehouse.".into()) })
            }
            _ => json!({ "behavior": "allow" }),
        };
        json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } }).to_string()
    }
}

/// Codex's capability flags: every action exists, none is verified, so every prompt is read-only.
pub fn capabilities() -> AdapterCapabilities {
    let unproven = "not verified for the installed Codex; answer it in Codex's terminal";
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: "Codex".into(),
        rules: vec![CapabilityRule {
            kind: PromptKind::Permission,
            tool: None,
            actions: vec![
                ActionFlag::unverified(Action::Once, unproven),
                ActionFlag::unverified(Action::Deny, unproven),
                ActionFlag::unverified(Action::Always, unproven),
            ],
        }],
    }
}

#[derive(Debug, Deserialize)]
struct RawEvent {
    hook_event_name: String,
    session_id: String,
    #[serde(default)]
    cwd: String,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<Value>,
}

/// Reads one Codex hook event.
pub fn parse(stdin: &[u8]) -> Result<HookEvent, ParseError> {
    let value: Value = serde_json::from_slice(stdin).map_err(|error| ParseError::NotJson(error.to_string()))?;
    let event: RawEvent = serde_json::from_value(value).map_err(|error| ParseError::NotAnEvent(error.to_string()))?;
    let missing = |field: &str| ParseError::NotAnEvent(format!("a {} event without `{field}`", event.hook_event_name));
    let session = event.session_id.clone();
    match event.hook_event_name.as_str() {
        "PermissionRequest" => {
            let tool = event.tool_name.clone().ok_or_else(|| missing("tool_name"))?;
            let input = event.tool_input.clone().ok_or_else(|| missing("tool_input"))?;
            let command = input.get("command").and_then(Value::as_str).unwrap_or_default().to_owned();
            let summary = if command.is_empty() { input.to_string() } else { command.clone() };
            let prompt = NewPrompt {
                adapter: ADAPTER_ID.into(),
                session,
                cwd: event.cwd.clone(),
                kind: PromptKind::Permission,
                correlation: correlation(&tool, &input),
                tool,
                input,
                summary,
                questions: Vec::new(),
                read_only_reason: None,
            };
            Ok(HookEvent::Prompt { prompt, hold: HoldMode::RegisterOnly })
        }
        "PostToolUse" => {
            let tool = event.tool_name.clone().ok_or_else(|| missing("tool_name"))?;
            let input = event.tool_input.clone().ok_or_else(|| missing("tool_input"))?;
            let correlation = correlation(&tool, &input);
            Ok(HookEvent::Observe(Observation::ToolFinished { adapter: ADAPTER_ID.into(), session, correlation }))
        }
        // A new prompt from the person starts a later turn: whatever the earlier turn asked is over.
        "UserPromptSubmit" | "Stop" => Ok(HookEvent::Observe(Observation::TurnEnded { adapter: ADAPTER_ID.into(), session })),
        _ => Ok(HookEvent::Ignore),
    }
}

/// PermissionRequest carries `{command, description}` and PostToolUse only `{command}`, so the
/// command alone identifies the call.
fn correlation(tool: &str, input: &Value) -> String {
    let command = input.get("command").map_or_else(|| input.to_string(), Value::to_string);
    format!("{tool}:{command}")
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! fixture {
        ($name:literal) => {
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codex-0.171.0/", $name, ".json"))
        };
    }

    #[test]
    fn a_permission_request_is_registered_for_watching_only() {
        let HookEvent::Prompt { prompt, hold } = parse(fixture!("PermissionRequest-Bash")).unwrap() else {
            panic!("a prompt");
        };
        assert_eq!(hold, HoldMode::RegisterOnly);
        assert_eq!(prompt.summary, "printf approved > codex-proof.txt");
        assert!(capabilities().offered(prompt.kind, &prompt.tool).is_empty(), "Codex is read-only until probed");
    }

    #[test]
    fn post_tool_use_correlates_by_command() {
        let HookEvent::Prompt { prompt, .. } = parse(fixture!("PermissionRequest-Bash")).unwrap() else { panic!() };
        let HookEvent::Observe(Observation::ToolFinished { correlation, .. }) = parse(fixture!("PostToolUse-Bash")).unwrap() else {
            panic!("an observation");
        };
        assert_eq!(correlation, prompt.correlation);
    }

    #[test]
    fn a_new_turn_ends_the_last_one_and_the_rest_is_ignored() {
        assert!(matches!(parse(fixture!("UserPromptSubmit")).unwrap(), HookEvent::Observe(Observation::TurnEnded { .. })));
        assert_eq!(parse(fixture!("SessionStart")).unwrap(), HookEvent::Ignore);
        assert_eq!(parse(fixture!("PreToolUse-Bash")).unwrap(), HookEvent::Ignore);
        assert!(parse(b"{}").is_err());
    }
}
