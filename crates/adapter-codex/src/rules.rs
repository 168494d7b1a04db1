//! gatehouse's "always" for Codex: a `prefix_rule` in a rules file of gatehouse's own,
//! `$CODEX_HOME/rules/gatehouse.rules` (`CODEX_HOME` defaults to `~/.codex`).
//!
//! What Codex 0.171.0 does with it (observed; see the fixtures' README): it reads every
//! `*.rules` file in that folder when a session starts (`/new` or a restart), never while one
//! runs, so a rule counts from the person's next Codex session on and the running session still
//! asks. One syntax error in any rules file makes Codex apply no custom rule at all, so a rule is
//! written only when it says exactly what the person approved:
//!
//! - the pattern follows what Codex itself writes for "don't ask again": the command's words for
//!   a simple command (`["touch", "t0.txt"]`), and `["/bin/bash", "-lc", "<whole command>"]` for
//!   a command whose shell syntax (a redirect, an expansion) makes Codex match it whole
//!   ([`pattern_for`]); any command it cannot tell exactly is refused, with the reason, and
//!   "always" is not offered for it;
//! - Codex matches a rule's words as a PREFIX, and its rules cannot say "exactly these words"
//!   (`prefix_rule` has no end marker and no wildcard to forbid more), so the words form is
//!   written only for a program whose further words never run code or change a file
//!   ([`gatehouse_core::safe_words`]: `cat`, `grep`, `ls`, ...). A rule for `sed -n 1p f` would
//!   let `sed -n 1p f -e 'e sh x'` run unsandboxed in every later session; such a command gets
//!   no "always" (the `/bin/bash -lc` form is no way out: Codex splits a plain script into its
//!   words and never matches it whole);
//! - the `/bin/bash -lc SCRIPT` form is matched as a prefix too, so words after the script (the
//!   shell's arguments, from a tool that passes words) would reach it: a script that uses the
//!   shell's arguments (`$1`, `$@`, `getopts`, ...) gets no rule;
//! - Codex resolves a command's program and, where no `host_executable` names that program,
//!   matches a rule for `cat` by the file name alone: `./cat` or `/tmp/x/cat`, a program the
//!   model wrote, would match a rule given for the system's `cat`. So a words rule is written
//!   with `host_executable(name=..., paths=[...])` naming the system's own copies of the program
//!   ([`system_paths`]: in `/usr/bin` or `/bin`, owned by root, writable by no one else), and a
//!   program with none gets no rule;
//! - the rule is rendered with Starlark string escapes ([`render_rule`]), and the whole new file
//!   is read back by a strict reader of gatehouse's own ([`read_rules`]) that must find exactly
//!   the rules intended before anything is written;
//! - the file is replaced atomically (a private temporary file renamed over it), under a lock
//!   file so that two hooks writing at once do not lose a rule ([`add_rule`]).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use gatehouse_core::safe_words;

/// The name of gatehouse's own rules file in `$CODEX_HOME/rules/`.
pub const RULES_FILE_NAME: &str = "gatehouse.rules";

/// The shell whose `-lc` form the probe proves, and that Codex 0.171.0 wrote for the person's
/// bash.
pub const PROVEN_SHELL: &str = "/bin/bash";

/// The longest command a rule is written for, in bytes.
pub const MAX_COMMAND_BYTES: usize = 16 * 1024;

/// What the person is told about when a rule takes effect, on every surface.
pub const TAKES_EFFECT: &str = "from your next Codex session on; this session will still ask";

/// The rules file of gatehouse's own: `$CODEX_HOME/rules/gatehouse.rules`, else
/// `~/.codex/rules/gatehouse.rules`, from the given variables (the hook's environment).
pub fn rules_path(codex_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
    let folder = match codex_home.filter(|folder| !folder.is_empty()) {
        Some(codex_home) => PathBuf::from(codex_home),
        None => PathBuf::from(home.filter(|home| !home.is_empty())?).join(".codex"),
    };
    Some(folder.join("rules").join(RULES_FILE_NAME))
}

/// [`rules_path`] from this process's environment.
pub fn rules_path_from_environment() -> Option<PathBuf> {
    let variable = |name: &str| std::env::var(name).ok();
    rules_path(
        variable("CODEX_HOME").as_deref(),
        variable("HOME").as_deref(),
    )
}

