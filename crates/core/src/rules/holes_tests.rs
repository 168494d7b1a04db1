//! Unit tests of the holes of issue 30: a path starting with `~` is never covered by a folder,
//! and a part of a compound command that reads a pipe is allowed only for a program whose input
//! runs no code there; with a property test that nothing allowed does either.

use proptest::prelude::*;

use super::*;

const PROJECT: &str = "/home/a/proj";

fn rule(id: &str, tool: &str, command: Option<(&str, FurtherWords)>) -> Rule {
    Rule::new(RuleSpec {
        id: RuleId(id.into()),
        verdict: RuleVerdict::Allow,
        agent: None,
        host: None,
        folder: Folder::new(PROJECT).unwrap(),
        tool: Some(tool.into()),
        command: command
            .map(|(command, further)| CommandPattern::from_command(command, further).unwrap()),
        expiry: Expiry::UntilRemoved,
        provenance: Provenance::ByHand {
            at: Timestamp::from_unix_millis(1_764_000_000_000),
        },
    })
    .unwrap()
}

fn facts<'a>(
    tool: &'a str,
    command: Option<&'a str>,
    paths: Option<&'a [String]>,
) -> PromptFacts<'a> {
    PromptFacts {
        agent: "claude",
        host: "laptop",
        session: Some("s1"),
        tool,
        cwd: Some(PROJECT),
        command,
        paths,
        now: Timestamp::from_unix_millis(1_764_000_000_000),
    }
}

#[test]
fn a_folder_never_covers_a_path_starting_with_a_tilde() {
    let project = Folder::new(PROJECT).unwrap();
    let base = Folder::new(PROJECT).unwrap();
    for path in ["~/.bashrc", "~", "~root/.ssh/id_rsa", "~/proj/x", "~a"] {
        assert!(!project.covers(path, Some(&base)), "{path}");
        assert!(!Folder::root().covers(path, Some(&base)), "{path}");
    }
    assert!(
        project.covers("a~/x", Some(&base)),
        "a `~` inside a name is a name"
    );
    assert!(
        project.covers("/home/a/proj/~/x", None),
        "an absolute path is itself"
    );
}

#[test]
fn a_file_tool_rule_never_allows_a_path_starting_with_a_tilde() {
    for tool in ["Write", "Read", "Edit", "MultiEdit", "NotebookEdit"] {
        let rules = [rule("w1", tool, None)];
        let inside = vec!["notes.txt".to_owned()];
        assert!(
            decide(&rules, &facts(tool, None, Some(&inside))).is_some(),
            "{tool}"
        );
        for path in ["~/.bashrc", "~/.ssh/id_rsa", "~root/.profile"] {
            let paths = vec![path.to_owned()];
            assert_eq!(
                decide(&rules, &facts(tool, None, Some(&paths))),
                None,
                "{tool} {path}"
            );
            let both = vec!["notes.txt".to_owned(), path.to_owned()];
            assert_eq!(
                decide(&rules, &facts(tool, None, Some(&both))),
                None,
                "{tool} {path}"
            );
        }
    }
}

fn allowed(rules: &[Rule], command: &str) -> bool {
    matches!(
        decide(rules, &facts("Bash", Some(command), None)),
        Some(Decision {
            verdict: RuleVerdict::Allow,
            ..
        })
    )
}

#[test]
fn a_part_reading_a_pipe_is_allowed_only_for_a_program_whose_input_runs_no_code() {
    let rules = [
        rule("c1", "Bash", Some(("cat", FurtherWords::Any))),
        rule(
            "s1",
            "Bash",
            Some(("sqlite3 data.db", FurtherWords::Nothing)),
        ),
        rule("e1", "Bash", Some(("echo", FurtherWords::Any))),
        rule("t1", "Bash", Some(("cargo test", FurtherWords::Nothing))),
        rule("g1", "Bash", Some(("grep", FurtherWords::Any))),
    ];
    for alone in ["sqlite3 data.db", "cat schema.sql", "cargo test"] {
        assert!(allowed(&rules, alone), "{alone}");
    }
    for piped in [
        "cat schema.sql | sqlite3 data.db",
        "echo .shell touch x | sqlite3 data.db",
        "cat schema.sql |& sqlite3 data.db",
        "cat x | cat y | sqlite3 data.db",
        "grep x f |\nsqlite3 data.db",
        "echo y | cargo test",
    ] {
        assert!(!allowed(&rules, piped), "{piped}");
    }
    for fine in [
        "cargo test 2>&1 | grep FAIL",
        "cargo test |& grep FAIL",
        "cat a | grep x | cat -n",
        "cat schema.sql; sqlite3 data.db",
        "cat schema.sql && sqlite3 data.db",
        "sqlite3 data.db | grep x",
    ] {
        assert!(allowed(&rules, fine), "{fine}");
    }
}

#[test]
fn the_parser_says_which_parts_read_a_pipe() {
    let reads = |text: &str| -> Vec<bool> {
        shell::parse(text)
            .unwrap()
            .iter()
            .map(|part| part.reads_pipe)
            .collect()
    };
    assert_eq!(reads("a | b |& c"), [false, true, true]);
    assert_eq!(reads("a; b && c || d & e\nf"), [false; 6]);
    assert_eq!(reads("a |\n\nb; c"), [false, true, false]);
}

#[test]
fn a_description_says_what_may_read_a_pipe() {
    let described = describe(&rule(
        "s1",
        "Bash",
        Some(("sqlite3 data.db", FurtherWords::Nothing)),
    ));
    assert!(
        described.contains("standard input may come from another command (`|`) only for `cat`"),
        "{described}"
    );
}

fn piece() -> impl Strategy<Value = String> {
    let pick = |choices: &'static [&'static str]| {
        prop::sample::select(choices).prop_map(|choice: &str| choice.to_owned())
    };
    prop_oneof![
        6 => pick(&["sqlite3 data.db", "cat", "grep x", "cargo test", "~", "~/.bashrc", "x"]),
        4 => pick(&[" ", "|", " | ", "|&", ";", " && ", "\n", " 2>&1"]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// No allowed compound pipes into a program off the list, and no allowed file call names a
    /// path starting with `~`.
    #[test]
    fn nothing_allowed_pipes_into_code_or_names_a_tilde_path(pieces in prop::collection::vec(piece(), 0..10)) {
        let text: String = pieces.concat();
        let rules = [
            rule("c1", "Bash", Some(("cat", FurtherWords::Any))),
            rule("s1", "Bash", Some(("sqlite3 data.db", FurtherWords::Nothing))),
            rule("t1", "Bash", Some(("cargo test", FurtherWords::Nothing))),
            rule("g1", "Bash", Some(("grep", FurtherWords::Any))),
        ];
        if allowed(&rules, &text) {
            for part in shell::parse(&text).expect("allowed text parses") {
                prop_assert!(
                    !part.reads_pipe || crate::safe_words::read_only_program(part.program()).is_some(),
                    "{:?} reads a pipe in {:?}", part, text
                );
            }
        }
        let writes = [rule("w1", "Write", None)];
        let paths: Vec<String> = pieces.iter().map(|piece| piece.trim().to_owned()).filter(|piece| !piece.is_empty()).collect();
        if decide(&writes, &facts("Write", None, Some(&paths))).is_some() {
            prop_assert!(paths.iter().all(|path| !path.starts_with('~')), "{:?}", paths);
        }
    }
}
