//! How a new agent is added: a toy adapter with its own event format and capability flags, and
//! a gateway that offers only what the flags verify. Everything runs in this one process, over
//! an in-memory stream, so the example needs no socket and no agent.
//!
//! Run it with `cargo run --example custom_adapter`.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, AdapterRegistry, Answer, CapabilityRule,
    HoldMode, HookEvent, NewPrompt, Outcome, ParseError, PromptKind, Verdict,
};
use gatehouse_gateway::serve_connection;
use gatehouse_gateway::{Gateway, GatewayOptions};
use gatehouse_host_ipc::{Client, Role};

/// A toy agent whose hook writes `TOOL SESSION INPUT` on one line, and reads `yes` or `no`.
struct ToyAdapter;

impl Adapter for ToyAdapter {
    fn id(&self) -> &'static str {
        "toy"
    }

    fn name(&self) -> &'static str {
        "Toy Agent"
    }

    fn capabilities(&self) -> AdapterCapabilities {
        toy_capabilities()
    }

    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        toy_capabilities().deliverable(prompt)
    }

    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        let text = std::str::from_utf8(stdin)
            .map_err(|error| ParseError::NotAnEvent(error.to_string()))?;
        let mut words = text.trim().splitn(3, ' ');
        let (Some(tool), Some(session), Some(input)) = (words.next(), words.next(), words.next())
        else {
            return Err(ParseError::NotAnEvent(
                "expected `TOOL SESSION INPUT`".into(),
            ));
        };
        let prompt = NewPrompt {
            adapter: "toy".into(),
            session: session.into(),
            cwd: "/tmp".into(),
            kind: PromptKind::Permission,
            tool: tool.into(),
            input: serde_json::json!({ "input": input }),
            summary: input.into(),
            questions: vec![],
            correlation: format!("{tool}:{input}"),
            read_only_reason: None,
            host: String::new(),
            extra: Default::default(),
        };
        Ok(HookEvent::Prompt {
            prompt,
            hold: HoldMode::UntilOutcome,
        })
    }

    fn render_verdict(&self, _prompt: &NewPrompt, verdict: &Verdict) -> String {
        if verdict.allows() { "yes" } else { "no" }.into()
    }
}

/// `shell` prompts can be allowed once, as a (pretend) end-to-end test proved; `deny` was never
/// tried, so it exists but is unverified and is not offered. Every other tool is read-only.
fn toy_capabilities() -> AdapterCapabilities {
    AdapterCapabilities {
        adapter: "toy".into(),
        name: "Toy Agent".into(),
        rules: vec![CapabilityRule {
            kind: PromptKind::Permission,
            tool: Some("shell".into()),
            actions: vec![
                ActionFlag::verified(Action::Once, "proven by the toy's end-to-end test"),
                ActionFlag::unverified(Action::Deny, "never tried against the toy"),
            ],
        }],
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = AdapterRegistry::new();
    registry.register(Arc::new(ToyAdapter));
    let gateway = Gateway::new(registry.capabilities(), GatewayOptions::default());
    let connect = |role| {
        let (near, far) = tokio::io::duplex(1 << 16);
        tokio::spawn(serve_connection(gateway.clone(), far));
        Client::over(near, role, "custom_adapter example")
    };

    // The hook side: parse the agent's event and hold the prompt.
    let adapter = registry.get("toy").expect("registered above");
    let HookEvent::Prompt { prompt, .. } =
        adapter.parse_hook_event(b"shell s1 make release", None)?
    else {
        unreachable!()
    };
    let snapshot = prompt.clone();
    let mut hook = connect(Role::Hook).await?;
    let held = tokio::spawn(async move { hook.hold(prompt, Duration::from_secs(30)).await });

    // The front end side: it sees only the verified action.
    let mut frontend = connect(Role::Frontend).await?;
    let pending = loop {
        let pending = frontend.list().await?;
        if !pending.is_empty() {
            break pending;
        }
        tokio::task::yield_now().await;
    };
    let prompt = &pending[0];
    println!(
        "offered for `{}`: {:?}",
        prompt.prompt.summary, prompt.actions
    );
    let refused = frontend
        .answer(prompt.id, Answer::Deny { message: None })
        .await
        .expect_err("deny is not verified");
    println!("deny refused: {refused}");
    frontend.answer(prompt.id, Answer::Once).await?;

    let result = held.await??;
    if let Outcome::Verdict { verdict } = result.outcome {
        println!(
            "the toy agent reads: {}",
            adapter.render_verdict(&snapshot, &verdict)
        );
    }
    Ok(())
}
