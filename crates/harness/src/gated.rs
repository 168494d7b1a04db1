//! The kit's adapter for probe-gated agents: an agent whose prompts are read-only until
//! `gatehouse probe AGENT` proves, for the version in use, that it honours gatehouse's answers.
//! The agent states what it is once ([`AgentDescription`]: its id and names, how its running
//! executable and version are found, which prompts and actions a passing probe unlocks, what it
//! does while a prompt is held, its installer, how its events read and its verdicts are written)
//! and brings its probe and any condition of its own ([`GatedAgent`]); [`GatedAdapter`] is
//! the rest of the `Adapter` for every such agent: the capability flags from the probe record
//! (for the installed agent, or for the one a hook reported), the running agent a hook reports,
//! and what a hook may deliver at best.
//!
//! The rule, the same for every such agent: read-only for every tool with the record's reason
//! until a probe passed for the version in use ([`crate::record::standard_unlock`]), for each
//! group of cases on its own ([`UnlockGroup`]: Codex proves shell commands, patches and "always"
//! by separate cases; most agents have one group, every case); then the actions a group proves
//! are verified for its tool only ([`ToolUnlock`]), with the probe as evidence, the other
//! actions of that tool say why they are not ([`ToolUnlock::not_unlocked`]), and every other
//! tool stays read-only, saying which tools the probe proves and where to answer the others
//! ([`Unlocks::elsewhere`]).

use std::path::{Path, PathBuf};

pub use gatehouse_core::kit::AgentProbe;
use gatehouse_core::kit::{HookInstaller, KitError, ProbeOutcome, ProbeRequest};
use gatehouse_core::{
    Action, ActionFlag, Adapter, AdapterCapabilities, CancellationCheck, CapabilityRule, HookEvent,
    NewPrompt, ParseError, PromptKind, RunningAgent, Verdict, WhileHeld, WithoutVerdict,
};

use crate::executable::{self, AgentExecutable, VersionError};
use crate::probe::ProbeOptions;
pub use crate::record::UnlockGroup;
use crate::record::{grouped_unlock, AgentWords, ProbeRecord, RecordError, Unlock};

/// Which actions a passing probe unlocks for the permission prompts of one tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolUnlock {
    /// The tool, such as `bash`.
    pub tool: &'static str,
    /// The group (an index into [`Unlocks::groups`]) whose cases prove the tool's prompts.
    pub group: usize,
    /// The actions that group proves for the tool, such as `once` and `deny`.
    pub actions: &'static [Action],
    /// An action another group proves for this tool, once the tool's own group is unlocked
    /// (such as Codex's `always`, proven by its own case): the action and the group's index.
    pub also: Option<(Action, usize)>,
    /// Why the tool's other actions (such as `always`) are not offered, in words for people.
    pub not_unlocked: &'static str,
}

impl ToolUnlock {
    /// `once` and `deny` for `tool`, proven by the group `group`; `not_unlocked` says why
    /// `always` is not offered.
    pub const fn once_and_deny(
        tool: &'static str,
        group: usize,
        not_unlocked: &'static str,
    ) -> ToolUnlock {
        ToolUnlock {
            tool,
            group,
            actions: &[Action::Once, Action::Deny],
            also: None,
            not_unlocked,
        }
    }
}

/// Which prompts a passing probe unlocks, and which actions.
#[derive(Debug, Clone, Copy)]
pub struct Unlocks {
    /// The groups of probe cases, each unlocked on its own: `&[UnlockGroup::EVERY_CASE]` for an
    /// agent whose probe proves one set of answers.
    pub groups: &'static [UnlockGroup],
    /// The tools whose permission prompts the probe proves, each by one group.
    pub tools: &'static [ToolUnlock],
    /// The group (an index into [`Unlocks::groups`]) whose cases prove answers to the agent's
    /// questions, such as OpenCode's; `None`: no answer to a question is ever offered.
    pub questions: Option<usize>,
    /// Where the person answers every other tool's prompts, such as `answer the others in
    /// Copilot's terminal`: it ends the reason those stay read-only.
    pub elsewhere: &'static str,
    /// For an agent that shows no dialog of its own while its hook holds a prompt and gives up
    /// waiting after a while: how long an unlocked prompt is held, in words for people, added to
    /// the evidence of the unlocked actions (which front ends show beside them).
    pub held: Option<&'static str>,
}

