//! Text for people: the prompt table, the status report and one line per event. JSON output
//! is the wire types themselves and needs nothing here.
//!
//! Every text that came from an agent or the gateway goes through `gatehouse_core::text` before
//! it is printed, so control, bidirectional and zero-width characters show as escapes (`\e`,
//! `\r`, `\u{202e}`) instead of acting on the terminal.

use std::collections::HashMap;
use std::fmt::Write;

use gatehouse_core::text::{truncate, visible};
use gatehouse_core::{Action, AdapterCapabilities, DecisionId, Event, Prompt, Timestamp};
use gatehouse_host_ipc::protocol::StatusResult;

mod extra;
mod input;
mod whole;

pub use whole::whole_prompt;

/// What a person may do with `prompt`, as the table's CAN column says it: `read-only`, or the
/// actions offered, such as `once,deny`.
pub fn offered_actions(prompt: &Prompt) -> String {
    if prompt.is_read_only() {
        "read-only".to_owned()
    } else {
        joined_names(&prompt.actions, Action::as_str, ",")
    }
}

/// The `name` of each of `items`, joined with `separator`.
pub fn joined_names<T: Copy>(items: &[T], name: fn(T) -> &'static str, separator: &str) -> String {
    items
        .iter()
        .map(|item| name(*item))
        .collect::<Vec<_>>()
        .join(separator)
}

/// The widest summary shown in the table; `list --json` has the whole input.
const SUMMARY_WIDTH: usize = 72;

/// A duration in the largest unit that fits: `42s`, `5m`, `3h`, `2d`.
pub fn age(millis: u64) -> String {
    gatehouse_core::time::in_largest_unit(millis, ["s", "m", "h", "d"])
}

/// Time left, rounded up to the second, in at most two units: `38s`, `9m 32s`, `2h 5m`.
pub fn time_left(millis: u64) -> String {
    let seconds = millis.div_ceil(1_000);
    match seconds {
        0..=59 => format!("{seconds}s"),
        60..=3_599 => format!("{}m {}s", seconds / 60, seconds % 60),
        _ => format!("{}h {}m", seconds / 3_600, seconds % 3_600 / 60),
    }
}

/// How long a held prompt can still be answered here, and what happens then, as the gateway
/// words it: "answer within 38s, then Qwen Code shows its own dialog ...". `None` for a prompt
/// no hook holds (watched, or from a gateway that does not say), and for a read-only one, which
/// cannot be answered here at all (as on the web page).
pub fn hold_note(prompt: &Prompt, now: Timestamp) -> Option<String> {
    if prompt.is_read_only() {
        return None;
    }
    let ends_at = prompt.hold_ends_at?;
    let after = after_hold(prompt);
    Some(if ends_at > now {
        format!(
            "answer within {}, {after}",
            time_left(ends_at.millis_since(now))
        )
    } else {
        format!("the hold has ended; {after}")
    })
}

/// What happens when the hold of `prompt` ends, in the gateway's words (they start with
/// "then"), made visible; words true of every agent when the gateway said none.
pub fn after_hold(prompt: &Prompt) -> String {
    match prompt.after_hold.as_deref().map(visible) {
        Some(after) if !after.is_empty() => after.into_owned(),
        _ => "then the agent's own prompt decides".into(),
    }
}

/// A held prompt's hold in one short line, for the console's detail pane: the time left and
/// the gateway's words up to their first pause ("Held 38s more, then Qwen Code shows its own
/// dialog"), the rest being [`after_hold`]'s to say in full. `None` when [`hold_note`] is.
pub fn short_hold_note(prompt: &Prompt, now: Timestamp) -> Option<String> {
    if prompt.is_read_only() {
        return None;
    }
    let ends_at = prompt.hold_ends_at?;
    let after = after_hold(prompt);
    let first_clause = after
        .find([',', ';', '('])
        .map_or(after.as_str(), |pause| after[..pause].trim_end());
    Some(if ends_at > now {
        format!(
            "Held {} more, {first_clause}",
            time_left(ends_at.millis_since(now))
        )
    } else {
        format!("The hold has ended: nothing can be answered here; {first_clause}")
    })
}

