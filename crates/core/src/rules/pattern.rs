//! A command pattern: a program, its leading words, and which further words may follow.
//!
//! The program is the command's first word exactly: `/usr/bin/cargo` is not `cargo` and
//! `./cargo` is not `cargo`. Words are compared as the shell passes them, after quotes
//! ([`super::shell`]), never as text; a word the shell may expand into file names (`*.rs`) is
//! never equal to a pattern's word.
//!
//! Three forms say what may follow the leading words ([`FurtherWords`]): nothing; only words from
//! a list the person wrote; or any words at all, which is refused unless the program is on
//! [`crate::safe_words::FURTHER_WORDS_RUN_NO_CODE`].
//!
//! An allow rule never names a program that runs code or another program given in its words
//! (shells, interpreters, `env`, `sudo`, `xargs`, `eval`, ...) nor a builtin that changes the
//! shell's state for the commands after it (`cd`, `export`, `source`, ...): [`refusal`] says
//! which, and the rules refuse such a program at creation and in any part of a command at match.

use thiserror::Error;

use super::shell::{self, SimpleCommand, Unsure};
use crate::safe_words;

/// What may follow a pattern's leading words.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "words", rename_all = "snake_case")]
pub enum FurtherWords {
    /// Nothing: the command is the program and the leading words, exactly.
    Nothing,
    /// Only words from this list, each any number of times, in any order (or none).
    These(Vec<String>),
    /// Any words at all; only for programs whose further words run no code.
    Any,
}

/// A program, its leading words and what may follow them. Made only through
/// [`CommandPattern::new`] or [`CommandPattern::from_command`], which check it (also when read
/// back from disk).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "PatternSpec", into = "PatternSpec")]
pub struct CommandPattern {
    program: String,
    leading: Vec<String>,
    further: FurtherWords,
}

/// A [`CommandPattern`]'s form on disk.
#[derive(serde::Serialize, serde::Deserialize)]
struct PatternSpec {
    program: String,
    leading: Vec<String>,
    further: FurtherWords,
}

impl TryFrom<PatternSpec> for CommandPattern {
    type Error = PatternError;

    fn try_from(spec: PatternSpec) -> Result<Self, PatternError> {
        CommandPattern::new(spec.program, spec.leading, spec.further)
    }
}

impl From<CommandPattern> for PatternSpec {
    fn from(pattern: CommandPattern) -> PatternSpec {
        PatternSpec {
            program: pattern.program,
            leading: pattern.leading,
            further: pattern.further,
        }
    }
}

/// Why a command pattern is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PatternError {
    #[error("the command is not one a rule can read: {0}")]
    Unsure(#[from] Unsure),
    #[error("the command has {0} parts: a pattern is one program and its words (make one rule per part)")]
    SeveralCommands(usize),
    #[error(
        "the program `{0}` is not a plain name or path (letters, digits, `.`, `_`, `-`, `+`, `/`)"
    )]
    UnusualProgram(String),
    #[error("the word `{0}` may expand into file names: write the exact words the program gets")]
    WordMayExpand(String),
    #[error("a word holds a control or hidden character (U+{0:04X})")]
    HiddenCharacter(u32),
    #[error("the list of further words is empty: say which words may follow, or that nothing may")]
    NoFurtherWordsListed,
    #[error("`{program}` {what}, so no rule may allow it: answer such commands each time")]
    RunsOtherCode { program: String, what: &'static str },
    #[error("`{0}` changes the shell's state (its folder, variables or options) for the commands after it, so no rule may allow it")]
    ChangesShellState(String),
    #[error("any words may follow only a program whose further words run no code ({names}); `{program}`'s may: list the further words it may take, or let nothing follow")]
    FurtherWordsMayRunCode { program: String, names: String },
}

/// Why an allow rule may never name a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// It runs code or another program given in its words, saying how.
    RunsOtherCode(&'static str),
    /// It changes the shell's state for the commands after it.
    ChangesShellState,
}

/// Programs that run another program or code given in their words (or, as zsh's `r` and
/// `sched`, from history or later), and are not among `safe_words`' shells and interpreters.
const WRAPPERS: &[&str] = &[
    "env",
    "sudo",
    "doas",
    "su",
    "runuser",
    "pkexec",
    "xargs",
    "eval",
    "exec",
    "command",
    "builtin",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "chrt",
    "taskset",
    "stdbuf",
    "setsid",
    "watch",
    "strace",
    "ltrace",
    "gdb",
    "valgrind",
    "flock",
    "chroot",
    "unshare",
    "nsenter",
    "busybox",
    "script",
    "parallel",
    "sg",
    "newgrp",
    "systemd-run",
    "firejail",
    "bwrap",
    "proot",
    "fakeroot",
    "unbuffer",
    "rlwrap",
    "expect",
    "tmux",
    "screen",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "osascript",
    "pwsh",
    "powershell",
    "r",
    "sched",
    "zle",
    "vared",
];

