//! The rule writer without Codex: which commands get which pattern (and which none), Starlark
//! escaping, the strict reader, and the atomic, locked, validated write, with hostile commands.

use super::*;

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|word| (*word).to_owned()).collect()
}

const BASH: Option<&str> = Some("/bin/bash");

#[test]
fn a_simple_command_of_a_read_only_program_is_its_words() {
    assert_eq!(
        pattern_for("cat README.md", BASH),
        Ok(Pattern::Words(words(&["cat", "README.md"])))
    );
    assert_eq!(
        pattern_for("ls -la src", None),
        Ok(Pattern::Words(words(&["ls", "-la", "src"]))),
        "the words form does not depend on the shell"
    );
    assert_eq!(
        pattern_for("grep -rn --include=.rs foo src", BASH)
            .unwrap()
            .words(),
        words(&["grep", "-rn", "--include=.rs", "foo", "src"])
    );
}

#[test]
fn a_command_with_a_redirect_or_expansion_is_matched_whole_through_bash() {
    let pattern = pattern_for("printf approved > codex-proof.txt", BASH).unwrap();
    assert_eq!(
        pattern.words(),
        words(&["/bin/bash", "-lc", "printf approved > codex-proof.txt"])
    );
    assert_eq!(
        render_rule(&pattern.words()).unwrap(),
        r#"prefix_rule(pattern=["/bin/bash", "-lc", "printf approved > codex-proof.txt"], decision="allow")"#,
        "the rule Codex itself wrote for this command (fixtures' README)"
    );
    assert!(pattern_for("echo $HOME", BASH).is_ok());
    assert!(pattern_for("printf a > x\nprintf b > y", BASH).is_ok());
}

#[test]
fn commands_codex_may_split_or_unquote_are_not_expressible() {
    for command in [
        "touch a && touch b",
        "ls; rm -rf ~",
        "ls | wc -l",
        "echo 'a b'",
        "echo \"a > b\" > c",
        "echo a\\ b",
        "ls *.txt",
        "touch  two-spaces",
        " touch lead",
        "FOO=bar touch x",
        "time ls",
        "ls\tx",
        "touch a\ntouch b",
        "~/bin/x",
    ] {
        assert_eq!(
            pattern_for(command, BASH),
            Err(NotExpressible::Ambiguous),
            "{command:?}"
        );
    }
}

#[test]
fn hostile_commands_get_no_rule_and_say_why() {
    assert_eq!(pattern_for("", BASH), Err(NotExpressible::Empty));
    assert_eq!(pattern_for("  ", BASH), Err(NotExpressible::Empty));
    assert_eq!(
        pattern_for("touch a\0b", BASH),
        Err(NotExpressible::ControlCharacter)
    );
    assert_eq!(
        pattern_for("printf x > a\rb", BASH),
        Err(NotExpressible::ControlCharacter)
    );
    assert_eq!(
        pattern_for("printf \x1b[2J > x", BASH),
        Err(NotExpressible::ControlCharacter)
    );
    let long = format!("touch {}", "a".repeat(MAX_COMMAND_BYTES));
    assert_eq!(pattern_for(&long, BASH), Err(NotExpressible::TooLong));
    let other = pattern_for("printf x > y", Some("/usr/bin/zsh")).unwrap_err();
    assert_eq!(other, NotExpressible::OtherShell("/usr/bin/zsh".into()));
    assert!(other
        .to_string()
        .contains("your shell is /usr/bin/zsh, not /bin/bash"));
    assert!(pattern_for("printf x > y", None).is_err());
    assert!(NotExpressible::Ambiguous
        .to_string()
        .contains("answer \"always\" in Codex's own prompt"));
}

