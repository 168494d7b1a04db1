//! Unit tests of the shell reader: the words it reads, and a reason for everything it is unsure of.

use super::*;

fn words(text: &str) -> Vec<Vec<String>> {
    parse(text)
        .unwrap_or_else(|unsure| panic!("{text:?}: {unsure}"))
        .into_iter()
        .map(|command| command.words.into_iter().map(|word| word.text).collect())
        .collect()
}

fn unsure(text: &str) -> Unsure {
    match parse(text) {
        Ok(commands) => panic!("{text:?} parsed as {commands:?}"),
        Err(unsure) => unsure,
    }
}

#[test]
fn plain_words_and_quotes_become_words() {
    assert_eq!(words("cargo test"), [["cargo", "test"]]);
    assert_eq!(words("  cargo\ttest  "), [["cargo", "test"]]);
    assert_eq!(words("cargo test 'a'\"b\""), [["cargo", "test", "ab"]]);
    assert_eq!(
        words("echo 'a; rm -rf x' \"| sh\""),
        [["echo", "a; rm -rf x", "| sh"]]
    );
    assert_eq!(words("echo '' x"), [["echo", "", "x"]]);
    assert_eq!(words("'cargo' test"), [["cargo", "test"]]);
    assert_eq!(words("grep a#b"), [["grep", "a#b"]]);
}

#[test]
fn separators_split_simple_commands() {
    let expected = [vec!["cargo", "test"], vec!["rm", "-rf", "x"]];
    for text in [
        "cargo test; rm -rf x",
        "cargo test;rm -rf x",
        "cargo test && rm -rf x",
        "cargo test || rm -rf x",
        "cargo test | rm -rf x",
        "cargo test |& rm -rf x",
        "cargo test & rm -rf x",
        "cargo test\nrm -rf x",
        "cargo test\n\n  \nrm -rf x\n",
        "cargo test &&\n rm -rf x",
    ] {
        assert_eq!(words(text), expected, "{text:?}");
    }
    assert_eq!(words("cargo test;"), [["cargo", "test"]]);
    assert_eq!(words("cargo test &"), [["cargo", "test"]]);
}

#[test]
fn copies_between_standard_descriptors_are_not_words() {
    assert_eq!(words("cargo test 2>&1"), [["cargo", "test"]]);
    assert_eq!(
        words("cargo test 2>&1| head"),
        [vec!["cargo", "test"], vec!["head"]]
    );
    assert_eq!(words("cargo test >&2"), [["cargo", "test"]]);
    assert_eq!(words("2>&1 cargo test"), [["cargo", "test"]]);
    assert_eq!(words("echo a2>&1"), [["echo", "a2"]]);
}

#[test]
fn every_other_redirection_is_unsure() {
    for text in [
        "cargo test > ~/.bashrc",
        "cargo test > out",
        "cargo test >out",
        "cargo test >> out",
        "cargo test 2> err",
        "cargo test 2>&3",
        "cargo test 3>&1",
        "cargo test >&file",
        "cargo test >& 1",
        "cargo test >&1x",
        "cargo test 2>&-",
        "cargo test &> out",
        "cargo test >| out",
        "cargo test < in",
        "cargo test <> f",
        "cargo test <&0",
        "cargo test '2'>&1x",
    ] {
        assert_eq!(unsure(text), Unsure::FileRedirection, "{text:?}");
    }
    assert_eq!(unsure("cat <<EOF\nx\nEOF"), Unsure::HereDocument);
    assert_eq!(unsure("cat <<< x"), Unsure::HereDocument);
}

#[test]
fn expansions_and_escapes_are_unsure_even_inside_quotes() {
    for (text, reason) in [
        ("cargo test $(touch p)", Unsure::Dollar),
        ("cargo test $HOME", Unsure::Dollar),
        ("cargo test '$x'", Unsure::Dollar),
        ("cargo test \"$x\"", Unsure::Dollar),
        ("cargo test `touch p`", Unsure::Backtick),
        ("cargo test '`x`'", Unsure::Backtick),
        ("cargo test a\\;b", Unsure::Backslash),
        ("cargo test 'a\\b'", Unsure::Backslash),
        ("cargo test \\\nrm x", Unsure::Backslash),
        ("cargo test ~/x", Unsure::Tilde),
        ("cargo test a=~/x", Unsure::Tilde),
        ("cargo test #; rm -rf x", Unsure::Comment),
        ("echo \"a!b\"", Unsure::BangInDoubleQuotes),
        ("cat =ls", Unsure::LeadingEquals),
    ] {
        assert_eq!(unsure(text), reason, "{text:?}");
    }
}

#[test]
fn groups_subshells_and_negation_are_unsure() {
    for (text, character) in [
        ("(cargo test)", '('),
        ("cargo test; (rm x)", '('),
        ("{ cargo test; }", '{'),
        ("echo {a,b}", '{'),
        ("cat <(ls)", '<'),
        ("! cargo test", '!'),
        ("echo a!b", '!'),
        ("cargo test)", ')'),
    ] {
        let reason = unsure(text);
        assert!(
            reason == Unsure::Grouping(character) || reason == Unsure::FileRedirection,
            "{text:?}: {reason:?}"
        );
    }
}

