//! Who may reach the web front end, decided before any handler runs.
//!
//! - [`Secret`]: 32 random bytes from the OS, shown as hex; device tokens and pairing tokens are
//!   secrets, and only their SHA-256 ([`Secret::hash`], [`hash_token`]) is ever kept.
//! - [`Access`]: the request rules that do not depend on the pairing store: the `Host` header must
//!   name this server (DNS rebinding), a POST must carry an `Origin` of this very server (CSRF).
//!   `localhost` is accepted only while no other program can answer for it ([`LoopbackTwin`]):
//!   a browser sends `localhost` to `::1` first, so another user listening on `[::1]:PORT` beside
//!   a server on `127.0.0.1:PORT` would own the origin `http://localhost:PORT` and its storage.
//! - [`device_token`]: a paired device's credential, read only from the `Authorization: Bearer`
//!   header. Never from a cookie: browsers send a cookie of `127.0.0.1` (or `localhost`) to every
//!   port of it, so any other local user's server on another port would receive it. The page
//!   keeps the token in `localStorage`, which a browser keeps apart per origin (scheme, host and
//!   port), and sets the header itself; no other origin can read it or make a browser send it.
//!
//! Nothing here logs a secret: [`Secret`] prints as `Secret(..)` in `Debug`.

use std::net::{IpAddr, SocketAddr};

use sha2::{Digest, Sha256};

/// A random 256-bit secret, as 64 hex digits.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// 32 bytes from the operating system's random number generator.
    pub fn generate() -> anyhow::Result<Secret> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|error| anyhow::anyhow!("the OS random number generator failed: {error}"))?;
        Ok(Secret(hex(&bytes)))
    }

    /// The secret's text, for the page's storage or a link.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The SHA-256 of the secret's text, as hex: what the pairing store keeps.
    pub fn hash(&self) -> String {
        hash_token(&self.0)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Secret(..)")
    }
}

/// The SHA-256 of a token as a browser presented it, as hex.
pub fn hash_token(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// The device token of an `Authorization` header (`Bearer <64 hex digits>`), if any.
pub fn device_token(authorization: &str) -> Option<&str> {
    let (scheme, token) = authorization.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer")
        && token.len() == 64
        && token.bytes().all(|byte| byte.is_ascii_hexdigit()))
    .then_some(token)
}

/// Compares two hashes without stopping at the first difference.
pub fn same_hash(left: &str, right: &str) -> bool {
    left.len() == right.len()
        && left
            .bytes()
            .zip(right.bytes())
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The other loopback address at the listen port (`[::1]` for `127.0.0.1`, and back), which
/// a browser may reach for `localhost` too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopbackTwin {
    /// This server listens there too.
    Held(IpAddr),
    /// No program can listen there (no such address on this machine), or the server does not
    /// listen on loopback.
    Absent,
    /// Another program listens there: `localhost` may reach it, so the name is refused.
    TakenByAnother(IpAddr),
}

/// The other loopback address of `ip`'s family, for a loopback `ip`.
pub fn loopback_twin_of(ip: IpAddr) -> Option<IpAddr> {
    match ip {
        IpAddr::V4(v4) if v4 == std::net::Ipv4Addr::LOCALHOST => {
            Some(IpAddr::V6(std::net::Ipv6Addr::LOCALHOST))
        }
        IpAddr::V6(v6) if v6 == std::net::Ipv6Addr::LOCALHOST => {
            Some(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
        }
        _ => None,
    }
}

/// The rules every request meets, from the listen address, the names the owner configured and
/// whether TLS is on.
#[derive(Debug, Clone)]
pub struct Access {
    listen: SocketAddr,
    hosts: Vec<String>,
    tls: bool,
    twin: LoopbackTwin,
}

impl Access {
    pub fn new(listen: SocketAddr, hosts: Vec<String>, tls: bool) -> Access {
        let hosts = hosts
            .into_iter()
            .map(|host| host.trim().to_ascii_lowercase())
            .filter(|host| !host.is_empty())
            .collect();
        Access {
            listen,
            hosts,
            tls,
            twin: LoopbackTwin::Absent,
        }
    }

    /// The same rules, knowing what listens on the other loopback address at the listen port.
    pub fn with_loopback_twin(self, twin: LoopbackTwin) -> Access {
        Access { twin, ..self }
    }

    /// Whether requests naming `localhost` are served.
    pub fn serves_localhost(&self) -> bool {
        self.listen.ip().is_loopback() && !matches!(self.twin, LoopbackTwin::TakenByAnother(_))
    }

    pub fn scheme(&self) -> &'static str {
        if self.tls {
            "https"
        } else {
            "http"
        }
    }

    /// Whether a `Host` header names this server: an IP address it listens on (any address when
    /// it listens on all of them: an IP literal cannot be rebound by DNS), `localhost` when it
    /// listens on loopback and no other program holds the other loopback address at its port,
    /// each with the listen port; or a name the owner configured, on any port (a reverse proxy in
    /// front may serve it on 443).
    pub fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let Some((name, port)) = split_host(&host, self.default_port()) else {
            return false;
        };
        if self.hosts.iter().any(|configured| configured == name) {
            return true;
        }
        if port != self.listen.port() {
            return false;
        }
        let listen_ip = self.listen.ip();
        match name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            Ok(ip) => {
                listen_ip.is_unspecified() || ip == listen_ip || self.twin == LoopbackTwin::Held(ip)
            }
            Err(_) => name == "localhost" && self.serves_localhost(),
        }
    }

    /// Whether an `Origin` header is this server's own, as reached through `host` (a `Host`
    /// that [`Access::host_allowed`] accepted).
    pub fn origin_allowed(&self, origin: &str, host: &str) -> bool {
        let expected = format!("{}://{}", self.scheme(), host.trim().to_ascii_lowercase());
        let origin = origin.trim().to_ascii_lowercase();
        if origin == expected {
            return true;
        }
        // A browser leaves the default port out of Origin even when Host carries it.
        let default = format!(":{}", self.default_port());
        expected.strip_suffix(&default) == Some(origin.as_str())
    }

    fn default_port(&self) -> u16 {
        if self.tls {
            443
        } else {
            80
        }
    }
}

