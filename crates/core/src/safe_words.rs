//! Which shell commands a "these words and more" rule may safely let through, in one place for
//! every adapter (and for a rules engine of gatehouse's own later).
//!
//! An agent's prefix rule (Codex's `prefix_rule`, Claude Code's `Bash(sed -n:*)`, OpenCode's
//! `git *`) lets through the words the person saw followed by any words at all. For many programs
//! further words run other programs: a stream editor's script (`sed -n 1p f -e 'e sh x'`), a
//! pager's command (`less +!cmd`), an archiver's or a remote shell's command option
//! (`tar --to-command`, `rsync -e`, `ssh -o ProxyCommand=...`), a search tool's preprocessor
//! (`rg --pre`), `find -exec`, `git -c core.pager=...`, `sort --compress-program`, and every
//! interpreter, shell, runner and build tool. Others write any file (`sort -o`, `tree -o`,
//! `uniq IN OUT`), which runs code just as surely once the file is `~/.bashrc`.
//!
//! [`FURTHER_WORDS_RUN_NO_CODE`] is therefore an ALLOW-LIST, not a deny-list: a program is on it
//! only when no word whatever that follows it (an option, a file name, a glob's expansion, or its
//! standard input) makes it run another program or code, or write or change a file. A program not
//! on it is not known to be harmful; it is not known to be harmless, and that is enough to keep
//! the wider rule away from it. When unsure, leave a program out. Left out on purpose, with why:
//! `sed` (`e` command, `s///e`, `w`), `awk` (`system()`), `rg` (`--pre`, `-z`), `find` (`-exec`,
//! `-delete`, `-fprint`), `less`/`more` (`!cmd`, `LESSOPEN`), `sort` (`--compress-program`, `-o`),
//! `uniq` (writes its second file), `tree` (`-o`), `file` (`-C` writes), `xxd` (writes its second
//! file), `diff` (left out while unsure), `tar`, `zip`, `rsync`, `ssh`, `vim`, `xargs`, `env`,
//! `nice`, `timeout`, `sudo`, `git` (`-c`, `--output`, `--ext-diff`, textconv drivers, hooks), and
//! `printf`: bash's builtin `printf -v NAME` assigns a shell variable, and an array subscript in
//! NAME is evaluated (`printf -v 'a[$(id)]' x` runs `id`), while `printf -v PATH /tmp/x` changes
//! which programs every later command of the same script runs.
//!
//! [`unseen_code`] answers the other question a description must answer: does the command run
//! code that its words do not show (`sh setup.sh`, `python tool.py`, `npm run x`, `make`)? That
//! one only adds a warning, so a list of known runners is enough there: a program missing from it
//! loses a warning, never gains a permission.

/// A program whose further words never run code or change a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOnlyProgram {
    /// Its bare name, as the command's first word (no path: `./cat` is some other program).
    pub name: &'static str,
    /// What it does whatever words follow, for people: "reads files and prints them".
    pub does: &'static str,
    /// Why it is on the list: the options checked, and what none of them does.
    pub why: &'static str,
}

