//! gatehouse's adapter for Codex: reads the events that Codex's hooks write to stdin, renders
//! verdicts, states Codex's capability flags, installs the hooks, and probes whether the
//! installed Codex honours gatehouse's answers.
//!
//! Architecture invariant: this crate knows Codex and nothing of gatehouse's socket.
//!
//! Everything else of the adapter (the capability flags from the probe record, the Codex that
//! runs a hook and its version) is the kit's ([`gatehouse_harness::gated`]): Codex states only
//! [`AGENT`], whose probe proves three groups of cases, each unlocking on its own.
//!
//! Codex runs its PermissionRequest hooks before it shows its own approval prompt, and waits for
//! them. Until a probe proves that the Codex in use honours gatehouse's answers, every action is
//! unverified: the hook registers the prompt for watching and returns at once, so Codex's own
//! prompt is never delayed, and the prompt is listed read-only until Codex shows it is over.
//! Once `gatehouse probe codex` has passed for that Codex version (the kit's probe record,
//! `codex-probe.json`, by the cases of [`record`]), `once` and `deny`
//! are verified for Bash prompts and for file changes (`apply_patch`, shown as a diff,
//! [`patch`]), each kind by its own cases, and the hook holds such a prompt for an answer, as for
//! Claude Code; Codex shows no prompt of its own meanwhile, so the installer gives Codex's hook a
//! short wait ([`install::CODEX_WAIT_SECONDS`]). "always" for a Bash prompt, once its probe case
//! passed, is allow now and a rule in gatehouse's own rules file that Codex reads from the next
//! session on ([`rules`]).
//!
//! Modules: [`events`] (hook input), [`patch`] (Codex's patch format, as a diff), [`verdict`]
//! (hook output), [`rules`] (the rules file of "always"), [`record`] (the probe's cases per
//! kind), [`version`] (how `codex --version` reads), [`install`] (hooks.json), [`probe`].

pub mod events;
pub mod install;
pub mod patch;
pub mod probe;
pub mod record;
pub mod rules;
pub mod verdict;
pub mod version;

use gatehouse_core::{Action, AdapterCapabilities, NewPrompt, Verdict, WhileHeld};
use gatehouse_harness::executable::AgentExecutable;
use gatehouse_harness::gated::{AgentDescription, ToolUnlock, Unlocks};

use crate::record::Kind;

/// The adapter's id, as in `gatehouse hook codex`.
pub const ADAPTER_ID: &str = "codex";

/// Codex, as the kit knows it.
pub const AGENT: AgentDescription = AgentDescription {
    id: ADAPTER_ID,
    name: "Codex",
    short_name: "Codex",
    // The nearest ancestor called `codex` (Codex 0.171.0 starts hook commands through `sh -c`,
    // which replaces itself with the command, so it is usually the parent), else the installed
    // one: Codex gives its hooks no variable naming its version or process.
    executable: AgentExecutable {
        program: "codex",
        names: &["codex"],
        pid_variable: None,
        version_variable: None,
        installed_if_not_running: true,
        parse: version::parse_version_output,
    },
    unlocks: Unlocks {
        groups: &[Kind::Shell.group(), Kind::Patch.group(), Kind::Always.group()],
        tools: &[
            // "always" for Bash, once its own case passed, is offered for a prompt only with its
            // suggestion: the rule gatehouse can write for exactly that command.
            ToolUnlock {
                tool: events::ANSWERABLE_TOOL,
                group: Kind::Shell as usize,
                actions: &[Action::Once, Action::Deny],
                also: Some((Action::Always, Kind::Always as usize)),
                not_unlocked: "",
            },
            ToolUnlock::once_and_deny(
                events::PATCH_TOOL,
                Kind::Patch as usize,
                "Codex's \"don't ask again for these files\" keeps no rule that gatehouse could write",
            ),
        ],
        questions: None,
        elsewhere: "answer the others in Codex's terminal",
        held: None,
    },
    // Codex shows no prompt while its hook waits, and its own once the hook gives up.
    while_held: Some(WhileHeld::OwnDialogAfterHold),
    installer: &install::CODEX_INSTALLER,
    // The terminal pane is the hook's to find, for every agent.
    events: |stdin, _event| events::parse(stdin),
    verdicts: render_verdict,
};

gatehouse_harness::gated_adapter!(CodexAdapter, Codex, AGENT, probe::CodexProbe);

/// The hook's stdout for `verdict`: for "always", writes the rule into
/// `$CODEX_HOME/rules/gatehouse.rules` (of the hook's environment, which is Codex's) before it
/// answers allow ([`verdict::render_for`]).
pub fn render_verdict(prompt: &NewPrompt, verdict: &Verdict) -> String {
    let path = rules::rules_path_from_environment();
    let shell = rules::person_shell();
    verdict::render_for(
        prompt,
        verdict,
        &verdict::RulesTarget {
            path: path.as_deref(),
            shell: shell.as_deref(),
        },
    )
}

/// Codex's capability flags with no probe: every action exists, none is verified, so every
/// prompt is read-only.
pub fn capabilities() -> AdapterCapabilities {
    AGENT.capabilities()
}

#[cfg(test)]
mod tests;
