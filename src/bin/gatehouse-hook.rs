//! `gatehouse-hook AGENT [EVENT]`: the hook alone, the command `gatehouse install` writes into
//! an agent's settings (`gatehouse hook AGENT` does the same, for settings written before).
//! Every tool call of every agent runs it, so it is only what a hook needs: the adapters, which
//! parse their agent's events, and `gatehouse_hook`. No clap, no web server or console: the
//! linker leaves out what `main` never reaches. It skips Rust's runtime start too
//! (`#![no_main]`): `gatehouse_hook::command::main` does what of it the hook needs.
#![no_main]

// The one list of the adapters this build knows, shared with `gatehouse`; the hook uses only
// `registry`.
#[allow(dead_code)]
#[path = "../adapters.rs"]
mod adapters;

/// What `adapters` needs of the binary's config: where gatehouse keeps its state.
mod config {
    pub use gatehouse_host_ipc::socket::state_dir;
}

/// The C entry point. The words come from `std::env::args_os`, which glibc and the other
/// platforms' C libraries hand to Rust's standard library before `main` whatever it is.
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    let words: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match gatehouse_hook::command::main(&words, adapters::registry) {
        code if code == std::process::ExitCode::SUCCESS => 0,
        _ => 1,
    }
}