#[test]
fn starlark_strings_escape_quotes_backslashes_and_line_breaks_and_refuse_other_controls() {
    assert_eq!(starlark_string("a\"b").unwrap(), r#""a\"b""#);
    assert_eq!(starlark_string("a\\b").unwrap(), r#""a\\b""#);
    assert_eq!(starlark_string("a\nb\tc\rd").unwrap(), r#""a\nb\tc\rd""#);
    assert_eq!(starlark_string("\u{202e}é").unwrap(), "\"\u{202e}é\"");
    assert_eq!(starlark_string("a\0b"), None);
    assert_eq!(starlark_string("a\x1bb"), None);
    assert_eq!(render_rule(&[]), None);
    assert_eq!(render_rule(&words(&["a\0"])), None);
}

#[test]
fn every_rendered_rule_reads_back_exactly_by_the_strict_reader() {
    let hostile = [
        words(&["touch", "t0.txt"]),
        words(&["/bin/bash", "-lc", "printf \"x\" > 'y' \\ \n end"]),
        words(&[
            "cat",
            "\"), prefix_rule(pattern=[\"rm\"], decision=\"allow\")",
            "#",
        ]),
        words(&["cat", "\\", "\\\\\"", "\"\"", "\t"]),
        words(&["cat", "\u{202e}txt.exe", "ünï"]),
        words(&["cat", &"x".repeat(100_000)]),
    ];
    for pattern in hostile {
        let line = render_rule(&pattern).unwrap();
        assert_eq!(line.lines().count(), 1, "one line: {line:?}");
        assert_eq!(read_rules(&line).unwrap(), vec![pattern.clone()], "{line}");
    }
}

#[test]
fn the_strict_reader_refuses_anything_gatehouse_does_not_write() {
    for text in [
        "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")",
        "prefix_rule(pattern=[\"rm\"], decision=\"allow\") # x",
        "prefix_rule(pattern=['rm'], decision=\"allow\")",
        "prefix_rule(pattern=[\"rm\" , \"x\"], decision=\"allow\")",
        "prefix_rule(pattern=[\"a\\x41\"], decision=\"allow\")",
        "prefix_rule(pattern=[\"a\"\"b\"], decision=\"allow\")",
        "prefix_rule(pattern=[\"unterminated], decision=\"allow\")",
        "prefix_rule(pattern=[], decision=\"allow\")",
        " prefix_rule(pattern=[\"rm\"], decision=\"allow\")",
        "load(\"x\")",
        "prefix_rule(pattern=[\"a\tb\"], decision=\"allow\")",
    ] {
        assert!(read_rules(text).is_err(), "{text}");
    }
    let example = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/codex-0.171.0/rules-example.rules"
    ));
    assert!(
        read_rules(example).is_err(),
        "a file of the person's own, with forbidden rules, is not gatehouse's"
    );
    assert_eq!(
        read_rules("# c\n\nhost_executable(name=\"touch\", paths=[\"/usr/bin/touch\"]); prefix_rule(pattern=[\"touch\"], decision=\"allow\")\n").unwrap(),
        vec![words(&["touch"])]
    );
}

/// Codex takes any program of a rule's name for it (`./cat`, a program the model wrote) unless
/// a `host_executable` names the real ones: every words rule names the system's own copies, and
/// the reader refuses a bare name without them or with another program's.
#[test]
fn a_words_rule_names_the_systems_own_program_and_no_other() {
    let line = render_rule(&words(&["cat", "README.md"])).unwrap();
    let paths = system_paths("cat");
    assert!(paths.contains(&"/usr/bin/cat".to_owned()) || paths.contains(&"/bin/cat".to_owned()));
    assert!(
        line.starts_with("host_executable(name=\"cat\", paths=[\"/"),
        "{line}"
    );
    assert_eq!(render_rule(&words(&["no-such-program-here", "x"])), None);
    assert_eq!(system_paths("./cat"), Vec::<String>::new());
    for text in [
        "prefix_rule(pattern=[\"cat\"], decision=\"allow\")",
        "host_executable(name=\"ls\", paths=[\"/usr/bin/ls\"]); prefix_rule(pattern=[\"cat\"], decision=\"allow\")",
        "host_executable(name=\"cat\", paths=[\"cat\"]); prefix_rule(pattern=[\"cat\"], decision=\"allow\")",
        "host_executable(name=\"cat\", paths=[]); prefix_rule(pattern=[\"cat\"], decision=\"allow\")",
    ] {
        assert!(read_rules(text).is_err(), "{text}");
    }
}

#[test]
fn a_rule_is_appended_once_to_a_new_file_with_its_folder_and_reads_back() {
    let folder = tempfile::tempdir().unwrap();
    let path = rules_path(Some(&folder.path().display().to_string()), None).unwrap();
    assert_eq!(path, folder.path().join("rules/gatehouse.rules"));
    let first = words(&["touch", "t0.txt"]);
    let second = words(&["/bin/bash", "-lc", "printf \"q\" > x"]);
    assert_eq!(add_rule(&path, &first).unwrap(), Added::Written);
    assert_eq!(add_rule(&path, &second).unwrap(), Added::Written);
    assert_eq!(add_rule(&path, &first).unwrap(), Added::AlreadyThere);
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# gatehouse's own Codex rules"));
    assert_eq!(read_rules(&text).unwrap(), vec![first, second]);
    assert!(text.contains("prefix_rule(pattern=[\"touch\", \"t0.txt\"], decision=\"allow\")\n"));
    let left: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        left,
        ["gatehouse.rules"],
        "no temporary or lock file is left"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "private: {mode:o}");
    }
}

