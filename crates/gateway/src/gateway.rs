//! The gateway's shared state: the arbiter, the hooks waiting on their prompts, the event feed
//! for subscribers, and the timers for deadlines and delivery receipts.
//!
//! Every change happens under one lock, and its event is published under that lock, so a
//! subscriber's snapshot and its event feed never miss or repeat a transition. Publishing never
//! waits: a subscriber that falls behind is sent a fresh snapshot instead (see `connection`).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use gatehouse_host_ipc::now;

use gatehouse_core::{
    AdapterCapabilities, Answer, Arbiter, ArbiterError, CutNote, DecisionId, Event, NewPrompt,
    Observation, Origin, Outcome, Prompt, PromptState, RunningAgent, Timestamp, WhileHeld,
};
use tokio::sync::{broadcast, oneshot};

use crate::admission::{Seat, SeatLimits, Seats};
use crate::audit::{AuditLog, AuditRecord, DecisionRecord};
use crate::capabilities::CapabilitySource;
use crate::rules::RuleFactsSource;
use crate::rules_file::RulesFile;
use crate::view::{self, CutLevel};
use gatehouse_core::rules;
use gatehouse_host_ipc::framing::{encode_frame, FrameBudget, FramePace};
use gatehouse_host_ipc::protocol::{notification, HostConnections, Notification};

/// How many events a subscriber may fall behind, by default, before it is sent a fresh snapshot
/// instead. The buffer keeps only encoded frames (under a kilobyte for a typical prompt), so a
/// burst of thousands of prompts reaches every subscriber as events, not as costly snapshots.
pub const DEFAULT_EVENT_BUFFER: usize = 16_384;

/// An event as subscribers receive it: its `event` notification frame, encoded once when it is
/// published and shared by every subscriber.
pub type EventFrame = Arc<[u8]>;

/// How large a list of prompts (`list`, `subscribe`, a snapshot) may grow, of a frame's
/// [`gatehouse_host_ipc::framing::MAX_FRAME_BYTES`], before its further large prompts are cut to
/// their minimal copies.
pub const LIST_BUDGET_BYTES: usize = 8 * 1024 * 1024;

/// How long a held prompt that turned out to be only watched stays listed without news of it.
const WATCHED_STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Why a held prompt is withdrawn when its hook's connection ends. Only a hook that was holding
/// its prompt counts (a watched prompt's hook leaves at once, and that says nothing): the agent
/// ends such a hook when the person answers in its terminal, when its own hook timeout passes,
/// or when it stops.
pub const HOOK_LEFT_REASON: &str = "the hook holding it went away: the agent ended it (answered in the agent's terminal, the agent's hook timeout, or the agent stopped)";

/// Why a verdict ends unconfirmed when its hook refused to deliver it (`hook.undelivered`).
pub const HOOK_REFUSED_REASON: &str = "the hook did not deliver the verdict: by its own check of the probe record for the agent that runs it, that action is not offered (the record changed after the prompt was listed); the agent's own prompt decides";

/// Settings of a gateway.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    /// The server's name and version, as `hello` and `status` report it.
    pub server_name: String,
    /// The socket path, for `status`.
    pub socket: String,
    /// How long a resolved prompt waits for its hook's delivery receipt before it is
    /// unconfirmed.
    pub receipt_timeout: Duration,
    /// How many events a subscriber may fall behind before it gets a snapshot instead.
    pub event_buffer: usize,
    /// How the gateway was started, for `status`: `gatehouse serve` or
    /// `systemd socket activation`.
    pub started_by: String,
    /// This machine's host name, stamped on every prompt from the gateway's own socket; a
    /// prompt from the hooks socket is stamped with its link's host instead, never this one.
    pub local_host: String,
    /// How much one connection, and the hooks socket as a whole, may hold.
    pub limits: Limits,
}

/// How much may be held at once, in prompts and in bytes of prompt content (JSON). A hold or
/// registration past a limit is refused with `over_limit`, which the hook takes as final: the
/// agent's own terminal decides. The hooks socket's peers are bounded too in what they hold open
/// while they send: connections, unfinished frames, and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest prompt content: below a frame, so that `prompt.get` can always send it whole.
    pub prompt_bytes: usize,
    /// What one connection may hold (a hook's connection holds one prompt).
    pub connection_prompts: usize,
    pub connection_bytes: usize,
    /// What every connection of the hooks socket together may hold.
    pub hooks_socket_prompts: usize,
    pub hooks_socket_bytes: usize,
    /// The bytes of unfinished frames every connection of the hooks socket may hold together; a
    /// frame past it is read to its end, dropped and refused (`over_limit`).
    pub hooks_socket_unfinished_bytes: usize,
    /// How long a frame on the hooks socket may take once started; past it the connection closes.
    pub hooks_socket_frame_pace: FramePace,
    /// How long a hooks socket connection that holds no prompt may send nothing before it closes.
    pub hooks_socket_idle: Duration,
    /// How many connections the hooks socket takes, and how many from one peer process.
    pub hooks_socket_connections: usize,
    pub hooks_socket_connections_per_peer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            prompt_bytes: gatehouse_host_ipc::framing::MAX_FRAME_BYTES - 64 * 1024,
            connection_prompts: 16,
            connection_bytes: 24 * 1024 * 1024,
            hooks_socket_prompts: 256,
            hooks_socket_bytes: 48 * 1024 * 1024,
            hooks_socket_unfinished_bytes: 32 * 1024 * 1024,
            hooks_socket_frame_pace: FramePace {
                first: Duration::from_secs(5),
                per_mib: Duration::from_secs(2),
            },
            hooks_socket_idle: Duration::from_secs(30),
            hooks_socket_connections: 512,
            hooks_socket_connections_per_peer: 128,
        }
    }
}

