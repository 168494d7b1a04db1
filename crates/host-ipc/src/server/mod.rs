//! The server side: the [`Gateway`] that owns the arbiter, and the loop that serves each
//! connection with it. Connections are plain byte streams, so tests drive the server over an
//! in-memory duplex and the binary over a local socket.

mod connection;
mod gateway;

pub use connection::serve_connection;
pub use gateway::{now, Gateway, GatewayOptions};

use std::sync::Arc;

use interprocess::local_socket::tokio::Listener;
use interprocess::local_socket::traits::tokio::Listener as _;

/// Accepts connections until the listener fails, serving each on its own task.
pub async fn serve(gateway: Arc<Gateway>, listener: Listener) -> std::io::Result<()> {
    loop {
        let stream = listener.accept().await?;
        let gateway = gateway.clone();
        tokio::spawn(async move { serve_connection(gateway, stream).await });
    }
}
