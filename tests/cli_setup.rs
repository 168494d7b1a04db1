//! `gatehouse setup`'s preview, the words it shows before it asks: what each installer would
//! write, in `gatehouse install`'s own words (the hook command as written, naming
//! `gatehouse-hook`), and a backup only where there is a file to back up. The agents on `PATH`
//! are scripts that print a version: setup only looks for them and asks their `--version`.

use std::path::Path;
use std::process::{Output, Stdio};

use crate::common::Sandbox;

/// The agents the preview is shown for: one whose settings file is there, one whose is not.
const PRESENT: &str = "claude";
const MISSING: &str = "codex";

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A folder holding an executable `name` for each of `names` that prints a version, for `PATH`.
fn fake_agents(sandbox: &Sandbox, names: &[&str]) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let folder = sandbox.folder.path().join("agents");
    std::fs::create_dir_all(&folder).unwrap();
    for name in names {
        let path = folder.join(name);
        std::fs::write(&path, "#!/bin/sh\necho 9.9.9\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    folder
}

/// `gatehouse ARGUMENTS` in the sandbox with `agents` first on `PATH` and no stdin.
fn run_with_agents(sandbox: &Sandbox, agents: &Path, arguments: &[&str]) -> Output {
    sandbox
        .command(arguments)
        .env("PATH", format!("{}:/usr/bin:/bin", agents.display()))
        .stdin(Stdio::null())
        .output()
        .expect("gatehouse runs")
}

/// The notes `gatehouse install AGENT` prints for a settings file holding `content` (`None`:
/// a missing file): its lines but the file's name, the changes, the backup and the last line
/// about starting the gateway.
fn install_notes(sandbox: &Sandbox, agent: &str, content: Option<&str>) -> Vec<String> {
    let folder = sandbox.folder.path().join(format!("by-hand-{agent}"));
    std::fs::create_dir_all(&folder).unwrap();
    let settings = folder.join("settings.json");
    if let Some(content) = content {
        std::fs::write(&settings, content).unwrap();
    }
    let output =
        sandbox.run_successfully(&["install", agent, "--settings", settings.to_str().unwrap()]);
    stdout(&output)
        .lines()
        .filter(|line| {
            !line.starts_with("  ")
                && !line.ends_with(':')
                && !line.starts_with("The previous settings are saved in ")
                && !line.starts_with("Start the gateway")
        })
        .map(str::to_owned)
        .collect()
}

/// The part of setup's output about the agent whose section starts with `name`.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text
        .find(&format!("\n{name} 9.9.9"))
        .unwrap_or_else(|| panic!("setup shows {name}: {text}"));
    let rest = &text[start + 1..];
    let end = rest.find("\n\n").map_or(rest.len(), |end| end + 1);
    &rest[..end]
}

#[test]
fn setup_previews_what_install_would_write_in_its_words_and_a_backup_only_of_a_file_that_is_there()
{
    let sandbox = Sandbox::new();
    let agents = fake_agents(&sandbox, &[PRESENT, MISSING]);
    let claude_settings = sandbox.home().join(".claude/settings.json");
    std::fs::create_dir_all(claude_settings.parent().unwrap()).unwrap();
    let content = "{\"model\": \"opus\"}\n";
    std::fs::write(&claude_settings, content).unwrap();

    let output = run_with_agents(&sandbox, &agents, &["setup", "--no-service"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "nothing changed: {text}");
    assert_eq!(std::fs::read_to_string(&claude_settings).unwrap(), content);
    assert!(!sandbox.home().join(".codex/hooks.json").exists(), "{text}");

    let present = section(&text, "Claude Code");
    let missing = section(&text, "Codex");
    for (agent, shown, notes) in [
        (
            PRESENT,
            present,
            install_notes(&sandbox, PRESENT, Some(content)),
        ),
        (MISSING, missing, install_notes(&sandbox, MISSING, None)),
    ] {
        assert!(!notes.is_empty(), "install {agent} has notes");
        for note in &notes {
            assert!(
                shown.contains(&format!("\n  {note}\n")),
                "setup shows install {agent}'s note {note:?} as it is: {shown}"
            );
        }
        let hook = format!("{}' {agent}", crate::common::hook_binary().display());
        assert!(
            shown.contains(&hook),
            "the hook command as written, naming gatehouse-hook ({hook}): {shown}"
        );
    }
    assert!(
        present.contains(
            "  The previous settings would be saved in ~/.claude/settings.json.gatehouse-backup.\n"
        ),
        "{present}"
    );
    assert!(
        !missing.contains("backup") && !missing.contains("saved in"),
        "a missing file has no backup: {missing}"
    );
}
