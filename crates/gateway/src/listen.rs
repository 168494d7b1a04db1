//! How the gateway listens: it binds its socket (or adopts one that systemd hands over) and never
//! deletes what is not its own stale socket.
//!
//! [`bind`] first takes an exclusive lock on `<socket>.lock` (held for the gateway's whole life,
//! so a second gateway fails fast, and two started together after a crash cannot delete each
//! other's sockets), then removes a leftover path only if it is a socket nobody answers on. A
//! regular file, a folder or a link is refused. At shutdown the [`SocketGuard`] removes the
//! socket only if it is still the one this gateway made (same device and inode). The lock file
//! stays: removing it would let two gateways hold locks on two different files of the same name.

use std::io;
use std::path::{Path, PathBuf};

use gatehouse_host_ipc::socket::{
    connect, create_private_folder, current_uid, default_socket_path, folder_is_private,
    SocketError, User,
};
use interprocess::local_socket::tokio::Listener;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};

/// Makes sure the socket's folder exists. A folder that gatehouse creates gets mode 0700; the
/// default folder, if it already exists, must be owned by this user with no access for others.
fn prepare_folder(socket: &Path) -> Result<(), SocketError> {
    let Some(folder) = socket
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    else {
        return Ok(());
    };
    let created_here = !folder.exists();
    if created_here {
        create_private_folder(folder).map_err(|source| SocketError::CreateFolder {
            path: folder.into(),
            source,
        })?;
    }
    // Checked after creating too: another user may have made the folder in between (creating
    // with `recursive` accepts a folder that is already there).
    if (created_here || socket == default_socket_path()) && !folder_is_private(folder) {
        return Err(SocketError::FolderNotPrivate {
            path: folder.into(),
        });
    }
    Ok(())
}

/// The gateway's socket, bound: accept on `listener`, and keep `guard` alive for as long as the
/// gateway serves.
pub struct BoundSocket {
    pub listener: Listener,
    pub guard: SocketGuard,
}

/// Holds the gateway's lock while it lives. Dropped, it removes the socket if the path still
/// names the very socket this gateway made, and releases the lock.
#[derive(Debug)]
pub struct SocketGuard {
    path: PathBuf,
    /// The socket's device and inode, read right after it was bound.
    identity: Option<(u64, u64)>,
    /// The open lock file; closing it releases the lock.
    _lock: std::fs::File,
}

