//! `gatehouse console` at the sizes a new user's terminal has, 80x24 and 120x40: the real
//! `gatehouse serve` and console in tmux, real `gatehouse hook claude` processes holding prompts,
//! and every assertion made on the screen as `tmux capture-pane -p` prints it. What is checked:
//! the command first under who asks, the hold in one line, every cut list cell ending in `…`, a
//! refusal gone with its prompt, a gone prompt that says how it ended and waits no more, the
//! cursor on the next pending prompt after an answer, Enter picking a question's option, a long
//! command approved once read to its end, and no notice left once its time is up.

use std::time::Duration;

use serde_json::json;

use super::{key_line, verdict, ConsoleWindow, BASH_KEYS_READY, HOOK_EXIT};
use crate::common::{claude_bash, claude_fixture, finish, Gateway};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// A Bash command longer than the detail pane at either size: it is approved only once every
/// line of it has been on screen.
fn long_command() -> String {
    (1..=60)
        .map(|step| format!("echo step {step} of the build"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rows inside the detail pane, without its borders, trailing spaces trimmed.
fn detail(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines
        .iter()
        .position(|line| line.starts_with("┌ Detail"))
        .expect("the detail pane is drawn");
    lines[top + 1..]
        .iter()
        .take_while(|line| !line.starts_with('└'))
        .map(|line| {
            line.trim_end()
                .trim_start_matches('│')
                .trim_end_matches('│')
                .trim_end()
                .to_owned()
        })
        .collect()
}

/// The list's row for the prompt whose summary starts with `summary`, inside its borders.
fn list_row<'a>(screen: &'a str, summary: &str) -> Option<&'a str> {
    screen
        .lines()
        .take_while(|line| !line.starts_with("┌ Detail"))
        .find(|line| line.contains(summary))
        .map(|line| line.trim_end().trim_matches('│').trim_end())
}

/// The lines under the key hints: the notice.
fn notice(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let bottom = lines
        .iter()
        .rposition(|line| line.starts_with('└'))
        .expect("the detail pane is drawn");
    lines[bottom + 1..]
        .iter()
        .skip(2)
        .map(|line| line.trim())
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_owned()
}

#[test]
fn at_80x24_and_120x40_the_console_says_what_is_true_and_moves_to_the_next_pending_prompt() {
    for size in SIZES {
        one_size(size);
    }
}

fn one_size(size: (u16, u16)) {
    let at = format!("at {}x{}", size.0, size.1);
    let gateway = Gateway::start();
    let console = ConsoleWindow::open_sized(&gateway, size);
    console.wait_for_text("connected to gatehouse");
    let (mut long_hook, _) = gateway.hold_claude(&claude_bash(&long_command()));
    let (short_hook, _) = gateway.hold_claude(&claude_bash("printf two > two.txt"));
    let (question_hook, _) =
        gateway.hold_claude(&claude_fixture("PermissionRequest-AskUserQuestion"));
    let screen = console.wait_for("three prompts, the first selected and settled", |screen| {
        screen.contains("3 pending prompts") && key_line(screen).starts_with(BASH_KEYS_READY)
    });

    // The command right under who asks: agent, folder, then what and how long, one line of
    // hold, and the command.
    let pane = detail(&screen);
    assert!(
        pane[0].starts_with("Claude Code (claude) · session ")
            && pane[0].ends_with("/home/dev/project"),
        "{at}: who asks, first: {pane:#?}"
    );
    assert!(
        pane[1].starts_with("Bash permission · waiting "),
        "{at}: {pane:#?}"
    );
    assert!(
        pane[2].starts_with("Held ") && pane[2].ends_with("own prompt can answer it."),
        "{at}: the hold in one line: {pane:#?}"
    );
    assert_eq!(
        screen.matches("Held ").count(),
        1,
        "{at}: one line of hold: {screen}"
    );
    assert_eq!(pane[3], "", "{at}: {pane:#?}");
    assert_eq!(pane[4], "command:", "{at}: {pane:#?}");
    assert_eq!(
        pane[5].trim(),
        "echo step 1 of the build",
        "{at}: {pane:#?}"
    );

    // A list cell too long for its column says it was cut.
    let row = list_row(&screen, "echo step 1").expect("the long command's row");
    assert!(
        row.ends_with('…'),
        "{at}: the cut summary ends in …: {row:?}"
    );
    let row = list_row(&screen, "printf two").expect("the short command's row");
    assert!(
        row.ends_with("printf two > two.txt"),
        "{at}: whole: {row:?}"
    );

    // Approving before the end was on screen is refused, and the refusal is about that prompt:
    // once it is gone, so is the refusal.
    console.press(&["o"]);
    console.wait_for("the refusal", |screen| {
        notice(screen).starts_with("Not approved: not every line")
    });
    unsafe { libc::kill(long_hook.id() as i32, libc::SIGTERM) };
    long_hook.wait().unwrap();
    let screen = console.wait_for("the long prompt, gone", |screen| {
        screen.contains("GONE: withdrawn")
    });
    assert_eq!(notice(&screen), "", "{at}: no stale refusal: {screen}");
    let pane = detail(&screen);
    assert!(
        pane.iter()
            .all(|line| !line.contains("waiting") && !line.contains("Held ")),
        "{at}: a gone prompt waits no more: {pane:#?}"
    );
    let row = list_row(&screen, "echo step 1").expect("the gone prompt stays selected");
    assert!(row.contains("GONE"), "{at}: {row:?}");
    assert!(
        !row.split_whitespace()
            .any(|word| word.ends_with('s') && word.starts_with(char::is_numeric)),
        "{at}: no age on an ended prompt: {row:?}"
    );

    // Answered here, the cursor moves on to the next pending prompt (the question), never to
    // an answered one, and nothing says GONE.
    console.press(&["Down"]);
    console.wait_for("the short command, selected and settled", |screen| {
        detail(screen)
            .iter()
            .any(|line| line == "command: printf two > two.txt")
            && key_line(screen).starts_with(BASH_KEYS_READY)
    });
    console.press(&["o"]);
    assert_eq!(
        verdict(&finish(short_hook, HOOK_EXIT))["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
    let screen = console.wait_for("the question, selected after the answer", |screen| {
        notice(screen).starts_with("Allowed once: printf two > two.txt")
            && list_row(screen, "Which color?").is_some_and(|row| row.starts_with("> "))
    });
    assert!(!screen.contains("GONE"), "{at}: {screen}");
    assert!(list_row(&screen, "printf two").is_none(), "{at}: {screen}");
    assert!(
        detail(&screen)
            .iter()
            .any(|line| line.starts_with("Color: Which color?")),
        "{at}: the question by its header, not its id: {screen}"
    );

    // Enter picks the option under the cursor and sends, as Claude Code's own dialog does.
    console.wait_for("the question, settled", |screen| {
        key_line(screen).starts_with("a answer")
    });
    console.press(&["Enter"]);
    console.wait_for_text("> ( ) Red: warm");
    console.press(&["Down"]);
    console.wait_for_text("> ( ) Blue: cool");
    console.press(&["Enter"]);
    assert_eq!(
        verdict(&finish(question_hook, HOOK_EXIT))["hookSpecificOutput"]["decision"]
            ["updatedInput"]["answers"],
        json!({"Which color?": "Blue"})
    );
    console.wait_for_text("Answered: Blue (Which color?)");

    // A long command is approved once every line of it has been on screen, as --help says.
    let (long_hook, _) = gateway.hold_claude(&claude_bash(&long_command()));
    console.wait_for("the long command, settled", |screen| {
        screen.contains("more below, PgDn to read it all before approving")
            && key_line(screen).starts_with(BASH_KEYS_READY)
    });
    // One page at a time, each once the last one is drawn, until nothing is left below.
    for _ in 0..40 {
        let before = console.screen();
        if !before.contains("more below") {
            break;
        }
        console.press(&["PageDown"]);
        let first_line = detail(&before)[0].clone();
        console.wait_for("the next page", |screen| detail(screen)[0] != first_line);
    }
    let screen = console.screen();
    assert!(
        screen.contains("When the hold ends") && !screen.contains("more below"),
        "{at}: paged to the end: {screen}"
    );
    console.press(&["o"]);
    assert_eq!(
        verdict(&finish(long_hook, HOOK_EXIT))["hookSpecificOutput"]["decision"]["behavior"],
        "allow",
        "{at}: approved once read to its end"
    );
    console.wait_for_text("Allowed once: echo step 1 of the build");

    // A notice lasts about 8 s, then goes.
    let started = std::time::Instant::now();
    console.wait_for("the notice, gone in time", |screen| {
        notice(screen).is_empty()
    });
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{at}: gone within its lifetime"
    );
}