impl Limits {
    /// These limits for a process that may open `open_files` descriptors: the hooks socket takes
    /// at most a quarter of them, and one peer half of that, so that its peers can never take
    /// the descriptors the person's own socket needs.
    #[must_use]
    pub fn within_open_files(self, open_files: u64) -> Limits {
        let quarter = usize::try_from(open_files / 4).unwrap_or(usize::MAX).max(2);
        let connections = self.hooks_socket_connections.min(quarter);
        Limits {
            hooks_socket_connections: connections,
            hooks_socket_connections_per_peer: self
                .hooks_socket_connections_per_peer
                .min((connections / 2).max(1)),
            ..self
        }
    }
}

/// This process's limit on open files (its soft `RLIMIT_NOFILE`); 1,024 if it cannot be read.
#[cfg(unix)]
pub fn open_file_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct passed to it.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1_024;
    }
    limit.rlim_cur
}

#[cfg(not(unix))]
pub fn open_file_limit() -> u64 {
    1_024
}

/// Why the gateway refused a call.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error(transparent)]
    Arbiter(#[from] ArbiterError),
    /// A hold or registration past one of the [`Limits`].
    #[error("{0}")]
    OverLimit(String),
    /// An approving answer of a cut prompt that did not name the digest of the whole prompt.
    #[error("{0}")]
    NotSeenInFull(String),
}

/// Who holds a prompt: the connection, and whether it came through the hooks socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub connection: u64,
    pub hooks_socket: bool,
}

/// What is held, in prompts and bytes.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    prompts: usize,
    bytes: usize,
}

/// What the gateway keeps beside the arbiter for each prompt it holds.
struct Held {
    owner: Owner,
    bytes: usize,
    /// The copy front ends are sent, when the prompt is cut, and the whole's size and digest.
    /// A prompt that is not cut is kept once, by the arbiter.
    cut: Option<(NewPrompt, CutNote)>,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            server_name: format!("gatehouse {}", env!("CARGO_PKG_VERSION")),
            socket: String::new(),
            receipt_timeout: Duration::from_secs(5),
            event_buffer: DEFAULT_EVENT_BUFFER,
            started_by: "gatehouse serve".into(),
            local_host: String::new(),
            limits: Limits::default(),
        }
    }
}

struct State {
    arbiter: Arbiter,
    /// The hooks waiting on their prompts, by decision id.
    waiters: HashMap<DecisionId, oneshot::Sender<Outcome>>,
    audit: Option<AuditLog>,
    /// Every prompt held now: its owner, size, and cut copy.
    held: HashMap<DecisionId, Held>,
    by_connection: HashMap<u64, Usage>,
    hooks_socket: Usage,
}

/// The gateway: one per `gatehouse serve`.
pub struct Gateway {
    state: Mutex<State>,
    events: broadcast::Sender<EventFrame>,
    options: GatewayOptions,
    started_at: Timestamp,
    connections: AtomicUsize,
    /// Open hook connections by the host stamped on their prompts.
    hook_hosts: std::sync::Mutex<BTreeMap<String, usize>>,
    next_connection: AtomicU64,
    /// The flags for a prompt whose hook said which agent runs it; none: the registered ones.
    capability_source: std::sync::OnceLock<Arc<dyn CapabilitySource>>,
    /// What each adapter's agent does while its hook holds a prompt, by adapter id, as the
    /// binary hands it over (see [`Gateway::describe_holds_with`]).
    while_held: std::sync::OnceLock<BTreeMap<String, WhileHeld>>,
    /// The hooks socket's connections, and the bytes of their unfinished frames.
    hooks_socket_seats: Arc<Seats>,
    hooks_socket_frames: Arc<FrameBudget>,
    /// gatehouse's rules, looked at again as each prompt arrives, and where the facts they need
    /// come from; no rule decides anything until both are set ([`Gateway::apply_rules_with`]).
    rules: std::sync::OnceLock<(Mutex<RulesFile>, Arc<dyn RuleFactsSource>)>,
}

/// A prompt as [`Gateway::register`] left it: whether it is only watched (nothing offered and
/// the hook asked to be let go then), and whether a rule answered it there.
struct Registered {
    prompt: Prompt,
    watched: bool,
    decided_by_rule: bool,
}

/// A prompt a hook holds: as registered, the outcome to wait for, and whether it is only
/// watched (nothing was offered and the hook asked to be let go then): a watched prompt's hook
/// leaves at once, and its leaving says nothing about the prompt.
pub struct HeldPrompt {
    pub prompt: Prompt,
    pub outcome: oneshot::Receiver<Outcome>,
    pub watched: bool,
}

impl Gateway {
    pub fn new(adapters: Vec<AdapterCapabilities>, options: GatewayOptions) -> Arc<Self> {
        Self::with_audit_log(adapters, options, None)
    }

