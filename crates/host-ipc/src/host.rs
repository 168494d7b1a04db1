//! This machine's host name, which the hook writes on every prompt (`NewPrompt::host`) and says
//! in its hello, so that prompts from agents on other machines (through `gatehouse remote`) show
//! where they came from. `GATEHOUSE_HOST_NAME` overrides it (tests run the "far side" of a link
//! on this same machine).
//!
//! A host name is whatever the far side says: untrusted text, shown only through
//! `gatehouse_core::text`, and never a reason to trust a prompt more: whether a prompt is this
//! machine's is its `origin`, which the gateway sets from the socket it came through.

use std::sync::OnceLock;

/// The variable that overrides the host name.
pub const HOST_NAME_ENV: &str = "GATEHOUSE_HOST_NAME";

/// The host name: `GATEHOUSE_HOST_NAME` if set and not empty, else the system's (`gethostname`),
/// else empty.
pub fn host_name() -> String {
    match std::env::var(HOST_NAME_ENV) {
        Ok(name) if !name.is_empty() => name,
        _ => system_host_name().unwrap_or_default(),
    }
}

/// The host name, read once per process.
pub fn own_host_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(host_name)
}

#[cfg(unix)]
fn system_host_name() -> Option<String> {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is ours and its length is passed; gethostname writes at most that much.
    let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if status != 0 {
        return None;
    }
    let end = buffer.iter().position(|&byte| byte == 0)?;
    Some(String::from_utf8_lossy(&buffer[..end]).into_owned())
}

#[cfg(not(unix))]
fn system_host_name() -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_host_name_is_known() {
        assert!(system_host_name().is_some_and(|name| !name.is_empty()));
    }
}
