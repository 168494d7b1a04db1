//! Unit tests of command patterns: exact, listed and any further words, and the programs no allow
//! rule may name.

use super::*;

fn pattern(command: &str, further: FurtherWords) -> CommandPattern {
    CommandPattern::from_command(command, further).unwrap()
}

fn part(text: &str) -> SimpleCommand {
    let mut commands = shell::parse(text).unwrap();
    assert_eq!(commands.len(), 1, "{text}");
    commands.remove(0)
}

#[test]
fn an_exact_pattern_matches_those_words_and_nothing_more() {
    let exact = pattern("cargo test", FurtherWords::Nothing);
    assert!(exact.check_allowable().is_ok());
    for same in [
        "cargo test",
        "'cargo' \"test\"",
        "cargo test 2>&1",
        "cargo  test",
    ] {
        assert!(exact.matches(&part(same)), "{same}");
    }
    for other in [
        "cargo test --all",
        "cargo",
        "cargo tests",
        "/usr/bin/cargo test",
        "./cargo test",
        "cargo test 'a'\"b\"",
        "cargo test ''",
        "cargo tes*",
        "CARGO test",
    ] {
        assert!(!exact.matches(&part(other)), "{other}");
    }
}

#[test]
fn listed_further_words_are_the_only_ones_that_may_follow() {
    let listed = pattern(
        "cargo test",
        FurtherWords::These(vec!["--all".into(), "--workspace".into()]),
    );
    assert!(listed.check_allowable().is_ok());
    for allowed in [
        "cargo test",
        "cargo test --all",
        "cargo test --workspace --all --all",
    ] {
        assert!(listed.matches(&part(allowed)), "{allowed}");
    }
    for refused in [
        "cargo test --all --config x",
        "cargo test --al?",
        "cargo test --all=1",
        "cargo --all test",
    ] {
        assert!(!listed.matches(&part(refused)), "{refused}");
    }
    assert_eq!(
        CommandPattern::new("cargo", vec![], FurtherWords::These(vec![])),
        Err(PatternError::NoFurtherWordsListed)
    );
}

#[test]
fn any_further_words_only_for_programs_whose_words_run_no_code() {
    let any_cat = pattern("cat", FurtherWords::Any);
    assert!(any_cat.check_allowable().is_ok());
    assert!(any_cat.matches(&part("cat -n *.rs 'a b' /etc/hosts")));
    assert!(!any_cat.matches(&part("/bin/cat x")));
    for program in [
        "cargo test",
        "sed -n",
        "git status",
        "find .",
        "/bin/cat",
        "./cat",
    ] {
        let error = pattern(program, FurtherWords::Any)
            .check_allowable()
            .unwrap_err();
        assert!(
            matches!(error, PatternError::FurtherWordsMayRunCode { .. }),
            "{program}: {error}"
        );
    }
    insta::assert_snapshot!(pattern("cargo test", FurtherWords::Any).check_allowable().unwrap_err().to_string(), @"any words may follow only a program whose further words run no code (`cat`, `head`, `tail`, `wc`, `ls`, `grep`, `pwd`, `echo`, `stat`, `du`, `df`); `cargo`'s may: list the further words it may take, or let nothing follow");
}

#[test]
fn shells_interpreters_wrappers_and_state_builtins_are_refused() {
    for command in [
        "sh -c ls",
        "bash",
        "/bin/bash x.sh",
        "zsh -lc ls",
        "python3 tool.py",
        "python3.12 -c x",
        "node -e x",
        "perl -e x",
        "deno eval x",
        "env ls",
        "/usr/bin/env ls",
        "sudo ls",
        "xargs rm",
        "eval ls",
        "exec ls",
        "command ls",
        "nohup ls",
        "timeout 1 ls",
        "nice ls",
        "awk x",
        "r",
        "sched +1 ls",
    ] {
        let error = pattern(command, FurtherWords::Nothing)
            .check_allowable()
            .unwrap_err();
        assert!(
            matches!(error, PatternError::RunsOtherCode { .. }),
            "{command}: {error}"
        );
    }
    for command in [
        "cd /tmp",
        "export A",
        "set -e",
        "unset A",
        "read x",
        "source x",
        ". x",
        "alias x",
        "trap x",
        "printf x",
        "test -v x",
        "shopt -s x",
        "declare x",
        "umask 0",
    ] {
        let error = pattern(command, FurtherWords::Nothing)
            .check_allowable()
            .unwrap_err();
        assert_eq!(
            error,
            PatternError::ChangesShellState(command.split(' ').next().unwrap().into()),
            "{command}"
        );
    }
    for harmless in ["cargo", "git", "make", "cat", "ls", "echo", "npm", "rm"] {
        assert_eq!(refusal(harmless), None, "{harmless}");
    }
}

#[test]
fn safe_words_shells_and_interpreters_are_refused_by_bare_name() {
    for name in [
        "sh",
        "bash",
        "dash",
        "zsh",
        "fish",
        "python",
        "python3",
        "python3.12",
        "pypy3",
        "perl",
        "ruby",
        "node",
        "bun",
        "deno",
        "php",
        "lua",
        "tclsh",
        "/bin/sh",
        "/usr/bin/python3",
    ] {
        assert!(
            matches!(refusal(name), Some(Refusal::RunsOtherCode(what)) if what.contains("interpreter")),
            "{name}"
        );
    }
    for name in ["cargo", "make", "cat", "git", "ls", "x", "", "a b"] {
        assert_eq!(refusal(name), None, "{name}");
    }
}

#[test]
fn a_pattern_is_one_plain_simple_command() {
    assert_eq!(
        CommandPattern::from_command("cargo test; ls", FurtherWords::Nothing),
        Err(PatternError::SeveralCommands(2))
    );
    assert_eq!(
        CommandPattern::from_command("cat *.rs", FurtherWords::Nothing),
        Err(PatternError::WordMayExpand("*.rs".into()))
    );
    assert!(matches!(
        CommandPattern::from_command("A=1 ls", FurtherWords::Nothing),
        Err(PatternError::Unsure(Unsure::Assignment(_)))
    ));
    assert_eq!(
        CommandPattern::new("a b", vec![], FurtherWords::Nothing),
        Err(PatternError::UnusualProgram("a b".into()))
    );
    assert_eq!(
        CommandPattern::new("ls", vec!["a\u{1b}".into()], FurtherWords::Nothing),
        Err(PatternError::HiddenCharacter(0x1b))
    );
}

#[test]
fn words_are_shown_as_they_would_be_typed() {
    let quoted = CommandPattern::new(
        "echo",
        vec!["a b".into(), "it's".into(), "".into(), "x=1".into()],
        FurtherWords::Nothing,
    )
    .unwrap();
    assert_eq!(quoted.words_text(), "echo 'a b' 'it'\"'\"'s' '' x=1");
    let back = CommandPattern::from_command(&quoted.words_text(), FurtherWords::Nothing).unwrap();
    assert_eq!(back, quoted);
}

#[test]
fn a_pattern_read_back_from_disk_is_checked_again() {
    let saved = serde_json::to_value(pattern(
        "cargo test",
        FurtherWords::These(vec!["--all".into()]),
    ))
    .unwrap();
    assert_eq!(
        saved,
        serde_json::json!({ "program": "cargo", "leading": ["test"], "further": { "kind": "these", "words": ["--all"] } })
    );
    let forged =
        serde_json::json!({ "program": "a;b", "leading": [], "further": { "kind": "nothing" } });
    assert!(serde_json::from_value::<CommandPattern>(forged).is_err());
}
