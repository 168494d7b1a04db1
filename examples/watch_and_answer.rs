//! A minimal front end built on the client library: it follows the gateway's events and denies
//! every Bash command that contains `rm -rf`, leaving everything else to people.
//!
//! Run it beside a gateway: `cargo run --example watch_and_answer` (it uses `GATEHOUSE_SOCKET`,
//! or the default socket).

use gatehouse_core::{text, Action, Answer, Event, Prompt};
use gatehouse_host_ipc::subscription::{FeedItem, Subscription};
use gatehouse_host_ipc::{socket, Role, SocketClient};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::var_os(socket::SOCKET_ENV)
        .map(Into::into)
        .unwrap_or_else(socket::default_socket_path);
    let watcher = SocketClient::connect(&path, Role::Frontend, "watch_and_answer").await?;
    let mut answerer = SocketClient::connect(&path, Role::Frontend, "watch_and_answer").await?;
    println!(
        "connected to {} on {}",
        text::visible(&watcher.hello().server),
        path.display()
    );

    // The one subscription client: the snapshot, then events, and a fresh snapshot whenever
    // this front end fell behind.
    let (mut subscription, snapshot) = Subscription::start(watcher).await?;
    for prompt in snapshot {
        consider(&mut answerer, &prompt).await?;
    }
    loop {
        match subscription.next().await? {
            FeedItem::Event(event) => match *event {
                Event::Added { prompt } => consider(&mut answerer, &prompt).await?,
                Event::Changed { id, state, .. } => println!("{id} is now {state}"),
            },
            FeedItem::Snapshot(snapshot) => {
                for prompt in &snapshot.prompts {
                    consider(&mut answerer, prompt).await?;
                }
            }
        }
    }
}

/// Denies a dangerous Bash command if the adapter offers `deny` for it; only prints the rest.
async fn consider(
    answerer: &mut SocketClient,
    prompt: &Prompt,
) -> Result<(), Box<dyn std::error::Error>> {
    // Agent text goes through `text::visible` before it is printed: it may carry escape sequences.
    let shown = |text: &str| text::visible(text).into_owned();
    println!(
        "{} {} {}: {}",
        prompt.id,
        shown(&prompt.prompt.adapter),
        shown(&prompt.prompt.tool),
        shown(&prompt.prompt.summary)
    );
    let dangerous = prompt.prompt.tool == "Bash" && prompt.prompt.summary.contains("rm -rf");
    if dangerous && prompt.actions.contains(&Action::Deny) {
        let message = Some("watch_and_answer refuses rm -rf; ask the person".to_owned());
        match answerer.answer(prompt.id, Answer::Deny { message }).await {
            Ok(result) => println!("  denied: {}", result.state),
            // Someone else answered first, or the prompt was withdrawn: nothing to do.
            Err(error) => println!("  not denied: {error}"),
        }
    }
    Ok(())
}