/// The pattern of a rule that allows exactly `command` from now on, as Codex matches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// A simple command's words: Codex matches a command whose words start with them.
    Words(Vec<String>),
    /// `[shell, "-lc", command]`: Codex matches the command whole, as its shell runs it.
    Shell { shell: String, command: String },
}

impl Pattern {
    /// The rule's `pattern` list.
    pub fn words(&self) -> Vec<String> {
        match self {
            Pattern::Words(words) => words.clone(),
            Pattern::Shell { shell, command } => {
                vec![shell.clone(), "-lc".into(), command.clone()]
            }
        }
    }
}

/// Why no rule can say exactly what the person approved, in words for the person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotExpressible {
    #[error("the command is empty")]
    Empty,
    #[error("the command is longer than {MAX_COMMAND_BYTES} bytes")]
    TooLong,
    #[error("the command holds a control character (such as NUL) that a rule cannot hold exactly")]
    ControlCharacter,
    #[error("gatehouse cannot tell exactly how Codex splits this command into words (quotes, escapes, globs, or several commands joined); answer \"always\" in Codex's own prompt")]
    Ambiguous,
    #[error("Codex matches a command with shell syntax as `SHELL -lc COMMAND`, and your shell is {0}, not {PROVEN_SHELL} (the form the probe proved)")]
    OtherShell(String),
    #[error("Codex's rules match a command's words as a prefix and cannot say \"exactly these words\", so a rule for `{command}` would also let through `{command}` followed by any more words, and the further words of `{program}` are not known to be harmless (for many programs they run other programs or write files); gatehouse writes such a rule only for programs whose further words never do ({known}); answer \"always\" in Codex's own prompt if you mean every command that starts this way")]
    FurtherWordsMayRunCode {
        command: String,
        program: String,
        known: String,
    },
    #[error("the command uses the shell's arguments (such as $1, $@, getopts or a `for` loop without a list), and Codex would let the same command through with any arguments after it, so no rule can say exactly what you approved")]
    UsesShellArguments,
    #[error("there is no `{0}` of the system's own (in /usr/bin or /bin, owned by root and writable by no one else) for the rule to name, and Codex would take any program called `{0}` for it, one the model wrote included")]
    NoSystemProgram(String),
}

/// The folders whose programs a words rule may name: the system's own.
const SYSTEM_FOLDERS: &[&str] = &["/usr/bin", "/bin"];

/// The system's own copies of `program` (a bare name), for the rule's `host_executable`: each
/// `/usr/bin/NAME` and `/bin/NAME` that is a file owned by root and writable by no one else
/// (links followed). Empty for a name with a `/` or with no such copy.
pub fn system_paths(program: &str) -> Vec<String> {
    if program.is_empty() || program.contains('/') {
        return Vec::new();
    }
    SYSTEM_FOLDERS
        .iter()
        .map(|folder| format!("{folder}/{program}"))
        .filter(|path| system_owned(Path::new(path)))
        .collect()
}

#[cfg(unix)]
fn system_owned(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let owned = |path: &Path| {
        fs::metadata(path).is_ok_and(|metadata| metadata.uid() == 0 && metadata.mode() & 0o022 == 0)
    };
    fs::metadata(path).is_ok_and(|metadata| metadata.is_file())
        && owned(path)
        && path.parent().is_some_and(owned)
}

#[cfg(not(unix))]
fn system_owned(_path: &Path) -> bool {
    false
}

/// Characters a word may hold for the words form: none is special to the shell.
fn plain_word_character(character: char) -> bool {
    character.is_ascii_alphanumeric() || "_-./:=,+@%".contains(character)
}

/// Words bash reads as syntax at the start of a command.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc",
];

