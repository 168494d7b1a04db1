//! gatehouse's own Gemini CLI policy file, `~/.gemini/policies/gatehouse.toml` (under
//! `$GEMINI_CLI_HOME` when set): one user-tier rule that allows `run_shell_command`, so that
//! Gemini CLI shows no dialog of its own and the `BeforeTool` hook decides.
//!
//! Observed with Gemini CLI 0.61.0 (fixtures README, "answering through a user policy"):
//! - `allowRedirection = true` is needed: without it a command with `>` or `<` still gets the
//!   dialog after the hook's `{}`.
//! - The rule has no `argsPattern`, on purpose: such a plain rule leaves Gemini's own
//!   heuristics in charge, so it still asks for the commands it calls dangerous (`rm -f`,
//!   `ln -s`, `find -exec`, ...) even after the hook's `{}`. A rule with an `argsPattern` would
//!   silence them and leave the hook as the only check.
//! - The price: with this rule, a `BeforeTool` hook that times out, is killed, exits 1, prints
//!   bad JSON or nothing, or is disabled (`hooksConfig.enabled: false`) lets the call run
//!   unasked. So the file is written only by `gatehouse install gemini --answerable`, after the
//!   hook, and removed first by `gatehouse uninstall gemini`.
//!
//! A file is gatehouse's when its first line is [`OWN_FIRST_LINE`]; only such a file is ever
//! replaced or removed. The rule counts as installed (answers are offered) only while the file
//! is exactly [`POLICY_TEXT`]; but any file at that path, whatever its text, keeps gatehouse's
//! hook in place, and without the hook is named a DANGER ([`exists`]).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The policy file's name inside Gemini's `policies` folder.
pub const FILE_NAME: &str = "gatehouse.toml";

/// The first line of gatehouse's policy file.
pub const OWN_FIRST_LINE: &str =
    "# Written by `gatehouse install gemini --answerable`; `gatehouse uninstall gemini` removes it.";

/// The whole policy file.
pub const POLICY_TEXT: &str =
    "# Written by `gatehouse install gemini --answerable`; `gatehouse uninstall gemini` removes it.
# Gemini CLI shows no dialog of its own for shell commands: gatehouse's BeforeTool hook decides
# (`{}` runs, deny blocks, ask brings Gemini's dialog back). A BeforeTool hook that fails, times
# out or is disabled lets the command run unasked while this file exists.
# No argsPattern, on purpose: Gemini still asks for the commands it treats as dangerous.
[[rule]]
toolName = \"run_shell_command\"
decision = \"allow\"
priority = 900
allowRedirection = true
";

/// Why the policy file could not be written or removed.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("{path} exists and is not gatehouse's (its first line is not gatehouse's); gatehouse leaves it alone: move it away, or rename it")]
    NotOurs { path: PathBuf },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot remove {path}: {source}")]
    Remove { path: PathBuf, source: io::Error },
}

/// The policy file beside a Gemini settings file: `<folder of settings.json>/policies/gatehouse.toml`
/// (for the user's settings, `~/.gemini/policies/gatehouse.toml`).
pub fn path_beside(settings: &Path) -> PathBuf {
    settings
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("policies")
        .join(FILE_NAME)
}

/// The user's policy file as Gemini CLI reads it: under `$GEMINI_CLI_HOME`, else `~`.
pub fn default_path() -> Option<PathBuf> {
    crate::install::default_settings_path().map(|settings| path_beside(&settings))
}

/// Whether the file at `path` is gatehouse's policy exactly as gatehouse writes it.
pub fn is_installed(path: &Path) -> bool {
    fs::read_to_string(path).is_ok_and(|text| text == POLICY_TEXT)
}

/// Whether anything is at `path` (a file of any text, a folder, a link): what keeps gatehouse's
/// hook in place. One that cannot be looked at counts as there.
pub fn exists(path: &Path) -> bool {
    match fs::symlink_metadata(path) {
        Ok(_) => true,
        Err(error) => error.kind() != io::ErrorKind::NotFound,
    }
}

/// Whether the file at `path` is gatehouse's (whatever it says after the first line).
fn is_ours(path: &Path) -> io::Result<bool> {
    let text = fs::read_to_string(path)?;
    Ok(text.lines().next() == Some(OWN_FIRST_LINE))
}