/// Everything a probe-gated agent states of itself, once.
#[derive(Clone, Copy)]
pub struct AgentDescription {
    /// The adapter's id, as in `gatehouse hook ID`; it also names the probe record.
    pub id: &'static str,
    /// The agent's name for people, such as `GitHub Copilot CLI`.
    pub name: &'static str,
    /// How the unlock rule names the agent, such as `Copilot CLI` (its probe command is
    /// `gatehouse probe ID`, [`AgentDescription::words`]).
    pub short_name: &'static str,
    /// How the installed agent, the one that runs a hook, and their versions are found.
    pub executable: AgentExecutable,
    /// What a passing probe unlocks.
    pub unlocks: Unlocks,
    /// What the agent does while its hook holds a prompt (see [`Adapter::while_held`]).
    pub while_held: Option<WhileHeld>,
    /// How gatehouse's hooks are installed into the agent's settings.
    pub installer: &'static dyn HookInstaller,
    /// Reads one hook event from the hook's stdin and the event its command names, if any (see
    /// [`Adapter::parse_hook_event`]).
    pub events: fn(&[u8], Option<&str>) -> Result<HookEvent, ParseError>,
    /// The hook's stdout for a verdict on a prompt (see [`Adapter::render_verdict`]).
    pub verdicts: fn(&NewPrompt, &Verdict) -> String,
}

impl std::fmt::Debug for AgentDescription {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AgentDescription")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("short_name", &self.short_name)
            .field("executable", &self.executable)
            .field("unlocks", &self.unlocks)
            .field("while_held", &self.while_held)
            .finish_non_exhaustive()
    }
}

/// Every action a permission prompt may be offered.
const EVERY_ACTION: [Action; 3] = [Action::Once, Action::Deny, Action::Always];

/// The reason when gatehouse's state folder is unknown.
const NO_STATE_FOLDER: &str =
    "neither XDG_STATE_HOME nor HOME is set, so no probe record can be found";

impl AgentDescription {
    /// How the unlock rule names the agent and its probe command (`gatehouse probe ID`).
    pub const fn words(&self) -> AgentWords {
        AgentWords {
            name: self.short_name,
            adapter: self.id,
        }
    }

    /// The probe record in `state_dir`, as it is now.
    pub fn record(&self, state_dir: &Path) -> Result<Option<ProbeRecord>, RecordError> {
        ProbeRecord::read(state_dir, self.id)
    }

    /// The standard rule for `record` against the version `version_in_use` finds, for each
    /// group of [`Unlocks::groups`] over its own cases ([`grouped_unlock`]).
    pub fn unlock(
        &self,
        record: Result<Option<ProbeRecord>, RecordError>,
        version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
    ) -> Vec<Unlock> {
        grouped_unlock(self.words(), self.unlocks.groups, record, version_in_use)
    }

    /// What a fresh record unlocks for the agent it probed.
    pub fn unlock_of(&self, record: &ProbeRecord) -> Vec<Unlock> {
        self.unlock(Ok(Some(record.clone())), |record| {
            Ok(record.version.clone())
        })
    }

    /// Whether answers are unlocked for the installed agent, as the gateway sees it: the record
    /// against `--version` of the agent on `PATH` (else of the one the probe checked), answered
    /// from the version cache in `state_dir` when that very file was asked before (the gateway
    /// asks every few seconds, and an agent written for Node takes most of a second to answer).
    pub fn installed_unlock(&self, state_dir: Option<&Path>) -> Vec<Unlock> {
        let cache = state_dir.map(executable::version_cache_path);
        self.unlock_in(state_dir, |record| {
            let installed = self
                .executable
                .installed(Some(&record.executable))
                .ok_or(self.executable.not_found())?;
            executable::version_of_cached(&installed, self.executable.parse, cache.as_deref())
        })
    }

