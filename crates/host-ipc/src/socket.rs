//! Where the gateway's socket lives, and how it is made private: the default path is under
//! `$XDG_RUNTIME_DIR`, or else in a folder of mode 0700 that only this user owns; the socket
//! itself is made mode 0600.

use std::io;
use std::path::{Path, PathBuf};

use interprocess::local_socket::tokio::{Listener, Stream};
use interprocess::local_socket::traits::tokio::Stream as _;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
use thiserror::Error;

/// The environment variable that names the socket.
pub const SOCKET_ENV: &str = "GATEHOUSE_SOCKET";

#[derive(Debug, Error)]
pub enum SocketError {
    #[error("cannot create the private folder {path} for the socket: {source}")]
    CreateFolder { path: PathBuf, source: io::Error },
    #[error("the socket folder {path} is not private (it must be owned by you with mode 0700); remove it or choose another path with --socket")]
    FolderNotPrivate { path: PathBuf },
    #[error("a gateway is already running on {path}; stop it first, or choose another path with --socket")]
    AlreadyRunning { path: PathBuf },
    #[error("cannot listen on {path}: {source}")]
    Bind { path: PathBuf, source: io::Error },
    #[error("cannot connect to the gateway at {path}: {source}")]
    Connect { path: PathBuf, source: io::Error },
}

/// The default socket path: `$XDG_RUNTIME_DIR/gatehouse/gatehouse.sock`, or else
/// `<temp dir>/gatehouse-<uid>/gatehouse.sock`.
pub fn default_socket_path() -> PathBuf {
    let folder = match std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        Some(runtime_dir) => PathBuf::from(runtime_dir).join("gatehouse"),
        None => std::env::temp_dir().join(format!("gatehouse-{}", current_uid())),
    };
    folder.join("gatehouse.sock")
}

#[cfg(unix)]
fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
fn current_uid() -> u32 {
    0
}

/// Makes sure the socket's folder exists. A folder that gatehouse creates gets mode 0700; the
/// default folder, if it already exists, must be owned by this user with no access for others.
fn prepare_folder(socket: &Path) -> Result<(), SocketError> {
    let Some(folder) = socket
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    else {
        return Ok(());
    };
    if !folder.exists() {
        create_private_folder(folder).map_err(|source| SocketError::CreateFolder {
            path: folder.into(),
            source,
        })?;
        return Ok(());
    }
    if socket == default_socket_path() && !folder_is_private(folder) {
        return Err(SocketError::FolderNotPrivate {
            path: folder.into(),
        });
    }
    Ok(())
}

/// Creates `folder` and its missing parents with mode 0700, so only this user can enter them.
/// The socket's folder, the audit log's and the hook's spool's are made this way.
#[cfg(unix)]
pub fn create_private_folder(folder: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)
}

#[cfg(not(unix))]
pub fn create_private_folder(folder: &Path) -> io::Result<()> {
    std::fs::create_dir_all(folder)
}

#[cfg(unix)]
fn folder_is_private(folder: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(folder)
        .map(|meta| meta.is_dir() && meta.uid() == current_uid() && meta.mode() & 0o077 == 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn folder_is_private(_folder: &Path) -> bool {
    true
}

/// Binds the gateway's socket at `path`: prepares a private folder, refuses to take over a live
/// gateway, removes a stale socket file left by a crashed one, and makes the socket mode 0600.
pub async fn bind(path: &Path) -> Result<Listener, SocketError> {
    prepare_folder(path)?;
    if path.exists() {
        match connect(path).await {
            // Only a refusal proves that nobody listens: the file is left from a gateway that
            // died. Any other failure (a full listen queue, say) may hide a live gateway.
            Err(SocketError::Connect { source, .. })
                if source.kind() == io::ErrorKind::ConnectionRefused =>
            {
                let _ = std::fs::remove_file(path);
            }
            _ => return Err(SocketError::AlreadyRunning { path: path.into() }),
        }
    }
    let bind_error = |source| SocketError::Bind {
        path: path.into(),
        source,
    };
    let name = path.to_fs_name::<GenericFilePath>().map_err(bind_error)?;
    let listener = ListenerOptions::new()
        .name(name)
        .reclaim_name(true)
        .create_tokio()
        .map_err(bind_error)?;
    restrict_socket_file(path).map_err(bind_error)?;
    Ok(listener)
}

#[cfg(unix)]
fn restrict_socket_file(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn restrict_socket_file(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// Connects to the gateway at `path`.
pub async fn connect(path: &Path) -> Result<Stream, SocketError> {
    let connect_error = |source| SocketError::Connect {
        path: path.into(),
        source,
    };
    let name = path
        .to_fs_name::<GenericFilePath>()
        .map_err(connect_error)?;
    Stream::connect(name).await.map_err(connect_error)
}
