//! Where `gatehouse web` may post a push: the endpoint a browser's subscription names is data
//! from a paired device, so it is checked against an allow-list before it is kept, and again
//! before every post.
//!
//! An endpoint is allowed when it is `https` on the default port of one of the major browsers'
//! push services ([`VENDOR_HOSTS`], and the hosts under [`VENDOR_DOMAINS`]), or when it starts
//! with a prefix the owner listed in `[web] push_endpoints` (same scheme, host and port, and the
//! prefix's path; no `.` or `..` segment climbs out of it). A plain-`http` prefix is accepted in the config only on a loopback address
//! (a test's push service). Everything else is refused: another host, a user-info part, an IP
//! literal, an odd port, a fragment, spaces, control or non-ASCII characters, over-long URLs.
//! A vendor host is also refused at connection time if its name resolves to a private,
//! loopback or other non-public address ([`is_public`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The push services of Chrome and Android (FCM), Firefox (Mozilla autopush) and Safari (Apple).
pub const VENDOR_HOSTS: [&str; 3] = [
    "fcm.googleapis.com",
    "updates.push.services.mozilla.com",
    "web.push.apple.com",
];

/// Domains whose subdomains are push services: Edge's Windows Push Notification Services
/// (`wns2-....notify.windows.com`).
pub const VENDOR_DOMAINS: [&str; 1] = ["notify.windows.com"];

/// The longest endpoint kept (the vendors' are under 500 characters).
pub const MAX_ENDPOINT_CHARS: usize = 1_024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

/// A parsed endpoint (or prefix) URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub scheme: Scheme,
    /// Lowercase DNS name, or an IP literal (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// The path and query, starting with `/`.
    pub path: String,
}

impl Url {
    /// `scheme://host[:port]`, as a VAPID `aud` names the push service.
    pub fn origin(&self) -> String {
        let scheme = match self.scheme {
            Scheme::Http => "http",
            Scheme::Https => "https",
        };
        let host = match self.ip() {
            Some(IpAddr::V6(ip)) => format!("[{ip}]"),
            _ => self.host.clone(),
        };
        let default = match self.scheme {
            Scheme::Http => 80,
            Scheme::Https => 443,
        };
        if self.port == default {
            format!("{scheme}://{host}")
        } else {
            format!("{scheme}://{host}:{}", self.port)
        }
    }

    /// The host as an IP address, when it is one.
    pub fn ip(&self) -> Option<IpAddr> {
        self.host.parse().ok()
    }

