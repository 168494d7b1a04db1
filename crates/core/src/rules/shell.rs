//! A shell command read into its simple commands and their words, or "unsure" with the reason.
//!
//! This is not a shell: it reads the small part of shell syntax that a rule can be sure of and
//! refuses the rest. What it reads: words of plain characters, single quotes, double quotes,
//! blanks, the separators `;`, `&&`, `||`, `|`, `|&`, `&` and line breaks, and copies between
//! the standard descriptors (`2>&1`, `>&2`). Everything else makes it [`Unsure`], because each can
//! run code or change what runs without showing it in the words: `$` and backticks anywhere
//! (expansions and substitutions, even inside quotes, where `'$'` is harmless but not worth the
//! doubt), backslashes anywhere, `( ) { } !` outside quotes (subshells, groups, brace expansion,
//! negation), `~` outside quotes, a word that starts with `#` (a comment), every other
//! redirection (`>`, `>>`, `<`, here-docs, `&>`, `>&file`: any redirection to or from a file), a
//! word that starts with `=` (zsh's path expansion), a
//! first word with `=` (an assignment such as `A=b cmd`), a glob or an unusual character in the
//! first word, control words (`if`, `for`, `while`, `case`, `function`, ...), unbalanced quotes,
//! control and hidden characters, an empty command between separators, and text over
//! [`MAX_COMMAND_BYTES`].
//!
//! Words keep whether an unquoted `*`, `?` or `[` (or `^` and `#`, which zsh's `extendedglob`
//! reads as patterns) may make the shell expand them into file names ([`Word::may_expand`]): such
//! a word is never the same word as a rule's, and only "any words may follow" lets it through.

use thiserror::Error;

mod never_allowed;

#[doc(hidden)]
pub use never_allowed::never_allowed_in_text;

/// The longest command text read, in bytes; longer text is [`Unsure::TooLong`].
pub const MAX_COMMAND_BYTES: usize = 16 * 1024;

/// Words that start or continue a shell's control structure, or modify the command after them,
/// when they come first in a command: bash's and POSIX's, then zsh's and fish's.
const CONTROL_WORDS: &[&str] = &[
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "case",
    "esac",
    "for",
    "select",
    "while",
    "until",
    "do",
    "done",
    "in",
    "function",
    "time",
    "coproc",
    "repeat",
    "foreach",
    "end",
    "nocorrect",
    "noglob",
    "and",
    "or",
    "not",
    "begin",
    "switch",
];

/// One word of a simple command, with its quotes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word as the program receives it (when it does not expand).
    pub text: String,
    /// Whether it holds an unquoted `*`, `?`, `[`, `^` or `#`, so the shell may replace it with
    /// file names.
    pub may_expand: bool,
}

/// A program and its words, one part of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The words, the program first; never empty.
    pub words: Vec<Word>,
    /// Whether its standard input is the output of the part before it (`|` or `|&`).
    pub reads_pipe: bool,
}

impl SimpleCommand {
    /// The first word: the program as written (`cargo`, `/usr/bin/cargo`, `./cargo`).
    pub fn program(&self) -> &str {
        &self.words[0].text
    }
}