/// Shell builtins (bash's, then zsh's) that change the state that later commands of the same
/// script run in: the folder, variables (`PATH`), options, aliases, traps, or what they read
/// (`printf -v` and zsh's `print -v` assign; `test -v` evaluates an array subscript).
const SHELL_STATE_BUILTINS: &[&str] = &[
    "cd",
    "pushd",
    "popd",
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "set",
    "unset",
    "shopt",
    "read",
    "readarray",
    "mapfile",
    "source",
    ".",
    "alias",
    "unalias",
    "trap",
    "printf",
    "test",
    "let",
    "hash",
    "enable",
    "ulimit",
    "umask",
    "getopts",
    "shift",
    "bind",
    "complete",
    "compopt",
    "fc",
    "history",
    "jobs",
    "fg",
    "bg",
    "disown",
    "wait",
    "suspend",
    "exit",
    "return",
    "break",
    "continue",
    "logout",
    "caller",
    "dirs",
    "setopt",
    "unsetopt",
    "emulate",
    "autoload",
    "zmodload",
    "print",
    "integer",
    "float",
    "functions",
    "bindkey",
    "zstyle",
    "zparseopts",
];

/// Why an allow rule may never name `program` (by its bare name: `/bin/sh` is `sh`), or `None`.
pub fn refusal(program: &str) -> Option<Refusal> {
    let name = program.rsplit('/').next().unwrap_or(program);
    if SHELL_STATE_BUILTINS.contains(&name) {
        return Some(Refusal::ChangesShellState);
    }
    if WRAPPERS.contains(&name) {
        return Some(Refusal::RunsOtherCode(
            "runs another program or code given in its words",
        ));
    }
    if safe_words::is_shell_or_interpreter(name) {
        return Some(Refusal::RunsOtherCode(
            "is a shell or an interpreter, which runs code given in its words or in a script",
        ));
    }
    None
}

impl CommandPattern {
    /// A pattern of `program`, then `leading`, then `further`, checked for what every rule needs
    /// (an allow rule checks more: [`Self::check_allowable`]).
    pub fn new(
        program: impl Into<String>,
        leading: Vec<String>,
        further: FurtherWords,
    ) -> Result<Self, PatternError> {
        let program = program.into();
        if !shell::is_plain_program(&program) {
            return Err(PatternError::UnusualProgram(program));
        }
        let listed: &[String] = match &further {
            FurtherWords::These(words) if words.is_empty() => {
                return Err(PatternError::NoFurtherWordsListed)
            }
            FurtherWords::These(words) => words,
            _ => &[],
        };
        for word in leading.iter().chain(listed) {
            if let Some(hidden) = word.chars().find(|character| {
                character.is_control() || crate::text::is_hidden_or_reordering(*character)
            }) {
                return Err(PatternError::HiddenCharacter(hidden as u32));
            }
        }
        Ok(CommandPattern {
            program,
            leading,
            further,
        })
    }

    /// A pattern from one simple command as the person typed it (`cargo test`), read as the
    /// shell would read it, then `further`.
    pub fn from_command(command: &str, further: FurtherWords) -> Result<Self, PatternError> {
        let mut commands = shell::parse(command)?;
        if commands.len() != 1 {
            return Err(PatternError::SeveralCommands(commands.len()));
        }
        let mut words = commands.remove(0).words.into_iter();
        let program = words.next().expect("a simple command has a program");
        let mut leading = Vec::new();
        for word in words {
            if word.may_expand {
                return Err(PatternError::WordMayExpand(word.text));
            }
            leading.push(word.text);
        }
        Self::new(program.text, leading, further)
    }

    pub fn program(&self) -> &str {
        &self.program
    }

    pub fn leading(&self) -> &[String] {
        &self.leading
    }

    pub fn further(&self) -> &FurtherWords {
        &self.further
    }

    /// The program and leading words as one line, each word quoted where it needs it.
    pub fn words_text(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.leading)
            .map(|word| quote_word(word))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Refuses what an allow rule may not let through: a program of [`refusal`], or any words
    /// after a program whose further words may run code.
    pub fn check_allowable(&self) -> Result<(), PatternError> {
        match refusal(&self.program) {
            Some(Refusal::RunsOtherCode(what)) => {
                return Err(PatternError::RunsOtherCode {
                    program: self.program.clone(),
                    what,
                })
            }
            Some(Refusal::ChangesShellState) => {
                return Err(PatternError::ChangesShellState(self.program.clone()))
            }
            None => {}
        }
        if self.further == FurtherWords::Any
            && safe_words::read_only_program(&self.program).is_none()
        {
            return Err(PatternError::FurtherWordsMayRunCode {
                program: self.program.clone(),
                names: safe_words::read_only_names(),
            });
        }
        Ok(())
    }

    /// Whether `command` is this program, these leading words, and only further words this
    /// pattern lets follow.
    pub fn matches(&self, command: &SimpleCommand) -> bool {
        let (program, rest) = command
            .words
            .split_first()
            .expect("a simple command has a program");
        if program.may_expand || program.text != self.program || rest.len() < self.leading.len() {
            return false;
        }
        let (leading, further) = rest.split_at(self.leading.len());
        let same_leading = leading
            .iter()
            .zip(&self.leading)
            .all(|(word, expected)| !word.may_expand && &word.text == expected);
        same_leading
            && match &self.further {
                FurtherWords::Nothing => further.is_empty(),
                FurtherWords::These(listed) => further
                    .iter()
                    .all(|word| !word.may_expand && listed.contains(&word.text)),
                FurtherWords::Any => true,
            }
    }
}

/// `word` as a person would type it into a shell: as it is when it is plain, else in single
/// quotes, with each `'` inside written `'"'"'` (so the text reads back as the same one word).
pub fn quote_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "._-+/=:,@%".contains(character));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\"'\"'"))
    }
}

#[cfg(test)]
mod tests;