/// Programs whose further words, whatever they are, never run another program or code and never
/// write or change a file: an allow-list (see the module's documentation). Each entry was checked
/// against GNU coreutils and GNU grep, BusyBox's and the BSDs' (and bash's builtins for `echo`
/// and `pwd`).
pub const FURTHER_WORDS_RUN_NO_CODE: &[ReadOnlyProgram] = &[
    ReadOnlyProgram {
        name: "cat",
        does: "reads files and prints them",
        why: "its options only number lines or show non-printing characters; every other word is a file to read",
    },
    ReadOnlyProgram {
        name: "head",
        does: "prints the start of files",
        why: "its options only choose how many lines or bytes and whether to print headers",
    },
    ReadOnlyProgram {
        name: "tail",
        does: "prints the end of files",
        why: "its options choose how much to print and whether to follow a file (`-f`, `--pid` only waits for a process)",
    },
    ReadOnlyProgram {
        name: "wc",
        does: "counts the lines, words and bytes of files",
        why: "its options choose the counts; `--files0-from` reads file names from a file",
    },
    ReadOnlyProgram {
        name: "ls",
        does: "lists folders",
        why: "its options choose what to list and how (`-R`, `--color`, `--hyperlink`); no option runs a program or writes",
    },
    ReadOnlyProgram {
        name: "grep",
        does: "searches files and prints the lines that match",
        why: "`-f` reads patterns from a file, `-r` recurses, `--include`/`--exclude-from` read; unlike `rg --pre` or `zgrep`, no option runs a program",
    },
    ReadOnlyProgram {
        name: "pwd",
        does: "prints the working folder",
        why: "its only options are `-L` and `-P`",
    },
    ReadOnlyProgram {
        name: "echo",
        does: "prints its words",
        why: "its options only choose escapes and the final newline",
    },
    ReadOnlyProgram {
        name: "stat",
        does: "prints what it knows of files",
        why: "its options choose a format (`-c`, `--printf`) or the file system (`-f`)",
    },
    ReadOnlyProgram {
        name: "du",
        does: "prints how much space files use",
        why: "`--files0-from` and `--exclude-from` read file names; no option writes",
    },
    ReadOnlyProgram {
        name: "df",
        does: "prints how full file systems are",
        why: "its options choose fields and units",
    },
];

/// The entry of [`FURTHER_WORDS_RUN_NO_CODE`] for a command's first word, by its bare name only.
pub fn read_only_program(first_word: &str) -> Option<&'static ReadOnlyProgram> {
    FURTHER_WORDS_RUN_NO_CODE
        .iter()
        .find(|program| program.name == first_word)
}

