//! Feeds arbitrary text, as a model could write a shell command, to the rules engine's parser
//! and `decide` against a fixed set of rules, and checks that nothing unparseable is allowed:
//! allowed text holds no `$`, backtick, backslash, group, `~`, file redirection or hidden
//! character, parses, and each of its parts is matched by an allow rule for a program that is
//! neither refused nor other than the rules name.

#![no_main]

use gatehouse_core::rules::{
    decide, pattern, shell, CommandPattern, Expiry, Folder, FurtherWords, PromptFacts, Provenance,
    Rule, RuleId, RuleSpec, RuleVerdict,
};
use gatehouse_core::Timestamp;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const FOLDER: &str = "/home/a/proj";

fn rule(id: &str, verdict: RuleVerdict, command: &str, further: FurtherWords) -> Rule {
    Rule::new(RuleSpec {
        id: RuleId(id.into()),
        verdict,
        agent: None,
        host: None,
        folder: Folder::new(FOLDER).unwrap(),
        tool: Some("Bash".into()),
        command: Some(CommandPattern::from_command(command, further).unwrap()),
        expiry: Expiry::UntilRemoved,
        provenance: Provenance::ByHand {
            at: Timestamp::from_unix_millis(0),
        },
    })
    .unwrap()
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        vec![
            rule(
                "exact",
                RuleVerdict::Allow,
                "cargo test",
                FurtherWords::Nothing,
            ),
            rule(
                "listed",
                RuleVerdict::Allow,
                "cargo build",
                FurtherWords::These(vec!["--all".into(), "--release".into()]),
            ),
            rule("cat", RuleVerdict::Allow, "cat", FurtherWords::Any),
            rule("echo", RuleVerdict::Allow, "echo", FurtherWords::Any),
            rule(
                "status",
                RuleVerdict::Allow,
                "git status",
                FurtherWords::Nothing,
            ),
            rule(
                "rm",
                RuleVerdict::Deny {
                    message: "no".into(),
                },
                "rm",
                FurtherWords::Any,
            ),
        ]
    })
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let facts = PromptFacts {
        agent: "agent",
        host: "host",
        session: None,
        tool: "Bash",
        cwd: Some(FOLDER),
        command: Some(text),
        paths: None,
        now: Timestamp::from_unix_millis(0),
    };
    let Some(decision) = decide(rules(), &facts) else {
        return;
    };
    if decision.verdict != RuleVerdict::Allow {
        return;
    }
    if let Some(problem) = shell::never_allowed_in_text(text) {
        panic!("allowed {text:?} {problem}");
    }
    let parts = shell::parse(text).expect("allowed text parses");
    assert!(!parts.is_empty());
    for part in &parts {
        assert!(pattern::refusal(part.program()).is_none(), "{text:?}");
        assert!(
            ["cargo", "cat", "echo", "git"].contains(&part.program()),
            "allowed {text:?} runs {:?}",
            part.program()
        );
        let matched = rules().iter().any(|rule| {
            rule.is_allow()
                && rule
                    .spec()
                    .command
                    .as_ref()
                    .is_some_and(|p| p.matches(part))
        });
        assert!(matched, "allowed {text:?} has the unmatched part {part:?}");
        assert!(
            !part.reads_pipe
                || gatehouse_core::safe_words::read_only_program(part.program()).is_some(),
            "allowed {text:?} pipes into {:?}",
            part.program()
        );
        if part.program() != "cat" && part.program() != "echo" {
            assert!(part.words.iter().all(|word| !word.may_expand), "{text:?}");
        }
    }
});