/// A plan's title and length, as the line above it in `list` says: its first line that has
/// text, without markdown's heading marks or a leading "Plan:", and how many lines it has
/// ("migrate config (8 lines)"). Made visible and cut to one short line.
pub fn plan_title(plan: &str) -> String {
    let first = plan.lines().map(str::trim).find(|line| !line.is_empty());
    let heading = first.unwrap_or("").trim_start_matches('#').trim_start();
    let title = match heading.get(..5) {
        Some(word) if word.eq_ignore_ascii_case("plan:") => heading[5..].trim_start(),
        _ => heading,
    };
    let title = if title.is_empty() {
        "untitled".to_owned()
    } else {
        gatehouse_core::text::one_line(title, SUMMARY_WIDTH / 2)
    };
    format!("{title} ({})", input::count_of_lines(plan.lines().count()))
}

/// A prompt's one-line summary as `list`, `watch` and `log` print it: the agent's summary, cut
/// to the table's width; for a plan (a markdown preview), its first line and how many lines
/// follow, not the whole plan run together with `\n` between its lines.
pub fn summary_line(prompt: &Prompt) -> String {
    let plan = prompt
        .prompt
        .extra
        .preview
        .as_ref()
        .filter(|preview| preview.format == gatehouse_core::PreviewFormat::Markdown);
    let Some(plan) = plan else {
        return truncate(&prompt.prompt.summary, SUMMARY_WIDTH);
    };
    let count = plan.text.lines().count();
    let first = plan
        .text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    let first = gatehouse_core::text::one_line(first, SUMMARY_WIDTH - 20);
    if count > 1 {
        let more = count - 1;
        let lines = if more == 1 { "line" } else { "lines" };
        format!("{first} … ({more} more {lines})")
    } else {
        first
    }
}

/// The ids that lines of events show: the short ids learnt so far, else the full id.
#[derive(Debug, Default)]
pub struct ShownIds(HashMap<DecisionId, String>);

impl ShownIds {
    /// Short ids worked out among `ids` alone, for records read without a gateway (the log).
    pub fn among(ids: impl IntoIterator<Item = DecisionId>) -> Self {
        ShownIds(
            gatehouse_core::short_id::short_ids(ids)
                .into_iter()
                .collect(),
        )
    }

    /// Remembers the short id a gateway gave `prompt`.
    pub fn learn(&mut self, prompt: &Prompt) {
        if !prompt.short_id.is_empty() {
            self.0
                .insert(prompt.id, visible(&prompt.short_id).into_owned());
        }
    }

    pub fn of(&self, id: DecisionId) -> String {
        self.0.get(&id).cloned().unwrap_or_else(|| id.to_string())
    }
}

/// The id people see and type: the short id, or the full id from a gateway that sends none.
pub fn shown_id(prompt: &Prompt) -> String {
    if prompt.short_id.is_empty() {
        prompt.id.to_string()
    } else {
        visible(&prompt.short_id).into_owned()
    }
}

/// A prompt's agent, with the host it came from when that is not this machine:
/// `claude@devbox`. Both are agent text, made visible. Whether it is this machine is the
/// gateway's `origin`, never the host's name.
pub fn agent(prompt: &Prompt) -> String {
    let adapter = visible(&prompt.prompt.adapter);
    if prompt.is_local() {
        adapter.into_owned()
    } else {
        format!("{adapter}@{}", truncate(&prompt.prompt.host, FOLDER_WIDTH))
    }
}

/// The host a prompt came from, as the gateway stamped it: `laptop (local)` for this machine
/// (`local` for a prompt that names none), else `remote:` and the link's host, which no name
/// can turn into the other. Agent text, made visible.
pub fn host(prompt: &Prompt) -> String {
    match remote_host(prompt) {
        Some(remote) => remote,
        None if prompt.prompt.host.is_empty() => "local".into(),
        None => format!("{} (local)", truncate(&prompt.prompt.host, FOLDER_WIDTH)),
    }
}

