//! The agents on this machine, as `gatehouse setup` and `gatehouse doctor` see them: each adapter
//! of the registry that can install hooks, whether its executable (the one its probe runs) is on
//! `PATH`, its version as `--version` prints it, and where gatehouse's hooks stand in its
//! settings. That last is found by a trial: the agent's own installer, run on copies of the
//! settings in a private temporary folder (the real file is only read), says what an install
//! would change, and what it finds to remove. No agent is named here: all of it comes from the
//! registry and the installers.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::kit::{HookInstaller, InstallRequest, SettingsScope};
use gatehouse_core::Adapter;

use crate::adapters;

/// The most of a settings file that a trial copies: far more than any agent's settings.
const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// One agent gatehouse can install hooks for.
pub struct Agent {
    adapter: Arc<dyn Adapter>,
    /// Its executable on `PATH`, when there is one.
    pub executable: Option<PathBuf>,
    /// Its user settings file, or why it cannot be told.
    pub settings: Result<PathBuf, String>,
}

/// Every agent of the registry that can install hooks, in id order.
pub fn all() -> Vec<Agent> {
    adapters::registry()
        .iter()
        .filter(|adapter| adapter.installer().is_some())
        .map(|adapter| {
            let executable = adapter.probe().and_then(|probe| {
                gatehouse_harness::executable::find_on_path(probe.executable_name())
            });
            let settings = adapter
                .installer()
                .expect("filtered above")
                .settings_path(&SettingsScope::User)
                .map_err(|error| error.to_string());
            Agent {
                adapter: adapter.clone(),
                executable,
                settings,
            }
        })
        .collect()
}

impl Agent {
    pub fn id(&self) -> &'static str {
        self.adapter.id()
    }

    pub fn name(&self) -> &'static str {
        self.adapter.name()
    }

    pub fn installer(&self) -> &dyn HookInstaller {
        self.adapter
            .installer()
            .expect("only installable adapters are agents here")
    }

    /// The command on `PATH` that runs the agent, such as `claude`, when the registry knows it.
    pub fn executable_name(&self) -> Option<&'static str> {
        self.adapter.probe().map(|probe| probe.executable_name())
    }

    /// The command that probes the agent, such as `gatehouse probe claude`, when it has a probe.
    pub fn probe_command(&self) -> Option<String> {
        self.adapter
            .probe()
            .map(|_| format!("gatehouse probe {}", self.id()))
    }

    /// What stays read-only until this agent's probe passes, in `flags` (the gateway's, else
    /// [`Agent::capabilities`]): each rule with an action whose reason is the missing probe
    /// (it names the probe command, or says no probe has checked), by its tool, or its kind
    /// for every other tool ("Write", "plans"), or by the actions that wait where others are
    /// offered already ("always for Bash"). Empty for an agent without a probe.
    pub fn read_only_until_probed(
        &self,
        flags: &gatehouse_core::capability::AdapterCapabilities,
    ) -> Vec<String> {
        let Some(command) = self.probe_command() else {
            return Vec::new();
        };
        let waits_for_the_probe = |flag: &gatehouse_core::capability::ActionFlag| {
            !flag.verified
                && (flag.evidence.contains(&command) || flag.evidence.contains("no probe"))
        };
        let mut names: Vec<String> = Vec::new();
        for rule in &flags.rules {
            if !rule.actions.iter().any(waits_for_the_probe) {
                continue;
            }
            let what = match &rule.tool {
                Some(tool) => gatehouse_core::text::one_line(tool, 40),
                None => format!("{}s", rule.kind.as_str()),
            };
            // A rule that offers some actions already waits only for the others ("always").
            let name = if rule.offered().is_empty() {
                what
            } else {
                let actions: Vec<&str> = rule
                    .actions
                    .iter()
                    .filter(|flag| waits_for_the_probe(flag))
                    .map(|flag| flag.action.as_str())
                    .collect();
                format!("{} for {what}", actions.join(", "))
            };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// The capability flags as this process finds them (what the gateway computes too).
    pub fn capabilities(&self) -> gatehouse_core::capability::AdapterCapabilities {
        self.adapter.capabilities()
    }

    /// The version the executable prints for `--version` (the first word that looks like one),
    /// made safe to show, or why there is none.
    pub fn version(&self) -> Result<String, String> {
        let executable = self.executable.as_deref().ok_or("not on PATH")?;
        gatehouse_harness::executable::version_of(executable, version_word)
            .map(|version| gatehouse_core::text::one_line(&version, 40))
            .map_err(|error| error.to_string())
    }

    /// Where gatehouse's hooks stand in the agent's user settings, for hooks as `request`
    /// would install them (its `settings` is replaced by the agent's own).
    pub fn hook_state(&self, request: &InstallRequest) -> HookState {
        match &self.settings {
            Ok(settings) => hook_state(self.installer(), settings, request),
            Err(why) => HookState::Unusable(why.clone()),
        }
    }
}

/// The first word of `--version`'s output that starts with a digit (or `v` and a digit) and
/// holds a dot, without trailing punctuation: `2.1.332 (Claude Code)` and `codex-cli 0.171.0`
/// both give their number. Only shown, never compared: each adapter reads its own agent's
/// version for what is unlocked.
fn version_word(output: &str) -> Option<String> {
    output.split_whitespace().find_map(|word| {
        let word = word.strip_prefix('v').unwrap_or(word);
        let word = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        (word.starts_with(|c: char| c.is_ascii_digit()) && word.contains('.'))
            .then(|| word.to_owned())
    })
}

/// What an install would do to one settings file, as the trial found it: the same words
/// `gatehouse install AGENT` prints when it does it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// Each change, such as "added the Stop hook".
    pub changes: Vec<String>,
    /// The installer's notes: the hook command as written, how long a prompt is held, what the
    /// agent needs next.
    pub notes: Vec<String>,
    /// Where the install saves the file as it was: only a file that is there has a backup.
    pub backup: Option<PathBuf>,
}

