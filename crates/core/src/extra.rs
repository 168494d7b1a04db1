//! What an adapter may add to a prompt beyond its summary, for front ends that know no agent:
//! a [`Preview`] of what the call would do (an edit's diff, a plan's text), the agent's own
//! [`Suggestion`]s for allowing such calls from now on, and the [`TerminalLocation`] of the agent
//! that asks. All of it is agent text: front ends show it through [`crate::text::visible`].
//!
//! Every field has a serde default, so prompts written before these existed still parse.

use serde::{Deserialize, Serialize};

/// Everything an adapter adds to a [`crate::NewPrompt`] beyond the basics; flattened into it on
/// the wire (`preview`, `suggestions`, `terminal`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptExtra {
    /// What the call would do, shown under the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
    /// The agent's own suggestions for future calls like this one; `always` picks one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<Suggestion>,
    /// Where the asking agent runs, as its hook was told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<TerminalLocation>,
}

/// How a [`Preview`]'s text is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewFormat {
    /// A unified diff (`---`, `+++`, `@@`, then lines starting with ` `, `-` or `+`).
    Diff,
    /// Markdown, such as a plan.
    Markdown,
    /// Plain text, such as a new file's content.
    Text,
}

/// What a call would do, for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preview {
    pub format: PreviewFormat,
    /// One line saying what the text is, such as `src/main.rs (edit)`.
    pub title: String,
    pub text: String,
    /// Set when the text is not the whole of what the call would do, saying why in gatehouse's
    /// own words: cut at a bound, the edit shown without the file around it, or a coarser diff
    /// because computing a finer one took too long. Front ends show it beside the preview: the
    /// text is agent text, so only this field can be trusted to say that something is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

/// One way the agent itself offers to stop asking for calls like this one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The adapter's id for it within the prompt, such as `s1`.
    pub id: String,
    /// What it allows, for people, in full and made visible: the words of [`Self::allows`]
    /// (such as "every Bash command that is `git push` or starts with it ..."), for clients that
    /// read no more than this.
    pub summary: String,
    /// What it lets through, rule by rule, as the agent matches it; front ends show
    /// [`Suggestion::describe`]. Empty only in prompts written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allows: Vec<crate::RuleMatch>,
    /// The scopes the person may choose for it; empty means every scope.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<crate::answer::AlwaysScope>,
    /// The agent's own suggestion, verbatim, for the adapter's verdict.
    #[serde(default)]
    pub native: serde_json::Value,
}

impl Suggestion {
    /// What it lets through, for people, in full: the words of [`Self::allows`], else (a prompt
    /// from before `allows` existed) the summary. Agent text: show it through
    /// [`crate::text::visible`].
    pub fn describe(&self) -> String {
        if self.allows.is_empty() {
            self.summary.clone()
        } else {
            crate::RuleMatch::describe_all(&self.allows)
        }
    }
}

/// The terminal of the agent that asks, from its hook's environment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerminalLocation {
    /// The tmux server's socket (the first part of `TMUX`), when the agent runs in tmux.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tmux_socket: String,
    /// The tmux pane (`TMUX_PANE`, such as `%5`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tmux_pane: String,
    /// The pane's session and window as tmux names them (`main:2`), when the hook could ask.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tmux_window: String,
    /// The agent's process id, when its hook is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

impl TerminalLocation {
    /// From the values of `TMUX`, `TMUX_PANE` and the agent's pid variable; `None` when none of
    /// them says anything.
    pub fn from_values(tmux: Option<&str>, pane: Option<&str>, pid: Option<&str>) -> Option<Self> {
        let socket = tmux
            .and_then(|tmux| tmux.split(',').next())
            .unwrap_or_default()
            .to_owned();
        let location = TerminalLocation {
            tmux_socket: socket,
            tmux_pane: pane.unwrap_or_default().trim().to_owned(),
            tmux_window: String::new(),
            pid: pid.and_then(|pid| pid.trim().parse().ok()),
        };
        (location != TerminalLocation::default()).then_some(location)
    }

    /// In words, such as `tmux main:2.%5, pid 17761`, or with no window known
    /// `tmux default %5` (the server's socket by its file name).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.tmux_window.is_empty() {
            parts.push(format!("tmux {}.{}", self.tmux_window, self.tmux_pane));
        } else if !self.tmux_pane.is_empty() || !self.tmux_socket.is_empty() {
            let server = self.tmux_socket.rsplit('/').next().unwrap_or_default();
            parts.push(
                format!("tmux {server} {}", self.tmux_pane)
                    .trim()
                    .to_owned(),
            );
        }
        if let Some(pid) = self.pid {
            parts.push(format!("pid {pid}"));
        }
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_comes_from_tmux_and_the_pid() {
        let location = TerminalLocation::from_values(
            Some("/tmp/tmux-1000/default,17754,0"),
            Some("%0"),
            Some("17761"),
        )
        .unwrap();
        assert_eq!(location.tmux_socket, "/tmp/tmux-1000/default");
        assert_eq!(location.tmux_pane, "%0");
        assert_eq!(location.pid, Some(17761));
        assert_eq!(location.describe(), "tmux default %0, pid 17761");
        let named = TerminalLocation {
            tmux_window: "main:2".into(),
            ..location
        };
        assert_eq!(named.describe(), "tmux main:2.%0, pid 17761");
        assert_eq!(TerminalLocation::from_values(None, None, Some("x")), None);
    }

    #[test]
    fn old_prompts_without_extras_parse() {
        let extra: PromptExtra = serde_json::from_str("{}").unwrap();
        assert_eq!(extra, PromptExtra::default());
    }
}
