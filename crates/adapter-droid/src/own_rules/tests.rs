//! Droid's own rules as gatehouse reads them: the allowlist by words and simple commands, and the
//! autonomy levels by risk.

use serde_json::json;

use super::*;

fn defaults() -> Vec<String> {
    allowlist_in(&serde_json::Value::Null)
}

#[test]
fn an_allowlisted_command_is_watched_in_every_mode_as_droid_ran_git_log_with_more_words() {
    for mode in ["off", "auto-low", "spec"] {
        let reason = runs_without_asking("git log --oneline -3", mode, Some("high"), &defaults())
            .unwrap_or_else(|| panic!("{mode}"));
        assert!(reason.contains("starts with `git log`"), "{reason}");
    }
    assert!(runs_without_asking("ls", "off", None, &defaults()).is_some());
    assert!(runs_without_asking("ls -la && pwd", "off", None, &defaults()).is_some());
}

#[test]
fn a_command_is_held_in_auto_off_unless_every_part_is_allowlisted_without_shell_syntax() {
    for held in [
        // Droid 0.225.2 asked about this one.
        "ls -la; touch x.txt",
        "printf approved > proof.txt",
        "ls > listing.txt",
        "ls $(rm -rf x)",
        "ls `rm x`",
        "git logs",
        "lsblk",
        "gitstatus",
        "",
        " ; ",
        "rm -rf build\nls",
    ] {
        assert_eq!(
            runs_without_asking(held, "off", Some("low"), &defaults()),
            None,
            "{held:?}"
        );
    }
}

#[test]
fn the_persons_allowlist_replaces_droids_own() {
    let settings = json!({ "commandAllowlist": ["cargo test", 7, "make"] });
    let mine = allowlist_in(&settings);
    assert_eq!(mine, ["cargo test", "make"]);
    assert!(runs_without_asking("cargo test -p x", "off", None, &mine).is_some());
    assert_eq!(runs_without_asking("ls", "off", None, &mine), None);
    assert_eq!(runs_without_asking("cargo build", "off", None, &mine), None);
    // An empty entry allows nothing.
    let empty = allowlist_in(&json!({ "commandAllowlist": [""] }));
    assert_eq!(runs_without_asking("rm x", "off", None, &empty), None);
}

#[test]
fn an_auto_level_runs_commands_up_to_its_risk_and_asks_about_the_rest() {
    let ask = |mode: &str, risk: Option<&str>| {
        runs_without_asking("printf x > x.txt", mode, risk, &defaults())
    };
    assert!(ask("auto-low", Some("low"))
        .unwrap()
        .contains("Auto (Low) runs low-risk commands"));
    assert_eq!(ask("auto-low", Some("medium")), None);
    assert!(ask("auto-medium", Some("medium")).is_some());
    assert_eq!(ask("auto-medium", Some("high")), None);
    assert!(ask("auto-high", Some("high")).is_some());
    // A risk Droid's model did not give, or one gatehouse does not know: Droid asks, as far as
    // gatehouse can tell.
    assert_eq!(ask("auto-high", None), None);
    assert_eq!(ask("auto-high", Some("none")), None);
    assert_eq!(ask("off", Some("low")), None);
}

#[test]
fn another_mode_is_left_to_droid_without_repeating_what_the_payload_says() {
    for mode in ["spec", "auto-everything", "\u{1b}[2J"] {
        let reason = runs_without_asking("printf x > x.txt", mode, Some("low"), &defaults())
            .unwrap_or_else(|| panic!("{mode}"));
        assert!(reason.contains("leaves to Droid"), "{reason}");
        assert!(!reason.contains(mode), "{reason}");
    }
}

#[test]
fn the_allowlist_is_read_from_the_settings_file_and_droids_own_stands_in_for_a_bad_one() {
    let folder = tempfile::tempdir().unwrap();
    let settings = folder.path().join("settings.json");
    assert_eq!(read_allowlist_from(&settings), DEFAULT_ALLOWLIST, "no file");
    std::fs::write(&settings, r#"{"commandAllowlist": ["make"]}"#).unwrap();
    assert_eq!(read_allowlist_from(&settings), ["make"]);
    std::fs::write(&settings, "not json").unwrap();
    assert_eq!(read_allowlist_from(&settings), DEFAULT_ALLOWLIST);
    let huge = format!(
        r#"{{"commandAllowlist": ["rm"], "pad": "{}"}}"#,
        "x".repeat(SETTINGS_MAX_BYTES as usize)
    );
    std::fs::write(&settings, huge).unwrap();
    assert_eq!(
        read_allowlist_from(&settings),
        DEFAULT_ALLOWLIST,
        "too large"
    );
}
