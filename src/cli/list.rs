//! `gatehouse list`: the pending prompts of every agent.

use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_console::output;

pub async fn run(socket: PathBuf, json: bool) -> anyhow::Result<ExitCode> {
    let mut client = super::connect_frontend(&socket).await?;
    let prompts = client.list().await?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&super::prompt_json::prompts_json(&prompts)?)?
        );
    } else {
        print!(
            "{}",
            output::prompt_table(&prompts, gatehouse_host_ipc::now())
        );
    }
    Ok(ExitCode::SUCCESS)
}
