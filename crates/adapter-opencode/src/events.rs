//! The bus events of OpenCode and its forks (Kilo Code CLI sends the same), as gatehouse's plugin
//! hands them to `gatehouse hook opencode EVENT` (`gatehouse hook kilo EVENT` in Kilo): the
//! plugin writes `{"directory": D, "payload": EVENT}` on the hook's stdin (the shape of
//! OpenCode's own `/global/event` stream), where EVENT is the bus event `{id, type, properties}`
//! exactly as the plugin's `event` hook got it. A bare EVENT is read too. The hook command names
//! the event; the payload's `type` is the fallback. Every prompt and observation is the
//! adapter's of the agent ([`PluginAgent`]) whose hook read it.
//!
//! - `permission.asked` becomes a permission prompt (the tool is the permission, such as `bash`).
//!   The agent's own prompt stays live while the hook waits, and the first answer wins, so a
//!   `bash` prompt is held until an outcome while the gateway offers an action for it
//!   (`WhileActionable`; read-only, it is only watched). Other permissions are watched, read-only.
//! - `question.asked` becomes a question prompt, held the same way.
//! - `permission.replied` with `once` or `always`, and `question.replied`: the request was
//!   answered (in the agent's terminal, or by gatehouse), which settles the prompt of that request.
//! - `permission.replied` with `reject`, and `question.rejected`: the agent rejects every request of
//!   the session still waiting and ends the turn (a gatehouse reject with a message lets the turn
//!   go on; its own prompt is already delivered then), which settles the session's prompts.
//! - Anything else: nothing for gatehouse.
//!
//! Each prompt names its request (`properties.id`, such as `per_...` or `que_...`) in its
//! correlation key, and each answer names the same request (`requestID`).

use gatehouse_core::correlation::correlation_key;
use gatehouse_core::{
    HoldMode, HookEvent, NewPrompt, Observation, ParseError, PromptExtra, PromptKind, Question,
    QuestionOption, TerminalLocation,
};
use serde_json::Value;

use crate::PluginAgent;

/// The only permission whose prompts the probe proves answerable: the agent's shell tool.
pub const ANSWERABLE_PERMISSION: &str = "bash";

/// The tool name of a question prompt.
pub const QUESTION_TOOL: &str = "question";

/// What the hook's environment says of the agent that runs it: the plugin runs in the agent's
/// process, so its hook inherits `TMUX`, `TMUX_PANE` and the agent's process id variable
/// (`OPENCODE_PID`, Kilo's `KILO_PID`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookEnvironment {
    pub tmux: Option<String>,
    pub tmux_pane: Option<String>,
    pub agent_pid: Option<String>,
}

impl HookEnvironment {
    /// This process's environment, for the hook of `agent`.
    pub fn current(agent: &PluginAgent) -> Self {
        let variable = |name: &str| std::env::var(name).ok();
        HookEnvironment {
            tmux: variable("TMUX"),
            tmux_pane: variable("TMUX_PANE"),
            agent_pid: variable(agent.pid_variable),
        }
    }

    fn terminal(&self) -> Option<TerminalLocation> {
        TerminalLocation::from_values(
            self.tmux.as_deref(),
            self.tmux_pane.as_deref(),
            self.agent_pid.as_deref(),
        )
    }
}

/// Reads one event the plugin handed to the hook of `agent`; `event` is the name the hook
/// command ends with.
pub fn parse(
    agent: &PluginAgent,
    stdin: &[u8],
    event: Option<&str>,
    environment: &HookEnvironment,
) -> Result<HookEvent, ParseError> {
    let value: Value =
        serde_json::from_slice(stdin).map_err(|error| ParseError::NotJson(error.to_string()))?;
    let (directory, payload) = match value.get("payload") {
        Some(payload) => (
            value.get("directory").and_then(Value::as_str).unwrap_or(""),
            payload,
        ),
        None => ("", &value),
    };
    let Some(name) = event.or(payload.get("type").and_then(Value::as_str)) else {
        return Err(ParseError::NotAnEvent(format!(
            "the event is not named: the hook command must end with it, as in `gatehouse hook {} permission.asked`",
            agent.id
        )));
    };
    const KNOWN: [&str; 5] = [
        "permission.asked",
        "question.asked",
        "permission.replied",
        "question.replied",
        "question.rejected",
    ];
    if !KNOWN.contains(&name) {
        return Ok(HookEvent::Ignore);
    }
    let properties = payload
        .get("properties")
        .filter(|properties| properties.is_object())
        .ok_or_else(|| {
            ParseError::NotAnEvent(format!("a {} event without `properties`", agent.name))
        })?;
    let text = |field: &str| {
        properties
            .get(field)
            .and_then(Value::as_str)
            .ok_or_else(|| ParseError::NotAnEvent(format!("a {name} event without `{field}`")))
    };
    let adapter = agent.id.to_owned();
    match name {
        "permission.asked" => {
            let request = request_prompt(agent, properties, (directory, environment), &text)?;
            let prompt = permission_prompt(agent, request, properties, text)?;
            let hold = if prompt.read_only_reason.is_none() {
                HoldMode::WhileActionable
            } else {
                HoldMode::RegisterOnly
            };
            Ok(HookEvent::Prompt { prompt, hold })
        }
        "question.asked" => {
            let request = request_prompt(agent, properties, (directory, environment), &text)?;
            let prompt = question_prompt(request, properties)?;
            Ok(HookEvent::Prompt {
                prompt,
                hold: HoldMode::WhileActionable,
            })
        }
        "permission.replied" if text("reply")? == "reject" => {
            Ok(HookEvent::Observe(Observation::TurnEnded {
                adapter,
                session: text("sessionID")?.to_owned(),
            }))
        }
        "permission.replied" | "question.replied" => {
            Ok(HookEvent::Observe(Observation::ToolFinished {
                adapter,
                session: text("sessionID")?.to_owned(),
                correlation: request_correlation(text("requestID")?),
            }))
        }
        "question.rejected" => Ok(HookEvent::Observe(Observation::TurnEnded {
            adapter,
            session: text("sessionID")?.to_owned(),
        })),
        _ => Ok(HookEvent::Ignore),
    }
}

