//! The console's link to the gateway: two tokio tasks that talk to the screen through channels.
//!
//! - The subscription task follows the gateway with the one subscription client
//!   (`gatehouse_host_ipc::subscription::follow`): it forwards the snapshot, every event and
//!   catch-up snapshot, and when the connection ends says why (in the binary's words) and
//!   reconnects with a growing pause.
//! - The command task sends each answer or release on a connection of its own (a fresh one per
//!   command, so a restarted gateway needs nothing special), and reports the reply in words.
//!
//! Two connections keep a waiting call from ever competing with the stream of notifications.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_core::PromptState;
use gatehouse_host_ipc::subscription::{self, Backoff, FeedItem, FollowUpdate};
use gatehouse_host_ipc::{ClientErrorWords, Role, SocketClient};
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::messages::{GatewayCommand, GatewayRequest, GatewayUpdate, CLIENT_NAME};

/// The pause before reconnecting: 250 ms, doubling after each failed attempt, up to 4 s.
pub const RECONNECT_BACKOFF: Backoff = Backoff {
    first: Duration::from_millis(250),
    longest: Duration::from_secs(4),
};

/// Starts both tasks on the current runtime. Updates go to `updates`; commands are read from the
/// returned sender. Errors reach the screen in `words`.
pub fn start(
    socket: PathBuf,
    updates: UnboundedSender<GatewayUpdate>,
    words: ClientErrorWords,
) -> UnboundedSender<GatewayCommand> {
    let (commands, command_receiver) = mpsc::unbounded_channel();
    tokio::spawn(follow_the_gateway(socket.clone(), updates.clone(), words));
    tokio::spawn(send_commands(socket, command_receiver, updates, words));
    commands
}

async fn follow_the_gateway(
    socket: PathBuf,
    updates: UnboundedSender<GatewayUpdate>,
    words: ClientErrorWords,
) {
    let connect = || SocketClient::connect(&socket, Role::Frontend, CLIENT_NAME);
    subscription::follow(connect, RECONNECT_BACKOFF, |update| {
        let update = match update {
            FollowUpdate::Connected { hello, snapshot } => GatewayUpdate::Connected {
                server: hello.server,
                adapters: hello.adapters,
                snapshot,
            },
            FollowUpdate::Item(FeedItem::Event(event)) => GatewayUpdate::Event(event),
            FollowUpdate::Item(FeedItem::Snapshot(snapshot)) => GatewayUpdate::Snapshot {
                prompts: snapshot.prompts,
            },
            FollowUpdate::Disconnected {
                error,
                retry_in,
                attempt,
            } => GatewayUpdate::Disconnected {
                reason: words(&socket, &error),
                retry_in,
                attempt,
            },
        };
        match updates.send(update) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    })
    .await;
}

async fn send_commands(
    socket: PathBuf,
    mut commands: UnboundedReceiver<GatewayCommand>,
    updates: UnboundedSender<GatewayUpdate>,
    words: ClientErrorWords,
) {
    while let Some(command) = commands.recv().await {
        let result = send_one_command(&socket, &command)
            .await
            .map_err(|error| words(&socket, &error));
        if updates
            .send(GatewayUpdate::CommandFinished { command, result })
            .is_err()
        {
            return;
        }
    }
}

async fn send_one_command(
    socket: &Path,
    command: &GatewayCommand,
) -> Result<PromptState, gatehouse_host_ipc::ClientError> {
    let mut client = SocketClient::connect(socket, Role::Frontend, CLIENT_NAME).await?;
    let reply = match &command.request {
        GatewayRequest::Answer(answer) => client.answer(command.id, answer.clone()).await,
        GatewayRequest::Release => client.release(command.id).await,
    };
    reply.map(|result| result.state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reconnect_pause_doubles_up_to_a_ceiling() {
        let pauses: Vec<u64> = (1..=7)
            .map(|attempt| RECONNECT_BACKOFF.pause(attempt).as_millis() as u64)
            .collect();
        assert_eq!(pauses, [250, 500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    }
}
