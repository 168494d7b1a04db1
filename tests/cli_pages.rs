//! The pages the command line teaches with: `gatehouse man` keeps the Quick start's lines as
//! `--help` shows them (rendered by the real `nroff`), `gatehouse man COMMAND` prints that
//! command's page, and `--socket` is shown only by the commands it means something to, while
//! every command still accepts it.

use std::io::Write;
use std::process::{Output, Stdio};

use crate::common::{cannot_run, Sandbox};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The lines of `--help`'s Quick start: from `Quick start:` to the first empty line.
fn quick_start(help: &str) -> Vec<String> {
    let start = help
        .find("Quick start:\n")
        .expect("--help has a Quick start");
    help[start..]
        .lines()
        .take_while(|line| !line.is_empty())
        .map(|line| line.trim_end().to_owned())
        .collect()
}

/// `roff` rendered by `nroff -man` for an 80-column terminal, or `None` (a skip that fails under
/// CI) without nroff.
fn rendered(roff: &str) -> Option<String> {
    let child = std::process::Command::new("nroff")
        .args(["-man", "-rLL=80n", "-Tutf8"])
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        cannot_run("no nroff on PATH to render the man page (apt-get install groff-base)");
        return None;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(roff.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "nroff renders the page");
    // Bold and underline are drawn with backspaces: the text alone.
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut plain = String::new();
    for character in text.chars() {
        if character == '\u{8}' {
            plain.pop();
        } else {
            plain.push(character);
        }
    }
    Some(plain)
}

#[test]
fn the_man_page_keeps_each_line_of_the_quick_start_and_a_command_has_its_own_page() {
    let sandbox = Sandbox::new();
    let help = stdout(&sandbox.run_successfully(&["--help"]));
    let lines = quick_start(&help);
    assert!(lines.len() >= 5, "{lines:?}");
    let roff = stdout(&sandbox.run_successfully(&["man"]));
    if let Some(page) = rendered(&roff) {
        let page_lines: Vec<String> = page.lines().map(|line| line.trim().to_owned()).collect();
        for line in &lines {
            // Roff may set a `-` or `'` as another character; the words and their order stay.
            assert!(
                page_lines
                    .iter()
                    .any(|shown| shown.replace('‐', "-").replace('’', "'") == line.trim()),
                "the man page shows {line:?} as a line of its own:\n{page}"
            );
        }
    }

    let setup = stdout(&sandbox.run_successfully(&["man", "setup"]));
    assert!(setup.contains(".TH gatehouse-setup 1"), "{setup}");
    assert!(
        setup.contains("\\-\\-yes"),
        "the page has setup's options: {setup}"
    );
    let pair = stdout(&sandbox.run_successfully(&["man", "web", "pair"]));
    assert!(pair.contains(".TH gatehouse-web-pair 1"), "{pair}");
    let refused = sandbox.run(&["man", "nonsense"]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("no command `nonsense`") && said.contains("setup"),
        "says which pages there are: {said}"
    );
}

/// The commands that never reach the gateway, as scripts may call them with `--socket`.
const QUIET: [&[&str]; 5] = [
    &["log", "--json"],
    &["completions", "bash"],
    &["man"],
    &["install", "claude", "--settings", "SETTINGS"],
    &["uninstall", "claude", "--settings", "SETTINGS"],
];

#[test]
fn socket_is_shown_only_where_it_means_something_and_accepted_everywhere() {
    let sandbox = Sandbox::new();
    let settings = sandbox.folder.path().join("settings.json");
    let settings = settings.to_str().unwrap();
    for words in QUIET {
        let words: Vec<&str> = words
            .iter()
            .map(|word| if *word == "SETTINGS" { settings } else { word })
            .collect();
        let help = stdout(&sandbox.run_successfully(&[&words[..1], &["--help"]].concat()));
        assert!(!help.contains("--socket"), "{words:?} --help: {help}");
        let page = stdout(&sandbox.run_successfully(&["man", words[0]]));
        assert!(
            !page.contains("\\-\\-socket"),
            "gatehouse-{}(1): {page}",
            words[0]
        );
        // Accepted after the command and before it, as before.
        let socket = sandbox.socket();
        let socket = socket.to_str().unwrap();
        for passed in [
            [&words[..], &["--socket", socket]].concat(),
            [&["--socket", socket], &words[..]].concat(),
        ] {
            let output = sandbox.run(&passed);
            let said = String::from_utf8_lossy(&output.stderr);
            assert!(
                !said.contains("unexpected argument"),
                "{passed:?} takes --socket: {said}"
            );
            assert!(output.status.success(), "{passed:?}: {said}");
        }
    }
    // Under `install`, too.
    let service = sandbox.run_successfully(&["install", "service", "--socket", "/x", "--help"]);
    assert!(
        !stdout(&service).contains("--socket"),
        "{}",
        stdout(&service)
    );
    // Where it means something, it is there.
    for command in ["list", "status", "setup", "doctor", "web"] {
        let help = stdout(&sandbox.run_successfully(&[command, "--help"]));
        assert!(help.contains("--socket <PATH>"), "{command} --help: {help}");
    }
}