impl SocketGuard {
    /// Whether `path` still names the socket this gateway made.
    pub fn still_ours(&self) -> bool {
        self.identity.is_some() && file_identity(&self.path) == self.identity
    }
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        // Another user of the folder could swap the path between the check and the removal; the
        // folder is private, and another gatehouse gateway cannot, since this one holds the lock.
        if self.still_ours() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The lock file beside `socket`: `<socket>.lock`.
pub fn lock_path(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Binds the gateway's socket at `path`: prepares a private folder, takes the lock beside the
/// socket (a second gateway fails here), removes a stale socket left by a crashed gateway (and
/// nothing else), binds, and makes the socket mode 0600.
pub async fn bind(path: &Path) -> Result<BoundSocket, SocketError> {
    prepare_folder(path)?;
    let lock = take_lock(path)?;
    remove_stale_socket(path).await?;
    let bind_error = |source| SocketError::Bind {
        path: path.into(),
        source,
    };
    let name = path.to_fs_name::<GenericFilePath>().map_err(bind_error)?;
    // interprocess's own reclaiming would unlink whatever the path names when the listener is
    // dropped, even a socket that is no longer this one; the guard removes it only if it is.
    let listener = ListenerOptions::new()
        .name(name)
        .reclaim_name(false)
        .create_tokio()
        .map_err(bind_error)?;
    let guard = SocketGuard {
        path: path.into(),
        identity: file_identity(path),
        _lock: lock,
    };
    restrict_socket_file(path).map_err(bind_error)?;
    Ok(BoundSocket { listener, guard })
}

/// The path a listening Unix socket handed over by a service manager is bound to, or why it is
/// not one: it must be a socket (`fstat`), of the stream type, listening, and bound to a path.
#[cfg(unix)]
pub fn activated_socket_path(fd: std::os::fd::BorrowedFd<'_>) -> Result<PathBuf, SocketError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let raw = fd.as_raw_fd();
    let refuse = |reason: String| SocketError::NotAListeningSocket { fd: raw, reason };
    let failed = |call: &str| refuse(format!("{call}: {}", io::Error::last_os_error()));
    // SAFETY: stat is plain data; fstat fills it for the open descriptor `raw`.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(raw, &mut stat) } != 0 {
        return Err(failed("fstat"));
    }
    if stat.st_mode & libc::S_IFMT != libc::S_IFSOCK {
        return Err(refuse("it is not a socket".into()));
    }
    let option = |name: libc::c_int| -> Result<libc::c_int, SocketError> {
        let mut value: libc::c_int = 0;
        let mut length = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: value and length are live locals of the sizes getsockopt is told.
        let status = unsafe {
            libc::getsockopt(
                raw,
                libc::SOL_SOCKET,
                name,
                (&mut value as *mut libc::c_int).cast(),
                &mut length,
            )
        };
        if status != 0 {
            return Err(failed("getsockopt"));
        }
        Ok(value)
    };
    if option(libc::SO_TYPE)? != libc::SOCK_STREAM {
        return Err(refuse("it is not a stream socket".into()));
    }
    if option(libc::SO_ACCEPTCONN)? == 0 {
        return Err(refuse("it is not listening".into()));
    }
    // SAFETY: sockaddr_un is plain data; getsockname fills at most `length` bytes of it.
    let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    let mut length = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
    let status = unsafe {
        libc::getsockname(
            raw,
            (&mut address as *mut libc::sockaddr_un).cast(),
            &mut length,
        )
    };
    if status != 0 {
        return Err(failed("getsockname"));
    }
    if libc::c_int::from(address.sun_family) != libc::AF_UNIX {
        return Err(refuse("it is not a Unix domain socket".into()));
    }
    let offset = std::mem::size_of_val(&address.sun_family);
    let bytes: Vec<u8> = address.sun_path[..(length as usize)
        .saturating_sub(offset)
        .min(address.sun_path.len())]
        .iter()
        .map(|&byte| byte as u8)
        .take_while(|&byte| byte != 0)
        .collect();
    if bytes.is_empty() {
        return Err(refuse(
            "it is not bound to a path in the file system".into(),
        ));
    }
    Ok(PathBuf::from(std::ffi::OsStr::from_bytes(&bytes)))
}

/// Serves on a listening socket that a service manager (systemd socket activation) made and
/// handed over, bound at `path`, with every guarantee [`bind`] gives a socket it makes: the
/// folder must be owned by this user with no access for others, the socket file must be this
/// user's (and is made 0600 if it is open to others), and the same lock keeps a second gateway
/// off it. Its guard never removes the socket: it is the service manager's, which listens on
/// it while no gateway runs.
#[cfg(unix)]
pub async fn adopt(path: &Path, fd: std::os::fd::OwnedFd) -> Result<BoundSocket, SocketError> {
    use std::os::unix::fs::MetadataExt;
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !folder_is_private(folder) {
        return Err(SocketError::FolderNotPrivate {
            path: folder.into(),
        });
    }
    let bind_error = |source| SocketError::Bind {
        path: path.into(),
        source,
    };
    let metadata = std::fs::symlink_metadata(path).map_err(bind_error)?;
    if let Some(found) = not_a_socket(&metadata) {
        return Err(SocketError::NotASocket {
            path: path.into(),
            found,
        });
    }
    if metadata.uid() != current_uid() {
        return Err(SocketError::SocketNotYours {
            path: path.into(),
            owner: User::with_uid(metadata.uid()),
        });
    }
    if metadata.mode() & 0o077 != 0 {
        restrict_socket_file(path).map_err(bind_error)?;
    }
    let lock = take_lock(path)?;
    let listener = interprocess::os::unix::uds_local_socket::tokio::Listener::try_from(fd)
        .map_err(bind_error)?;
    Ok(BoundSocket {
        listener: listener.into(),
        guard: SocketGuard {
            path: path.into(),
            identity: None,
            _lock: lock,
        },
    })
}

/// Removes what `path` names only if it is a socket nobody answers on: the leftover of a gateway
/// that died. The caller holds the lock, so no other gateway of this version serves there.
async fn remove_stale_socket(path: &Path) -> Result<(), SocketError> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(SocketError::Bind {
                path: path.into(),
                source,
            })
        }
    };
    if let Some(found) = not_a_socket(&metadata) {
        return Err(SocketError::NotASocket {
            path: path.into(),
            found,
        });
    }
    match connect(path).await {
        // Only a refusal proves that nobody listens: the socket is left from a gateway that
        // died. Any other failure (a full listen queue, say) may hide a live gateway.
        Err(SocketError::Connect { source, .. })
            if source.kind() == io::ErrorKind::ConnectionRefused =>
        {
            std::fs::remove_file(path).map_err(|source| SocketError::Bind {
                path: path.into(),
                source,
            })
        }
        Err(refusal @ SocketError::NotYourGateway { .. }) => Err(refusal),
        _ => Err(SocketError::AlreadyRunning { path: path.into() }),
    }
}

/// What is at a path that is not a socket, in words; `None` for a socket.
#[cfg(unix)]
fn not_a_socket(metadata: &std::fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let file_type = metadata.file_type();
    match () {
        () if file_type.is_socket() => None,
        () if file_type.is_symlink() => Some("a symbolic link"),
        () if file_type.is_dir() => Some("a folder"),
        () if file_type.is_file() => Some("a regular file"),
        () => Some("a special file"),
    }
}