/// Where gatehouse's hooks stand in one settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookState {
    /// An install would change nothing. `answerable`: the file also holds the entries of an
    /// answerable install (`install AGENT --answerable`), which a plain install would remove.
    Current { answerable: bool },
    /// None of gatehouse's entries is there; an install would do `planned`.
    Absent { planned: Plan },
    /// gatehouse's entries are there but not as this binary installs them (another binary's
    /// path, older arguments or events); an install would do `planned`.
    Outdated { planned: Plan, answerable: bool },
    /// The file cannot be read or changed as it is: why, in the installer's words.
    Unusable(String),
}

impl HookState {
    /// Whether gatehouse's entries are there at all.
    pub fn installed(&self) -> bool {
        matches!(self, HookState::Current { .. } | HookState::Outdated { .. })
    }
}

/// The trial for `installer` and its settings file `settings`.
fn hook_state(
    installer: &dyn HookInstaller,
    settings: &Path,
    request: &InstallRequest,
) -> HookState {
    match trial(installer, settings, request) {
        Ok(trial) => trial.state(installer.answerable_price().is_some()),
        Err(why) => HookState::Unusable(why),
    }
}

/// What the installer did to copies of the settings.
struct Trial {
    /// What an uninstall removes from the file as it is: gatehouse's entries there now.
    present: Vec<String>,
    /// What an install does to the file as it is.
    planned: Plan,
    /// What an uninstall removes after that install: the entries an install leaves.
    kept: Vec<String>,
}

impl Trial {
    fn state(self, has_answerable_install: bool) -> HookState {
        if self.present.is_empty() {
            return HookState::Absent {
                planned: self.planned,
            };
        }
        // Entries there now that a plain install takes away: an answerable install's (for an
        // agent that has one), or events an older gatehouse hooked.
        let kept: BTreeSet<&String> = self.kept.iter().collect();
        let beyond: BTreeSet<&String> = self
            .present
            .iter()
            .filter(|change| !kept.contains(change))
            .collect();
        let answerable = has_answerable_install && !beyond.is_empty();
        let mut planned = self.planned;
        if answerable {
            // The removal of those entries is the plain install undoing the person's choice,
            // not a sign that the rest is out of date.
            planned.changes.retain(|change| !beyond.contains(change));
        }
        if planned.changes.is_empty() {
            HookState::Current { answerable }
        } else {
            HookState::Outdated {
                planned,
                answerable,
            }
        }
    }
}

fn trial(
    installer: &dyn HookInstaller,
    settings: &Path,
    request: &InstallRequest,
) -> Result<Trial, String> {
    let original = read_settings(settings)?;
    let folder = tempfile::Builder::new()
        .prefix("gatehouse-trial")
        .tempdir()
        .map_err(|error| format!("cannot make a temporary folder for a trial install: {error}"))?;
    let name = settings
        .file_name()
        .map_or_else(|| "settings".into(), |name| name.to_owned());
    let copy = |label: &str| -> Result<PathBuf, String> {
        let path = folder.path().join(label).join(&name);
        let write = std::fs::create_dir(folder.path().join(label)).and_then(|()| match &original {
            Some(bytes) => std::fs::write(&path, bytes),
            None => Ok(()),
        });
        write
            .map(|()| path)
            .map_err(|error| format!("cannot copy the settings for a trial install: {error}"))
    };
    let present_copy = copy("present")?;
    let planned_copy = copy("planned")?;
    // The installer names the copy in its errors; the person knows the real file.
    let in_words = |error: gatehouse_core::kit::KitError| {
        let real = settings.display().to_string();
        error
            .to_string()
            .replace(&present_copy.display().to_string(), &real)
            .replace(&planned_copy.display().to_string(), &real)
    };
    let present = installer.uninstall(&present_copy).map_err(in_words)?;
    let planned = installer
        .install(&InstallRequest {
            settings: planned_copy.clone(),
            ..request.clone()
        })
        .map_err(in_words)?;
    let kept = installer.uninstall(&planned_copy).map_err(in_words)?;
    let naming_the_real_file = |text: String| {
        text.replace(
            &planned_copy.display().to_string(),
            &settings.display().to_string(),
        )
    };
    Ok(Trial {
        present: present.changes,
        planned: Plan {
            changes: planned
                .changes
                .into_iter()
                .map(naming_the_real_file)
                .collect(),
            notes: planned
                .notes
                .into_iter()
                .map(naming_the_real_file)
                .collect(),
            // A missing file is made new: there is nothing to back up.
            backup: planned
                .backup
                .filter(|_| original.is_some())
                .map(|backup| naming_the_real_file(backup.display().to_string()).into()),
        },
        kept: kept.changes,
    })
}