/// The correlation key of the agent's request `id`: a prompt and the answer to it name the same.
pub fn request_correlation(id: &str) -> String {
    correlation_key("opencode-request", &Value::String(id.to_owned()))
}

/// What every prompt of a request of `agent` has: its session, folder, input and terminal, and
/// the correlation of its `id`; a permission prompt with no tool nor summary until its kind fills
/// them.
fn request_prompt<'a>(
    agent: &PluginAgent,
    properties: &'a Value,
    (directory, environment): (&str, &HookEnvironment),
    text: &impl Fn(&str) -> Result<&'a str, ParseError>,
) -> Result<NewPrompt, ParseError> {
    let id = text("id")?;
    let session = text("sessionID")?;
    Ok(NewPrompt {
        adapter: agent.id.into(),
        session: session.into(),
        cwd: directory.into(),
        kind: PromptKind::Permission,
        tool: String::new(),
        input: properties.clone(),
        summary: String::new(),
        questions: Vec::new(),
        correlation: request_correlation(id),
        read_only_reason: None,
        host: String::new(),
        extra: PromptExtra {
            terminal: environment.terminal(),
            ..PromptExtra::default()
        },
    })
}

/// The permission prompt of the `request` (see [`request_prompt`]) in `properties`.
fn permission_prompt<'a>(
    agent: &PluginAgent,
    request: NewPrompt,
    properties: &'a Value,
    text: impl Fn(&str) -> Result<&'a str, ParseError>,
) -> Result<NewPrompt, ParseError> {
    let permission = text("permission")?;
    let patterns = strings(properties.get("patterns"));
    let command = properties
        .get("metadata")
        .and_then(|metadata| metadata.get("command"))
        .and_then(Value::as_str);
    let summary = match command {
        Some(command) => command.to_owned(),
        None if !patterns.is_empty() => patterns.join("\n"),
        None => permission.to_owned(),
    };
    let read_only_reason = (permission != ANSWERABLE_PERMISSION).then(|| {
        format!(
            "the probe proves only {ANSWERABLE_PERMISSION} prompts of {name}; answer this {permission} prompt in {name}'s terminal",
            name = agent.name
        )
    });
    // A pattern that is not text would be approved all the same, unseen: then no `always`.
    let always = match properties.get("always") {
        None => Some(Vec::new()),
        Some(always) => always.as_array().and_then(|items| {
            items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<String>>>()
        }),
    };
    let effects = crate::effects::PermissionEffects {
        agent,
        permission,
        command: &summary,
        always: always.as_deref(),
    };
    let extra = PromptExtra {
        preview: Some(effects.preview()),
        suggestions: effects.suggestion().into_iter().collect(),
        ..request.extra
    };
    Ok(NewPrompt {
        tool: permission.into(),
        summary,
        read_only_reason,
        extra,
        ..request
    })
}

/// The question prompt of the `request` (see [`request_prompt`]) in `properties`.
fn question_prompt(request: NewPrompt, properties: &Value) -> Result<NewPrompt, ParseError> {
    let asked = properties
        .get("questions")
        .and_then(Value::as_array)
        .filter(|questions| !questions.is_empty())
        .ok_or_else(|| {
            ParseError::NotAnEvent("a question.asked event without `questions`".into())
        })?;
    let questions: Vec<Question> = asked
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let field = |name: &str| {
                question
                    .get(name)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let options = question
                .get("options")
                .and_then(Value::as_array)
                .map(|options| {
                    options
                        .iter()
                        .map(|option| QuestionOption {
                            label: option
                                .get("label")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                            description: option
                                .get("description")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            Question {
                id: format!("q{}", index + 1),
                text: field("question"),
                header: field("header"),
                multi: question.get("multiple").and_then(Value::as_bool) == Some(true),
                options,
            }
        })
        .collect();
    let summary = questions
        .iter()
        .map(|question| question.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(NewPrompt {
        kind: PromptKind::Question,
        tool: QUESTION_TOOL.into(),
        summary,
        questions,
        ..request
    })
}

/// The strings of a JSON array (anything else in it is skipped).
fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
