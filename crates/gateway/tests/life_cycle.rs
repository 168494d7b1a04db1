//! The gateway's life cycle run in-process (`run_until`), as `gatehouse serve` runs it: it binds
//! its socket and the hooks socket in a private folder, answers a front end, writes its audit
//! log in the state folder, stops when asked or when idle, and removes its sockets.

use std::path::Path;
use std::time::Duration;

use gatehouse_core::AdapterRegistry;
use gatehouse_gateway::{run_until, RunError, RunOptions, Stopped};
use gatehouse_host_ipc::{Role, SocketClient};

/// A generous deadline for a busy 2-core machine.
const DEADLINE: Duration = Duration::from_secs(30);

fn options(folder: &Path, idle_exit: Option<Duration>) -> RunOptions {
    RunOptions {
        socket: folder.join("run").join("gatehouse.sock"),
        activated: None,
        idle_exit,
        registry: AdapterRegistry::new(),
        state_dir: Some(folder.join("state")),
        local_host: "laptop".into(),
    }
}

/// Connects as a front end once the gateway listens.
async fn connect_when_listening(socket: &Path) -> SocketClient {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        match SocketClient::connect(socket, Role::Frontend, "life-cycle-test").await {
            Ok(client) => return client,
            Err(error) if tokio::time::Instant::now() < deadline => {
                let _ = error;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(error) => panic!(
                "the gateway never listened on {}: {error}",
                socket.display()
            ),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_serves_until_asked_to_stop_and_removes_its_sockets() {
    let folder = tempfile::tempdir().unwrap();
    let options = options(folder.path(), None);
    let socket = options.socket.clone();
    let hooks_socket = gatehouse_host_ipc::socket::hooks_socket_path(&socket);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(run_until(options, async {
        let _ = stopped.await;
    }));
    let mut client = connect_when_listening(&socket).await;
    assert!(client.list().await.unwrap().is_empty());
    let status = client.status().await.unwrap();
    assert_eq!(status.started_by, "gatehouse serve");
    assert!(hooks_socket.exists(), "the hooks socket is bound beside it");
    assert!(folder.path().join("state").join("audit.jsonl").exists());
    drop(client);
    stop.send(()).unwrap();
    let ended = tokio::time::timeout(DEADLINE, running)
        .await
        .expect("the gateway stops when asked")
        .unwrap();
    assert_eq!(ended.unwrap(), Stopped::Asked);
    assert!(!socket.exists(), "its socket is removed");
    assert!(!hooks_socket.exists(), "its hooks socket is removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_gateway_stops_by_itself() {
    let folder = tempfile::tempdir().unwrap();
    let options = options(folder.path(), Some(Duration::from_millis(300)));
    let socket = options.socket.clone();
    let ended = tokio::time::timeout(DEADLINE, run_until(options, std::future::pending()))
        .await
        .expect("an idle gateway stops within its idle time");
    assert_eq!(ended.unwrap(), Stopped::Idle);
    assert!(!socket.exists());
}

#[tokio::test]
async fn a_second_gateway_on_the_same_socket_is_refused_with_a_typed_error() {
    let folder = tempfile::tempdir().unwrap();
    let first = options(folder.path(), None);
    let socket = first.socket.clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(run_until(first, async {
        let _ = stopped.await;
    }));
    drop(connect_when_listening(&socket).await);
    let second = run_until(options(folder.path(), None), std::future::pending()).await;
    assert!(
        matches!(second, Err(RunError::Bind(_))),
        "refused: {second:?}"
    );
    stop.send(()).unwrap();
    running.await.unwrap().unwrap();
}

#[tokio::test]
async fn with_no_state_folder_the_gateway_does_not_start() {
    let folder = tempfile::tempdir().unwrap();
    let mut options = options(folder.path(), None);
    options.state_dir = None;
    let ended = run_until(options, std::future::pending()).await;
    assert!(matches!(ended, Err(RunError::NoStateFolder)), "{ended:?}");
}