/// Why a command is not read: a rule never allows it, and it goes to the person.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Unsure {
    #[error("the command is {bytes} bytes long, over the {max} bytes a rule reads")]
    TooLong { bytes: usize, max: usize },
    #[error("the command is empty")]
    NoCommand,
    #[error("the command holds `$`, which expands variables or runs commands")]
    Dollar,
    #[error("the command holds a backtick, which runs a command")]
    Backtick,
    #[error("the command holds a backslash, whose escapes a rule does not read")]
    Backslash,
    #[error(
        "the command holds `{0}` outside quotes (a subshell, group, brace expansion or negation)"
    )]
    Grouping(char),
    #[error("the command holds `!` inside double quotes (history expansion in some shells)")]
    BangInDoubleQuotes,
    #[error("the command holds `~` outside quotes, which the shell replaces with a folder")]
    Tilde,
    #[error("a word starts with `#`, which starts a comment")]
    Comment,
    #[error("a word starts with `=`, which zsh replaces with a program's path")]
    LeadingEquals,
    #[error("the command has a here-document or here-string (`<<`)")]
    HereDocument,
    #[error("the command redirects to or from a file (only `2>&1`-style copies are read)")]
    FileRedirection,
    #[error(
        "the command starts with an assignment `{0}` (such as `A=b cmd`), which changes what runs"
    )]
    Assignment(String),
    #[error("the program `{0}` is a pattern the shell may expand into file names")]
    ProgramMayExpand(String),
    #[error(
        "the program `{0}` is not a plain name or path (letters, digits, `.`, `_`, `-`, `+`, `/`)"
    )]
    UnusualProgram(String),
    #[error("the command uses the control word `{0}` (if, for, while, case, function, ...)")]
    ControlWord(String),
    #[error("a {0} quote is never closed")]
    UnbalancedQuote(&'static str),
    #[error("the command holds a control or hidden character (U+{0:04X})")]
    HiddenCharacter(u32),
    #[error("`{0}` has no command before it")]
    EmptyCommand(&'static str),
    #[error("the command ends with `{0}`, which needs a command after it")]
    DanglingOperator(&'static str),
    #[error("the command holds `{0}`, which is case syntax")]
    CaseSyntax(&'static str),
}

/// How two simple commands are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Separator {
    Sequence,
    Background,
    And,
    Or,
    Pipe,
    LineBreak,
}

impl Separator {
    fn text(self) -> &'static str {
        match self {
            Separator::Sequence => ";",
            Separator::Background => "&",
            Separator::And => "&&",
            Separator::Or => "||",
            Separator::Pipe => "|",
            Separator::LineBreak => "a line break",
        }
    }

    /// Whether a command must follow (`a &&` alone is not a whole command).
    fn needs_more(self) -> bool {
        matches!(self, Separator::And | Separator::Or | Separator::Pipe)
    }
}

/// Reads `text` into its simple commands, in order, or says why it is unsure.
pub fn parse(text: &str) -> Result<Vec<SimpleCommand>, Unsure> {
    if text.len() > MAX_COMMAND_BYTES {
        return Err(Unsure::TooLong {
            bytes: text.len(),
            max: MAX_COMMAND_BYTES,
        });
    }
    refuse_characters(text)?;
    let mut reader = Reader::default();
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '\'' | '"' => {
                let (close, name) = if character == '\'' {
                    ('\'', "single")
                } else {
                    ('"', "double")
                };
                reader.start_word();
                reader.digits_only = false;
                loop {
                    match characters.next() {
                        None => return Err(Unsure::UnbalancedQuote(name)),
                        Some(inside) if inside == close => break,
                        Some('!') if close == '"' => return Err(Unsure::BangInDoubleQuotes),
                        Some(inside) => reader.word.push(inside),
                    }
                }
            }
            ' ' | '\t' => reader.end_word(),
            '\n' => reader.separate(Separator::LineBreak)?,
            ';' => match characters.peek() {
                Some(';') => return Err(Unsure::CaseSyntax(";;")),
                Some('&') => return Err(Unsure::CaseSyntax(";&")),
                _ => reader.separate(Separator::Sequence)?,
            },
            '&' => match characters.peek() {
                Some('&') => {
                    characters.next();
                    reader.separate(Separator::And)?;
                }
                Some('>') => return Err(Unsure::FileRedirection),
                _ => reader.separate(Separator::Background)?,
            },
            '|' => match characters.peek() {
                Some('|') => {
                    characters.next();
                    reader.separate(Separator::Or)?;
                }
                Some('&') => {
                    characters.next();
                    reader.separate(Separator::Pipe)?;
                }
                _ => reader.separate(Separator::Pipe)?,
            },
            '<' => {
                return Err(if characters.peek() == Some(&'<') {
                    Unsure::HereDocument
                } else {
                    Unsure::FileRedirection
                })
            }
            '>' => {
                // A descriptor number is the digits right before `>`; any other word before it
                // ends there (`a2>&1` is the word `a2`, then `>&1`).
                let descriptor = reader.word_started && reader.digits_only;
                if descriptor && !is_standard_descriptor(&reader.word) {
                    return Err(Unsure::FileRedirection);
                }
                if descriptor {
                    reader.discard_word();
                } else {
                    reader.end_word();
                }
                read_descriptor_copy(&mut characters)?;
            }
            '(' | ')' | '{' | '}' | '!' => return Err(Unsure::Grouping(character)),
            '~' => return Err(Unsure::Tilde),
            '#' if !reader.word_started => return Err(Unsure::Comment),
            '=' if !reader.word_started => return Err(Unsure::LeadingEquals),
            other => {
                reader.start_word();
                if !other.is_ascii_digit() {
                    reader.digits_only = false;
                }
                if matches!(other, '*' | '?' | '[' | '^' | '#') {
                    reader.may_expand = true;
                }
                reader.word.push(other);
            }
        }
    }
    reader.finish()
}