/// The names on [`FURTHER_WORDS_RUN_NO_CODE`], for people: "`cat`, `head`, ...".
pub fn read_only_names() -> String {
    FURTHER_WORDS_RUN_NO_CODE
        .iter()
        .map(|program| format!("`{}`", program.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Shells: the first word after their options is a script file they run, unless a cluster of
/// short options holds `c` (`-c`, `-lc`: the code is the next word).
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh",
];

/// Interpreters, and their options that give the code inline, in the command's own words;
/// otherwise the first word after their options is a script file they run.
const INTERPRETERS: &[(&[&str], &[&str])] = &[
    (&["python", "python2", "python3", "pypy", "pypy3"], &["-c"]),
    (&["perl"], &["-e", "-E"]),
    (
        &[
            "ruby", "lua", "luajit", "julia", "elixir", "groovy", "Rscript",
        ],
        &["-e"],
    ),
    (
        &["node", "nodejs", "bun"],
        &["-e", "--eval", "-p", "--print"],
    ),
    (&["deno"], &["eval"]),
    (&["php"], &["-r"]),
    (&["tclsh"], &[]),
];

/// Whether `program` (by its bare name, `/bin/sh` is `sh`, and without a version, `python3.12`
/// is `python`) is one of the shells or interpreters: each runs code given in its words, in a
/// script it names, or on its standard input.
pub fn is_shell_or_interpreter(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    let unversioned =
        name.trim_end_matches(|character: char| character.is_ascii_digit() || character == '.');
    let named = |names: &[&str]| names.contains(&name) || names.contains(&unversioned);
    named(SHELLS) || INTERPRETERS.iter().any(|(names, _)| named(names))
}

/// Runners and build tools, and the files whose code they run.
const RUNNERS: &[(&str, &str)] = &[
    ("make", "the Makefile"),
    ("gmake", "the Makefile"),
    ("just", "the justfile"),
    ("rake", "the Rakefile"),
    (
        "npm",
        "package.json's scripts and the install scripts of packages",
    ),
    (
        "pnpm",
        "package.json's scripts and the install scripts of packages",
    ),
    (
        "yarn",
        "package.json's scripts and the install scripts of packages",
    ),
    ("npx", "the package it runs"),
    ("pnpx", "the package it runs"),
    ("bunx", "the package it runs"),
    ("uvx", "the package it runs"),
    (
        "cargo",
        "build scripts (build.rs), the crates' code and tests",
    ),
    ("go", "the package's code, tests and go:generate lines"),
    ("gradle", "the build files"),
    ("gradlew", "the build files and the wrapper"),
    ("mvn", "the build's plugins"),
    ("ant", "build.xml"),
    ("cmake", "CMakeLists.txt"),
    ("meson", "meson.build"),
    ("ninja", "build.ninja"),
    ("pytest", "the tests and conftest.py"),
    ("tox", "tox.ini and the project it installs"),
    ("nox", "noxfile.py"),
    ("pip", "the setup scripts of what it installs"),
    ("pip3", "the setup scripts of what it installs"),
    (
        "uv",
        "the project and the setup scripts of what it installs",
    ),
    (
        "poetry",
        "the project and the setup scripts of what it installs",
    ),
    ("bundle", "the Gemfile and the gems"),
    ("mix", "mix.exs"),
    ("dotnet", "the project's build files"),
    (
        "git",
        "the repository's hooks and the programs its configuration names",
    ),
];

/// Code that `command` runs and its words do not show, for people ("the contents of
/// `setup.sh`", "the Makefile"), looked for in each part of the command (split at `;`, `&`, `|`,
/// parentheses and line breaks); `None` when no part is known to run any. A heuristic for a
/// warning only (see the module's documentation).
pub fn unseen_code(command: &str) -> Option<String> {
    let mut found: Vec<String> = Vec::new();
    for part in command.split([';', '&', '|', '(', ')', '\n']) {
        let words: Vec<&str> = part.split_whitespace().collect();
        if let Some(what) = unseen_code_of(&words) {
            if !found.contains(&what) {
                found.push(what);
            }
        }
    }
    (!found.is_empty()).then(|| found.join(" and "))
}

/// [`unseen_code`] for one simple command's words.
fn unseen_code_of(words: &[&str]) -> Option<String> {
    // Variable assignments before the program (`FOO=1 make`).
    let start = words
        .iter()
        .position(|word| !is_assignment(word))
        .unwrap_or(words.len());
    let (program, rest) = words[start..].split_first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let unversioned =
        name.trim_end_matches(|character: char| character.is_ascii_digit() || character == '.');
    if let Some((_, what)) = RUNNERS
        .iter()
        .find(|(runner, _)| *runner == name || *runner == unversioned)
    {
        return Some((*what).to_owned());
    }
    let named = |names: &[&str]| names.contains(&name) || names.contains(&unversioned);
    if named(SHELLS) {
        return script_of(rest, &|word| {
            word.starts_with('-') && !word.starts_with("--") && word.contains('c')
        });
    }
    if let Some((_, inline)) = INTERPRETERS.iter().find(|(names, _)| named(names)) {
        return script_of(rest, &|word| inline.contains(&word));
    }
    let by_path = program.contains('/')
        && !["/usr/", "/bin/", "/sbin/", "/lib/"]
            .iter()
            .any(|system| program.starts_with(system));
    by_path.then(|| format!("the contents of `{program}`"))
}

/// What a shell or an interpreter with these words after it runs from a file: the script (the
/// first word after its options) or a module (`-m`); `None` when `inline` says an option gives
/// the code in the words, or when the code comes from standard input.
fn script_of(rest: &[&str], inline: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        if inline(word) {
            return None;
        }
        if *word == "-m" {
            return words
                .next()
                .map(|module| format!("the module `{module}` and what it loads"));
        }
        if *word == "--" {
            return words
                .next()
                .map(|script| format!("the contents of `{script}`"));
        }
        if !word.starts_with('-') && !word.starts_with('+') {
            // Deno's and Bun's `run` take the script next.
            if *word == "run" {
                continue;
            }
            if word.contains(['*', '?']) {
                return Some("the contents of the script it names".into());
            }
            return Some(format!("the contents of `{word}`"));
        }
    }
    None
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || character == '_')
            && !name.starts_with(|character: char| character.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_names_on_the_list_are_read_only_programs() {
        for name in ["cat", "ls", "grep", "head", "tail", "wc", "echo"] {
            assert_eq!(
                read_only_program(name).map(|program| program.name),
                Some(name)
            );
        }
        for not_on_it in [
            "sed",
            "printf",
            "awk",
            "rg",
            "find",
            "less",
            "sort",
            "tar",
            "zip",
            "rsync",
            "ssh",
            "git",
            "vim",
            "xargs",
            "env",
            "nice",
            "timeout",
            "sudo",
            "python3",
            "node",
            "sh",
            "bash",
            "make",
            "npm",
            "cargo",
            "touch",
            "./cat",
            "/bin/cat",
            "/tmp/x/cat",
            "CAT",
            "cat ",
        ] {
            assert_eq!(read_only_program(not_on_it), None, "{not_on_it}");
        }
        assert!(read_only_names().starts_with("`cat`, `head`, "));
    }

    #[test]
    fn shells_and_interpreters_are_known_by_bare_name_and_without_version() {
        for name in [
            "sh",
            "bash",
            "/bin/sh",
            "zsh",
            "fish",
            "python3",
            "python3.12",
            "/usr/bin/perl",
            "node",
            "deno",
            "tclsh",
            "Rscript",
        ] {
            assert!(is_shell_or_interpreter(name), "{name}");
        }
        for name in [
            "cargo", "make", "cat", "git", "env", "", "shx", "pythonic", "bashful",
        ] {
            assert!(!is_shell_or_interpreter(name), "{name}");
        }
    }

    #[test]
    fn every_entry_says_what_it_does_and_why() {
        for program in FURTHER_WORDS_RUN_NO_CODE {
            assert!(
                !program.does.is_empty() && !program.why.is_empty(),
                "{program:?}"
            );
            assert!(
                !program.name.contains('/') && !program.name.contains(' '),
                "{program:?}"
            );
        }
    }

    #[test]
    fn a_script_a_module_or_a_runners_files_are_named_as_unseen_code() {
        let cases = [
            ("sh setup.sh", Some("the contents of `setup.sh`")),
            (
                "bash -x ./build.sh --fast",
                Some("the contents of `./build.sh`"),
            ),
            ("python tool.py", Some("the contents of `tool.py`")),
            ("python3.12 -u tool.py", Some("the contents of `tool.py`")),
            (
                "python3 -m http.server",
                Some("the module `http.server` and what it loads"),
            ),
            (
                "/usr/bin/perl script.pl",
                Some("the contents of `script.pl`"),
            ),
            ("deno run main.ts", Some("the contents of `main.ts`")),
            (
                "npm run x",
                Some("package.json's scripts and the install scripts of packages"),
            ),
            ("make", Some("the Makefile")),
            ("CC=clang make all", Some("the Makefile")),
            (
                "cargo test",
                Some("build scripts (build.rs), the crates' code and tests"),
            ),
            (
                "./configure --prefix=/usr",
                Some("the contents of `./configure`"),
            ),
            ("scripts/x", Some("the contents of `scripts/x`")),
            ("cd x && make", Some("the Makefile")),
            (
                "sh a.sh; make",
                Some("the contents of `a.sh` and the Makefile"),
            ),
        ];
        for (command, expected) in cases {
            assert_eq!(unseen_code(command).as_deref(), expected, "{command}");
        }
    }

    #[test]
    fn inline_code_and_plain_programs_name_no_unseen_code() {
        for command in [
            "node -e \"require('fs').appendFileSync('ran.log','x')\"",
            "python3 -c 'print(1)'",
            "bash -lc 'ls'",
            "sh -c ls",
            "perl -e 1",
            "python3",
            "printf approved > codex-proof.txt",
            "ls -la",
            "/usr/bin/ls",
            "touch t0.txt",
            "",
        ] {
            assert_eq!(unseen_code(command), None, "{command}");
        }
    }
}
