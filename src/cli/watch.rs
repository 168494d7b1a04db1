//! `gatehouse watch`: live events, as text or one JSON object a line, until interrupted or the
//! gateway goes away (it follows with the one subscription client, and does not reconnect).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use gatehouse_core::Event;
use gatehouse_host_ipc::subscription::{FeedItem, Subscription};
use gatehouse_host_ipc::ClientError;

use gatehouse_console::output;

use super::prompt_json::{event_json, prompts_json};

pub async fn run(socket: PathBuf, json: bool) -> anyhow::Result<ExitCode> {
    let client = super::connect_frontend(&socket).await?;
    let (mut subscription, snapshot) = Subscription::start(client).await?;
    let mut ids = output::ShownIds::default();
    snapshot.iter().for_each(|prompt| ids.learn(prompt));
    let mut stdout = std::io::stdout();
    if json {
        writeln!(
            stdout,
            "{}",
            serde_json::json!({ "type": "snapshot", "prompts": prompts_json(&snapshot)? })
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
        let item = match subscription.next().await {
            Ok(item) => item,
            Err(ClientError::Closed) => {
                eprintln!("gatehouse: the gateway went away");
                return Ok(ExitCode::from(1));
            }
            Err(error) => return Err(error.into()),
        };
        match item {
            FeedItem::Event(event) => {
                if let Event::Added { prompt } = event.as_ref() {
                    ids.learn(prompt);
                }
                if json {
                    writeln!(stdout, "{}", event_json(&event)?)?;
                } else {
                    writeln!(stdout, "{}", output::event_line(&event, &ids))?;
                }
            }
            FeedItem::Snapshot(snapshot) => {
                snapshot.prompts.iter().for_each(|prompt| ids.learn(prompt));
                if json {
                    writeln!(
                        stdout,
                        "{}",
                        serde_json::json!({ "type": "snapshot", "prompts": prompts_json(&snapshot.prompts)? })
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
        }
        stdout.flush()?;
    }
}
