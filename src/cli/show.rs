//! `gatehouse show ID`: one prompt whole, as the hook sent it, however large (`gatehouse list`
//! and the other front ends show a large prompt cut). It ends with the prompt's digest: an
//! approving answer of a cut prompt must name it (`gatehouse answer ID once --seen DIGEST`), so
//! that nothing is approved that the person could not read.

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
