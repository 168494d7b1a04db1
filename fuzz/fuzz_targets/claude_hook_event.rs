//! Feeds arbitrary bytes to the Claude adapter's hook event parser, as the agent's stdin could.

#![no_main]

use gatehouse_core::Adapter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = gatehouse_adapter_claude::ClaudeAdapter.parse_hook_event(bytes, None);
});