/// `remote:` and the host of a prompt that did not come from this machine (its `origin`), made
/// visible; `None` for one from this machine.
pub fn remote_host(prompt: &Prompt) -> Option<String> {
    (!prompt.is_local()).then(|| format!("remote:{}", truncate(&prompt.prompt.host, FOLDER_WIDTH)))
}

/// The widest folder shown in the table.
const FOLDER_WIDTH: usize = 32;

/// The last two parts of the folder the agent works in, such as `…/dev/project`.
pub fn short_folder(cwd: &str) -> String {
    let parts: Vec<&str> = cwd.split('/').filter(|part| !part.is_empty()).collect();
    let folder = if parts.len() > 2 {
        format!("…/{}", parts[parts.len() - 2..].join("/"))
    } else {
        cwd.to_owned()
    };
    truncate(&folder, FOLDER_WIDTH)
}

/// The note under a prompt that was sent cut: how to read it whole. Nothing for a whole prompt.
pub fn cut_note(prompt: &Prompt) -> Option<String> {
    prompt.cut.as_ref().map(|cut| {
        format!(
            "cut: this prompt is {} bytes and is shown cut; run `gatehouse show {}` to read it whole before approving it",
            cut.full_bytes,
            shown_id(prompt)
        )
    })
}

/// A size for people: `900 bytes`, `64 KB`, `1.2 MB`.
pub fn size_in_words(bytes: u64) -> String {
    const KB: u64 = 1_024;
    const MB: u64 = 1_024 * KB;
    match bytes {
        0..KB => format!("{bytes} bytes"),
        KB..MB => format!("{} KB", bytes.div_ceil(KB)),
        _ => format!("{:.1} MB", bytes as f64 / MB as f64),
    }
}

/// What the console says of a prompt the gateway sent cut: how much of it there is, how much is
/// shown, that allowing is not offered here, and where it is read whole. Nothing for a whole one.
pub fn cut_in_words(prompt: &Prompt) -> Option<String> {
    Some(format!(
        "{} Allow is not offered on a cut prompt: read it whole with `gatehouse show {}` and approve it there.",
        cut_shown_in_words(prompt)?,
        shown_id(prompt)
    ))
}

/// How much of a cut prompt is shown, in words, without the advice (for one that has ended).
pub fn cut_shown_in_words(prompt: &Prompt) -> Option<String> {
    let cut = prompt.cut.as_ref()?;
    let shown = serde_json::to_vec(&prompt.prompt).map_or(0, |shown| shown.len() as u64);
    Some(format!(
        "Only the start is shown ({} of {}).",
        size_in_words(shown.min(cut.full_bytes)),
        size_in_words(cut.full_bytes)
    ))
}

/// Whether the console's detail pane can show all of `prompt`: it draws every field and the
/// preview in full, so only a prompt the gateway sent cut is not (that one is read whole with
/// `gatehouse show` and approved there with `--seen`).
pub fn detail_shows_whole(prompt: &Prompt) -> bool {
    prompt.cut.is_none()
}

/// The input lines `list` shows under `prompt`, and whether they show it whole.
pub fn input_block(prompt: &Prompt) -> input::InputBlock {
    input::input_block(prompt, SUMMARY_WIDTH, extra::PREVIEW_LINES)
}

/// What `list` shows under a prompt's row, each line indented and ended: the cut note, the input
/// when the summary does not show it whole, and how to read the rest. Empty when the summary is
/// the whole of it.
pub fn lines_under_the_summary(prompt: &Prompt) -> String {
    let mut out = String::new();
    if let Some(note) = cut_note(prompt) {
        let _ = writeln!(out, "    {note}");
    }
    let block = input_block(prompt);
    for line in &block.lines {
        let _ = writeln!(out, "    {line}");
    }
    if !block.whole && prompt.cut.is_none() {
        let _ = writeln!(out, "    {}", longer_than_shown_note(prompt));
    }
    out
}

/// Whether a prompt's one-line summary leaves out some of what it asks to run.
fn summary_leaves_out_part(prompt: &Prompt) -> bool {
    let block = input_block(prompt);
    prompt.cut.is_some() || !block.whole || !block.lines.is_empty()
}