/// Splits `host[:port]` (with `[v6]` brackets kept on the name), or `None` when it is malformed.
fn split_host(host: &str, default_port: u16) -> Option<(&str, u16)> {
    if host.is_empty() || host.contains(['/', '@', ' ', '\\']) {
        return None;
    }
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        match rest.strip_prefix(':') {
            Some(port) => (name, port.parse().ok()?),
            None if rest.is_empty() => (name, default_port),
            None => return None,
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, port.parse().ok()?),
            None => (host, default_port),
        }
    };
    (!name.is_empty()).then_some((name, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback() -> Access {
        Access::new("127.0.0.1:7780".parse().unwrap(), vec![], false)
    }

    #[test]
    fn secrets_are_random_hex_and_kept_only_as_their_sha256() {
        let one = Secret::generate().unwrap();
        let two = Secret::generate().unwrap();
        assert_ne!(one, two);
        assert_eq!(one.expose().len(), 64);
        assert!(one.expose().bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert_eq!(one.hash(), hash_token(one.expose()));
        assert_ne!(one.hash(), one.expose());
        assert_eq!(format!("{one:?}"), "Secret(..)");
        assert!(same_hash(&one.hash(), &one.hash()));
        assert!(!same_hash(&one.hash(), &two.hash()));
        assert!(!same_hash(&one.hash(), ""));
    }

    #[test]
    fn the_host_must_name_the_listen_address_or_a_configured_name() {
        let local = loopback();
        let all = Access::new(
            "0.0.0.0:7780".parse().unwrap(),
            vec!["devbox.tail1.ts.net".into()],
            true,
        );
        let cases = [
            (&local, "127.0.0.1:7780", true),
            (&local, "localhost:7780", true),
            (&local, "LOCALHOST:7780", true),
            (&local, "127.0.0.1:7781", false),
            (&local, "127.0.0.1", false),
            (&local, "evil.example:7780", false),
            (&local, "127.0.0.2:7780", false),
            (&local, "", false),
            (&local, "user@127.0.0.1:7780", false),
            (&all, "192.168.1.20:7780", true),
            (&all, "[fd00::1]:7780", true),
            (&all, "devbox.tail1.ts.net", true),
            (&all, "devbox.tail1.ts.net:8443", true),
            // Not loopback: the listen address is every interface.
            (&all, "localhost:7780", false),
            (&all, "rebind.attacker.example:7780", false),
            (&all, "192.168.1.20:80", false),
        ];
        for (access, host, allowed) in cases {
            assert_eq!(access.host_allowed(host), allowed, "{host}");
        }
    }

    #[test]
    fn a_post_must_come_from_this_very_origin() {
        let access = loopback();
        assert!(access.origin_allowed("http://127.0.0.1:7780", "127.0.0.1:7780"));
        assert!(!access.origin_allowed("https://127.0.0.1:7780", "127.0.0.1:7780"));
        assert!(!access.origin_allowed("http://evil.example", "127.0.0.1:7780"));
        assert!(!access.origin_allowed("null", "127.0.0.1:7780"));
        let tls = Access::new("0.0.0.0:443".parse().unwrap(), vec![], true);
        assert!(tls.origin_allowed("https://10.0.0.2", "10.0.0.2:443"));
    }

    #[test]
    fn the_device_token_comes_only_from_a_bearer_header() {
        let token = Secret::generate().unwrap();
        let header = format!("Bearer {}", token.expose());
        assert_eq!(device_token(&header), Some(token.expose()));
        assert_eq!(
            device_token(&format!("bearer  {}", token.expose())),
            Some(token.expose())
        );
        assert_eq!(device_token(token.expose()), None);
        assert_eq!(device_token(&format!("Basic {}", token.expose())), None);
        assert_eq!(device_token("Bearer short"), None);
        assert_eq!(device_token(&format!("Bearer {}x", token.expose())), None);
    }

    #[test]
    fn localhost_is_refused_while_another_program_holds_the_other_loopback_address() {
        let held = loopback().with_loopback_twin(LoopbackTwin::Held("::1".parse().unwrap()));
        assert!(held.host_allowed("localhost:7780"));
        assert!(held.host_allowed("[::1]:7780"));
        let taken =
            loopback().with_loopback_twin(LoopbackTwin::TakenByAnother("::1".parse().unwrap()));
        assert!(!taken.host_allowed("localhost:7780"));
        assert!(!taken.host_allowed("[::1]:7780"));
        assert!(taken.host_allowed("127.0.0.1:7780"));
        assert!(!loopback().host_allowed("[::1]:7780"), "not held");
        assert_eq!(
            loopback_twin_of("127.0.0.1".parse().unwrap()),
            Some("::1".parse().unwrap())
        );
        assert_eq!(loopback_twin_of("127.0.0.2".parse().unwrap()), None);
    }
}