    /// Whether answers are unlocked for the agent a hook reported: the record as it is now,
    /// against the reported version. Never runs a program.
    pub fn reported_unlock(&self, state_dir: Option<&Path>, agent: &RunningAgent) -> Vec<Unlock> {
        self.unlock_in(state_dir, |_| executable::reported_version(agent))
    }

    fn unlock_in(
        &self,
        state_dir: Option<&Path>,
        version_in_use: impl FnOnce(&ProbeRecord) -> Result<String, VersionError>,
    ) -> Vec<Unlock> {
        match state_dir {
            Some(state_dir) => self.unlock(self.record(state_dir), version_in_use),
            None => self.every_group(Unlock::ReadOnly {
                reason: NO_STATE_FOLDER.into(),
            }),
        }
    }

    /// `unlock` for every group.
    pub fn every_group(&self, unlock: Unlock) -> Vec<Unlock> {
        vec![unlock; self.unlocks.groups.len()]
    }

    /// The agent that runs this hook, and its version, as the hook reports it (see
    /// [`executable::report_running_agent`]); the probe record names the executable it checked.
    /// Only a probe record unlocks anything, and only for its version: with no record (or none
    /// that can be read, or no state folder to find it in) the agent is not looked for at all
    /// (no process tree walked, no `PATH` searched, nothing run), and the hook reports why its
    /// version is not known, which leaves the prompt read-only for the gateway and for the
    /// hook's own check alike, as the missing record does.
    pub fn running_agent(&self, state_dir: Option<&Path>) -> RunningAgent {
        let not_looked_up = |reason: String| RunningAgent::new(None, Err(reason));
        let Some(state_dir) = state_dir else {
            return not_looked_up(NO_STATE_FOLDER.into());
        };
        match self.record(state_dir) {
            Ok(Some(record)) => executable::report_running_agent(
                &self.executable,
                Some(&record.executable),
                Some(state_dir),
            ),
            Ok(None) => not_looked_up(format!(
                "no probe record of {} was found as this hook ran, so its version was not looked up; run `{}`",
                self.short_name,
                self.words().probe_command()
            )),
            Err(error) => not_looked_up(error.to_string()),
        }
    }

    /// The capability flags with no probe: every action exists, none is verified.
    pub fn capabilities(&self) -> AdapterCapabilities {
        let name = self.short_name;
        self.capabilities_for(&self.every_group(Unlock::ReadOnly {
            reason: format!("no probe has checked that this {name} honours gatehouse's answers"),
        }))
    }

