//! Feeds arbitrary bytes to the Claude adapter's hook event parser, as the agent's stdin could,
//! and the same bytes with a file on disk made from them, so that the edit previews' bounds
//! (a `replace_all` that grows the file, an edit list, a quadratic diff) are reached too. Seeds
//! that reach each bound are in fuzz/seeds/claude_hook_event; run with a timeout and a memory
//! limit so that a preview that is slow or large fails:
//!   cargo fuzz run claude_hook_event fuzz/seeds/claude_hook_event -- -timeout=2 -rss_limit_mb=256

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = gatehouse_adapter_claude::fuzzing::parse_with_made_up_file(bytes);
});