/// Whether the policy file at `path` is there: `true` when it is gatehouse's, `false` when it is
/// missing; [`PolicyError::NotOurs`] when it is another's (or not text), else `failed(source)`
/// for what kept it from being read.
fn is_there_and_ours(
    path: &Path,
    failed: impl FnOnce(io::Error) -> PolicyError,
) -> Result<bool, PolicyError> {
    match is_ours(path) {
        Ok(true) => Ok(true),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
        Ok(false) => Err(PolicyError::NotOurs { path: path.into() }),
        Err(error) if error.kind() == io::ErrorKind::InvalidData => {
            Err(PolicyError::NotOurs { path: path.into() })
        }
        Err(source) => Err(failed(source)),
    }
}

/// Whether [`write`] may write the policy file at `path`: it is missing or gatehouse's.
pub fn check_writable(path: &Path) -> Result<(), PolicyError> {
    is_there_and_ours(path, |source| PolicyError::Write {
        path: path.into(),
        source,
    })
    .map(|_| ())
}

/// Writes the policy file (atomically: a temporary file renamed over it), creating the folder.
/// Returns whether it changed. A file there that is not gatehouse's is never replaced.
pub fn write(path: &Path) -> Result<bool, PolicyError> {
    if is_installed(path) {
        return Ok(false);
    }
    check_writable(path)?;
    let write_error = |source| PolicyError::Write {
        path: path.into(),
        source,
    };
    let folder = path.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(folder).map_err(write_error)?;
    let temporary = folder.join(format!(".{FILE_NAME}.gatehouse-tmp"));
    fs::write(&temporary, POLICY_TEXT).map_err(write_error)?;
    fs::rename(&temporary, path).map_err(|source| {
        let _ = fs::remove_file(&temporary);
        write_error(source)
    })?;
    Ok(true)
}

/// Removes the policy file if it is gatehouse's; returns whether it was removed. A missing file
/// is left missing; a file that is not gatehouse's is an error (it is left as it is).
pub fn remove(path: &Path) -> Result<bool, PolicyError> {
    let remove_error = |source| PolicyError::Remove {
        path: path.into(),
        source,
    };
    if !is_there_and_ours(path, remove_error)? {
        return Ok(false);
    }
    fs::remove_file(path).map(|()| true).map_err(remove_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_is_the_plain_rule_with_redirection_and_no_args_pattern() {
        assert!(POLICY_TEXT.starts_with(OWN_FIRST_LINE));
        assert!(POLICY_TEXT.contains("toolName = \"run_shell_command\""));
        assert!(POLICY_TEXT.contains("decision = \"allow\""));
        assert!(POLICY_TEXT.contains("allowRedirection = true"));
        assert!(!POLICY_TEXT.contains("argsPattern ="));
        assert!(!POLICY_TEXT.contains("commandPrefix ="));
        // The rule is the one observed with Gemini CLI 0.61.0 (fixture policy-allow-shell.toml).
        let rule = |text: &str| {
            text.lines()
                .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let observed = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/gemini-cli-0.61.0/policy-allow-shell.toml"
        ));
        assert_eq!(rule(POLICY_TEXT), rule(observed));
    }

    #[test]
    fn it_is_written_removed_and_never_touches_a_file_not_ours() {
        let folder = tempfile::tempdir().unwrap();
        let path = path_beside(&folder.path().join(".gemini/settings.json"));
        assert_eq!(path, folder.path().join(".gemini/policies/gatehouse.toml"));
        assert!(!is_installed(&path));
        assert!(!remove(&path).unwrap(), "a missing file stays missing");
        assert!(write(&path).unwrap());
        assert!(is_installed(&path));
        assert!(!write(&path).unwrap(), "unchanged");
        // An older text of gatehouse's own is replaced.
        fs::write(&path, format!("{OWN_FIRST_LINE}\n# old\n")).unwrap();
        assert!(!is_installed(&path));
        assert!(write(&path).unwrap());
        assert!(remove(&path).unwrap());
        assert!(!path.exists());

        fs::write(&path, "[[rule]]\ntoolName = \"x\"\n").unwrap();
        assert!(matches!(write(&path), Err(PolicyError::NotOurs { .. })));
        assert!(matches!(remove(&path), Err(PolicyError::NotOurs { .. })));
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "[[rule]]\ntoolName = \"x\"\n"
        );
        assert!(!is_installed(&path));
    }
}
