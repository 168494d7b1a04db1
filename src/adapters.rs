//! The adapters this build knows, registered by id. Adding an agent means adding it here.

use std::sync::Arc;

use gatehouse_core::AdapterRegistry;

pub fn registry() -> AdapterRegistry {
    let mut registry = AdapterRegistry::new();
    registry.register(Arc::new(gatehouse_adapter_claude::ClaudeAdapter));
    registry.register(Arc::new(gatehouse_adapter_codex::CodexAdapter::new(
        crate::config::state_dir(),
    )));
    registry
}