/// The note under a prompt that is longer than `list` shows: how to read it whole, and that
/// approving it then names what was read.
pub fn longer_than_shown_note(prompt: &Prompt) -> String {
    format!(
        "… longer than `list` shows: read it whole with `gatehouse show {}`, which prints the `--seen` that approves it",
        shown_id(prompt)
    )
}

/// The pending prompts as an aligned table, with each question's options beneath its prompt.
/// `rows` as the lines of a table, each ended: every column as wide as its widest cell (in
/// characters), two spaces apart, no trailing spaces.
pub fn aligned_lines<const N: usize>(rows: &[[String; N]]) -> Vec<String> {
    let mut widths = [0; N];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    rows.iter()
        .map(|row| {
            let mut line = String::new();
            for (index, cell) in row.iter().enumerate() {
                if index + 1 == N {
                    line.push_str(cell);
                } else {
                    let _ = write!(line, "{cell:<width$}  ", width = widths[index]);
                }
            }
            format!("{}\n", line.trim_end())
        })
        .collect()
}

pub fn prompt_table(prompts: &[Prompt], now: Timestamp) -> String {
    if prompts.is_empty() {
        return "No pending prompts.\n".into();
    }
    let rows: Vec<[String; 8]> = prompts
        .iter()
        .map(|prompt| {
            let actions = offered_actions(prompt);
            [
                shown_id(prompt),
                visible(&prompt.prompt.adapter).into_owned(),
                host(prompt),
                short_folder(&prompt.prompt.cwd),
                visible(&prompt.prompt.tool).into_owned(),
                age(now.millis_since(prompt.held_since)),
                actions,
                summary_line(prompt),
            ]
        })
        .collect();
    let headers = [
        "ID", "AGENT", "HOST", "FOLDER", "TOOL", "AGE", "ACTIONS", "SUMMARY",
    ];
    let mut table = vec![headers.map(str::to_owned)];
    table.extend(rows);
    let mut lines = aligned_lines(&table).into_iter();
    let mut out = lines.next().unwrap_or_default();
    for (prompt, line) in prompts.iter().zip(lines) {
        out.push_str(&line);
        out.push_str(&lines_under_the_summary(prompt));
        for question in &prompt.prompt.questions {
            let options = question
                .options
                .iter()
                .map(|option| visible(&option.label))
                .collect::<Vec<_>>()
                .join(" | ");
            let choose = how_many_to_choose(question);
            let _ = writeln!(
                out,
                "    {}: {} ({choose}: {options})",
                visible(&question.id),
                visible(&question.text)
            );
        }
        extra::lines(&mut out, &prompt.prompt.extra);
        if let Some(reason) = &prompt.prompt.read_only_reason {
            let _ = writeln!(out, "    read-only: {}", visible(reason));
        }
        if let Some(note) = hold_note(prompt, now) {
            let _ = writeln!(out, "    held: {note}");
        }
    }
    out
}

/// How many of a question's options a person may pick, in the words every front end shows.
pub(crate) fn how_many_to_choose(question: &gatehouse_core::Question) -> &'static str {
    if question.multi {
        "choose any"
    } else {
        "choose one"
    }
}

/// What `gatehouse status` prints.
pub fn status(status: &StatusResult, now: Timestamp) -> String {
    status_for(status, now, |_| true, "")
}