/// Whether `program` is a name or path a rule can name: ASCII letters, digits and `._-+/`, not
/// starting with `-`.
pub fn is_plain_program(program: &str) -> bool {
    !program.is_empty()
        && !program.starts_with('-')
        && program
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "._-+/".contains(character))
}

/// The characters refused wherever they are, quoted or not.
fn refuse_characters(text: &str) -> Result<(), Unsure> {
    for character in text.chars() {
        match character {
            '$' => return Err(Unsure::Dollar),
            '`' => return Err(Unsure::Backtick),
            '\\' => return Err(Unsure::Backslash),
            '\n' | '\t' => {}
            other if other.is_control() || crate::text::is_hidden_or_reordering(other) => {
                return Err(Unsure::HiddenCharacter(other as u32))
            }
            _ => {}
        }
    }
    Ok(())
}

fn is_standard_descriptor(digits: &str) -> bool {
    matches!(digits, "0" | "1" | "2")
}

/// After `>`: the rest of a copy to a standard descriptor (`&1`), ending the word there.
fn read_descriptor_copy(
    characters: &mut std::iter::Peekable<std::str::Chars<'_>>,
) -> Result<(), Unsure> {
    if characters.next() != Some('&') {
        return Err(Unsure::FileRedirection);
    }
    let mut target = String::new();
    while let Some(digit) = characters.peek().copied().filter(char::is_ascii_digit) {
        target.push(digit);
        characters.next();
    }
    let ends_here = match characters.peek() {
        None => true,
        Some(next) => " \t\n;&|".contains(*next),
    };
    if !is_standard_descriptor(&target) || !ends_here {
        return Err(Unsure::FileRedirection);
    }
    Ok(())
}

/// The command being read: the word so far, the words of the current simple command, and the
/// simple commands done.
#[derive(Default)]
struct Reader {
    word: String,
    word_started: bool,
    digits_only: bool,
    may_expand: bool,
    words: Vec<Word>,
    commands: Vec<SimpleCommand>,
    last_separator: Option<Separator>,
}

impl Reader {
    fn start_word(&mut self) {
        if !self.word_started {
            self.word_started = true;
            self.digits_only = true;
        }
    }

    fn discard_word(&mut self) {
        self.word.clear();
        self.word_started = false;
        self.may_expand = false;
    }

    fn end_word(&mut self) {
        if self.word_started {
            self.words.push(Word {
                text: std::mem::take(&mut self.word),
                may_expand: self.may_expand,
            });
        }
        self.discard_word();
    }

    /// Ends the current simple command at `separator`.
    fn separate(&mut self, separator: Separator) -> Result<(), Unsure> {
        self.end_word();
        if self.words.is_empty() {
            // Blank lines are nothing; any other separator needs a command before it.
            if separator == Separator::LineBreak {
                return Ok(());
            }
            return Err(Unsure::EmptyCommand(separator.text()));
        }
        self.end_command()?;
        self.last_separator = Some(separator);
        Ok(())
    }

    fn end_command(&mut self) -> Result<(), Unsure> {
        let words = std::mem::take(&mut self.words);
        check_program(&words[0])?;
        let reads_pipe = !self.commands.is_empty() && self.last_separator == Some(Separator::Pipe);
        self.commands.push(SimpleCommand { words, reads_pipe });
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<SimpleCommand>, Unsure> {
        self.end_word();
        if self.words.is_empty() {
            if let Some(separator) = self.last_separator.filter(|last| last.needs_more()) {
                return Err(Unsure::DanglingOperator(separator.text()));
            }
        } else {
            self.end_command()?;
        }
        if self.commands.is_empty() {
            return Err(Unsure::NoCommand);
        }
        Ok(self.commands)
    }
}

/// The first word of a simple command must be a program a rule can name.
fn check_program(program: &Word) -> Result<(), Unsure> {
    let text = &program.text;
    if text.contains('=') {
        return Err(Unsure::Assignment(text.clone()));
    }
    if program.may_expand {
        return Err(Unsure::ProgramMayExpand(text.clone()));
    }
    if CONTROL_WORDS.contains(&text.as_str()) {
        return Err(Unsure::ControlWord(text.clone()));
    }
    if !is_plain_program(text) {
        return Err(Unsure::UnusualProgram(text.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