/// The exact pattern for `command`, or why there is none. `shell` is the person's shell (the
/// hook's `SHELL`, else the account's), which Codex runs commands with.
pub fn pattern_for(command: &str, shell: Option<&str>) -> Result<Pattern, NotExpressible> {
    if command.trim().is_empty() {
        return Err(NotExpressible::Empty);
    }
    if command.len() > MAX_COMMAND_BYTES {
        return Err(NotExpressible::TooLong);
    }
    if command
        .chars()
        .any(|character| character.is_control() && character != '\n' && character != '\t')
    {
        return Err(NotExpressible::ControlCharacter);
    }
    let words: Vec<&str> = command.split(' ').collect();
    let simple = words
        .iter()
        .all(|word| !word.is_empty() && word.chars().all(plain_word_character))
        && !words[0].contains('=')
        && !RESERVED.contains(&words[0]);
    if simple && safe_words::read_only_program(words[0]).is_none() {
        return Err(NotExpressible::FurtherWordsMayRunCode {
            command: command.to_owned(),
            program: words[0].to_owned(),
            known: safe_words::read_only_names(),
        });
    }
    if simple && system_paths(words[0]).is_empty() {
        return Err(NotExpressible::NoSystemProgram(words[0].to_owned()));
    }
    if simple {
        return Ok(Pattern::Words(
            words.into_iter().map(str::to_owned).collect(),
        ));
    }
    // Codex matches a script of plain words joined by `&&`, `;`, `|` ... part by part, so only a
    // script that surely is not plain (an unquoted redirect or expansion) is matched whole.
    let quoted = command.contains(['\'', '"', '\\']);
    let surely_not_plain = command.contains(['>', '<', '$', '`']);
    if quoted || !surely_not_plain {
        return Err(NotExpressible::Ambiguous);
    }
    if uses_shell_arguments(command) {
        return Err(NotExpressible::UsesShellArguments);
    }
    match shell {
        Some(PROVEN_SHELL) => Ok(Pattern::Shell {
            shell: PROVEN_SHELL.into(),
            command: command.to_owned(),
        }),
        Some(other) => Err(NotExpressible::OtherShell(other.to_owned())),
        None => Err(NotExpressible::OtherShell("not known".into())),
    }
}

/// Whether `script` may read the shell's arguments (the words after the script in
/// `bash -lc SCRIPT WORDS...`): a `$` followed by anything but a variable's name or `(` (`$1`,
/// `$@`, `$*`, `$#`, `${1}`, `${!x}`, a lone `$`), `getopts`, `BASH_ARGV` or `BASH_ARGC`, or
/// any `for` or `select` loop (without an `in` list it walks the arguments).
fn uses_shell_arguments(script: &str) -> bool {
    let name_start = |character: Option<char>| {
        character.is_some_and(|character| character.is_ascii_alphabetic() || character == '_')
    };
    let mut characters = script.chars().peekable();
    while let Some(character) = characters.next() {
        if character != '$' {
            continue;
        }
        let next = characters.peek().copied();
        let plain = match next {
            Some('(') => true,
            Some('{') => {
                characters.next();
                name_start(characters.peek().copied())
            }
            other => name_start(other),
        };
        if !plain {
            return true;
        }
    }
    // `for NAME; do` and `select NAME; do` (no `in` list) walk the arguments with no `$`.
    let loops = script
        .split(|character: char| !(character.is_ascii_alphanumeric() || character == '_'))
        .any(|word| word == "for" || word == "select");
    loops
        || ["getopts", "BASH_ARGV", "BASH_ARGC"]
            .iter()
            .any(|word| script.contains(word))
}

/// The person's shell as Codex finds it: `SHELL` when set, and the account's login shell
/// (`/etc/passwd`) when that can be read; when both are known they must agree.
pub fn person_shell() -> Option<String> {
    let from_environment = std::env::var("SHELL")
        .ok()
        .filter(|shell| !shell.is_empty());
    let from_account = account_shell();
    match (from_environment, from_account) {
        (Some(environment), Some(account)) if environment != account => {
            Some(format!("{environment} (SHELL) or {account} (your account)"))
        }
        (Some(shell), _) | (None, Some(shell)) => Some(shell),
        (None, None) => None,
    }
}

fn account_shell() -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let uid = fs::metadata("/proc/self").ok()?.uid().to_string();
        let passwd = fs::read_to_string("/etc/passwd").ok()?;
        passwd.lines().find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.len() == 7 && fields[2] == uid).then(|| fields[6].to_owned())
        })
    }
    #[cfg(not(unix))]
    None
}