    /// A gateway that appends every event to `audit`.
    pub fn with_audit_log(
        adapters: Vec<AdapterCapabilities>,
        options: GatewayOptions,
        audit: Option<AuditLog>,
    ) -> Arc<Self> {
        let (events, _) = broadcast::channel(options.event_buffer.max(1));
        let limits = options.limits;
        Arc::new(Gateway {
            hooks_socket_seats: Seats::new(SeatLimits {
                socket: limits.hooks_socket_connections,
                peer: limits.hooks_socket_connections_per_peer,
            }),
            hooks_socket_frames: Arc::new(FrameBudget::new(limits.hooks_socket_unfinished_bytes)),
            state: Mutex::new(State {
                arbiter: Arbiter::new(adapters),
                waiters: HashMap::new(),
                audit,
                held: HashMap::new(),
                by_connection: HashMap::new(),
                hooks_socket: Usage::default(),
            }),
            events,
            options,
            started_at: now(),
            connections: AtomicUsize::new(0),
            hook_hosts: std::sync::Mutex::new(BTreeMap::new()),
            next_connection: AtomicU64::new(1),
            capability_source: std::sync::OnceLock::new(),
            while_held: std::sync::OnceLock::new(),
            rules: std::sync::OnceLock::new(),
        })
    }

    /// Decides what is offered for each held prompt whose hook said which agent runs it with
    /// `source` (see [`CapabilitySource`]). Set once; a second call is ignored.
    pub fn decide_capabilities_with(&self, source: Arc<dyn CapabilitySource>) {
        let _ = self.capability_source.set(source);
    }

    /// Applies the rules of `file` to every held prompt as it arrives, with the facts `facts`
    /// finds for it (see [`crate::rules`]). Set once; a second call is ignored.
    pub fn apply_rules_with(&self, file: RulesFile, facts: Arc<dyn RuleFactsSource>) {
        let _ = self.rules.set((Mutex::new(file), facts));
    }

    /// Why the rules file is not used, if rules are applied and it is not; read afresh.
    pub fn rules_problem(&self) -> Option<String> {
        let (file, _) = self.rules.get()?;
        let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        file.refresh();
        file.problem().map(ToString::to_string)
    }

    /// The rule's decision and answer for `prompt` as registered, with the rules file looked at
    /// again first; `None` when no rule decides it.
    fn rule_answer_for(&self, prompt: &Prompt) -> Option<(rules::Decision, Answer)> {
        let (file, facts) = self.rules.get()?;
        if prompt.is_read_only() {
            return None;
        }
        let facts = facts.facts(&prompt.prompt)?;
        let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        file.refresh();
        crate::rules::rule_answer(
            file.rules(),
            prompt,
            &facts,
            &self.options.local_host,
            now(),
        )
    }

    /// What each adapter's agent does while its hook holds a prompt, by adapter id (each
    /// adapter's [`gatehouse_core::Adapter::while_held`]): the gateway words it on every held
    /// prompt ([`Prompt::after_hold`]). Set once; a second call is ignored. An adapter missing
    /// here gets words true of every agent.
    pub fn describe_holds_with(&self, while_held: BTreeMap<String, WhileHeld>) {
        let _ = self.while_held.set(while_held);
    }

    /// What happens when the hold of a prompt of `adapter` ends, in words (see
    /// [`WhileHeld::after_hold`]), named as the registered flags name the agent.
    fn after_hold_locked(&self, state: &State, adapter: &str) -> String {
        let name = state
            .arbiter
            .adapters()
            .find(|flags| flags.adapter == adapter)
            .map_or(adapter, |flags| flags.name.as_str());
        let while_held = self
            .while_held
            .get()
            .and_then(|known| known.get(adapter))
            .copied();
        WhileHeld::after_hold(while_held, name)
    }