#[test]
fn a_file_holding_anything_else_is_left_alone() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("gatehouse.rules");
    let foreign = "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\n";
    fs::write(&path, foreign).unwrap();
    let error = add_rule(&path, &words(&["touch"])).unwrap_err();
    assert!(matches!(error, RuleError::ForeignContent { .. }), "{error}");
    assert_eq!(fs::read_to_string(&path).unwrap(), foreign);
}

#[test]
fn a_rule_that_cannot_be_written_exactly_writes_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("rules/gatehouse.rules");
    assert!(add_rule(&path, &words(&["a\0b"])).is_err());
    assert!(add_rule(&path, &[]).is_err());
    assert!(!path.exists());
}

#[test]
fn hooks_writing_at_once_lose_no_rule() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("gatehouse.rules");
    let threads: Vec<_> = (0..8)
        .map(|n| {
            let path = path.clone();
            std::thread::spawn(move || add_rule(&path, &words(&["cat", &format!("f{n}")])).unwrap())
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let rules = read_rules(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(rules.len(), 8);
}

#[test]
fn a_lock_left_by_a_hook_that_died_long_ago_is_taken_over_and_a_fresh_one_waited_for() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("gatehouse.rules");
    let lock = folder.path().join("gatehouse.rules.lock");
    fs::write(&lock, "").unwrap();
    let error = add_rule(&path, &words(&["touch"])).unwrap_err();
    assert!(matches!(error, RuleError::Busy { .. }), "{error}");
    let old = SystemTime::now() - Duration::from_secs(120);
    fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    assert_eq!(add_rule(&path, &words(&["touch"])).unwrap(), Added::Written);
    assert!(!lock.exists());
}

/// Codex matches a rule's words as a prefix and has no way to say "exactly these words", so a
/// rule for a program not known to be harmless whatever follows (a stream editor, an archiver,
/// a shell, an interpreter, a runner, a build tool, git, touch...) would let through more than
/// the person saw (`sed -n 1p f -e 'e sh x'`): none is written, and the person is told why.
#[test]
fn a_command_whose_further_words_may_run_code_gets_no_rule() {
    for command in [
        "sed -n 1p f",
        "less README.md",
        "tar -tf a.tar",
        "rsync -n a b",
        "git status",
        "git push origin main",
        "rg foo",
        "find . -name x",
        "sort f",
        "touch t0.txt",
        "cp a b",
        "mkdir ask",
        "cargo test",
        "npm run build",
        "make",
        "/bin/bash",
        "bash",
        "/bin/bash -lc",
        "env",
        "env FOO=1",
        "sudo -u root",
        "xargs",
        "nohup make",
        "timeout 5",
        "python3.12 -m http.server",
        "/usr/bin/python3 script.py",
        "node",
        "./cat README.md",
        "/bin/cat README.md",
    ] {
        let refused = pattern_for(command, BASH).unwrap_err();
        let NotExpressible::FurtherWordsMayRunCode { program, .. } = &refused else {
            panic!("{command}: {refused:?}");
        };
        assert_eq!(program, command.split(' ').next().unwrap());
        let words = refused.to_string();
        assert!(
            words.contains(&format!(
                "would also let through `{command}` followed by any more words"
            )),
            "{words}"
        );
        assert!(words.contains("`cat`, `head`,"), "{words}");
    }
}

/// `bash -lc SCRIPT` is matched as a prefix too: words after the script become the shell's
/// arguments, so a script that reads them gets no rule.
#[test]
fn a_script_that_uses_the_shells_arguments_gets_no_rule() {
    for script in [
        "cat $1 > out.txt",
        "$1 > /dev/null",
        "echo $@ > x",
        "echo $* > x",
        "echo $# > x",
        "echo ${1} > x",
        "echo ${!x} > x",
        "echo $0 > x",
        "getopts a: o > x",
        "echo $BASH_ARGV > x",
        "echo $ > x",
    ] {
        assert_eq!(
            pattern_for(script, BASH),
            Err(NotExpressible::UsesShellArguments),
            "{script}"
        );
    }
    for script in [
        "echo $HOME > x",
        "echo ${HOME} > x",
        "echo $(date) > x",
        "printf approved > codex-proof.txt",
    ] {
        assert!(
            matches!(pattern_for(script, BASH), Ok(Pattern::Shell { .. })),
            "{script}"
        );
    }
}
