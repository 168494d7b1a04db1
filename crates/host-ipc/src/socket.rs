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
//! The gateway's side (binding, the lock, adopting a socket from systemd) is in the
//! `gatehouse-gateway` crate's `listen` module.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use interprocess::local_socket::tokio::Stream;
use interprocess::local_socket::traits::tokio::Stream as _;
use interprocess::local_socket::{GenericFilePath, ToFsName};
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

/// gatehouse's state folder: `$XDG_STATE_HOME/gatehouse`, or `~/.local/state/gatehouse`.
pub fn state_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local").join("state"))
        })?;
    Some(base.join("gatehouse"))
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
pub fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
pub fn current_uid() -> u32 {
    0
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

/// The hooks socket beside the gateway's `socket`: `hooks.sock` in the same folder. Connections
/// there may say hello only as a hook; `gatehouse remote` forwards it to other machines.
pub fn hooks_socket_path(socket: &Path) -> PathBuf {
    socket.with_file_name("hooks.sock")
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
    async fn a_server_of_this_user_is_accepted() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("own.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        connect(&path)
            .await
            .expect("this user's own server is trusted");
    }
}
