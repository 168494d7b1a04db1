//! `gatehouse status`: whether the gateway is up, and each adapter's capability flags.

use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_console::output;

pub async fn run(socket: PathBuf, json: bool) -> anyhow::Result<ExitCode> {
    let mut client = match super::connect_frontend(&socket).await {
        Ok(client) => client,
        Err(error) => {
            if json {
                println!(
                    "{}",
                    serde_json::json!({ "running": false, "socket": socket, "error": format!("{error:#}") })
                );
            } else {
                eprintln!(
                    "gatehouse: {}",
                    gatehouse_core::text::visible(&format!("{error:#}"))
                );
            }
            return Ok(ExitCode::from(1));
        }
    };
    let status = client.status().await?;
    if json {
        let mut value = serde_json::to_value(&status)?;
        value["running"] = serde_json::Value::Bool(true);
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!("{}", output::status(&status, gatehouse_host_ipc::now()));
    }
    Ok(ExitCode::SUCCESS)
}
