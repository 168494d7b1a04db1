//! What `gatehouse install` and `uninstall` print reaches the person's terminal: every path and
//! every text in it is shown through `gatehouse_core::text::visible`, so a project folder or a
//! HOME whose name holds terminal escapes (an OSC 52 that fills the clipboard, a title change, a
//! screen clear) is printed as `\e...`, never as the bytes themselves (attacker review, LOW).

use std::path::Path;
use std::process::{Output, Stdio};

use crate::common::Sandbox;

/// A project folder's name that, printed raw, asks the terminal to put `echo pwned` on the
/// clipboard (OSC 52).
const CLIPBOARD_FOLDER: &str = "proj\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}x";

/// A home folder's name that, printed raw, sets the window title and clears the screen.
const TITLE_AND_CLEAR_HOME: &str = "home\u{1b}]0;owned\u{7}\u{1b}[2J";

/// Both outputs of a run, as bytes.
fn printed(output: &Output) -> Vec<u8> {
    [output.stdout.as_slice(), output.stderr.as_slice()].concat()
}

/// Panics unless `output` succeeded, printed something of `folder_name` escaped, and printed no
/// ESC or BEL byte at all.
fn assert_printed_escaped(what: &str, output: &Output, folder_name: &str) {
    let bytes = printed(output);
    let text = String::from_utf8_lossy(&bytes);
    assert!(output.status.success(), "{what} failed: {text}");
    assert!(
        !bytes.contains(&0x1b) && !bytes.contains(&0x07),
        "{what} printed a raw ESC or BEL: {text:?}"
    );
    let escaped = gatehouse_core::text::visible(folder_name).into_owned();
    assert!(
        text.contains(&escaped),
        "{what} names the folder, escaped as {escaped:?}: {text}"
    );
}

fn run_in(sandbox: &Sandbox, folder: &Path, home: &Path, arguments: &[&str]) -> Output {
    sandbox
        .command(arguments)
        .env("HOME", home)
        .current_dir(folder)
        .stdin(Stdio::null())
        .output()
        .expect("gatehouse runs")
}

#[test]
fn a_project_folder_named_with_an_osc_52_escape_is_printed_escaped_by_install_and_uninstall() {
    let sandbox = Sandbox::new();
    let project = sandbox.folder.path().join(CLIPBOARD_FOLDER);
    std::fs::create_dir(&project).unwrap();
    // A settings file there already, so that install and uninstall each print a backup too.
    std::fs::create_dir(project.join(".claude")).unwrap();
    std::fs::write(project.join(".claude/settings.json"), "{}").unwrap();
    let home = sandbox.home();
    for arguments in [
        &["install", "claude", "--project"][..],
        &["install", "claude", "--project"][..],
        &["uninstall", "claude", "--project"][..],
    ] {
        let output = run_in(&sandbox, &project, &home, arguments);
        assert_printed_escaped(&format!("{arguments:?}"), &output, CLIPBOARD_FOLDER);
    }
    let written = std::fs::read_to_string(project.join(".claude/settings.json")).unwrap();
    assert!(!written.contains("gatehouse"), "uninstalled: {written}");
}

#[test]
fn a_home_named_with_title_and_clear_escapes_is_printed_escaped_by_install_and_uninstall() {
    let sandbox = Sandbox::new();
    let home = sandbox.folder.path().join(TITLE_AND_CLEAR_HOME);
    std::fs::create_dir(&home).unwrap();
    // Codex's notes name files under its home too (the rules file that stays after uninstall).
    let codex_home = home.join(".codex");
    std::fs::create_dir_all(codex_home.join("rules")).unwrap();
    std::fs::write(
        codex_home.join("rules/gatehouse.rules"),
        "prefix_rule(pattern=[\"ls\"], decision=\"allow\")\n",
    )
    .unwrap();
    for agent in ["claude", "codex", "qwen"] {
        for verb in ["install", "install", "uninstall"] {
            let output = run_in(&sandbox, sandbox.folder.path(), &home, &[verb, agent]);
            assert_printed_escaped(&format!("{verb} {agent}"), &output, TITLE_AND_CLEAR_HOME);
        }
    }
}
