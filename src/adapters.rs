//! The adapters this build knows, registered by id. Adding an agent means adding its line (and
//! its `use`) here; every command (hook, install, probe, status, the help text) finds it through the registry.

use std::sync::Arc;

use clap::builder::PossibleValuesParser;
use gatehouse_adapter_claude::ClaudeAdapter;
use gatehouse_adapter_cline::ClineAdapter;
use gatehouse_adapter_codex::CodexAdapter;
use gatehouse_adapter_copilot::CopilotAdapter;
use gatehouse_adapter_droid::DroidAdapter;
use gatehouse_adapter_gemini::GeminiAdapter;
use gatehouse_adapter_opencode::kilo::KiloAdapter;
use gatehouse_adapter_opencode::OpenCodeAdapter;
use gatehouse_adapter_pi::PiAdapter;
use gatehouse_adapter_qwen::QwenAdapter;
use gatehouse_core::{Adapter, AdapterRegistry};

pub fn registry() -> AdapterRegistry {
    let state = crate::config::state_dir();
    let adapters: Vec<Arc<dyn Adapter>> = vec![
        Arc::new(ClaudeAdapter::new(state.clone())),
        Arc::new(CodexAdapter::new(state.clone())),
        Arc::new(GeminiAdapter::new(state.clone())),
        Arc::new(CopilotAdapter::new(state.clone())),
        Arc::new(OpenCodeAdapter::new(state.clone())),
        Arc::new(KiloAdapter::new(state.clone())),
        Arc::new(QwenAdapter::new(state.clone())),
        Arc::new(PiAdapter::new(state.clone())),
        Arc::new(ClineAdapter::new(state.clone())),
        Arc::new(DroidAdapter::new(state)),
    ];
    let mut registry = AdapterRegistry::new();
    for adapter in adapters {
        registry.register(adapter);
    }
    registry
}

/// The ids of the adapters that can install their hooks, for `install` and `uninstall`.
pub fn installable_ids() -> PossibleValuesParser {
    ids_where(|adapter| adapter.installer().is_some())
}

/// The ids of the adapters that have a probe, for `probe`.
pub fn probeable_ids() -> PossibleValuesParser {
    ids_where(|adapter| adapter.probe().is_some())
}

fn ids_where(keep: impl Fn(&dyn Adapter) -> bool) -> PossibleValuesParser {
    let registry = registry();
    let ids: Vec<&'static str> = registry
        .iter()
        .filter(|adapter| keep(adapter.as_ref()))
        .map(|adapter| adapter.id())
        .collect();
    PossibleValuesParser::new(ids)
}

#[cfg(test)]
mod tests {
    use gatehouse_core::WhileHeld;

    /// What each agent does while its hook holds a prompt, as the gateway words it on every held
    /// prompt.
    #[test]
    fn each_agent_says_what_it_does_while_its_hook_holds_a_prompt() {
        let registry = super::registry();
        let while_held = |id: &str| registry.get(id).unwrap().while_held();
        for id in ["claude", "opencode", "kilo", "pi"] {
            assert_eq!(while_held(id), Some(WhileHeld::OwnPromptStaysLive), "{id}");
        }
        for id in ["codex", "qwen", "copilot", "gemini", "droid"] {
            assert_eq!(while_held(id), Some(WhileHeld::OwnDialogAfterHold), "{id}");
        }
    }
}
