//! A prompt a hook holds says, on every surface, how long is left to answer it and what happens
//! then (issue 20): here for Qwen Code, which shows no dialog while its hook waits and shows its
//! own at the end of the hold, with the wait its installer writes
//! (`GATEHOUSE_HOOK__WAIT_SECONDS=40`). Without Qwen itself: the hook is fed Qwen's captured event,
//! so this runs everywhere. The page's countdown is `web_page`'s, the snapshots are the crates'.

use std::time::Duration;

use gatehouse_adapter_qwen::install::QWEN_WAIT_SECONDS;
use gatehouse_core::Timestamp;
use serde_json::Value;

use crate::common::Gateway;
use crate::e2e_qwen::{qwen_permission_request, write_qwen_record};

const DEADLINE: Duration = Duration::from_secs(30);

fn millis(value: &Value) -> u64 {
    Timestamp::parse_rfc3339(value.as_str().unwrap_or_default())
        .unwrap_or_else(|| panic!("an RFC 3339 timestamp: {value}"))
        .unix_millis()
}

fn the_prompt_of(gateway: &Gateway, session: &str) -> Value {
    gateway.wait_for_prompt(DEADLINE, &format!("the prompt of {session}"), |prompt| {
        prompt["session"] == session
    })
}

#[test]
fn a_held_qwen_prompt_says_when_its_hold_ends_and_that_qwens_dialog_comes_then_and_a_watched_one_says_nothing(
) {
    let gateway = Gateway::start();
    write_qwen_record(&gateway);
    let path = ("PATH", "/usr/bin:/bin");
    let wait = QWEN_WAIT_SECONDS.to_string();
    let wait = ("GATEHOUSE_HOOK__WAIT_SECONDS", wait.as_str());
    let _held = gateway.spawn_hook(
        "qwen",
        &qwen_permission_request("held", "printf held > held.txt"),
        &[path, wait, ("QWEN_CODE_STARTUP_VERSION", "0.24.4")],
    );
    let _watched = gateway.spawn_hook(
        "qwen",
        &qwen_permission_request("watched", "printf watched > watched.txt"),
        &[path, wait, ("QWEN_CODE_STARTUP_VERSION", "0.23.0")],
    );
    let held = the_prompt_of(&gateway, "held");
    assert_eq!(
        held["actions"],
        serde_json::json!(["once", "deny"]),
        "{held}"
    );
    // `list --json`: the hook's wait, from when the gateway registered it.
    let held_for = millis(&held["hold_ends_at"]) - millis(&held["created_at"]);
    assert!(
        ((QWEN_WAIT_SECONDS - 5) * 1_000..=QWEN_WAIT_SECONDS * 1_000).contains(&held_for),
        "{held_for} ms: {held}"
    );
    let after = held["after_hold"].as_str().unwrap_or_default();
    assert_eq!(
        after,
        "then Qwen Code shows its own dialog (it shows none meanwhile), and an answer here is refused"
    );
    let watched = the_prompt_of(&gateway, "watched");
    assert_eq!(watched["actions"], serde_json::json!([]), "{watched}");
    assert!(
        watched.get("hold_ends_at").is_none() && watched.get("after_hold").is_none(),
        "a watched prompt is not held: {watched}"
    );
    // `list` and `show` say it in words.
    let list = gateway.list_text();
    assert!(
        list.contains("held: answer within ") && list.contains(after),
        "{list}"
    );
    assert_eq!(
        list.matches("held: ").count(),
        1,
        "only the held one: {list}"
    );
    let id = held["id"].as_str().unwrap();
    let show = String::from_utf8_lossy(&gateway.run(&["show", id]).stdout).into_owned();
    assert!(
        show.lines().any(|line| line.starts_with("held:")
            && line.contains("then Qwen Code shows its own dialog")),
        "{show}"
    );
}