/// [`status`] with only the adapters whose id `in_full` accepts shown in full (the agents
/// installed on this machine); the others are named on one line, followed by `see_all` (how to
/// see each of them).
pub fn status_for(
    status: &StatusResult,
    now: Timestamp,
    in_full: impl Fn(&str) -> bool,
    see_all: &str,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} is running on {}",
        visible(&status.server),
        visible(&status.socket)
    );
    let _ = writeln!(
        out,
        "pid {}, up {}, protocol {}; {} pending prompt{}, {} connection{}",
        status.pid,
        age(now.millis_since(status.started_at)),
        status.protocol,
        status.pending,
        if status.pending == 1 { "" } else { "s" },
        status.connections,
        if status.connections == 1 { "" } else { "s" },
    );
    if !status.started_by.is_empty() {
        let _ = writeln!(out, "started by {}", visible(&status.started_by));
    }
    if !status.hosts.is_empty() {
        let hosts: Vec<String> = status
            .hosts
            .iter()
            .map(|entry| {
                let here = if entry.host == gatehouse_host_ipc::host::own_host_name() {
                    " (this machine)"
                } else {
                    ""
                };
                format!("{}{here} ({})", visible(&entry.host), entry.connections)
            })
            .collect();
        let _ = writeln!(out, "hooks connected from: {}", hosts.join(", "));
    }
    let (full, others): (Vec<_>, Vec<_>) = status
        .adapters
        .iter()
        .partition(|adapter| in_full(&adapter.adapter));
    for adapter in full {
        out.push('\n');
        out.push_str(&capabilities(adapter));
    }
    if !others.is_empty() {
        let names: Vec<String> = others
            .iter()
            .map(|adapter| visible(&adapter.adapter).into_owned())
            .collect();
        let _ = writeln!(
            out,
            "\nalso known, not installed here: {} ({see_all})",
            names.join(", ")
        );
    }
    out
}

/// One adapter's capability flags: offered actions, and what is read-only.
pub fn capabilities(adapter: &AdapterCapabilities) -> String {
    let mut out = format!(
        "{} ({})\n",
        visible(&adapter.name),
        visible(&adapter.adapter)
    );
    for rule in &adapter.rules {
        let scope = match &rule.tool {
            Some(tool) => format!("{} {}", rule.kind.as_str(), visible(tool)),
            None => format!("{} (any tool)", rule.kind.as_str()),
        };
        let offered = rule.offered();
        let summary = if offered.is_empty() {
            // Say what is missing: the evidence of the first action that is not verified.
            match rule
                .actions
                .iter()
                .find(|flag| !flag.verified && flag.action != gatehouse_core::Action::Always)
            {
                Some(flag) => format!("read-only: {}", visible(&flag.evidence)),
                None => "read-only".to_owned(),
            }
        } else {
            joined_names(&offered, Action::as_str, ", ")
        };
        let _ = writeln!(out, "  {scope:<28} {summary}");
    }
    out
}

/// One line for `gatehouse watch`.
pub fn event_line(event: &Event, ids: &ShownIds) -> String {
    match event {
        Event::Added { prompt } => {
            let mut line = format!(
                "{}  added        {}  {} {}: {}",
                prompt.created_at,
                ids.of(prompt.id),
                agent(prompt),
                visible(&prompt.prompt.tool),
                summary_line(prompt)
            );
            if let Some(note) = cut_note(prompt) {
                let _ = write!(line, "  [{note}]");
            } else if summary_leaves_out_part(prompt) {
                let _ = write!(
                    line,
                    "  [more than this line: `gatehouse show {}`]",
                    ids.of(prompt.id)
                );
            }
            line
        }
        Event::Changed {
            id,
            state,
            at,
            by,
            action,
            reason,
        } => {
            let mut line = format!("{at}  {:<11}  {}", state.as_str(), ids.of(*id));
            if let Some(action) = action {
                let _ = write!(line, "  {action}");
            }
            if let Some(by) = by {
                let _ = write!(line, "  by {}", visible(by));
            }
            if let Some(reason) = reason {
                let _ = write!(line, "  ({})", visible(reason));
            }
            line
        }
    }
}

#[cfg(test)]
mod tests;

/// What an `answer` or `release` acted on, so the person sees what they approved:
/// `claude Bash a3f7 is resolved: echo harmless`, followed by what `list` shows under the prompt
/// when the summary leaves part of it out (a command of many lines, say).
pub fn what_was_answered(result: &gatehouse_host_ipc::protocol::StateResult) -> String {
    let Some(prompt) = &result.prompt else {
        return format!("{} is {}", result.id, result.state);
    };
    let header = format!(
        "{} {} {} is {}: {}",
        agent(prompt),
        visible(&prompt.prompt.tool),
        shown_id(prompt),
        result.state,
        summary_line(prompt)
    );
    let under = lines_under_the_summary(prompt);
    if under.is_empty() {
        header
    } else {
        format!("{header}\n{}", under.trim_end())
    }
}
