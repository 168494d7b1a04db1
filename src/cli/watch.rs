//! `gatehouse watch`: live events, as text or one JSON object a line, until interrupted or the
//! gateway goes away.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_core::Event;
use gatehouse_host_ipc::protocol::ServerNotification;
use gatehouse_host_ipc::ClientError;

use gatehouse_console::output;

pub async fn run(socket: PathBuf, json: bool) -> anyhow::Result<ExitCode> {
    let mut client = super::connect_frontend(&socket).await?;
    let snapshot = client.subscribe().await?;
    let mut ids = output::ShownIds::default();
    snapshot.iter().for_each(|prompt| ids.learn(prompt));
    let mut stdout = std::io::stdout();
    if json {
        writeln!(
            stdout,
            "{}",
            serde_json::json!({ "type": "snapshot", "prompts": snapshot })
        )?;
    } else {
        write!(
            stdout,
            "{}",
            output::prompt_table(&snapshot, gatehouse_host_ipc::now())
        )?;
    }
    stdout.flush()?;
    loop {
        let notification = match client.next_server_notification().await {
            Ok(notification) => notification,
            Err(ClientError::Closed) => {
                eprintln!("gatehouse: the gateway went away");
                return Ok(ExitCode::from(1));
            }
            Err(error) => return Err(error.into()),
        };
        match notification {
            ServerNotification::Event(event) => {
                if let Event::Added { prompt } = &event {
                    ids.learn(prompt);
                }
                if json {
                    writeln!(stdout, "{}", serde_json::to_string(&event)?)?;
                } else {
                    writeln!(stdout, "{}", output::event_line(&event, &ids))?;
                }
            }
            ServerNotification::Snapshot(snapshot) => {
                snapshot.prompts.iter().for_each(|prompt| ids.learn(prompt));
                if json {
                    writeln!(
                        stdout,
                        "{}",
                        serde_json::json!({ "type": "snapshot", "prompts": snapshot.prompts })
                    )?;
                } else {
                    writeln!(
                        stdout,
                        "-- {} --",
                        gatehouse_core::text::visible(&snapshot.reason)
                    )?;
                    write!(
                        stdout,
                        "{}",
                        output::prompt_table(&snapshot.prompts, gatehouse_host_ipc::now())
                    )?;
                }
            }
            ServerNotification::Registered(_) | ServerNotification::Unknown(_) => {}
        }
        stdout.flush()?;
    }
}
