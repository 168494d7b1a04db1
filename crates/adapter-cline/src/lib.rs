//! gatehouse's adapter for Cline CLI (npm `cline`, the `cline` command): reads the events that
//! Cline's hook files hand to `gatehouse hook cline`, and installs those files. Cline is
//! **watched**: its tool-approval prompts are listed read-only in gatehouse and answered in
//! Cline's own dialog ("Approve tool call? [y] Approve [n] Deny").
//!
//! Architecture invariant: this crate knows Cline and nothing of gatehouse's socket.
//!
//! Why watched, from Cline 3.0.65 as observed (`tests/data/cline-cli-3.0.65/README.md`): a
//! `PreToolUse` hook cannot allow a call. Its only answer is `{"cancel": true}`, which ends the
//! whole turn and does not tell the model why; printing nothing (or failing) leaves the call to
//! Cline's dialog. And Cline shows its dialog only after the hook returned, so a hook that waited
//! for gatehouse would hide the very dialog that decides. So gatehouse's hook registers the call
//! and returns at once, whatever the gateway does, and never prints an answer ([`install`]);
//! nothing is ever offered ([`READ_ONLY_REASON`]), no probe exists, and a withdrawal follows
//! Cline's own answer: `PostToolUse` comes for an Approve and for a Deny alike ([`events`]).
//!
//! Cline asks only while its "Auto-approve all" is off (Shift+Tab in its TUI; a fresh home
//! starts with it on, and every call then runs unasked, with or without gatehouse): the hook
//! reads Cline's saved setting ([`auto_approve`]) and says which it is in each prompt's reason.
//!
//! Modules: [`events`] (hook input), [`auto_approve`] (Cline's setting), [`install`] (the hook
//! files in `~/.cline/hooks/`), [`private`] (a private, offline Cline for the end-to-end tests).

pub mod auto_approve;
pub mod events;
pub mod install;
pub mod private;

use gatehouse_core::kit::HookInstaller;
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CapabilityRule, HookEvent, NewPrompt,
    ParseError, PromptKind, Verdict,
};

/// The adapter's id, as in `gatehouse hook cline`.
pub const ADAPTER_ID: &str = "cline";

/// The agent's name for people.
pub const NAME: &str = "Cline CLI";

/// Why nothing is offered for any Cline prompt, as `gatehouse status` shows it.
pub const READ_ONLY_REASON: &str = "Cline's hooks cannot allow a call, only cancel the whole \
    turn, so gatehouse only watches Cline: answer in Cline's own dialog ([y] Approve, [n] Deny)";

/// Cline CLI's adapter: every prompt is watched, read-only.
#[derive(Debug, Default, Clone)]
pub struct ClineAdapter;

impl ClineAdapter {
    /// The adapter; Cline keeps no probe record, so gatehouse's state folder is not needed.
    pub fn new(_state_dir: Option<std::path::PathBuf>) -> Self {
        ClineAdapter
    }
}

impl Adapter for ClineAdapter {
    fn id(&self) -> &'static str {
        ADAPTER_ID
    }

    fn name(&self) -> &'static str {
        NAME
    }

    /// One rule for every tool: every action exists in Cline's dialog, none through gatehouse.
    fn capabilities(&self) -> AdapterCapabilities {
        let actions = [Action::Once, Action::Deny, Action::Always]
            .map(|action| ActionFlag::unverified(action, READ_ONLY_REASON))
            .into();
        AdapterCapabilities {
            adapter: ADAPTER_ID.into(),
            name: NAME.into(),
            rules: vec![CapabilityRule {
                kind: PromptKind::Permission,
                tool: None,
                actions,
            }],
        }
    }

    fn parse_hook_event(
        &self,
        stdin: &[u8],
        _event: Option<&str>,
    ) -> Result<HookEvent, ParseError> {
        events::parse(stdin, auto_approve::saved_setting)
    }

    /// Nothing: no verdict is ever deliverable, and Cline reads an empty answer as no opinion.
    fn render_verdict(&self, _prompt: &NewPrompt, _verdict: &Verdict) -> String {
        String::new()
    }

    /// None, whatever a gateway says: the hook never prints an answer for Cline.
    fn deliverable_actions(&self, _prompt: &NewPrompt) -> Vec<Action> {
        Vec::new()
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(&install::ClineInstaller)
    }
}

#[cfg(test)]
mod tests;
