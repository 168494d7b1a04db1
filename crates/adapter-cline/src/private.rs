//! A private, offline Cline CLI, for the end-to-end tests (and a probe, should Cline ever get
//! one): a `HOME` whose `~/.cline/data/settings/` names one OpenAI-compatible provider, a scripted
//! chat-completions model on loopback, and the saved "Auto-approve all"; the environment that
//! runs Cline offline (no update check, no telemetry, no ClinePass notice), with a hub port of
//! its own; and Cline's hub daemon, found by that port so that it can be ended.
//!
//! Cline's TUI (`cline -i`) starts a hub daemon (`cline --cline-hub-daemon ... --port PORT`) that
//! outlives the TUI's `/exit`, on `CLINE_HUB_PORT` (default 25463, which every Cline of the user
//! shares): a private Cline takes a port of its own, and whoever started it ends the daemon by
//! its process id ([`hub_daemons`]).

use std::fs;
use std::io;
use std::path::Path;

use gatehouse_harness::model::chat::Chat;
use gatehouse_harness::model::{ScriptedCall, ScriptedModel, Tool};
use gatehouse_harness::probe::screen::{private_environment, AgentScreen, Environment, Quit};
use serde_json::json;

use crate::auto_approve::AutoApprove;
use crate::events::SHELL_TOOL;

/// The model name Cline sends; the scripted model answers whatever it is.
pub const MODEL: &str = "gatehouse-scripted";

/// The variable that names the hub daemon's port.
pub const HUB_PORT_VARIABLE: &str = "CLINE_HUB_PORT";

/// The end of the footer of Cline's TUI ("Auto-approve all disabled (Shift+Tab)"), under its
/// input box, whose placeholder is "What can I do for you?" at first and "Ask anything..." after.
pub const READY_TEXT: &str = "(Shift+Tab)";

/// What Cline's TUI shows while a turn runs (also while a hook runs).
pub const BUSY_TEXT: &str = "esc to cancel";

/// The question of Cline's own dialog ("Cline needs permission / Approve tool call? /
/// run_commands / $ COMMAND / [y] Approve   [n] Deny").
pub const DIALOG_TEXT: &str = "Approve tool call?";

/// Cline's TUI, as a driver sees it: `cline -i`, `y` approves in its dialog, `/exit` quits. Its
/// hook's verdicts are nothing: a Cline hook never answers.
pub const SCREEN: AgentScreen = AgentScreen {
    busy_texts: &[BUSY_TEXT, DIALOG_TEXT],
    still_typed,
    yes_keys: &["y"],
    quit: Quit::Command("/exit"),
    arguments: &["-i"],
    ..AgentScreen::new(
        "Cline",
        "PreToolUse",
        (DIALOG_TEXT, READY_TEXT),
        |stdin| crate::events::parse(stdin, || AutoApprove::Off),
        |_| String::new(),
    )
};

/// Cline's shell tool, `{commands: [..]}`, with the scripted call's one command.
pub const RUN_COMMANDS: Tool = Tool {
    name: SHELL_TOOL,
    arguments: |call| json!({ "commands": [call.command] }),
};

/// Whether `message` still sits in Cline's input box (its line right above the box's lower
/// rule), not taken: a busy TUI may drop the Enter. A message taken shows in the transcript,
/// with no rule under it.
pub fn still_typed(screen: &str, message: &str) -> bool {
    let typed = format!("❯ {message}");
    let lines: Vec<&str> = screen.lines().map(str::trim).collect();
    lines
        .windows(2)
        .any(|pair| pair[0] == typed && pair[1].starts_with('─'))
}

/// Starts the scripted chat-completions model on a free loopback port with the calls to hand
/// out, in order; its [`ScriptedModel::base_url`] is the provider's `baseUrl`.
pub fn start_model(script: Vec<ScriptedCall>) -> io::Result<ScriptedModel> {
    ScriptedModel::start(Chat { tool: RUN_COMMANDS }, script)
}

