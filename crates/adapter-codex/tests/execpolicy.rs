//! gatehouse's "always" for Codex, checked with Codex's own matcher: the rules file gatehouse
//! writes for approved commands is given to the pinned `codex execpolicy check`, which must allow
//! what the person approved (and what the description says further words may add) and must NOT
//! allow the extensions that run other programs (`sed -n 1p f -e 'e sh x'`, `rg foo --pre sh`, a
//! shell script's arguments, ...).
//!
//! `codex execpolicy check` matches the words it is given, as Codex matches each plain command it
//! splits a `bash -lc` script into (and a script it cannot split, whole, as
//! `/bin/bash -lc SCRIPT`). It needs the Codex pinned in package.json (`npm ci`): skipped locally
//! without it, a failure in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::process::Command;

use gatehouse_adapter_codex::rules::{self, Pattern};

/// The pinned Codex's version, from the workspace's package.json.
fn pinned_version() -> String {
    let manifest = workspace().join("package.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["devDependencies"]["@openai/codex"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The pinned `codex`, or `None` (locally) when it is not installed; in CI a missing or other
/// Codex fails the test.
fn pinned_codex() -> Option<PathBuf> {
    let codex = workspace().join("node_modules/.bin/codex");
    let version = Command::new(&codex)
        .arg("--version")
        .output()
        .ok()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned());
    let pinned = pinned_version();
    match version {
        Some(version) if version.split_whitespace().last() == Some(pinned.as_str()) => Some(codex),
        found => {
            assert!(
                std::env::var_os("CI").is_none(),
                "the pinned Codex {pinned} is needed at {} (found: {found:?}); run `npm ci` (.ci/run does)",
                codex.display()
            );
            eprintln!("skipped: the pinned Codex {pinned} is not installed (run `npm ci`)");
            None
        }
    }
}

/// Codex's decision for `command` under the rules file at `rules`: `allow`, `prompt`,
/// `forbidden`, or `none` when no rule matches.
fn decision(codex: &Path, rules: &Path, command: &[&str]) -> String {
    let output = Command::new(codex)
        // As Codex checks a command in its sessions: the program resolved on the host, so that a
        // rule for `cat` is matched against the file that would run.
        .args([
            "execpolicy",
            "check",
            "--resolve-host-executables",
            "--rules",
        ])
        .arg(rules)
        .arg("--")
        .args(command)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "codex execpolicy check failed for {command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stdout)));
    answer["decision"].as_str().unwrap_or("none").to_owned()
}

/// Commands the person approved with "always", and later commands that start with the same words
/// but run other programs (or read what was not shown): none may be allowed by the rules
/// gatehouse writes. The later commands are the words Codex splits the model's command into.
const APPROVED_THEN_DANGEROUS: &[(&str, &[&str])] = &[
    ("sed -n 1p f", &["sed", "-n", "1p", "f", "-e", "e sh x"]),
    (
        "sed -n 1p f",
        &["sed", "-n", "1p", "f", "--expression=1e sh x"],
    ),
    ("sed -n", &["sed", "-n", "s/x/sh x/e", "f"]),
    ("less README.md", &["less", "README.md", "+!sh x"]),
    (
        "tar -tf a.tar",
        &["tar", "-tf", "a.tar", "--to-command=sh x"],
    ),
    ("tar -tf a.tar", &["tar", "-tf", "a.tar", "-I", "sh x"]),
    (
        "zip -sf a.zip",
        &["zip", "-sf", "a.zip", "-T", "-TT", "sh x"],
    ),
    ("rsync -n a b", &["rsync", "-n", "a", "b", "-e", "sh x"]),
    ("ssh -V", &["ssh", "-V", "-o", "ProxyCommand=sh x", "h"]),
    ("git diff", &["git", "diff", "--ext-diff"]),
    ("git log", &["git", "log", "--output=/home/dev/.bashrc"]),
    ("vim -R f", &["vim", "-R", "f", "-c", "!sh x"]),
    (
        "find . -name x",
        &["find", ".", "-name", "x", "-exec", "sh", "x", ";"],
    ),
    ("xargs -n1", &["xargs", "-n1", "sh", "x"]),
    ("awk -F,", &["awk", "-F,", "BEGIN{system(\"sh x\")}"]),
    ("rg foo", &["rg", "foo", "--pre", "sh"]),
    ("sort f", &["sort", "f", "--compress-program=sh"]),
    ("sort f", &["sort", "f", "-o", "/home/dev/.bashrc"]),
    ("env", &["env", "sh", "x"]),
    ("nice -n 5", &["nice", "-n", "5", "sh", "x"]),
    ("timeout 5", &["timeout", "5", "sh", "x"]),
    ("sudo -u root", &["sudo", "-u", "root", "sh", "x"]),
    (
        "python3 -V",
        &["python3", "-V", "-c", "import os; os.system('sh x')"],
    ),
    (
        "node --version",
        &["node", "--version", "-e", "require('child_process')"],
    ),
    ("sh setup.sh", &["sh", "setup.sh", "x"]),
    (
        "perl -c f.pl",
        &["perl", "-c", "f.pl", "-e", "system q(sh x)"],
    ),
    ("make -n", &["make", "-n", "--eval=x:=$(shell sh x)"]),
    (
        "npm run build",
        &["npm", "run", "build", "--script-shell=./evil"],
    ),
    (
        "cargo check",
        &["cargo", "check", "--config", "build.rustc-wrapper='./evil'"],
    ),
    ("touch t0.txt", &["touch", "t0.txt", "/home/dev/.hushlogin"]),
    // A script that uses the shell's arguments: Codex matches `/bin/bash -lc SCRIPT` as a
    // prefix too, so arguments after the script (a tool that passes words) reach it.
    (
        "cat $1 > out.txt",
        &[
            "/bin/bash",
            "-lc",
            "cat $1 > out.txt",
            "x",
            "/home/dev/.ssh/id_rsa",
        ],
    ),
    (
        "$1 > /dev/null",
        &["/bin/bash", "-lc", "$1 > /dev/null", "x", "sh"],
    ),
    // A loop without a list walks the shell's arguments with no `$` in sight.
    (
        "for f; do cat $f; done > out.txt",
        &[
            "/bin/bash",
            "-lc",
            "for f; do cat $f; done > out.txt",
            "x",
            "/home/dev/.ssh/id_rsa",
        ],
    ),
    // A program of the same name that the model wrote: Codex takes any file called `cat` for
    // the rule's `cat` unless the rule names the real ones.
    ("cat README.md", &["./cat", "README.md"]),
    ("cat README.md", &["/tmp/model-wrote/cat", "README.md"]),
    ("grep -rn foo src", &["./grep", "-rn", "foo", "src"]),
];

/// Commands whose "always" lets further words through (as its description says), and such
/// words; Codex must allow both the command and the longer one.
const APPROVED_WITH_HARMLESS_MORE: &[(&str, &[&str], &[&str])] = &[
    (
        "cat README.md",
        &["cat", "README.md"],
        &["cat", "README.md", "-n", "other.txt"],
    ),
    (
        "grep -rn foo src",
        &["grep", "-rn", "foo", "src"],
        &["grep", "-rn", "foo", "src", "--include=*.rs"],
    ),
    ("ls -la", &["ls", "-la"], &["ls", "-la", "/tmp", "-R"]),
    (
        "printf approved > codex-proof.txt",
        &["/bin/bash", "-lc", "printf approved > codex-proof.txt"],
        // More words after a script that names no argument change nothing it does.
        &["/bin/bash", "-lc", "printf approved > codex-proof.txt", "x"],
    ),
];

/// Writes gatehouse's rules for `approved` (those it writes at all) into a new rules file.
fn rules_for(folder: &Path, approved: impl IntoIterator<Item = &'static str>) -> PathBuf {
    let path = folder.join("rules").join(rules::RULES_FILE_NAME);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "").unwrap();
    for command in approved {
        if let Ok(pattern) = rules::pattern_for(command, Some(rules::PROVEN_SHELL)) {
            rules::add_rule(&path, &pattern.words()).unwrap();
        }
    }
    path
}

