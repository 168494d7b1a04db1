//! Ids that people type: a stale id or prefix never answers another prompt, the short id that
//! `list` shows works, and `answer` says what it answered.

use std::time::Duration;

use crate::common::{claude_bash, claude_behavior, finish, Gateway};
use crate::support::world::refused;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_stale_id_prefix_is_refused_and_never_answers_the_prompt_pending_now() {
    let gateway = Gateway::start();
    let (harmless_hook, harmless) = gateway.hold_claude(&claude_bash("echo harmless"));
    let harmless_id = harmless["id"].as_str().unwrap().to_owned();
    assert!(gateway.run(&["release", &harmless_id]).status.success());
    assert!(
        finish(harmless_hook, Duration::from_secs(10))
            .stdout
            .is_empty(),
        "a release prints nothing"
    );
    let (force_push_hook, force_push) =
        gateway.hold_claude(&claude_bash("git push --force origin main"));
    // Both were made within the same minute, so they share the first eight digits.
    assert_eq!(harmless_id[..8], force_push["id"].as_str().unwrap()[..8]);

    // Refused, naming what happened to the old prompt, by its prefix and by its whole id.
    for stale in [&harmless_id[..8], harmless_id.as_str()] {
        refused(&gateway.run(&["answer", stale, "once"]), "was released");
    }
    assert_eq!(
        gateway.list().len(),
        1,
        "the force push is still pending, unanswered"
    );

    let short_id = force_push["short_id"]
        .as_str()
        .expect("list --json has the short id");
    assert!(
        text(&gateway.run(&["list"]).stdout).contains(short_id),
        "list shows the short id"
    );
    let answered = gateway.run(&["answer", short_id, "deny", "--message", "not on main"]);
    assert!(answered.status.success(), "{}", text(&answered.stderr));
    let said = text(&answered.stdout);
    assert!(
        said.contains("claude Bash") && said.contains("git push --force origin main"),
        "answer says what it answered: {said}"
    );
    let output = finish(force_push_hook, Duration::from_secs(10));
    assert_eq!(claude_behavior(&output), "deny");
}

#[test]
fn an_id_that_is_not_one_is_refused_with_words() {
    let gateway = Gateway::start();
    let (hook, _prompt) = gateway.hold_claude(&claude_bash("ls"));
    for (typed, expected) in [
        ("a3f", "at least 4"),
        ("zz-top", "not a prompt id"),
        ("ffffffff", "no prompt"),
    ] {
        refused(&gateway.run(&["answer", typed, "once"]), expected);
    }
    assert_eq!(gateway.list().len(), 1);
    drop(hook);
}

#[test]
fn after_a_restart_an_id_from_the_old_list_names_the_old_prompt_never_a_new_one() {
    let mut gateway = Gateway::start();
    let (harmless_hook, harmless) = gateway.hold_claude(&claude_bash("echo harmless"));
    let harmless_id = harmless["id"].as_str().unwrap().to_owned();
    let harmless_short = harmless["short_id"].as_str().unwrap().to_owned();
    // The terminal answered it (the agent ended the hook), then the gateway restarted.
    let mut harmless_hook = harmless_hook;
    harmless_hook.kill().unwrap();
    harmless_hook.wait().unwrap();
    gateway.wait_for_pending(0);
    gateway.kill();
    gateway.start_again();
    let (_force_push_hook, force_push) = gateway.hold_claude(&claude_bash("rm -rf ~/precious"));
    assert_eq!(harmless_id[..8], force_push["id"].as_str().unwrap()[..8]);
    for typed in [
        &harmless_id[..8],
        harmless_id.as_str(),
        harmless_short.as_str(),
    ] {
        refused(&gateway.run(&["answer", typed, "once"]), "nothing was done");
    }
    let still = gateway.list();
    assert_eq!(still.len(), 1);
    assert_eq!(
        still[0]["summary"], "rm -rf ~/precious",
        "the new prompt is still pending, unanswered"
    );
}