/// Writes Cline's settings in `home`: the OpenAI-compatible provider at `base_url` (as `cline
/// auth -p openai-compatible` writes it) and the saved "Auto-approve all".
pub fn write_private_settings(
    home: &Path,
    base_url: &str,
    auto_approve: AutoApprove,
) -> io::Result<()> {
    let folder = home.join(".cline/data/settings");
    fs::create_dir_all(&folder)?;
    let providers = json!({
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "modes": {},
        "providers": { "openai-compatible": {
            "settings": { "provider": "openai-compatible", "apiKey": "unused", "model": MODEL,
                "baseUrl": base_url },
            "updatedAt": "2026-12-02T00:00:00.000Z",
            "tokenSource": "manual",
        } },
    });
    fs::write(
        folder.join("providers.json"),
        serde_json::to_string_pretty(&providers)? + "\n",
    )?;
    let settings = json!({ "toolAutoApprove": auto_approve == AutoApprove::On });
    fs::write(
        folder.join("global-settings.json"),
        serde_json::to_string_pretty(&settings)? + "\n",
    )
}

/// The environment that runs Cline offline in `home` with its hub daemon on `hub_port`, its
/// `PATH` as given.
pub fn offline_environment(home: &Path, path: &str, hub_port: u16) -> Environment {
    let port = hub_port.to_string();
    private_environment(
        home,
        path,
        &[
            ("CLINE_NO_AUTO_UPDATE", "1"),
            ("CLINE_TELEMETRY_DISABLED", "1"),
            ("CLINE_DISABLE_TELEMETRY", "1"),
            ("DO_NOT_TRACK", "1"),
            ("CLINE_DISABLE_CLINE_PASS_NOTICE", "1"),
            (HUB_PORT_VARIABLE, &port),
        ],
    )
}

/// The process ids of Cline hub daemons on `port`: each process whose command line has
/// `--cline-hub-daemon` and `--port PORT`.
pub fn hub_daemons(port: u16) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let command_line = fs::read(entry.path().join("cmdline")).ok()?;
            is_hub_daemon(&command_line, port).then_some(pid)
        })
        .collect()
}

/// Whether `command_line` (NUL-separated, as `/proc/PID/cmdline`) is a hub daemon's on `port`.
pub fn is_hub_daemon(command_line: &[u8], port: u16) -> bool {
    let words: Vec<&[u8]> = command_line.split(|byte| *byte == 0).collect();
    let port = port.to_string();
    words.contains(&&b"--cline-hub-daemon"[..])
        && words
            .windows(2)
            .any(|pair| pair[0] == b"--port" && pair[1] == port.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hub_daemon_is_known_by_its_flag_and_its_port() {
        let line = |words: &[&str]| words.join("\0").into_bytes();
        let daemon = line(&[
            "/x/cline",
            "--cline-hub-daemon",
            "--cwd",
            "/w",
            "--port",
            "25999",
            "--pathname",
            "/hub",
        ]);
        assert!(is_hub_daemon(&daemon, 25999));
        assert!(!is_hub_daemon(&daemon, 2599));
        assert!(!is_hub_daemon(
            &line(&["/x/cline", "-i", "--port", "25999"]),
            25999
        ));
        let joined = line(&["/x/cline", "--cline-hub-daemon", "--port=25999"]);
        assert!(!is_hub_daemon(&joined, 25999));
    }

    #[test]
    fn a_message_still_typed_sits_above_the_input_boxs_rule() {
        let rule = "─".repeat(20);
        let typed = format!("  ❯ please write a.txt\n  {rule}\n  footer");
        assert!(still_typed(&typed, "please write a.txt"));
        let taken = format!("  ❯ please write a.txt\n  ⠧ Thinking... (esc to cancel)\n  {rule}");
        assert!(!still_typed(&taken, "please write a.txt"));
        assert!(!still_typed(&typed, "please write b.txt"));
    }

    #[test]
    fn the_private_settings_name_the_model_and_the_saved_auto_approve() {
        let home = tempfile::tempdir().unwrap();
        write_private_settings(home.path(), "http://127.0.0.1:1/v1", AutoApprove::Off).unwrap();
        let settings = home.path().join(".cline/data/settings");
        let read = |name: &str| -> serde_json::Value {
            serde_json::from_slice(&fs::read(settings.join(name)).unwrap()).unwrap()
        };
        assert_eq!(
            read("providers.json")["providers"]["openai-compatible"]["settings"]["baseUrl"],
            "http://127.0.0.1:1/v1"
        );
        let saved = fs::read_to_string(settings.join("global-settings.json")).unwrap();
        assert_eq!(crate::auto_approve::setting_in(&saved), AutoApprove::Off);
    }
}