#[test]
fn codex_allows_no_command_that_runs_more_than_the_person_approved() {
    let Some(codex) = pinned_codex() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let rules = rules_for(
        folder.path(),
        APPROVED_THEN_DANGEROUS
            .iter()
            .map(|(approved, _)| *approved),
    );
    let mut allowed = Vec::new();
    for (approved, later) in APPROVED_THEN_DANGEROUS {
        let decided = decision(&codex, &rules, later);
        if decided == "allow" {
            allowed.push(format!("{approved:?} -> {later:?}"));
        }
    }
    assert!(
        allowed.is_empty(),
        "after \"always\", Codex allows these unasked:\n{}\nthe rules file:\n{}",
        allowed.join("\n"),
        std::fs::read_to_string(&rules).unwrap()
    );
}

#[test]
fn codex_allows_what_was_approved_and_what_the_description_says_more_words_may_add() {
    let Some(codex) = pinned_codex() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let rules = rules_for(
        folder.path(),
        APPROVED_WITH_HARMLESS_MORE
            .iter()
            .map(|(approved, ..)| *approved),
    );
    for (approved, words, more) in APPROVED_WITH_HARMLESS_MORE {
        let pattern = rules::pattern_for(approved, Some(rules::PROVEN_SHELL)).unwrap();
        if let Pattern::Words(_) = pattern {
            assert_eq!(pattern.words(), *words, "{approved}");
        }
        assert_eq!(decision(&codex, &rules, words), "allow", "{approved}");
        assert_eq!(
            decision(&codex, &rules, more),
            "allow",
            "{approved}: {more:?}"
        );
    }
    // Another program, or the same one by another path, is not allowed.
    assert_eq!(decision(&codex, &rules, &["./cat", "README.md"]), "none");
    assert_eq!(decision(&codex, &rules, &["catx", "README.md"]), "none");
}