    /// The `Host` header.
    pub fn authority(&self) -> String {
        self.origin()
            .split_once("://")
            .map(|(_, rest)| rest.to_owned())
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointRefusal {
    #[error("the push endpoint is not a plain https URL ({0})")]
    Malformed(&'static str),
    #[error("the push endpoint is not on a push service gatehouse web posts to (the browsers' own, or `[web] push_endpoints` in config.toml)")]
    NotAllowed,
}

/// Parses `text` strictly: `http(s)://host[:port]/path`, printable ASCII only.
pub fn parse(text: &str) -> Result<Url, EndpointRefusal> {
    use EndpointRefusal::Malformed;
    if text.len() > MAX_ENDPOINT_CHARS {
        return Err(Malformed("too long"));
    }
    if !text.bytes().all(|byte| (0x21..0x7f).contains(&byte)) {
        return Err(Malformed("spaces, control or non-ASCII characters"));
    }
    if text.contains(['\\', '#', '@', '"', '<', '>', '`', '{', '}', '|', '^']) {
        return Err(Malformed("a character a push endpoint never has"));
    }
    let (scheme, rest) = if let Some(rest) = text.strip_prefix("https://") {
        (Scheme::Https, rest)
    } else if let Some(rest) = text.strip_prefix("http://") {
        (Scheme::Http, rest)
    } else {
        return Err(Malformed("not http or https"));
    };
    let (authority, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => return Err(Malformed("no path")),
    };
    if authority.contains('?') {
        return Err(Malformed("a query before the path"));
    }
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (inside, after) = bracketed
            .split_once(']')
            .ok_or(Malformed("an unclosed IPv6 literal"))?;
        let ip: Ipv6Addr = inside
            .parse()
            .map_err(|_| Malformed("a bad IPv6 literal"))?;
        (ip.to_string(), port_after(after)?)
    } else {
        let (name, after) = match authority.find(':') {
            Some(colon) => authority.split_at(colon),
            None => (authority, ""),
        };
        (host_name(name)?, port_after(after)?)
    };
    let before_query = path.split('?').next().unwrap_or("");
    if before_query.split('/').any(|segment| {
        let segment = segment.to_ascii_lowercase().replace("%2e", ".");
        segment == "." || segment == ".."
    }) {
        return Err(Malformed("a `.` or `..` path segment"));
    }
    let port = port.unwrap_or(match scheme {
        Scheme::Http => 80,
        Scheme::Https => 443,
    });
    Ok(Url {
        scheme,
        host,
        port,
        path: path.to_owned(),
    })
}

fn port_after(after: &str) -> Result<Option<u16>, EndpointRefusal> {
    if after.is_empty() {
        return Ok(None);
    }
    let digits = after
        .strip_prefix(':')
        .ok_or(EndpointRefusal::Malformed("junk after the host"))?;
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(EndpointRefusal::Malformed("a bad port"));
    }
    match digits.parse::<u16>() {
        Ok(0) | Err(_) => Err(EndpointRefusal::Malformed("a bad port")),
        Ok(port) => Ok(Some(port)),
    }
}

/// A DNS name in lowercase letters, digits, dots and hyphens, or an IPv4 literal in its usual
/// dotted form. A name whose last label is numeric (`0x7f.1`, `2130706433`) is an address in
/// a browser's eyes, and refused.
fn host_name(name: &str) -> Result<String, EndpointRefusal> {
    use EndpointRefusal::Malformed;
    if let Ok(ip) = name.parse::<Ipv4Addr>() {
        return Ok(ip.to_string());
    }
    if name.is_empty() || name.len() > 253 {
        return Err(Malformed("a bad host name"));
    }
    let labels: Vec<&str> = name.split('.').collect();
    for label in &labels {
        let good = !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !good {
            return Err(Malformed("a bad host name"));
        }
    }
    let last = labels[labels.len() - 1];
    if last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x") {
        return Err(Malformed("an IP address written as a name"));
    }
    Ok(name.to_owned())
}

/// Why a prefix in `[web] push_endpoints` is refused.
#[derive(Debug, thiserror::Error)]
#[error("`{prefix}` in [web] push_endpoints {why}")]
pub struct PrefixRefusal {
    prefix: String,
    why: String,
}

/// The endpoints `gatehouse web` posts to.
#[derive(Debug, Clone, Default)]
pub struct AllowList {
    prefixes: Vec<Url>,
}

/// Which rule allowed an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowed {
    /// A browser vendor's push service: it must resolve to public addresses only.
    Vendor,
    /// A prefix the owner listed: posted to wherever it resolves.
    Listed,
}

impl AllowList {
    /// The vendors' push services and the owner's `prefixes`.
    pub fn new(prefixes: &[String]) -> Result<AllowList, PrefixRefusal> {
        let mut parsed = Vec::new();
        for prefix in prefixes {
            let refuse = |why: String| PrefixRefusal {
                prefix: prefix.clone(),
                why,
            };
            let mut with_path = prefix.clone();
            if with_path.matches('/').count() == 2 {
                with_path.push('/');
            }
            let url = parse(&with_path)
                .map_err(|error| refuse(format!("is not a URL prefix: {error}")))?;
            if url.scheme == Scheme::Http && !is_loopback_host(&url.host) {
                return Err(refuse(
                    "is plain http off loopback; a push service must be https (plain http is for a test service on 127.0.0.1 only)".into(),
                ));
            }
            parsed.push(url);
        }
        Ok(AllowList { prefixes: parsed })
    }

