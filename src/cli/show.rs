//! `gatehouse show ID`: one prompt whole, as the hook sent it, however large (`gatehouse list`
//! and the other front ends show a large prompt cut). It ends with the prompt's digest: an
//! approving answer of a cut prompt must name it (`gatehouse answer ID once --seen DIGEST`), so
//! that nothing is approved that the person could not read.
//!
//! A prompt that is no longer pending (the ids `gatehouse log` prints) is shown from the audit
//! log: what it asked, as recorded when it came, and every step of how it ended.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_core::text::visible;
use gatehouse_host_ipc::protocol::MIN_SEEN_CHARS;
use gatehouse_host_ipc::ClientError;

use gatehouse_console::output;

pub async fn run(socket: PathBuf, id: String, json: bool) -> anyhow::Result<ExitCode> {
    let mut client = super::connect_frontend(&socket).await?;
    let full = match client.prompt_get(&id).await {
        Ok(full) => full,
        Err(ClientError::Rpc(error))
            if matches!(error.name(), "not_pending" | "not_found") && show_ended(&id, json)? =>
        {
            return Ok(ExitCode::SUCCESS);
        }
        Err(ClientError::Rpc(error)) => {
            eprintln!(
                "gatehouse: refused ({}): {}; `gatehouse list` shows the pending prompts and their short ids",
                visible(error.name()),
                visible(&error.message)
            );
            return Ok(ExitCode::from(1));
        }
        Err(other) => return Err(other.into()),
    };
    let mut stdout = std::io::stdout().lock();
    if json {
        serde_json::to_writer(&mut stdout, &full)?;
        writeln!(stdout)?;
        return Ok(ExitCode::SUCCESS);
    }
    write!(
        stdout,
        "{}",
        output::whole_prompt(&full.prompt, gatehouse_host_ipc::now())
    )?;
    let hex = full.digest.strip_prefix("sha256:").unwrap_or(&full.digest);
    let short = hex.get(..MIN_SEEN_CHARS).unwrap_or(hex);
    writeln!(stdout, "digest:   {}", visible(&full.digest))?;
    // Only a prompt that offers `once` can be approved from here.
    if full.prompt.actions.contains(&gatehouse_core::Action::Once) {
        writeln!(
            stdout,
            "approve: gatehouse answer {} once --seen {}",
            output::shown_id(&full.prompt),
            visible(short)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the prompt `typed` names in the audit log (its short id as `gatehouse log` prints it,
/// or its full id) with how it ended; `false` when the log has no such prompt. As JSON:
/// `{"prompt": ..., "ended": [audit records]}`.
fn show_ended(typed: &str, json: bool) -> anyhow::Result<bool> {
    let path = super::gateway::audit_log_path()?;
    let records = gatehouse_gateway::audit::read_all_with_decisions(&path).unwrap_or_default();
    let ids = output::ShownIds::among(records.iter().map(|record| record.event.id()));
    let named = |id: gatehouse_core::DecisionId| ids.of(id) == typed || id.to_string() == typed;
    let Some(mut prompt) = records.iter().rev().find_map(|record| match &record.event {
        gatehouse_core::Event::Added { prompt } if named(prompt.id) => Some(prompt.clone()),
        _ => None,
    }) else {
        return Ok(false);
    };
    let steps: Vec<_> = records
        .iter()
        .filter(|record| {
            record.event.id() == prompt.id
                && matches!(record.event, gatehouse_core::Event::Changed { .. })
        })
        .collect();
    if let Some(gatehouse_core::Event::Changed { state, .. }) = steps.last().map(|step| &step.event)
    {
        prompt.state = *state;
    }
    // Nothing of it can be answered any more, and its hold is over.
    prompt.actions.clear();
    prompt.hold_ends_at = None;
    let mut stdout = std::io::stdout().lock();
    if json {
        let shown = serde_json::json!({ "prompt": prompt, "ended": steps });
        serde_json::to_writer(&mut stdout, &shown)?;
        writeln!(stdout)?;
        return Ok(true);
    }
    write!(
        stdout,
        "{}",
        output::whole_prompt(&prompt, gatehouse_host_ipc::now())
    )?;
    writeln!(stdout, "ended:")?;
    for step in steps {
        writeln!(stdout, "  {}", super::log::line(step, &ids))?;
    }
    writeln!(
        stdout,
        "It is no longer pending: nothing can be answered for it (from the audit log {}).",
        path.display()
    )?;
    Ok(true)
}