#[test]
fn the_command_position_must_be_a_plain_program() {
    for (text, reason) in [
        (
            "CARGO_HOME=/tmp cargo test",
            Unsure::Assignment("CARGO_HOME=/tmp".into()),
        ),
        ("cargo test; A=1 ls", Unsure::Assignment("A=1".into())),
        ("'A=1' ls", Unsure::Assignment("A=1".into())),
        ("*/cargo test", Unsure::ProgramMayExpand("*/cargo".into())),
        ("carg? test", Unsure::ProgramMayExpand("carg?".into())),
        ("[ -v x ]", Unsure::ProgramMayExpand("[".into())),
        ("[[ -v x ]]", Unsure::ProgramMayExpand("[[".into())),
        ("if true; then ls; fi", Unsure::ControlWord("if".into())),
        ("for x in a; do ls; done", Unsure::ControlWord("for".into())),
        (
            "while true; do ls; done",
            Unsure::ControlWord("while".into()),
        ),
        ("case a in", Unsure::ControlWord("case".into())),
        ("function f", Unsure::ControlWord("function".into())),
        ("time cargo test", Unsure::ControlWord("time".into())),
        ("repeat 3 ls", Unsure::ControlWord("repeat".into())),
        ("noglob ls *", Unsure::ControlWord("noglob".into())),
        ("ls; and rm x", Unsure::ControlWord("and".into())),
        ("'' ls", Unsure::UnusualProgram("".into())),
        ("-x ls", Unsure::UnusualProgram("-x".into())),
        ("%1", Unsure::UnusualProgram("%1".into())),
        ("'a b' x", Unsure::UnusualProgram("a b".into())),
        ("cargо test", Unsure::UnusualProgram("cargо".into())),
    ] {
        assert_eq!(unsure(text), reason, "{text:?}");
    }
    // Not first, the same words are only words.
    assert_eq!(words("echo if A=1 '*'"), [["echo", "if", "A=1", "*"]]);
}

#[test]
fn globs_are_marked_where_they_may_expand() {
    let commands = parse("ls *.rs '*.md' a[b] \"c?\"").unwrap();
    let marks: Vec<bool> = commands[0]
        .words
        .iter()
        .map(|word| word.may_expand)
        .collect();
    assert_eq!(marks, [false, true, false, true, false]);
}

#[test]
fn broken_or_empty_commands_are_unsure() {
    for (text, reason) in [
        ("", Unsure::NoCommand),
        ("  \n\n ", Unsure::NoCommand),
        ("cargo test 'a", Unsure::UnbalancedQuote("single")),
        ("cargo test \"a", Unsure::UnbalancedQuote("double")),
        ("; ls", Unsure::EmptyCommand(";")),
        ("ls ;; ls", Unsure::CaseSyntax(";;")),
        ("ls ;& ls", Unsure::CaseSyntax(";&")),
        ("ls && && ls", Unsure::EmptyCommand("&&")),
        ("| ls", Unsure::EmptyCommand("|")),
        ("ls &&", Unsure::DanglingOperator("&&")),
        ("ls ||\n", Unsure::DanglingOperator("||")),
        ("ls |", Unsure::DanglingOperator("|")),
        ("2>&1; ls", Unsure::EmptyCommand(";")),
        ("ls\u{1b}[8m", Unsure::HiddenCharacter(0x1b)),
        ("ls\r", Unsure::HiddenCharacter(0x0d)),
        ("ls\u{0}", Unsure::HiddenCharacter(0)),
        ("ls 'a\u{202e}b'", Unsure::HiddenCharacter(0x202e)),
        ("ls a\u{200b}", Unsure::HiddenCharacter(0x200b)),
    ] {
        assert_eq!(unsure(text), reason, "{text:?}");
    }
}

#[test]
fn text_over_the_cap_is_unsure_and_at_the_cap_is_read() {
    let at_cap = format!("echo {}", "a".repeat(MAX_COMMAND_BYTES - 5));
    assert_eq!(at_cap.len(), MAX_COMMAND_BYTES);
    assert_eq!(parse(&at_cap).unwrap().len(), 1);
    let over = format!("{at_cap}a");
    assert_eq!(
        unsure(&over),
        Unsure::TooLong {
            bytes: MAX_COMMAND_BYTES + 1,
            max: MAX_COMMAND_BYTES
        }
    );
}

#[test]
fn reasons_say_what_was_found() {
    insta::assert_snapshot!(unsure("A=1 ls").to_string(), @"the command starts with an assignment `A=1` (such as `A=b cmd`), which changes what runs");
    insta::assert_snapshot!(unsure("ls > f").to_string(), @"the command redirects to or from a file (only `2>&1`-style copies are read)");
}

/// The raw-text scan the parser is held to finds each thing allowed text must never hold, and
/// nothing in text the rules allow.
#[test]
fn the_raw_text_scan_finds_what_allowed_text_never_holds() {
    for (text, problem) in [
        ("echo $x", "holds '$'"),
        ("echo '`x`'", "holds '`'"),
        ("echo a\\ b", "holds '\\\\'"),
        ("echo \u{1b}[2J", "holds '\\u{1b}'"),
        ("echo (x)", "holds '(' outside quotes"),
        ("cat ~/x", "holds '~' outside quotes"),
        ("cat < x", "holds '<' outside quotes"),
        ("echo x > out", "redirects to a file"),
        ("echo x 2>&1 >out", "redirects to a file"),
    ] {
        assert_eq!(
            never_allowed_in_text(text).as_deref(),
            Some(problem),
            "{text:?}"
        );
    }
    for text in [
        "cargo test",
        "cat 'a (b) ~c' \"{d}\"",
        "cat a 2>&1 | cat >&2",
        "",
    ] {
        assert_eq!(never_allowed_in_text(text), None, "{text:?}");
    }
}