    /// Parses and checks a subscription's endpoint.
    pub fn check(&self, endpoint: &str) -> Result<(Url, Allowed), EndpointRefusal> {
        let url = parse(endpoint)?;
        if self.prefixes.iter().any(|prefix| {
            prefix.scheme == url.scheme
                && prefix.host == url.host
                && prefix.port == url.port
                && url.path.starts_with(&prefix.path)
        }) {
            return Ok((url, Allowed::Listed));
        }
        let vendor_host = VENDOR_HOSTS.contains(&url.host.as_str())
            || VENDOR_DOMAINS.iter().any(|domain| {
                url.host
                    .strip_suffix(domain)
                    .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.'))
            });
        if url.scheme == Scheme::Https && url.port == 443 && vendor_host && url.ip().is_none() {
            return Ok((url, Allowed::Vendor));
        }
        Err(EndpointRefusal::NotAllowed)
    }
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `ip` is an address on the public internet: not loopback, private, link-local,
/// shared (CGNAT), unique-local, documentation, multicast, unspecified or broadcast.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            let [a, b, ..] = ip.octets();
            !(ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.is_multicast()
                || ip.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 192 && b == 0)
                || (a == 198 && (18..20).contains(&b))
                || a >= 240)
        }
        IpAddr::V6(ip) => {
            if let Some(v4) = ip.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = ip.segments()[0];
            !(ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && ip.segments()[1] == 0x0db8
                || first == 0x64
                || first == 0x0100)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_push_services_are_allowed() {
        let list = AllowList::new(&[]).unwrap();
        for endpoint in [
            "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91bH",
            "https://fcm.googleapis.com/wp/abc",
            "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA",
            "https://web.push.apple.com/QGhUzM3p",
            "https://wns2-by3p.notify.windows.com/w/?token=BQYAAA%2bx%3d",
            "https://fcm.googleapis.com:443/fcm/send/x",
        ] {
            assert_eq!(
                list.check(endpoint).unwrap().1,
                Allowed::Vendor,
                "{endpoint}"
            );
        }
        let (url, _) = list.check("https://fcm.googleapis.com/fcm/send/x").unwrap();
        assert_eq!(url.origin(), "https://fcm.googleapis.com");
    }

    #[test]
    fn a_hostile_device_cannot_name_another_place() {
        let list = AllowList::new(&[]).unwrap();
        for endpoint in [
            "http://fcm.googleapis.com/fcm/send/x",
            "https://fcm.googleapis.com.evil.example/x",
            "https://evil.example/fcm.googleapis.com/",
            "https://fcm.googleapis.com@evil.example/x",
            "https://evil.example#@fcm.googleapis.com/",
            "https://fcm.googleapis.com:8443/x",
            "https://FCM.googleapis.com/x",
            "https://fcm.googleapis.com./x",
            "https://notify.windows.com/x",
            "https://evilnotify.windows.com/x",
            "https://127.0.0.1/x",
            "https://[::1]/x",
            "https://169.254.169.254/latest/meta-data/",
            "https://2130706433/x",
            "https://0x7f.1/x",
            "https://fcm.googleapis.com",
            "https://fcm.googleapis.com/x y",
            "https://fcm.googleapis.com/\u{e9}",
            "https://fcm.googleapis.com\\@evil.example/",
            "file:///etc/passwd",
            "",
        ] {
            assert!(list.check(endpoint).is_err(), "{endpoint}");
        }
        let long = format!(
            "https://fcm.googleapis.com/{}",
            "a".repeat(MAX_ENDPOINT_CHARS)
        );
        assert!(list.check(&long).is_err());
    }

    #[test]
    fn a_listed_prefix_allows_exactly_its_origin_and_path() {
        let list = AllowList::new(&[
            "https://push.example.org/wp/".to_owned(),
            "http://127.0.0.1:4567".to_owned(),
        ])
        .unwrap();
        assert_eq!(
            list.check("https://push.example.org/wp/abc").unwrap().1,
            Allowed::Listed
        );
        assert_eq!(
            list.check("http://127.0.0.1:4567/push/1").unwrap().1,
            Allowed::Listed
        );
        for endpoint in [
            "https://push.example.org/other",
            "https://push.example.org/wp/../admin",
            "https://push.example.org/wp/%2E%2e/admin",
            "https://push.example.org/wp/./x",
            "https://push.example.org.evil.example/wp/abc",
            "https://push.example.org:444/wp/abc",
            "http://push.example.org/wp/abc",
            "http://127.0.0.1:4568/push/1",
            "https://127.0.0.1:4567/push/1",
        ] {
            assert!(list.check(endpoint).is_err(), "{endpoint}");
        }
        let refused = AllowList::new(&["http://push.example.org/".to_owned()]).unwrap_err();
        assert!(refused.to_string().contains("plain http"), "{refused}");
        assert!(AllowList::new(&["ftp://x/".to_owned()]).is_err());
    }

    #[test]
    fn only_public_addresses_count_as_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in ["142.250.1.1", "2a00:1450:4001::200e"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }
}