/// A Starlark string literal for `text`: `"` and `\` escaped, newline, carriage return and tab
/// as `\n`, `\r`, `\t`; `None` for any other control character.
pub fn starlark_string(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            other if other.is_control() => return None,
            other => out.push(other),
        }
    }
    out.push('"');
    Some(out)
}

/// The rule's line, `prefix_rule(pattern=[...], decision="allow")`, after
/// `host_executable(name=..., paths=[...]); ` for a program named by its bare name (see
/// [`system_paths`]); `None` when a word cannot be written exactly or such a program has no
/// system copy.
pub fn render_rule(pattern: &[String]) -> Option<String> {
    let program = pattern.first()?;
    let words = pattern
        .iter()
        .map(|word| starlark_string(word))
        .collect::<Option<Vec<_>>>()?;
    let rule = format!(
        "prefix_rule(pattern=[{}], decision=\"allow\")",
        words.join(", ")
    );
    if program.contains('/') {
        return Some(rule);
    }
    let paths = system_paths(program)
        .iter()
        .map(|path| starlark_string(path))
        .collect::<Option<Vec<_>>>()
        .filter(|paths| !paths.is_empty())?;
    Some(format!(
        "host_executable(name={}, paths=[{}]); {rule}",
        words[0],
        paths.join(", ")
    ))
}

/// Why a rules file is not one gatehouse's strict reader accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line_number} of gatehouse's rules file is not a rule gatehouse writes: {why}")]
pub struct NotOurRules {
    pub line_number: usize,
    pub why: &'static str,
}

/// Reads a rules file as gatehouse writes it, and nothing else: blank lines, `#` comments, and
/// `prefix_rule(pattern=["...", ...], decision="allow")` one a line (after
/// `host_executable(name="...", paths=["/...", ...]); ` naming its program, for a program named
/// by its bare name), each string with only the escapes [`starlark_string`] writes. Returns each
/// rule's pattern.
pub fn read_rules(text: &str) -> Result<Vec<Vec<String>>, NotOurRules> {
    let mut rules = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        let fail = |why| NotOurRules {
            line_number: index + 1,
            why,
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (paths_named_for, line) = match line.strip_prefix("host_executable(name=") {
            Some(rest) => {
                let (name, rest) = read_string(rest).ok_or(fail("a name is not a plain string"))?;
                let mut rest = rest
                    .strip_prefix(", paths=[")
                    .ok_or(fail("not `host_executable(name=..., paths=[...]); `"))?;
                loop {
                    let (path, after) =
                        read_string(rest).ok_or(fail("a path is not a plain string"))?;
                    if !path.starts_with('/') {
                        return Err(fail("a path is not absolute"));
                    }
                    if let Some(after) = after.strip_prefix("]); ") {
                        rest = after;
                        break;
                    }
                    rest = after
                        .strip_prefix(", ")
                        .ok_or(fail("paths are not separated by `, `"))?;
                }
                (Some(name), rest)
            }
            None => (None, line),
        };
        let inner = line
            .strip_prefix("prefix_rule(pattern=[")
            .and_then(|rest| rest.strip_suffix("], decision=\"allow\")"))
            .ok_or(fail("not `prefix_rule(pattern=[...], decision=\"allow\")`"))?;
        let mut words = Vec::new();
        let mut rest = inner;
        loop {
            let (word, after) = read_string(rest).ok_or(fail("a word is not a plain string"))?;
            words.push(word);
            if after.is_empty() {
                break;
            }
            rest = after
                .strip_prefix(", ")
                .ok_or(fail("words are not separated by `, `"))?;
        }
        match paths_named_for {
            Some(name) if words.first() != Some(&name) => {
                return Err(fail("its host_executable names another program"))
            }
            None if !words[0].contains('/') => {
                return Err(fail(
                    "a program named by its bare name has no host_executable",
                ))
            }
            _ => {}
        }
        rules.push(words);
    }
    Ok(rules)
}

/// One string literal at the start of `text`, and what follows it.
fn read_string(text: &str) -> Option<(String, &str)> {
    let mut characters = text.strip_prefix('"')?.char_indices();
    let mut word = String::new();
    while let Some((index, character)) = characters.next() {
        match character {
            '"' => return Some((word, &text[index + 2..])),
            '\\' => match characters.next()?.1 {
                '"' => word.push('"'),
                '\\' => word.push('\\'),
                'n' => word.push('\n'),
                'r' => word.push('\r'),
                't' => word.push('\t'),
                _ => return None,
            },
            other if other.is_control() => return None,
            other => word.push(other),
        }
    }
    None
}