    /// The flags for a prompt of `adapter` held for `agent`, from the source; `None`: the
    /// registered ones apply.
    fn capabilities_for(
        &self,
        adapter: &str,
        agent: Option<&RunningAgent>,
    ) -> Option<AdapterCapabilities> {
        let (source, agent) = (self.capability_source.get()?, agent?);
        source.for_agent(adapter, agent)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held leaves the arbiter as it was before the panicking call
        // (each call checks before it changes anything), so the state is still sound.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records an event in the audit log, then sends it to every subscriber. Called with the
    /// state locked, so the log and the feed see transitions in the order they happened.
    /// A large prompt is recorded and sent as its cut copy (the log's with the whole's digest).
    /// A person's decision is also written to the log's decisions file, with what was decided,
    /// so that no volume of other records can push it out.
    fn publish(&self, state: &mut State, event: Event, answer: Option<&Answer>) {
        let decided = match &event {
            Event::Changed {
                id, by: Some(_), ..
            } if state.audit.is_some() => Self::decided_locked(state, *id),
            _ => None,
        };
        self.publish_decided(state, event, answer, decided);
    }

    /// [`Gateway::publish`] with what a person's decision decided, taken by the caller before
    /// the transition (a release ends the prompt, and the arbiter lets it go).
    fn publish_decided(
        &self,
        state: &mut State,
        event: Event,
        answer: Option<&Answer>,
        decided: Option<(NewPrompt, Option<CutNote>)>,
    ) {
        let event = self.record_decided_locked(state, event, answer, decided);
        self.send_to_subscribers(event);
    }

    /// The audit log's half of [`Gateway::publish_decided`]: records the event (and lets a
    /// prompt that ended go), and returns it as subscribers are sent it.
    fn record_decided_locked(
        &self,
        state: &mut State,
        event: Event,
        answer: Option<&Answer>,
        decided: Option<(NewPrompt, Option<CutNote>)>,
    ) -> Event {
        let event = match event {
            Event::Added { prompt } => Event::Added {
                prompt: Self::listed_locked(state, prompt, true),
            },
            other => other,
        };
        if let Some(audit) = &mut state.audit {
            let at = now();
            let record = AuditRecord {
                at,
                event: event.clone(),
                answer: answer.cloned(),
            };
            if let Err(error) = audit.append(&record) {
                tracing::error!("cannot write the audit log {}: {error}; the gateway goes on without this record", audit.path().display());
            }
            if let Some((prompt, cut)) = decided {
                let decision = DecisionRecord {
                    at,
                    event: event.clone(),
                    answer: answer.cloned(),
                    prompt,
                    cut,
                };
                if let Err(error) = audit.append_decision(&decision) {
                    tracing::error!("cannot write the audit log's decisions file: {error}; the gateway goes on without this record");
                }
            }
        }
        if let Event::Changed {
            id,
            state: new_state,
            ..
        } = &event
        {
            if new_state.is_final() {
                Self::let_go_locked(state, *id);
            }
        }
        event
    }

    /// Sends an event, as recorded, to every subscriber. Called with the state locked.
    fn send_to_subscribers(&self, event: Event) {
        if self.events.receiver_count() > 0 {
            // Subscribers learn a cut prompt's digest only from `prompt.get`.
            let mut event = event;
            if let Event::Added { prompt } = &mut event {
                if let Some(cut) = &mut prompt.cut {
                    cut.digest = None;
                }
            }
            let frame: EventFrame =
                encode_frame(&Notification::new(notification::EVENT, &event)).into();
            // A subscriber that left meanwhile is not an error.
            let _ = self.events.send(frame);
        }
    }

    /// What a decision about `id` decided, for the decisions file: the prompt's content (its cut
    /// copy if it is large) and its cut note with the whole's digest.
    fn decided_locked(state: &State, id: DecisionId) -> Option<(NewPrompt, Option<CutNote>)> {
        match &state.held.get(&id)?.cut {
            Some((copy, note)) => Some((copy.clone(), Some(note.clone()))),
            None => Some((state.arbiter.get(id)?.prompt.clone(), None)),
        }
    }

    /// The copy of `prompt` that is listed: cut if it is large. With `for_audit`, its cut note
    /// names the whole's digest, which front ends learn only from `prompt.get`.
    fn listed_locked(state: &State, prompt: Prompt, for_audit: bool) -> Prompt {
        let Some((copy, note)) = state
            .held
            .get(&prompt.id)
            .and_then(|held| held.cut.as_ref())
        else {
            return prompt;
        };
        Prompt {
            id: prompt.id,
            short_id: prompt.short_id,
            prompt: copy.clone(),
            origin: prompt.origin,
            actions: prompt.actions,
            state: prompt.state,
            created_at: prompt.created_at,
            held_since: prompt.held_since,
            hold_ends_at: prompt.hold_ends_at,
            after_hold: prompt.after_hold,
            cut: Some(CutNote {
                full_bytes: note.full_bytes,
                digest: note.digest.clone().filter(|_| for_audit),
            }),
        }
    }

    /// Cut copies of `prompts`: once the list's running size passes [`LIST_BUDGET_BYTES`], every
    /// further cut prompt is cut to its minimal copy. Prompts sent whole are at most
    /// [`view::VIEW_MAX_BYTES`] each, and the hooks socket holds at most
    /// [`Limits::hooks_socket_prompts`], so a list stays far below a frame.
    fn listed_all_locked(state: &State, prompts: Vec<Prompt>) -> Vec<Prompt> {
        let mut total = 0usize;
        prompts
            .into_iter()
            .map(|prompt| {
                let mut listed = Self::listed_locked(state, prompt, false);
                let mut bytes = view::json_size(&listed);
                if total + bytes > LIST_BUDGET_BYTES && listed.cut.is_some() {
                    if let Some(whole) = state.arbiter.get(listed.id) {
                        listed.prompt = view::cut_content(&whole.prompt, CutLevel::Minimal);
                        bytes = view::json_size(&listed);
                    }
                }
                total += bytes;
                listed
            })
            .collect()
    }

    /// Forgets a prompt that ended: what it held is free again.
    fn let_go_locked(state: &mut State, id: DecisionId) {
        let Some(held) = state.held.remove(&id) else {
            return;
        };
        if let Some(usage) = state.by_connection.get_mut(&held.owner.connection) {
            usage.prompts -= 1;
            usage.bytes -= held.bytes;
            if usage.prompts == 0 {
                state.by_connection.remove(&held.owner.connection);
            }
        }
        if held.owner.hooks_socket {
            state.hooks_socket.prompts -= 1;
            state.hooks_socket.bytes -= held.bytes;
        }
    }

    /// A place on the hooks socket for a connection from the process `peer` (see
    /// [`crate::admission`]), or why there is none.
    pub fn hooks_socket_seat(&self, peer: Option<u32>) -> Result<Seat, String> {
        self.hooks_socket_seats.take(peer)
    }

    /// The budget the hooks socket's connections read their frames within.
    pub fn hooks_socket_frames(&self) -> Arc<FrameBudget> {
        Arc::clone(&self.hooks_socket_frames)
    }

    /// A new connection's number, for [`Owner`].
    pub fn connection_number(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    /// The pending prompt `typed_id` names (as `answer` takes it), whole, with the digest of its
    /// content.
    pub fn full_prompt(&self, typed_id: &str) -> Result<(Prompt, String), GatewayError> {
        let state = self.lock();
        let (id, prompt) = state.arbiter.resolve_pending(typed_id, now())?;
        let digest = match state.held.get(&id).and_then(|held| held.cut.as_ref()) {
            Some((_, note)) => note.digest.clone().unwrap_or_default(),
            None => view::json_size_and_digest(&prompt.prompt).1,
        };
        Ok((prompt, digest))
    }

    /// Remembers prompts an earlier gateway ended (see [`Arbiter::remember_ended`]).
    pub fn remember_ended(
        &self,
        ended: impl IntoIterator<Item = (DecisionId, PromptState, Timestamp)>,
    ) {
        let mut state = self.lock();
        for (id, final_state, at) in ended {
            state.arbiter.remember_ended(id, final_state, at);
        }
    }

    pub fn options(&self) -> &GatewayOptions {
        &self.options
    }

    pub fn started_at(&self) -> Timestamp {
        self.started_at
    }

    /// Replaces the adapters' capability flags; new prompts get the new ones. Says whether they
    /// changed.
    pub fn replace_adapters(&self, adapters: Vec<AdapterCapabilities>) -> bool {
        self.lock().arbiter.replace_adapters(adapters)
    }

    pub fn adapters(&self) -> Vec<AdapterCapabilities> {
        self.lock().arbiter.adapters().cloned().collect()
    }

    /// The pending prompts as front ends are sent them: large ones cut (see [`crate::view`]).
    pub fn pending(&self) -> Vec<Prompt> {
        let state = self.lock();
        Self::listed_all_locked(&state, state.arbiter.pending())
    }

    pub fn pending_count(&self) -> usize {
        self.lock().arbiter.pending_count()
    }

    pub fn connection_count(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    pub(crate) fn connection_opened(&self) {
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn connection_closed(&self) {
        self.connections.fetch_sub(1, Ordering::Relaxed);
    }

    fn hook_hosts_locked(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, usize>> {
        self.hook_hosts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A hook connection from `host` said hello.
    pub(crate) fn hook_host_joined(&self, host: &str) {
        *self.hook_hosts_locked().entry(host.to_owned()).or_default() += 1;
    }

    /// A hook connection from `host` ended.
    pub(crate) fn hook_host_left(&self, host: &str) {
        let mut hosts = self.hook_hosts_locked();
        if let Some(count) = hosts.get_mut(host) {
            *count -= 1;
            if *count == 0 {
                hosts.remove(host);
            }
        }
    }

    /// The hosts with hook connections open now, by name, with how many each.
    pub fn hook_hosts(&self) -> Vec<HostConnections> {
        self.hook_hosts_locked()
            .iter()
            .map(|(host, connections)| HostConnections {
                host: host.clone(),
                connections: *connections,
            })
            .collect()
    }

    /// The pending prompts and a feed of every event after them, taken atomically.
    pub fn subscribe(&self) -> (Vec<Prompt>, broadcast::Receiver<EventFrame>) {
        let state = self.lock();
        let pending = Self::listed_all_locked(&state, state.arbiter.pending());
        (pending, self.events.subscribe())
    }

    /// Registers a prompt whose hook waits for its outcome, and arms its deadline. `held_since`
    /// is when the hook first got the prompt, for a hook that registers it again after a restart.
    /// With `watch_if_read_only`, a prompt for which nothing is offered is only watched: its hook
    /// learns `watched` at once, and the prompt stays listed until it is settled or stale.
    ///
    /// `agent` is what the hook knows of the agent that runs it: when given, what is offered is
    /// decided for that agent by the [`CapabilitySource`], for this prompt alone.
    pub fn hold(
        self: &Arc<Self>,
        prompt: NewPrompt,
        wait: Duration,
        held_since: Option<Timestamp>,
        watch_if_read_only: bool,
        agent: Option<&RunningAgent>,
        owner: Owner,
    ) -> Result<HeldPrompt, GatewayError> {
        let (sender, receiver) = oneshot::channel();
        let for_this_prompt = self.capabilities_for(&prompt.adapter, agent);
        let registered = self.register(
            prompt,
            held_since,
            Some((sender, watch_if_read_only, wait)),
            for_this_prompt,
            owner,
        )?;
        let (prompt, watched) = (registered.prompt, registered.watched);
        self.arm_deadline(prompt.id, if watched { WATCHED_STALE_AFTER } else { wait });
        if registered.decided_by_rule {
            self.await_receipt(prompt.id);
        }
        Ok(HeldPrompt {
            prompt,
            outcome: receiver,
            watched,
        })
    }

    /// Registers a prompt for watching only: no hook waits for it, so it stays listed until an
    /// observation settles it or it goes stale after `stale_after`. Such a prompt is read-only
    /// whatever the adapter offers: no hook could deliver a verdict.
    pub fn register_watch_only(
        self: &Arc<Self>,
        mut prompt: NewPrompt,
        stale_after: Duration,
        owner: Owner,
    ) -> Result<Prompt, GatewayError> {
        if prompt.read_only_reason.is_none() {
            prompt.read_only_reason = Some("it is only watched: no hook waits to deliver an answer; answer it in the agent's terminal".into());
        }
        let registered = self.register(prompt, None, None, None, owner)?;
        self.arm_deadline(registered.prompt.id, stale_after);
        Ok(registered.prompt)
    }

    /// Registers a prompt and, for a hook that waits, keeps its waiter; a held prompt one of
    /// gatehouse's rules decides is answered here, under the same lock, so that subscribers learn
    /// of it only as resolved by that rule (the audit log records it added, then resolved).
    fn register(
        &self,
        prompt: NewPrompt,
        held_since: Option<Timestamp>,
        hook: Option<(oneshot::Sender<Outcome>, bool, Duration)>,
        for_this_prompt: Option<AdapterCapabilities>,
        owner: Owner,
    ) -> Result<Registered, GatewayError> {
        let bytes = view::json_size(&prompt);
        let now = now();
        let mut state = self.lock();
        self.check_limits(&state, owner, bytes)?;
        let held_since = held_since.unwrap_or(now);
        let events = match for_this_prompt {
            Some(flags) => state
                .arbiter
                .register_with_capabilities(prompt, flags, held_since, now)?,
            None => state.arbiter.register_held_since(prompt, held_since, now)?,
        };
        let Some(Event::Added { prompt }) = events.first() else {
            unreachable!("register always adds first")
        };
        let mut prompt = prompt.clone();
        let mut events = events;
        // Where it came from is the socket's to say: nothing the hook sent can make it local.
        let origin = if owner.hooks_socket {
            Origin::Remote
        } else {
            Origin::Local
        };
        state.arbiter.note_origin(prompt.id, origin);
        prompt.origin = origin;
        events[0] = Event::Added {
            prompt: prompt.clone(),
        };
        let cut = view::listed_copy(&prompt.prompt, bytes).map(|copy| {
            let (full_bytes, digest) = view::json_size_and_digest(&prompt.prompt);
            let note = CutNote {
                full_bytes: full_bytes as u64,
                digest: Some(digest),
            };
            (copy, note)
        });
        state.held.insert(prompt.id, Held { owner, bytes, cut });
        let usage = state.by_connection.entry(owner.connection).or_default();
        usage.prompts += 1;
        usage.bytes += bytes;
        if owner.hooks_socket {
            state.hooks_socket.prompts += 1;
            state.hooks_socket.bytes += bytes;
        }
        let mut watched = false;
        let held = hook.is_some();
        if let Some((waiter, watch_if_read_only, wait)) = hook {
            match events.get(1) {
                // Settled while no gateway ran: the hook learns at once, with no verdict.
                Some(Event::Changed { reason, .. }) => {
                    let _ = waiter.send(Outcome::Withdrawn {
                        reason: reason.clone().unwrap_or_default(),
                    });
                }
                None if watch_if_read_only && prompt.is_read_only() => {
                    watched = true;
                    let _ = waiter.send(Outcome::Watched);
                }
                _ => {
                    state.waiters.insert(prompt.id, waiter);
                    // Front ends show how long is left to answer, and what happens then.
                    let wait_millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
                    let ends_at = Timestamp::from_unix_millis(
                        prompt.created_at.unix_millis().saturating_add(wait_millis),
                    );
                    let after_hold = self.after_hold_locked(&state, &prompt.prompt.adapter);
                    if let Some(noted) = state.arbiter.note_hold(prompt.id, ends_at, after_hold) {
                        prompt = noted.clone();
                        events[0] = Event::Added {
                            prompt: prompt.clone(),
                        };
                    }
                }
            }
        }
        if held && !watched && events.len() == 1 {
            if let Some(prompt) = self.decide_by_rule_locked(&mut state, &prompt, &events[0]) {
                return Ok(Registered {
                    prompt,
                    watched,
                    decided_by_rule: true,
                });
            }
        }
        for event in events {
            self.publish(&mut state, event, None);
        }
        Ok(Registered {
            prompt,
            watched,
            decided_by_rule: false,
        })
    }

    /// Answers a just registered, held `prompt` by the rule that decides it, if one does: its
    /// `added` event goes to the audit log alone, then its `resolved` event (by `rule ID`) to
    /// the log and every subscriber, and the verdict to its hook, as a person's answer goes.
    /// Returns the prompt as resolved; `None` (nothing published) when no rule decides it.
    fn decide_by_rule_locked(
        &self,
        state: &mut State,
        prompt: &Prompt,
        added: &Event,
    ) -> Option<Prompt> {
        let (decision, answer) = self.rule_answer_for(prompt)?;
        let by = crate::rules::rule_answerer(&decision);
        let cut = state
            .held
            .get(&prompt.id)
            .is_some_and(|held| held.cut.is_some());
        if cut && !matches!(answer, Answer::Deny { .. }) {
            // Too large to list whole: only a person who read it all approves it.
            tracing::info!(id = %prompt.id, "{by} would allow it, but it is too large to list whole: it waits for the person");
            return None;
        }
        let (verdict, event) = match state.arbiter.answer(prompt.id, answer, &by, now()) {
            Ok(answered) => answered,
            Err(error) => {
                // The arbiter refuses before it changes anything: the prompt stays pending, and
                // the caller publishes it as any other.
                tracing::warn!(id = %prompt.id, "{by} did not decide it: {error}");
                return None;
            }
        };
        // The audit log tells it in order: added, then resolved by the rule.
        self.record_decided_locked(state, added.clone(), None, None);
        tracing::info!(id = %prompt.id, "decided by {by}");
        let mut resolved = Self::listed_locked(state, prompt.clone(), false);
        resolved.state = PromptState::Resolved;
        // The record is on disk before the verdict leaves, as for a person's answer.
        self.publish(state, event, Some(&verdict.0));
        if let Some(waiter) = state.waiters.remove(&prompt.id) {
            let _ = waiter.send(Outcome::Verdict { verdict });
        }
        Some(resolved)
    }

    /// Refuses a prompt of `bytes` that would take `owner` past a limit, saying which.
    fn check_limits(&self, state: &State, owner: Owner, bytes: usize) -> Result<(), GatewayError> {
        let limits = self.options.limits;
        let refuse = |what: String| {
            tracing::warn!("refused a prompt: {what}");
            Err(GatewayError::OverLimit(format!(
                "{what}; the prompt is not held here, and the agent's own terminal decides"
            )))
        };
        if bytes > limits.prompt_bytes {
            return refuse(format!(
                "the prompt is {bytes} bytes, more than the {} a prompt may be",
                limits.prompt_bytes
            ));
        }
        let connection = state
            .by_connection
            .get(&owner.connection)
            .copied()
            .unwrap_or_default();
        if connection.prompts + 1 > limits.connection_prompts
            || connection.bytes + bytes > limits.connection_bytes
        {
            return refuse(format!(
                "this connection holds {} prompts of {} bytes, and may hold at most {} prompts of {} bytes",
                connection.prompts, connection.bytes, limits.connection_prompts, limits.connection_bytes
            ));
        }
        let hooks = state.hooks_socket;
        if owner.hooks_socket
            && (hooks.prompts + 1 > limits.hooks_socket_prompts
                || hooks.bytes + bytes > limits.hooks_socket_bytes)
        {
            return refuse(format!(
                "the hooks socket's connections hold {} prompts of {} bytes, and may hold at most {} prompts of {} bytes together",
                hooks.prompts, hooks.bytes, limits.hooks_socket_prompts, limits.hooks_socket_bytes
            ));
        }
        Ok(())
    }

    fn arm_deadline(self: &Arc<Self>, id: DecisionId, after: Duration) {
        let gateway = Arc::clone(self);
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            gateway.expire(id);
        });
    }

    /// Accepts a front end's answer for the pending prompt that `typed_id` names (see
    /// [`Arbiter::resolve`]), hands the verdict to the waiting hook, and returns the prompt.
    pub fn answer(
        self: &Arc<Self>,
        typed_id: &str,
        answer: Answer,
        seen: Option<&str>,
        by: &str,
    ) -> Result<(Prompt, PromptState), GatewayError> {
        let at = now();
        let (id, prompt) = {
            let mut state = self.lock();
            let (id, prompt) = state.arbiter.resolve_pending(typed_id, at)?;
            let cut_digest = state
                .held
                .get(&id)
                .and_then(|held| held.cut.as_ref())
                .and_then(|(_, note)| note.digest.clone());
            let approves = !matches!(answer, Answer::Deny { .. });
            let names = |digest: &str| {
                seen.is_some_and(|seen| {
                    view::names_digest(seen, digest, gatehouse_host_ipc::protocol::MIN_SEEN_CHARS)
                })
            };
            if let Some(digest) = cut_digest {
                if approves && !names(&digest) {
                    return Err(GatewayError::NotSeenInFull(format!(
                        "prompt {} is too large to list whole, and this answer does not name what was read of it; nothing was approved: read it in full with `gatehouse show {}`, which prints the `--seen` that approves it",
                        prompt.short_id, prompt.short_id
                    )));
                }
            } else if approves && seen.is_some() {
                // A front end that names what it showed is held to it, whatever the size.
                let digest = view::json_size_and_digest(&prompt.prompt).1;
                if !names(&digest) {
                    return Err(GatewayError::NotSeenInFull(format!(
                        "the digest this answer names is not that of prompt {}; nothing was approved: read it again (`gatehouse show {}`)",
                        prompt.short_id, prompt.short_id
                    )));
                }
            }
            let mut prompt = Self::listed_locked(&state, prompt, false);
            let (verdict, event) = state.arbiter.answer(id, answer, by, at)?;
            prompt.state = PromptState::Resolved;
            // The record is on disk before the verdict leaves: an accepted answer is never lost.
            self.publish(&mut state, event, Some(&verdict.0));
            if let Some(waiter) = state.waiters.remove(&id) {
                // If the hook is already gone, the receipt never comes and the prompt ends
                // unconfirmed; the verdict is never applied later.
                let _ = waiter.send(Outcome::Verdict { verdict });
            }
            (id, prompt)
        };
        self.await_receipt(id);
        Ok((prompt, PromptState::Resolved))
    }

    /// Marks the answered prompt `id` unconfirmed if its hook's delivery receipt has not come
    /// within the receipt timeout.
    fn await_receipt(self: &Arc<Self>, id: DecisionId) {
        let gateway = Arc::clone(self);
        let receipt_timeout = self.options.receipt_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(receipt_timeout).await;
            let mut state = gateway.lock();
            if let Ok(event) = state.arbiter.mark_unconfirmed(id, now()) {
                tracing::warn!(%id, "no delivery receipt within {receipt_timeout:?}; the verdict is unconfirmed");
                gateway.publish(&mut state, event, None);
            }
        });
    }

    /// Hands the pending prompt that `typed_id` names back to the agent's terminal: its hook
    /// exits without a verdict.
    pub fn release(&self, typed_id: &str, by: &str) -> Result<(Prompt, PromptState), ArbiterError> {
        let mut state = self.lock();
        let (id, prompt) = state.arbiter.resolve_pending(typed_id, now())?;
        let mut prompt = Self::listed_locked(&state, prompt, false);
        // What was released, taken while the arbiter still holds the prompt.
        let decided = state
            .audit
            .is_some()
            .then(|| Self::decided_locked(&state, id))
            .flatten();
        let event = state.arbiter.release(id, by, now())?;
        if let Some(waiter) = state.waiters.remove(&id) {
            let _ = waiter.send(Outcome::Released);
        }
        self.publish_decided(&mut state, event, None, decided);
        prompt.state = PromptState::Released;
        Ok((prompt.clone(), prompt.state))
    }

    /// The hook waiting on `id` went away (the agent ended it, or it crashed). A pending prompt
    /// is withdrawn; a resolved one whose receipt never came is unconfirmed at once, since its
    /// verdict most likely never reached the agent.
    pub fn hook_gone(&self, id: DecisionId) {
        let mut state = self.lock();
        if state.arbiter.state_of(id) == Some(PromptState::Resolved) {
            let reason = "the waiting hook went away before it confirmed delivery";
            if let Ok(event) = state.arbiter.mark_unconfirmed_because(id, reason, now()) {
                self.publish(&mut state, event, None);
            }
            return;
        }
        let reason = HOOK_LEFT_REASON;
        let _ = self.end_locked(
            &mut state,
            id,
            Outcome::Withdrawn {
                reason: reason.into(),
            },
            |arbiter| arbiter.withdraw(id, reason, now()),
        );
    }

    fn expire(&self, id: DecisionId) {
        if self
            .end(id, Outcome::Expired, |arbiter| arbiter.expire(id, now()))
            .is_ok()
        {
            tracing::info!(%id, "prompt expired with no answer; the agent's terminal stays in charge");
        }
    }

    /// Applies a hook's observation, withdrawing the prompts it settles. `observed_at` is when
    /// the hook saw it, for an observation replayed from a hook's spool.
    pub fn observe(
        &self,
        observation: &Observation,
        observed_at: Option<Timestamp>,
    ) -> Vec<DecisionId> {
        let now = now();
        let mut state = self.lock();
        let events =
            state
                .arbiter
                .observe_at(observation, observed_at.unwrap_or(now).min(now), now);
        let mut withdrawn = Vec::with_capacity(events.len());
        for event in events {
            let id = event.id();
            if let (Some(waiter), Event::Changed { reason, .. }) =
                (state.waiters.remove(&id), &event)
            {
                let _ = waiter.send(Outcome::Withdrawn {
                    reason: reason.clone().unwrap_or_default(),
                });
            }
            withdrawn.push(id);
            self.publish(&mut state, event, None);
        }
        withdrawn
    }

    /// The hook holding `id` did not deliver its verdict: by its own check (the same unlock rule
    /// on the probe record as it is now, for the agent that runs it) the action is not offered.
    /// The prompt ends unconfirmed, saying so.
    pub fn refused_delivery(&self, id: DecisionId) -> Result<PromptState, ArbiterError> {
        let mut state = self.lock();
        let event = state
            .arbiter
            .mark_unconfirmed_because(id, HOOK_REFUSED_REASON, now())?;
        self.publish(&mut state, event, None);
        Ok(PromptState::Unconfirmed)
    }

    /// Records the hook's delivery receipt.
    pub fn confirm_delivery(&self, id: DecisionId) -> Result<PromptState, ArbiterError> {
        let mut state = self.lock();
        let event = state.arbiter.confirm_delivery(id, now())?;
        self.publish(&mut state, event, None);
        Ok(PromptState::Delivered)
    }

    /// Ends a pending prompt with `transition` and tells its hook `outcome`.
    fn end(
        &self,
        id: DecisionId,
        outcome: Outcome,
        transition: impl FnOnce(&mut Arbiter) -> Result<Event, ArbiterError>,
    ) -> Result<PromptState, ArbiterError> {
        self.end_locked(&mut self.lock(), id, outcome, transition)
    }

    fn end_locked(
        &self,
        state: &mut State,
        id: DecisionId,
        outcome: Outcome,
        transition: impl FnOnce(&mut Arbiter) -> Result<Event, ArbiterError>,
    ) -> Result<PromptState, ArbiterError> {
        let event = transition(&mut state.arbiter)?;
        let new_state = match &event {
            Event::Changed { state, .. } => *state,
            Event::Added { .. } => PromptState::Pending,
        };
        if let Some(waiter) = state.waiters.remove(&id) {
            let _ = waiter.send(outcome);
        }
        self.publish(state, event, None);
        Ok(new_state)
    }
}