#[cfg(not(unix))]
fn not_a_socket(_metadata: &std::fs::Metadata) -> Option<&'static str> {
    None
}

#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|metadata| (metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn file_identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// Opens `<socket>.lock` (mode 0600, never through a link) and takes an exclusive lock on it
/// without waiting: held by a live gateway, it fails with [`SocketError::AlreadyRunning`]. The
/// kernel releases it when the gateway exits, however it exits.
#[cfg(unix)]
fn take_lock(socket: &Path) -> Result<std::fs::File, SocketError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let path = lock_path(socket);
    let lock_error = |source| SocketError::Lock {
        path: path.clone(),
        source,
    };
    // std opens every file with O_CLOEXEC, so the lock is never inherited by a child.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(lock_error)?;
    // SAFETY: flock only acts on the descriptor, which `file` keeps open.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let error = io::Error::last_os_error();
        return Err(match error.kind() {
            io::ErrorKind::WouldBlock => SocketError::AlreadyRunning {
                path: socket.into(),
            },
            _ => lock_error(error),
        });
    }
    Ok(file)
}

#[cfg(not(unix))]
fn take_lock(socket: &Path) -> Result<std::fs::File, SocketError> {
    let path = lock_path(socket);
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|source| SocketError::Lock { path, source })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bind_refuses_a_path_that_is_not_a_socket_and_leaves_it_alone() {
        let folder = tempfile::tempdir().unwrap();
        let notes = folder.path().join("notes.txt");
        std::fs::write(&notes, "mine").unwrap();
        let error = bind(&notes).await.err().expect("a regular file is refused");
        assert!(
            matches!(
                error,
                SocketError::NotASocket {
                    found: "a regular file",
                    ..
                }
            ),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine");
    }

    #[tokio::test]
    async fn a_second_bind_is_refused_while_the_first_lives_and_a_stale_socket_is_replaced() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("gatehouse.sock");
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        let first = bind(&path).await.expect("a stale socket is replaced");
        let second = bind(&path).await.err().expect("the lock is held");
        assert!(
            matches!(second, SocketError::AlreadyRunning { .. }),
            "{second}"
        );
        assert!(first.guard.still_ours());
        drop(first);
        assert!(!path.exists(), "the guard removes its own socket");
        assert!(
            bind(&path).await.is_ok(),
            "the lock is released with the guard"
        );
    }

    #[tokio::test]
    async fn the_guard_leaves_a_socket_that_is_no_longer_its_own() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("gatehouse.sock");
        let bound = bind(&path).await.unwrap();
        std::fs::remove_file(&path).unwrap();
        let _other = std::os::unix::net::UnixListener::bind(&path).unwrap();
        assert!(!bound.guard.still_ours());
        drop(bound);
        assert!(path.exists(), "another socket in its place is left alone");
    }

    #[test]
    fn only_a_listening_unix_stream_socket_is_taken_from_a_service_manager() {
        use std::os::fd::AsFd;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("activated.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        assert_eq!(activated_socket_path(listener.as_fd()).unwrap(), path);

        let file = std::fs::File::open(folder.path()).unwrap();
        let refused = activated_socket_path(file.as_fd()).unwrap_err();
        assert!(refused.to_string().contains("not a socket"), "{refused}");
        let (one, _other) = std::os::unix::net::UnixStream::pair().unwrap();
        let refused = activated_socket_path(one.as_fd()).unwrap_err();
        assert!(refused.to_string().contains("not listening"), "{refused}");
        let datagram = std::os::unix::net::UnixDatagram::bind(folder.path().join("d")).unwrap();
        let refused = activated_socket_path(datagram.as_fd()).unwrap_err();
        assert!(
            refused.to_string().contains("not a stream socket"),
            "{refused}"
        );
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let refused = activated_socket_path(tcp.as_fd()).unwrap_err();
        assert!(
            refused.to_string().contains("not a Unix domain socket"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn an_adopted_socket_is_made_private_and_never_removed() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let path = folder.path().join("activated.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let adopted = adopt(&path, listener.into()).await.unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let second = bind(&path).await.err().expect("the lock is held");
        assert!(
            matches!(second, SocketError::AlreadyRunning { .. }),
            "{second}"
        );
        drop(adopted);
        assert!(path.exists(), "the service manager's socket stays");

        std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let listener =
            std::os::unix::net::UnixListener::bind(folder.path().join("b.sock")).unwrap();
        let refused = adopt(&folder.path().join("b.sock"), listener.into())
            .await
            .err()
            .expect("a folder open to others is refused");
        assert!(
            matches!(refused, SocketError::FolderNotPrivate { .. }),
            "{refused}"
        );
    }
}
