//! Where the gateway's socket lives, and how it is made private: the default path is under
//! `$XDG_RUNTIME_DIR`, or else in a folder of mode 0700 that only this user owns; the socket
//! itself is made mode 0600.
//!
//! Trust runs both ways and rests on the kernel's word, not on file modes: the server answers
//! only peers of its own user (see `server::serve`), and [`connect`] talks only to a server of
//! its own user. Right after connecting, before a byte is sent, the client reads the server's
//! credentials (`SO_PEERCRED`) and refuses with [`SocketError::NotYourGateway`] when another user
//! runs it: someone who made the socket's folder first, or who listens on a path given with
//! `--socket`, never hears a tool input and can never answer one.
//!
//! [`bind`] never deletes what is not a stale socket: it first takes an exclusive lock on
//! `<socket>.lock` (held for the gateway's whole life, so a second gateway fails fast, and two
//! started together after a crash cannot delete each other's sockets), then removes a leftover
//! path only if it is a socket nobody answers on. A regular file, a folder or a link is refused.
//! At shutdown the [`SocketGuard`] removes the socket only if it is still the one this gateway
//! made (same device and inode). The lock file stays: removing it would let two gateways hold
//! locks on two different files of the same name.

use std::fmt;
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
    #[error("the socket folder {path} is not private (it must be owned by you with mode 0700)")]
    FolderNotPrivate { path: PathBuf },
    #[error("a gateway is already running on {path}")]
    AlreadyRunning { path: PathBuf },
    #[error("{path} is {found}, not a socket, and gatehouse deletes only a stale socket of its own there")]
    NotASocket { path: PathBuf, found: &'static str },
    #[error("cannot take the lock {path} that keeps a second gateway off the socket: {source}")]
    Lock { path: PathBuf, source: io::Error },
    #[error("cannot listen on {path}: {source}")]
    Bind { path: PathBuf, source: io::Error },
    #[error("cannot connect to the gateway at {path}: {source}")]
    Connect { path: PathBuf, source: io::Error },
    #[error("the socket {path} is served by {server}, not by you ({you}); gatehouse talks only to your own gateway")]
    NotYourGateway {
        path: PathBuf,
        server: User,
        you: User,
    },
    #[error("cannot tell which user serves the socket {path} ({source}), and gatehouse talks only to your own gateway")]
    ServerUnknown { path: PathBuf, source: io::Error },
    #[error("the file descriptor {fd} handed over by the service manager is not a listening Unix stream socket ({reason}); check the socket unit (ListenStream= with a path)")]
    NotAListeningSocket { fd: i32, reason: String },
    #[error("the service manager handed over a socket on {found}, which is neither the gateway's socket {path} nor its hooks socket; make ListenStream= name the socket gatehouse uses (or set GATEHOUSE_SOCKET / socket in the config to it)")]
    UnexpectedActivatedSocket { path: PathBuf, found: String },
    #[error("the socket {path} handed over by the service manager belongs to {owner}, not to you; gatehouse serves only a socket of your own")]
    SocketNotYours { path: PathBuf, owner: User },
}

/// A local user, as an error names it: `user 65534 (nobody)`, or `user 1234` when the system
/// does not know its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub uid: u32,
    pub name: Option<String>,
}

impl User {
    /// The user with id `uid`, with its name when the password database has one.
    pub fn with_uid(uid: u32) -> Self {
        User {
            uid,
            name: user_name(uid),
        }
    }
}

impl fmt::Display for User {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(formatter, "user {} ({name})", self.uid),
            None => write!(formatter, "user {}", self.uid),
        }
    }
}

