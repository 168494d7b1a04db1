//! The one wording of the gateway's client errors, for every command and front end: the
//! libraries return typed errors ([`ClientError`], [`SocketError`]) that say what went wrong,
//! and only here are they given what to do about it, in the command line's terms.

use std::path::Path;

use gatehouse_host_ipc::socket::SocketError;
use gatehouse_host_ipc::ClientError;

/// A client error as a person reads it, with the hint: the gateway's own message for a refusal
/// (never a code), how to start a gateway that is not running, what to do about a socket of
/// another user. The console and `gatehouse web` are handed this function.
pub fn in_words(socket: &Path, error: &ClientError) -> String {
    match error {
        ClientError::Rpc(refusal) => refusal.message.clone(),
        ClientError::Socket(SocketError::Connect { .. }) => format!(
            "no gateway is running on {}; start one with `gatehouse serve` (or pass --socket / GATEHOUSE_SOCKET)",
            socket.display()
        ),
        // A server run by another user, or one whose user cannot be told: not "no gateway", and
        // never talked to. The refusal names the socket and its owner.
        ClientError::Socket(
            refusal @ (SocketError::NotYourGateway { .. } | SocketError::ServerUnknown { .. }),
        ) => socket_advice(refusal).to_string(),
        other => other.to_string(),
    }
}

/// A socket error with what to do about it, in the command line's terms.
pub fn socket_advice(error: &SocketError) -> anyhow::Error {
    let advice = match error {
        SocketError::NotYourGateway { .. } => {
            "remove that socket's folder, or choose another path with --socket"
        }
        SocketError::AlreadyRunning { .. } => "stop it first, or choose another path with --socket",
        SocketError::FolderNotPrivate { .. } => {
            "remove the folder, or choose another path with --socket"
        }
        _ => "choose another path with --socket (or GATEHOUSE_SOCKET)",
    };
    anyhow::anyhow!("{error}; {advice}")
}

/// A failure to connect as a command: the words above when the gateway is missing or not the
/// user's own, else the typed error with what was being done.
pub fn unreachable_gateway(socket: &Path, error: ClientError) -> anyhow::Error {
    match error {
        ClientError::Socket(
            SocketError::Connect { .. }
            | SocketError::NotYourGateway { .. }
            | SocketError::ServerUnknown { .. },
        ) => anyhow::anyhow!(in_words(socket, &error)),
        other => anyhow::Error::new(other).context(format!(
            "the gateway on {} did not answer properly",
            socket.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_gateway_is_worded_with_how_to_start_one() {
        let error = ClientError::Socket(SocketError::Connect {
            path: "/run/g.sock".into(),
            source: std::io::ErrorKind::NotFound.into(),
        });
        assert_eq!(
            in_words(Path::new("/run/g.sock"), &error),
            "no gateway is running on /run/g.sock; start one with `gatehouse serve` (or pass --socket / GATEHOUSE_SOCKET)"
        );
    }

    #[test]
    fn a_refusal_is_the_gateways_own_message() {
        let refusal = gatehouse_host_ipc::RpcError::new(
            gatehouse_host_ipc::ErrorCode::NotPending,
            "the prompt was withdrawn",
        );
        assert_eq!(
            in_words(Path::new("/run/g.sock"), &ClientError::Rpc(refusal)),
            "the prompt was withdrawn"
        );
    }
}
