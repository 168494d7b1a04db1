//! Feeds arbitrary bytes to the Claude adapter's hook event parser, as the agent's stdin could.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = gatehouse_adapter_claude::events::parse(bytes);
});
