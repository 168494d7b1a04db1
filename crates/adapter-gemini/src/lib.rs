//! gatehouse's adapter for Gemini CLI: reads the events that Gemini's hooks write to stdin,
//! states Gemini's capability flags, and installs the hooks. It is the first agent gatehouse only
//! watches: every action is unverified, so Gemini's prompts are listed read-only and answered in
//! Gemini's own terminal.
//!
//! Architecture invariant: this crate knows Gemini CLI and nothing of gatehouse's socket.
//!
//! Why read-only (observed with Gemini CLI 0.61.0): the one hook that could answer, BeforeTool,
//! runs for every tool call before Gemini's own policy and Gemini waits for it, so holding it
//! would stall even the calls Gemini runs by itself; and `{"decision":"allow"}` does not skip
//! Gemini's dialog anyway (a hook that fails or times out leaves the dialog as if no hook
//! existed). What gatehouse can do is watch: the Notification hook (`ToolPermission`) fires as
//! the dialog is drawn, so the prompt is registered for watching and the hook returns at once;
//! AfterTool of the same command (Allow in the dialog), the next prompt (BeforeAgent), the end of
//! the turn (AfterAgent) or of the session withdraw it, and the gateway's stale timer the rest
//! (No or Esc in the dialog gives no hook event).
//!
//! Modules: [`events`] (hook input), [`install`] (`~/.gemini/settings.json`). There is no verdict
//! module: nothing is ever printed for Gemini.

pub mod events;
pub mod install;

use gatehouse_core::kit::HookInstaller;
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, Verdict,
};

/// The adapter's id, as in `gatehouse hook gemini`.
pub const ADAPTER_ID: &str = "gemini";

/// The agent's name for people.
pub const NAME: &str = "Gemini CLI";

/// Why every action is unverified, and so why each Gemini prompt is read-only.
pub const READ_ONLY_REASON: &str = "Gemini CLI's hooks cannot answer its dialog: allow does not skip it (observed with 0.61.0); answer in Gemini's terminal";

/// The Gemini CLI adapter.
#[derive(Debug, Default, Clone, Copy)]
pub struct GeminiAdapter;

impl Adapter for GeminiAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn capabilities(&self) -> AdapterCapabilities {
        capabilities()
    }

    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        events::parse(stdin)
    }

    /// Never an approval, nor anything else: Gemini's hooks cannot answer its dialog, so no
    /// verdict is ever offered, and one that arrives anyway is not printed.
    fn render_verdict(&self, _prompt: &NewPrompt, _verdict: &Verdict) -> String {
        String::new()
    }

    fn deliverable_actions(&self, _prompt: &NewPrompt) -> Vec<Action> {
        Vec::new()
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::GeminiInstaller)
    }
}

/// Gemini CLI's capability flags: one rule for every tool, each action unverified with
/// [`READ_ONLY_REASON`], so nothing is offered.
pub fn capabilities() -> AdapterCapabilities {
    AdapterCapabilities {
        adapter: ADAPTER_ID.into(),
        name: NAME.into(),
        rules: vec![CapabilityRule {
            kind: PromptKind::Permission,
            tool: None,
            actions: [Action::Once, Action::Deny, Action::Always]
                .map(|action| ActionFlag::unverified(action, READ_ONLY_REASON))
                .into(),
        }],
    }
}

#[cfg(test)]
mod tests;