/// The settings file's bytes (`None` when it is missing), read without blocking on something
/// that is not a regular file (a FIFO put there would hang a read) and at most
/// [`MAX_SETTINGS_BYTES`].
fn read_settings(path: &Path) -> Result<Option<Vec<u8>>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let cannot = |error: std::io::Error| format!("cannot read {}: {error}", path.display());
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(cannot(error)),
    };
    let metadata = file.metadata().map_err(cannot)?;
    if !metadata.is_file() {
        return Err(format!(
            "{} is not a regular file; move it away",
            path.display()
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_SETTINGS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(format!(
            "{} is larger than {} MiB, more than any settings file",
            path.display(),
            MAX_SETTINGS_BYTES / 1024 / 1024
        ));
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_waits_for_the_probe_is_read_from_the_registry_s_flags() {
        let claude = all()
            .into_iter()
            .find(|agent| agent.id() == "claude")
            .expect("claude is in the registry");
        let waiting = claude.read_only_until_probed(&claude.capabilities());
        assert_eq!(
            waiting,
            ["always for Bash", "Write", "Edit", "MultiEdit", "plans"]
        );
        let codex = all()
            .into_iter()
            .find(|agent| agent.id() == "codex")
            .expect("codex is in the registry");
        assert_eq!(
            codex.read_only_until_probed(&codex.capabilities()),
            ["permissions"]
        );
    }

    #[test]
    fn the_version_is_the_first_word_that_looks_like_one() {
        assert_eq!(
            version_word("2.1.332 (Claude Code)\n").as_deref(),
            Some("2.1.332")
        );
        assert_eq!(
            version_word("codex-cli 0.171.0\n").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(
            version_word("GitHub Copilot CLI 1.0.102.\nRun 'copilot update'").as_deref(),
            Some("1.0.102")
        );
        assert_eq!(version_word("v1.18.33").as_deref(), Some("1.18.33"));
        assert_eq!(version_word("no version here 42"), None);
    }

    fn trial(present: &[&str], planned: &[&str], kept: &[&str]) -> Trial {
        let words = |list: &[&str]| list.iter().map(|word| (*word).to_owned()).collect();
        Trial {
            present: words(present),
            planned: plan(planned),
            kept: words(kept),
        }
    }

    fn plan(changes: &[&str]) -> Plan {
        Plan {
            changes: changes.iter().map(|change| (*change).to_owned()).collect(),
            ..Plan::default()
        }
    }

    #[test]
    fn a_trial_tells_absent_current_and_outdated_hooks_apart() {
        let added = ["added the Stop hook"];
        assert_eq!(
            trial(&[], &added, &["removed the Stop hook"]).state(false),
            HookState::Absent {
                planned: plan(&["added the Stop hook"])
            }
        );
        let removed = ["removed the Stop hook"];
        assert_eq!(
            trial(&removed, &[], &removed).state(false),
            HookState::Current { answerable: false }
        );
        assert_eq!(
            trial(&removed, &["updated the Stop hook"], &removed).state(false),
            HookState::Outdated {
                planned: plan(&["updated the Stop hook"]),
                answerable: false
            }
        );
    }

    /// An answerable install holds entries the plain install removes: that removal is not
    /// "outdated", and setup must not make it (it would undo the person's choice).
    #[test]
    fn entries_beyond_the_plain_install_are_an_answerable_install_where_there_is_one() {
        let present = ["removed the BeforeTool hook", "removed the Stop hook"];
        let kept = ["removed the Stop hook"];
        assert_eq!(
            trial(&present, &["removed the BeforeTool hook"], &kept).state(true),
            HookState::Current { answerable: true }
        );
        assert_eq!(
            trial(
                &present,
                &["removed the BeforeTool hook", "updated the Stop hook"],
                &kept
            )
            .state(true),
            HookState::Outdated {
                planned: plan(&["updated the Stop hook"]),
                answerable: true
            }
        );
        // Without an answerable install, extra entries are an older gatehouse's: outdated.
        assert_eq!(
            trial(&present, &["removed the BeforeTool hook"], &kept).state(false),
            HookState::Outdated {
                planned: plan(&["removed the BeforeTool hook"]),
                answerable: false
            }
        );
    }
}