    /// The capability flags for `unlocks`, one per group (see the module documentation): a rule
    /// for each tool whose group is unlocked, and one for every other tool, which says which
    /// tools the probe proves, why the others of [`Unlocks::tools`] are not, and where to answer.
    pub fn capabilities_for(&self, unlocks: &[Unlock]) -> AdapterCapabilities {
        let every_tool = |evidence: &str| CapabilityRule {
            kind: PromptKind::Permission,
            tool: None,
            actions: EVERY_ACTION
                .map(|action| ActionFlag::unverified(action, evidence))
                .into(),
        };
        let read_only = Unlock::ReadOnly {
            reason: NO_STATE_FOLDER.into(),
        };
        let group = |index: usize| unlocks.get(index).unwrap_or(&read_only);
        let flag = |action: Action, unlock: &Unlock| match unlock {
            Unlock::Verified { evidence, .. } => ActionFlag::verified(
                action,
                match self.unlocks.held {
                    Some(held) => format!("{evidence}; {held}"),
                    None => evidence.clone(),
                },
            ),
            Unlock::ReadOnly { reason } => ActionFlag::unverified(action, reason.clone()),
        };
        let mut rules = Vec::new();
        let (mut proven, mut not_proven) = (Vec::new(), Vec::new());
        for tool in self.unlocks.tools {
            let unlock = group(tool.group);
            if let Unlock::ReadOnly { reason } = unlock {
                not_proven.push((tool.tool, reason.clone()));
                continue;
            }
            proven.push(tool.tool);
            let action_flag = |action: Action| match tool.also {
                _ if tool.actions.contains(&action) => flag(action, unlock),
                Some((also, index)) if also == action => flag(action, group(index)),
                _ => ActionFlag::unverified(action, tool.not_unlocked),
            };
            rules.push(CapabilityRule {
                kind: PromptKind::Permission,
                tool: Some(tool.tool.into()),
                actions: EVERY_ACTION.map(action_flag).into(),
            });
        }
        let every_other = if proven.is_empty() {
            not_proven
                .first()
                .map(|(_, reason)| reason.clone())
                .unwrap_or_else(|| self.unlocks.elsewhere.into())
        } else {
            let why_not: Vec<String> = not_proven
                .iter()
                .map(|(tool, reason)| format!("{tool} prompts: {reason}"))
                .collect();
            let why_not = match why_not.is_empty() {
                true => String::new(),
                false => format!(" ({})", why_not.join("; ")),
            };
            format!(
                "the probe proves {} prompts only{why_not}; {}",
                proven.join(" and "),
                self.unlocks.elsewhere
            )
        };
        rules.push(every_tool(&every_other));
        if let Some(index) = self.unlocks.questions {
            rules.push(CapabilityRule {
                kind: PromptKind::Question,
                tool: None,
                actions: vec![flag(Action::Answer, group(index))],
            });
        }
        AdapterCapabilities {
            adapter: self.id.into(),
            name: self.name.into(),
            rules,
        }
    }

    /// The most `prompt` can be offered (every probe passed); a hook narrows it to the running
    /// agent with [`Adapter::capabilities_for_agent`].
    pub fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        let at_best = Unlock::Verified {
            version: String::new(),
            evidence: String::new(),
        };
        self.capabilities_for(&self.every_group(at_best))
            .deliverable(prompt)
    }

    /// Whether a hook should report its running agent for `prompt`: one of an unlockable tool,
    /// or a question when answers can be unlocked, that the adapter did not mark read-only.
    pub fn depends_on_the_version(&self, prompt: &NewPrompt) -> bool {
        let question = prompt.kind == PromptKind::Question && self.unlocks.questions.is_some();
        let tool = self
            .unlocks
            .tools
            .iter()
            .any(|tool| prompt.tool == tool.tool);
        (question || tool) && prompt.read_only_reason.is_none()
    }

    /// What a passing probe offers, in words for people: the actions of the first tool (such as
    /// `once and deny`), and the prompts (such as `Bash and apply_patch prompts`, and answers to
    /// questions where a group proves them).
    pub fn offers(&self) -> (String, String) {
        let actions: Vec<&str> = self
            .unlocks
            .tools
            .first()
            .map_or(&[][..], |tool| tool.actions)
            .iter()
            .map(|action| action.as_str())
            .collect();
        let actions = match actions.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        let tools: Vec<&str> = self.unlocks.tools.iter().map(|tool| tool.tool).collect();
        let mut prompts = format!("{} prompts", tools.join(" and "));
        if self.unlocks.questions.is_some() {
            prompts.push_str(", and answers to its questions");
        }
        (actions, prompts)
    }

    /// What `AgentProbe::run` does for a standard probe: probes the executable the person named
    /// (else the one on `PATH`) with `run`, saves the record and says what it means.
    pub fn run_probe<E: Into<KitError>>(
        &self,
        request: &ProbeRequest,
        run: impl FnOnce(&ProbeOptions) -> Result<ProbeRecord, E>,
    ) -> Result<ProbeOutcome, KitError> {
        self.run_probe_or(request, || self.executable.not_found().into(), run)
    }

    /// [`Self::run_probe`], with `missing` when no executable is named or on `PATH`.
    pub fn run_probe_or<E: Into<KitError>>(
        &self,
        request: &ProbeRequest,
        missing: impl FnOnce() -> KitError,
        run: impl FnOnce(&ProbeOptions) -> Result<ProbeRecord, E>,
    ) -> Result<ProbeOutcome, KitError> {
        let (actions, prompts) = self.offers();
        let offers = crate::probe::Offers {
            actions: &actions,
            prompts: &prompts,
        };
        crate::probe::run_and_save(
            request,
            || self.executable.find_on_path(),
            missing,
            (self.words(), offers),
            ProbeRecord::path(&request.state_dir, self.id),
            run,
        )
    }
}

