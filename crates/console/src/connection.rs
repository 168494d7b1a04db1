//! The console's link to the gateway: two tokio tasks that talk to the screen through channels.
//!
//! - The subscription task connects, subscribes, forwards the snapshot and every notification,
//!   and when the connection ends says so and reconnects with a growing pause.
//! - The command task sends each answer or release on a connection of its own (a fresh one per
//!   command, so a restarted gateway needs nothing special), and reports the reply in words.
//!
//! Two connections keep a waiting call from ever competing with the stream of notifications.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::PromptState;
use gatehouse_host_ipc::protocol::ServerNotification;
use gatehouse_host_ipc::socket::SocketError;
use gatehouse_host_ipc::{ClientError, Role, SocketClient};
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::messages::{GatewayCommand, GatewayRequest, GatewayUpdate, CLIENT_NAME};

/// The first pause before reconnecting; it doubles after each failed attempt.
const FIRST_RECONNECT_PAUSE: Duration = Duration::from_millis(250);

/// The longest pause between two attempts to reconnect.
const LONGEST_RECONNECT_PAUSE: Duration = Duration::from_secs(4);

/// Starts both tasks on the current runtime. Updates go to `updates`; commands are read from the
/// returned sender.
pub fn start(
    socket: PathBuf,
    updates: UnboundedSender<GatewayUpdate>,
) -> UnboundedSender<GatewayCommand> {
    let (commands, command_receiver) = mpsc::unbounded_channel();
    tokio::spawn(follow_the_gateway(socket.clone(), updates.clone()));
    tokio::spawn(send_commands(socket, command_receiver, updates));
    commands
}

/// The pause before attempt number `attempt` (counted from 1) to reconnect.
pub fn reconnect_pause(attempt: u32) -> Duration {
    let doublings = attempt.saturating_sub(1).min(16);
    FIRST_RECONNECT_PAUSE
        .saturating_mul(1 << doublings)
        .min(LONGEST_RECONNECT_PAUSE)
}

async fn follow_the_gateway(socket: PathBuf, updates: UnboundedSender<GatewayUpdate>) {
    let mut failed_attempts: u32 = 0;
    loop {
        let ending = match subscribe(&socket).await {
            Ok((client, update)) => {
                failed_attempts = 0;
                if updates.send(update).is_err() {
                    return;
                }
                forward_notifications(client, &updates).await
            }
            Err(reason) => reason,
        };
        failed_attempts += 1;
        let retry_in = reconnect_pause(failed_attempts);
        if updates
            .send(GatewayUpdate::Disconnected {
                reason: ending,
                retry_in,
                attempt: failed_attempts,
            })
            .is_err()
        {
            return;
        }
        tokio::time::sleep(retry_in).await;
    }
}

async fn subscribe(socket: &Path) -> Result<(SocketClient, GatewayUpdate), String> {
    let mut client = SocketClient::connect(socket, Role::Frontend, CLIENT_NAME)
        .await
        .map_err(|error| in_words(socket, error))?;
    let snapshot = client
        .subscribe()
        .await
        .map_err(|error| in_words(socket, error))?;
    let hello = client.hello();
    let update = GatewayUpdate::Connected {
        server: hello.server.clone(),
        adapters: hello.adapters.clone(),
        snapshot,
    };
    Ok((client, update))
}

/// Forwards notifications until the connection ends, and returns why it ended.
async fn forward_notifications(
    mut client: SocketClient,
    updates: &UnboundedSender<GatewayUpdate>,
) -> String {
    loop {
        let update = match client.next_server_notification().await {
            Ok(ServerNotification::Event(event)) => GatewayUpdate::Event(Box::new(event)),
            Ok(ServerNotification::Snapshot(snapshot)) => GatewayUpdate::Snapshot {
                prompts: snapshot.prompts,
            },
            Ok(_) => continue,
            Err(ClientError::Closed) => return "the gateway closed the connection".to_owned(),
            Err(error) => return error.to_string(),
        };
        if updates.send(update).is_err() {
            return "the console is closing".to_owned();
        }
    }
}

async fn send_commands(
    socket: PathBuf,
    mut commands: UnboundedReceiver<GatewayCommand>,
    updates: UnboundedSender<GatewayUpdate>,
) {
    while let Some(command) = commands.recv().await {
        let result = send_one_command(&socket, &command).await;
        if updates
            .send(GatewayUpdate::CommandFinished { command, result })
            .is_err()
        {
            return;
        }
    }
}

async fn send_one_command(socket: &Path, command: &GatewayCommand) -> Result<PromptState, String> {
    let mut client = SocketClient::connect(socket, Role::Frontend, CLIENT_NAME)
        .await
        .map_err(|error| in_words(socket, error))?;
    let reply = match &command.request {
        GatewayRequest::Answer(answer) => client.answer(command.id, answer.clone()).await,
        GatewayRequest::Release => client.release(command.id).await,
    };
    reply
        .map(|result| result.state)
        .map_err(|error| in_words(socket, error))
}

/// A client error as a person should read it: the gateway's own message for a refusal, never a
/// code.
fn in_words(socket: &Path, error: ClientError) -> String {
    match error {
        ClientError::Rpc(refusal) => refusal.message,
        ClientError::Socket(SocketError::Connect { .. }) => {
            format!(
                "no gateway is running on {}; start one with `gatehouse serve`",
                socket.display()
            )
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reconnect_pause_doubles_up_to_a_ceiling() {
        let pauses: Vec<u64> = (1..=7)
            .map(|attempt| reconnect_pause(attempt).as_millis() as u64)
            .collect();
        assert_eq!(pauses, [250, 500, 1_000, 2_000, 4_000, 4_000, 4_000]);
        assert_eq!(reconnect_pause(u32::MAX), LONGEST_RECONNECT_PAUSE);
    }
}