/// Why a rule was not written.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error("no rule can say exactly what was approved: {0}")]
    NotExpressible(#[from] NotExpressible),
    #[error("the rule does not read back as written; nothing was written")]
    DoesNotReadBack,
    #[error(
        "{path} holds something gatehouse did not write, so gatehouse leaves it alone: {problem}"
    )]
    ForeignContent { path: PathBuf, problem: NotOurRules },
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("another gatehouse hook held {path} for too long; nothing was written")]
    Busy { path: PathBuf },
}

/// What [`add_rule`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// The rule was appended.
    Written,
    /// The file already held this rule.
    AlreadyThere,
}

const HEADER: &str = "# gatehouse's own Codex rules: one line per \"always\" a person answered from gatehouse.\n\
# Codex reads this file when a session starts (a restart or /new). `gatehouse uninstall codex` leaves it;\n\
# delete a line (or the file) to take an approval back.\n";

/// Appends the rule for `pattern` to the rules file at `path` (creating it and its folder),
/// after checking that the whole new file reads back, by [`read_rules`], as the rules already
/// there plus exactly this one. Replaced atomically, under a lock file.
pub fn add_rule(path: &Path, pattern: &[String]) -> Result<Added, RuleError> {
    let io_error = |source| RuleError::Io {
        path: path.to_path_buf(),
        source,
    };
    let line = render_rule(pattern).ok_or(NotExpressible::ControlCharacter)?;
    if read_rules(&line).ok() != Some(vec![pattern.to_vec()]) {
        return Err(RuleError::DoesNotReadBack);
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder).map_err(io_error)?;
    let _lock = LockFile::take(path)?;
    let before = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(io_error(error)),
    };
    let rules_before = read_rules(&before).map_err(|problem| RuleError::ForeignContent {
        path: path.to_path_buf(),
        problem,
    })?;
    if rules_before.iter().any(|rule| rule == pattern) {
        return Ok(Added::AlreadyThere);
    }
    let mut after = if before.is_empty() {
        HEADER.to_owned()
    } else {
        before
    };
    if !after.ends_with('\n') {
        after.push('\n');
    }
    after.push_str(&line);
    after.push('\n');
    let mut expected = rules_before;
    expected.push(pattern.to_vec());
    if read_rules(&after).ok() != Some(expected) {
        return Err(RuleError::DoesNotReadBack);
    }
    let mut temporary = tempfile::Builder::new()
        .prefix(".gatehouse-rules-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(io_error)?;
    temporary
        .write_all(after.as_bytes())
        .and_then(|()| temporary.as_file().sync_all())
        .map_err(io_error)?;
    temporary
        .persist(path)
        .map_err(|error| io_error(error.error))?;
    Ok(Added::Written)
}

/// How long a hook waits for another one's lock, and after how long a lock left behind by a
/// hook that died is taken over.
const LOCK_WAIT: Duration = Duration::from_secs(3);
const LOCK_STALE: Duration = Duration::from_secs(30);

/// `<rules file>.lock`, made with `O_EXCL` and removed when dropped.
struct LockFile(PathBuf);

impl LockFile {
    fn take(rules: &Path) -> Result<LockFile, RuleError> {
        let mut name = rules.as_os_str().to_owned();
        name.push(".lock");
        let lock = PathBuf::from(name);
        let started = Instant::now();
        loop {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
            {
                Ok(_) => return Ok(LockFile(lock)),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    let stale = fs::metadata(&lock)
                        .and_then(|metadata| metadata.modified())
                        .ok()
                        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
                        .is_some_and(|age| age > LOCK_STALE);
                    if stale {
                        let _ = fs::remove_file(&lock);
                        continue;
                    }
                    if started.elapsed() > LOCK_WAIT {
                        return Err(RuleError::Busy {
                            path: rules.to_path_buf(),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(source) => return Err(RuleError::Io { path: lock, source }),
            }
        }
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests;