/// What a probe-gated agent brings of its own: its description (with its installer, events and
/// verdicts), and its probe (which names the description, so it cannot be part of it).
pub trait GatedAgent: Send + Sync + 'static {
    /// What the agent states of itself.
    const AGENT: AgentDescription;

    /// The probe that proves what the agent honours.
    fn probe(&self) -> &dyn AgentProbe;

    /// What the hook prints without a verdict (see [`Adapter::without_verdict`]).
    fn without_verdict(&self, _event: Option<&str>) -> Option<WithoutVerdict> {
        None
    }

    /// How the hook notices that the person cancelled a held call (see
    /// [`Adapter::cancellation_check`]).
    fn cancellation_check(&self, _stdin: &[u8]) -> Option<CancellationCheck> {
        None
    }

    /// For an agent that must also be configured to let its hook answer (such as Gemini CLI's
    /// policy): why the installed agent is not, as the gateway sees it. `Some`: every group is
    /// read-only with that reason, whatever the probe record says. `None`, the default: the
    /// record alone decides.
    fn installed_not_answerable(&self) -> Option<String> {
        None
    }

    /// The same, where a hook runs: `Some` is reported as the running agent's problem (so the
    /// gateway and the hook's own check offer nothing), and no program is run.
    fn running_not_answerable(&self) -> Option<String> {
        None
    }

    /// Whether a prompt of an unlockable tool that nothing could be offered for (by the rule
    /// for the agent that runs the hook) is left to the agent at once, as
    /// [`HookEvent::Ignore`], rather than listed read-only (for an agent that shows the same
    /// prompt again, read-only, in another event).
    fn ignore_undeliverable(&self) -> bool {
        false
    }

    /// The capability flags for `unlocks`, one per group: the kit's
    /// ([`AgentDescription::capabilities_for`]) unless the agent words its own.
    fn capabilities_for(&self, unlocks: &[Unlock]) -> AdapterCapabilities {
        Self::AGENT.capabilities_for(unlocks)
    }
}

/// Declares the adapter of a probe-gated agent that brings nothing of its own but its description
/// and its probe: `gated_adapter!(CodexAdapter, Codex, AGENT, probe::CodexProbe)` declares the
/// unit type `Codex`, a [`GatedAgent`] with the description `AGENT` and the probe
/// `probe::CodexProbe`, and `CodexAdapter`, the kit's [`GatedAdapter`] for it.
#[macro_export]
macro_rules! gated_adapter {
    ($adapter:ident, $agent:ident, $description:expr, $probe:expr $(,)?) => {
        #[doc = concat!("The adapter of [`", stringify!($agent), "`]: the kit's, with its description and probe.")]
        pub type $adapter = $crate::gated::GatedAdapter<$agent>;

        #[doc = concat!("What the agent brings of its own: its description ([`", stringify!($description), "`]) and its probe.")]
        #[derive(Debug, Default, Clone)]
        pub struct $agent;

        impl $crate::gated::GatedAgent for $agent {
            const AGENT: $crate::gated::AgentDescription = $description;

            fn probe(&self) -> &dyn $crate::gated::AgentProbe {
                &$probe
            }
        }
    };
}