#[cfg(unix)]
fn user_name(uid: u32) -> Option<String> {
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: passwd is plain data; an all-zero value is valid and getpwuid_r overwrites it.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to a live local of the right type, and the buffer's length is its own.
    let status = unsafe {
        libc::getpwuid_r(
            uid,
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    if status != 0 || found.is_null() || entry.pw_name.is_null() {
        return None;
    }
    // SAFETY: on success pw_name points to a NUL-terminated string inside `buffer`, still alive.
    let name = unsafe { std::ffi::CStr::from_ptr(entry.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

#[cfg(not(unix))]
fn user_name(_uid: u32) -> Option<String> {
    None
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

/// Makes sure `folder` exists and only this user can enter it: missing, it is made with
/// [`create_private_folder`]; present and this user's, it loses any access for others (a folder
/// made by hand or by an older gatehouse under a permissive umask). The audit log's and the
/// hook's spool's folders are kept this way.
#[cfg(unix)]
pub fn make_private_folder(folder: &Path) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    create_private_folder(folder)?;
    let metadata = std::fs::metadata(folder)?;
    if metadata.uid() != current_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} belongs to user {}, not to you; remove it or set XDG_STATE_HOME",
                folder.display(),
                metadata.uid()
            ),
        ));
    }
    if metadata.mode() & 0o077 != 0 {
        std::fs::set_permissions(
            folder,
            std::fs::Permissions::from_mode(metadata.mode() & 0o700),
        )?;
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn make_private_folder(folder: &Path) -> io::Result<()> {
    create_private_folder(folder)
}

/// Takes any access for others away from an open file of this user's (one made by an older
/// gatehouse under a permissive umask, say). New files get mode 0600 when they are opened.
#[cfg(unix)]
pub fn make_private_file(file: &std::fs::File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = file.metadata()?.permissions().mode();
    if mode & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(mode & 0o600))?;
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn make_private_file(_file: &std::fs::File) -> io::Result<()> {
    Ok(())
}

/// Whether `folder` is a folder (not a link) of this user's with no access for others.
#[cfg(unix)]
pub fn folder_is_private(folder: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(folder)
        .map(|meta| meta.is_dir() && meta.uid() == current_uid() && meta.mode() & 0o077 == 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
pub fn folder_is_private(_folder: &Path) -> bool {
    true
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

/// The hooks socket beside the gateway's `socket`: `hooks.sock` in the same folder. Connections
/// there may say hello only as a hook; `gatehouse remote` forwards it to other machines.
pub fn hooks_socket_path(socket: &Path) -> PathBuf {
    socket.with_file_name("hooks.sock")
}

/// The path a listening Unix socket handed over by a service manager is bound to, or why it is
/// not one: it must be a socket (`fstat`), of the stream type, listening, and bound to a path.
#[cfg(unix)]
pub fn activated_socket_path(fd: std::os::fd::BorrowedFd<'_>) -> Result<PathBuf, SocketError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let raw = fd.as_raw_fd();
    let refuse = |reason: String| SocketError::NotAListeningSocket { fd: raw, reason };
    // SAFETY: stat is plain data; fstat fills it for the open descriptor `raw`.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(raw, &mut stat) } != 0 {
        return Err(refuse(format!("fstat: {}", io::Error::last_os_error())));
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
            return Err(refuse(format!(
                "getsockopt: {}",
                io::Error::last_os_error()
            )));
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
        return Err(refuse(format!(
            "getsockname: {}",
            io::Error::last_os_error()
        )));
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

/// Connects to the gateway at `path`, and makes sure that it is this user's own before anything
/// is sent: a server run by another user is refused with [`SocketError::NotYourGateway`].
pub async fn connect(path: &Path) -> Result<Stream, SocketError> {
    let connect_error = |source| SocketError::Connect {
        path: path.into(),
        source,
    };
    let name = path
        .to_fs_name::<GenericFilePath>()
        .map_err(connect_error)?;
    let stream = Stream::connect(name).await.map_err(connect_error)?;
    check_server(path, &stream)?;
    Ok(stream)
}

/// Only a server run by this process's own effective user is talked to. On Linux the kernel
/// reports the credentials the server had when it called `listen`, which it cannot forge.
#[cfg(unix)]
fn check_server(path: &Path, stream: &Stream) -> Result<(), SocketError> {
    use interprocess::local_socket::traits::StreamCommon as _;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let own = unsafe { libc::geteuid() };
    let unknown = |source| SocketError::ServerUnknown {
        path: path.into(),
        source,
    };
    let credentials = stream.peer_creds().map_err(unknown)?;
    match credentials.euid() {
        Some(server) if server == own => Ok(()),
        Some(server) => Err(SocketError::NotYourGateway {
            path: path.into(),
            server: User::with_uid(server),
            you: User::with_uid(own),
        }),
        None => Err(unknown(io::Error::other("the system does not say"))),
    }
}

#[cfg(not(unix))]
fn check_server(_path: &Path, _stream: &Stream) -> Result<(), SocketError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_is_named_by_id_and_by_name_when_known() {
        assert_eq!(
            User {
                uid: 65_534,
                name: Some("nobody".into())
            }
            .to_string(),
            "user 65534 (nobody)"
        );
        assert_eq!(
            User {
                uid: 4_000_000,
                name: None
            }
            .to_string(),
            "user 4000000"
        );
        assert_eq!(
            User::with_uid(0).name.as_deref(),
            Some("root"),
            "uid 0 is root in the password database"
        );
    }

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

    #[tokio::test]
    async fn a_server_of_this_user_is_accepted() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("own.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        connect(&path)
            .await
            .expect("this user's own server is trusted");
    }
}
