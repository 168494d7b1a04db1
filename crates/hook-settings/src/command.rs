//! Which hook commands are gatehouse's, and how gatehouse writes its own.
//!
//! A hook entry belongs to gatehouse when its `command` string ends with the agent's suffix (such
//! as ` hook claude`) and its program has the file name `gatehouse` (or `gatehouse.exe`), or
//! when it ends with the suffix without its ` hook` (` claude`) and its program is the hook
//! executable, `gatehouse-hook` (or `gatehouse-hook.exe`), which runs the same hook for far less
//! than the whole binary costs to start. The program is the first shell word, with quotes and
//! backslash escapes removed; for an agent that allows it, leading `NAME=value` words are
//! skipped first. The folder of the program does not matter, so an entry written by a binary that
//! has since moved, or by a gatehouse that had no hook executable yet, is still recognised and
//! replaced. For an agent whose commands name their event (`... hook copilot permissionRequest`),
//! one last word of letters and digits after the suffix is allowed.
//!
//! Gatehouse writes `'/path/gatehouse-hook' claude` when the hook executable sits beside the
//! `gatehouse` it is given, and `'/path/gatehouse' hook claude` when it does not (someone copied
//! only `gatehouse`).

use std::path::Path;

use crate::AgentHooks;

impl AgentHooks {
    /// Builds the hook command for a gatehouse binary at `program`: the hook executable beside it
    /// ([`hook_executable_beside`]) quoted for a POSIX shell, then the agent's suffix without its
    /// ` hook`; or, without one, `program` quoted, then the agent's suffix.
    ///
    /// Returns `None` when the path is not valid UTF-8 (it could not be written into JSON exactly)
    /// or when its file name is not `gatehouse`, because such a command would not be recognised
    /// as gatehouse's later.
    #[must_use]
    pub fn hook_command(&self, program: &Path) -> Option<String> {
        let short = self.command_suffix.strip_prefix(HOOK_WORD);
        let command = match (hook_executable_beside(program), short) {
            (Some(hook), Some(short)) => format!("{}{short}", quote_for_shell(hook.to_str()?)),
            _ => format!(
                "{}{}",
                quote_for_shell(program.to_str()?),
                self.command_suffix
            ),
        };
        self.is_gatehouse_command(&command).then_some(command)
    }

    /// Tells whether a hook command is gatehouse's own (see the module documentation).
    #[must_use]
    pub fn is_gatehouse_command(&self, command: &str) -> bool {
        let command = self.without_event_name(command);
        let runs_gatehouse = command.ends_with(self.command_suffix);
        let runs_the_hook = self
            .command_suffix
            .strip_prefix(HOOK_WORD)
            .is_some_and(|short| command.ends_with(short));
        if !runs_gatehouse && !runs_the_hook {
            return false;
        }
        let Some(words) = shell_words(command) else {
            return false;
        };
        let mut words = words.iter();
        let program = if self.allows_assignments_before_program {
            words.find(|word| !is_assignment(word))
        } else {
            words.next()
        };
        let Some(program) = program else {
            return false;
        };
        // Both separators are accepted so that Windows paths are recognised too.
        let file_name = program.rsplit(['/', '\\']).next().unwrap_or_default();
        let is_named = |name: &str| {
            file_name == name || file_name.eq_ignore_ascii_case(&format!("{name}.exe"))
        };
        // `gatehouse-hook hook AGENT` runs the hook too.
        (runs_gatehouse && is_named(GATEHOUSE)) || is_named(HOOK_EXECUTABLE)
    }
}

/// The file name of gatehouse's binary.
const GATEHOUSE: &str = "gatehouse";

/// The file name of the hook executable, installed beside `gatehouse`.
pub const HOOK_EXECUTABLE: &str = "gatehouse-hook";

/// The word of `gatehouse`'s hook subcommand, as the agents' suffixes start with it.
const HOOK_WORD: &str = " hook";

/// The hook executable beside the gatehouse binary at `program`: `gatehouse-hook` in the same
/// folder, if it is there and may be run (on Unix, some execute bit is set). `None` otherwise, or
/// when `program` is not named `gatehouse`.
#[must_use]
pub fn hook_executable_beside(program: &Path) -> Option<std::path::PathBuf> {
    let name = program.file_name()?.to_str()?;
    let hook = match name {
        GATEHOUSE => HOOK_EXECUTABLE.to_owned(),
        windows if windows.eq_ignore_ascii_case("gatehouse.exe") => {
            format!("{HOOK_EXECUTABLE}.exe")
        }
        _ => return None,
    };
    let hook = program.with_file_name(hook);
    let metadata = std::fs::metadata(&hook).ok()?;
    #[cfg(unix)]
    let runnable = {
        use std::os::unix::fs::PermissionsExt;
        metadata.permissions().mode() & 0o111 != 0
    };
    #[cfg(not(unix))]
    let runnable = true;
    (metadata.is_file() && runnable).then_some(hook)
}

impl AgentHooks {
    /// The command without its last word when the agent's commands name their event and that
    /// word follows the suffix; else the command as it is.
    fn without_event_name<'a>(&self, command: &'a str) -> &'a str {
        if !self.command_names_event {
            return command;
        }
        let short = self.command_suffix.strip_prefix(HOOK_WORD);
        match command.rsplit_once(' ') {
            Some((head, event))
                if (head.ends_with(self.command_suffix)
                    || short.is_some_and(|short| head.ends_with(short)))
                    && !event.is_empty()
                    && event
                        .chars()
                        .all(|character| character.is_ascii_alphanumeric()) =>
            {
                head
            }
            _ => command,
        }
    }
}

/// Quotes a word for a POSIX shell by wrapping it in single quotes.
fn quote_for_shell(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Tells whether a shell word is a `NAME=value` assignment.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.chars()
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
            && name
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || character == '_')
    })
}

/// Splits a POSIX shell command into words, removing quotes and backslash escapes. Returns `None`
/// when a quote is not closed or the command ends with a lone backslash.
pub(crate) fn shell_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut characters = command.chars();
    while let Some(character) = characters.next() {
        match character {
            character if character.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match characters.next()? {
                        '\'' => break,
                        other => current.push(other),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match characters.next()? {
                        '"' => break,
                        '\\' => {
                            let escaped = characters.next()?;
                            // Inside double quotes a backslash only escapes these characters.
                            if !matches!(escaped, '$' | '`' | '"' | '\\' | '\n') {
                                current.push('\\');
                            }
                            current.push(escaped);
                        }
                        other => current.push(other),
                    }
                }
            }
            '\\' => word
                .get_or_insert_with(String::new)
                .push(characters.next()?),
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    Some(words)
}

#[cfg(test)]
mod tests;