/// The `Adapter` of a probe-gated agent. It finds the probe record in gatehouse's state folder,
/// which the binary names (`None`: no folder is known, so nothing is unlocked).
#[derive(Debug, Default, Clone)]
pub struct GatedAdapter<A> {
    agent: A,
    state_dir: Option<PathBuf>,
}

impl<A: Default> GatedAdapter<A> {
    pub fn new(state_dir: Option<PathBuf>) -> Self {
        GatedAdapter {
            agent: A::default(),
            state_dir,
        }
    }
}

impl<A: GatedAgent> Adapter for GatedAdapter<A> {
    fn id(&self) -> &'static str {
        A::AGENT.id
    }

    fn name(&self) -> &'static str {
        A::AGENT.name
    }

    /// Reads the probe record and, when it passed, runs the installed agent's `--version`:
    /// called when a gateway starts and every few seconds after.
    fn capabilities(&self) -> AdapterCapabilities {
        let unlocks = match self.agent.installed_not_answerable() {
            Some(reason) => A::AGENT.every_group(Unlock::ReadOnly { reason }),
            None => A::AGENT.installed_unlock(self.state_dir.as_deref()),
        };
        self.agent.capabilities_for(&unlocks)
    }

    fn parse_hook_event(&self, stdin: &[u8], event: Option<&str>) -> Result<HookEvent, ParseError> {
        let event = (A::AGENT.events)(stdin, event)?;
        if let HookEvent::Prompt { prompt, .. } = &event {
            if self.agent.ignore_undeliverable()
                && prompt.read_only_reason.is_none()
                && self
                    .deliverable_for(prompt, self.running_agent(prompt).as_ref())
                    .is_empty()
            {
                return Ok(HookEvent::Ignore);
            }
        }
        Ok(event)
    }

    fn render_verdict(&self, prompt: &NewPrompt, verdict: &Verdict) -> String {
        (A::AGENT.verdicts)(prompt, verdict)
    }

    fn installer(&self) -> Option<&dyn HookInstaller> {
        Some(A::AGENT.installer)
    }

    fn probe(&self) -> Option<&dyn AgentProbe> {
        Some(self.agent.probe())
    }

    fn while_held(&self) -> Option<WhileHeld> {
        A::AGENT.while_held
    }

    fn without_verdict(&self, event: Option<&str>) -> Option<WithoutVerdict> {
        self.agent.without_verdict(event)
    }

    fn cancellation_check(&self, stdin: &[u8]) -> Option<CancellationCheck> {
        self.agent.cancellation_check(stdin)
    }

    /// For a prompt of the unlocked tool, the agent that runs this hook and its version (or why
    /// the agent is not configured to be answerable); the gateway decides with it what is
    /// offered.
    fn running_agent(&self, prompt: &NewPrompt) -> Option<RunningAgent> {
        A::AGENT
            .depends_on_the_version(prompt)
            .then(|| match self.agent.running_not_answerable() {
                Some(reason) => RunningAgent::new(None, Err(reason)),
                None => A::AGENT.running_agent(self.state_dir.as_deref()),
            })
    }

    /// The unlock rule applied to the probe record as it is now, for the reported version.
    fn capabilities_for_agent(&self, agent: &RunningAgent) -> AdapterCapabilities {
        self.agent
            .capabilities_for(&A::AGENT.reported_unlock(self.state_dir.as_deref(), agent))
    }

    /// The most `prompt` can be offered (every probe passed).
    fn deliverable_actions(&self, prompt: &NewPrompt) -> Vec<Action> {
        let at_best = Unlock::Verified {
            version: String::new(),
            evidence: String::new(),
        };
        self.agent
            .capabilities_for(&A::AGENT.every_group(at_best))
            .deliverable(prompt)
    }
}

#[cfg(test)]
mod tests;
