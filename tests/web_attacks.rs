//! `gatehouse web` under attack by someone who can reach its port:
//!
//! - another local user's server on another loopback port, visited by the person's paired
//!   browser (the real Chromium), replays everything it received: it gets no prompt and answers
//!   nothing (runs as root, with the server run by `nobody`; elsewhere it says it is skipped);
//! - a flood of idle connections that never finish a request: a paired device is still served
//!   within seconds, the open connections stay bounded, and a request head that never ends is
//!   cut off;
//! - a revoked device's open feed is closed at once and carries no later prompt.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::web_front::{
    http, pair_over_http, stored_token, with_paired_browser, Front, Web,
};
use crate::common::{
    claude_fixture, id_of, python_as_nobody, running_as_root, wait_for, Gateway, Reaped, NOBODY,
};
use crate::support::browser::{Browser, PHONE};

/// An HTTP server run by `nobody` on a free loopback port: it records the head of every request
/// it receives (one JSON line each) and serves a page that makes the browser come back for a
/// favicon, an image and a script's fetch, as a page of another site would.
struct OtherUsersServer {
    _process: Reaped,
    port: u16,
    record: PathBuf,
    _folder: tempfile::TempDir,
}

const OTHER_USERS_SERVER: &str = r#"
import http.server, json, os, sys
record, ready = sys.argv[1], sys.argv[2]
PAGE = b"""<!doctype html><html><head><link rel="icon" href="/favicon.ico"></head>
<body><img src="/pixel.png"><p>another user's page</p>
<script>fetch('/script-fetch', {credentials: 'include'});</script></body></html>"""
class Handler(http.server.BaseHTTPRequestHandler):
    def record(self):
        with open(record, "a") as out:
            out.write(json.dumps({"method": self.command, "path": self.path,
                                  "headers": list(self.headers.items())}) + "\n")
    def do_GET(self):
        self.record()
        body = PAGE if self.path == "/" else b""
        self.send_response(200 if self.path == "/" else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_POST = do_GET
    def log_message(self, *arguments):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(ready + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))
os.rename(ready + ".tmp", ready)
server.serve_forever()
"#;

impl OtherUsersServer {
    fn start() -> OtherUsersServer {
        let folder = tempfile::Builder::new()
            .prefix("gh-other-user")
            .tempdir()
            .unwrap();
        std::os::unix::fs::chown(folder.path(), Some(NOBODY), Some(NOBODY))
            .expect("nobody owns the server's folder");
        std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let record = folder.path().join("received.jsonl");
        let ready = folder.path().join("port");
        let process = python_as_nobody(OTHER_USERS_SERVER, &[&record, &ready]);
        wait_for(Duration::from_secs(10), "the other user's server", || {
            ready.exists()
        });
        let port = std::fs::read_to_string(&ready)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        OtherUsersServer {
            _process: process,
            port,
            record,
            _folder: folder,
        }
    }

    /// Every request head received so far: method, path and headers.
    fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }
}

/// Sends `method path` to `gatehouse web` with every header of `received` but its Host (the
/// attacker names gatehouse web's own address, and its own Origin on a POST: a program is no
/// browser and may send any header it likes).
fn replay(port: u16, received: &Value, method: &str, path: &str, body: &str) -> (u16, String) {
    let host = format!("127.0.0.1:{port}");
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n");
    for header in received["headers"].as_array().unwrap() {
        let (name, value) = (header[0].as_str().unwrap(), header[1].as_str().unwrap());
        let lower = name.to_ascii_lowercase();
        if [
            "host",
            "origin",
            "content-length",
            "content-type",
            "connection",
        ]
        .contains(&lower.as_str())
        {
            continue;
        }
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if method == "POST" {
        request.push_str(&format!(
            "Origin: http://{host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("Connection: close\r\n\r\n");
    request.push_str(body);
    http(port, &request)
}

#[test]
fn another_local_users_server_visited_by_the_paired_browser_gets_no_prompt_and_answers_nothing() {
    if !running_as_root("run the other user's server as nobody") {
        return;
    }
    let Some(Front { web, gateway }) = Front::start() else {
        return;
    };
    let port = web.port();
    let (_hook, prompt) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let id = id_of(&prompt);
    let other = OtherUsersServer::start();
    let device_token = std::cell::RefCell::new(String::new());
    with_paired_browser(
        Browser::start(PHONE),
        &web.first_link,
        "visited phone",
        async |phone| {
            phone
                .wait_for(&format!("[data-prompt-id='{id}'] [data-action='once']"))
                .await;
            *device_token.borrow_mut() = stored_token(phone).await.unwrap();
            // The person follows a link to the other user's page, as from any site.
            phone
                .open(&format!("http://127.0.0.1:{}/", other.port))
                .await;
            phone
                .wait_until(
                    Duration::from_secs(15),
                    "the page, its favicon, image and fetch to reach the other server",
                    async |_| {
                        let paths: Vec<String> = other
                            .received()
                            .iter()
                            .filter_map(|request| request["path"].as_str().map(str::to_owned))
                            .collect();
                        ["/", "/pixel.png", "/script-fetch"]
                            .iter()
                            .all(|path| paths.iter().any(|seen| seen == path))
                    },
                )
                .await;
            // Back on gatehouse web's own page, the device is still paired.
            phone.open(&web.base).await;
            phone.wait_for("[data-connection][data-up='true']").await;
        },
    );
    let device_token = device_token.into_inner();
    let received = other.received();
    assert!(received.len() >= 3, "{received:?}");
    let everything = serde_json::to_string(&received).unwrap();
    assert!(
        !everything.contains(&device_token),
        "the device token reached another origin: {everything}"
    );
    let answer = format!(r#"{{"id":"{id}","answer":{{"action":"once"}}}}"#);
    let release = format!(r#"{{"id":"{id}"}}"#);
    for request in &received {
        for (method, path, body) in [
            ("GET", "/api/session", ""),
            ("GET", "/api/prompts", ""),
            ("GET", "/api/events", ""),
            ("POST", "/api/answer", answer.as_str()),
            ("POST", "/api/release", release.as_str()),
        ] {
            let (status, reply) = replay(port, request, method, path, body);
            assert_eq!(status, 401, "{method} {path} with {request}: {reply}");
            assert!(
                !reply.contains(&id) && !reply.contains("printf hi"),
                "{reply}"
            );
        }
    }
    let pending = gateway.list();
    assert_eq!(pending.len(), 1, "nothing was answered: {pending:?}");
    assert_eq!(pending[0]["id"], Value::from(id.as_str()));
}

/// Raises this test process's soft limit on open files to `wanted`; false when the hard limit
/// is lower.
fn allow_open_files(wanted: u64) -> bool {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: both calls only read or write the struct passed to them.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 || limit.rlim_max < wanted {
            return false;
        }
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted;
            return libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0;
        }
    }
    true
}

fn open_descriptors(process: &Child) -> usize {
    std::fs::read_dir(Path::new("/proc").join(process.id().to_string()).join("fd"))
        .map(|entries| entries.count())
        .unwrap_or(0)
}

/// The most connections one client address keeps open in `gatehouse web` (crates/web/src/connections.rs).
const MAX_CONNECTIONS_PER_ADDRESS: usize = 256;

const FLOOD: usize = 1_100;

#[test]
fn a_flood_of_idle_connections_leaves_a_paired_device_served_within_seconds() {
    if !allow_open_files(FLOOD as u64 + 512) {
        crate::common::cannot_run(&format!("this test needs {} open files", FLOOD + 512));
        return;
    }
    let gateway = Gateway::start();
    // Started with the common default soft limit of 1,024 open files, as from a login shell.
    let web = Web::start_with(&gateway, "127.0.0.1:0", |command| {
        // SAFETY: setrlimit is async-signal-safe and changes only the child being made.
        unsafe {
            command.pre_exec(|| {
                let mut limit = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
                limit.rlim_cur = limit.rlim_max.min(1_024);
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                Ok(())
            });
        }
    });
    let port = web.port();
    let device_token = pair_over_http(port, &web.first_link);
    let _hook = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let idle: Vec<TcpStream> = (0..FLOOD)
        .filter_map(|_| TcpStream::connect_timeout(&address, Duration::from_secs(2)).ok())
        .collect();
    // A few of them send half a request head, and stop.
    for mut stream in idle.iter().take(50) {
        let _ = stream.write_all(b"GET /api/prompts HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    }
    let started = Instant::now();
    let mut served = TcpStream::connect_timeout(&address, Duration::from_secs(20))
        .expect("gatehouse web takes a new connection during the flood");
    served
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    served
        .write_all(
            format!(
                "GET /api/prompts HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {device_token}\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
    let mut reply = Vec::new();
    let _ = served.read_to_end(&mut reply);
    let took = started.elapsed();
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.starts_with("HTTP/1.1 200") && reply.contains("printf hi > hi.txt"),
        "the paired device is served during the flood (after {took:?}): {reply}"
    );
    eprintln!("a paired request during a flood of {FLOOD} idle connections took {took:?}");
    assert!(
        took < Duration::from_secs(5),
        "served within seconds, not {took:?}"
    );
    // Pushed-out connections are closed as their tasks run: wait for it, on a busy machine.
    wait_for(
        Duration::from_secs(20),
        "gatehouse web to hold a bounded number of descriptors during the flood",
        || open_descriptors(&web.process) <= MAX_CONNECTIONS_PER_ADDRESS + 64,
    );
    // The flood's oldest connections were closed.
    let closed = idle
        .iter()
        .take(100)
        .filter(|stream| {
            let mut byte = [0u8; 1];
            stream
                .set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            let mut reader: &TcpStream = stream;
            match reader.read(&mut byte) {
                Ok(0) => true,
                Ok(_) => false,
                Err(error) => error.kind() == std::io::ErrorKind::ConnectionReset,
            }
        })
        .count();
    assert!(closed > 0, "the oldest idle connections were let go");
    drop(idle);
}

#[test]
fn revoking_a_device_closes_its_open_feed_and_sends_it_no_later_prompt() {
    let Front { web, gateway } = Front::start_without_browser();
    let port = web.port();
    let device_token = pair_over_http(port, &web.first_link);
    let mut feed = TcpStream::connect(("127.0.0.1", port)).unwrap();
    feed.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    feed.write_all(
        format!(
            "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {device_token}\r\n\r\n"
        )
        .as_bytes(),
    )
    .unwrap();
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&received).contains(r#""type":"snapshot""#) {
        let read = feed.read(&mut chunk).expect("the snapshot arrives");
        assert!(read > 0, "the feed closed before its snapshot");
        received.extend_from_slice(&chunk[..read]);
    }
    let revoked = gateway.run(&["web", "revoke", "--all"]);
    assert!(
        revoked.status.success(),
        "{}",
        String::from_utf8_lossy(&revoked.stderr)
    );
    let started = Instant::now();
    let _hook = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    // The connection ends; whatever came before the end holds no prompt.
    let mut after = Vec::new();
    loop {
        match feed.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => after.extend_from_slice(&chunk[..read]),
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(error) => panic!(
                "the feed of a revoked device stays open ({error}) after {:?}: {}",
                started.elapsed(),
                String::from_utf8_lossy(&after)
            ),
        }
    }
    let after = String::from_utf8_lossy(&after);
    assert!(!after.contains("printf hi"), "{after}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "closed at once, not after {:?}",
        started.elapsed()
    );
}

#[test]
fn a_connection_that_never_finishes_its_request_head_is_closed() {
    let gateway = Gateway::start();
    let web = Web::start(&gateway, "127.0.0.1:0");
    let mut idle = TcpStream::connect(("127.0.0.1", web.port())).unwrap();
    idle.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    // The limit is 10 s (HEADER_READ_LIMIT in crates/web/src/serve.rs); allow as much again.
    idle.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let ended = idle.read_to_end(&mut rest);
    assert!(
        ended.is_ok()
            || ended.is_err_and(|error| error.kind() == std::io::ErrorKind::ConnectionReset),
        "still open after {:?}",
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// Whether this machine has an IPv6 loopback address; says the test is skipped when not.
fn ipv6_loopback_available(test: &str) -> bool {
    let available = std::net::TcpListener::bind("[::1]:0").is_ok();
    if !available {
        crate::common::cannot_run(&format!("{test} needs the IPv6 loopback address ::1"));
    }
    available
}

#[test]
fn gatehouse_web_holds_both_loopback_addresses_of_its_port() {
    if !ipv6_loopback_available("holding [::1]") {
        return;
    }
    let gateway = Gateway::start();
    let web = Web::start(&gateway, "127.0.0.1:0");
    let port = web.port();
    // A browser sends http://localhost:PORT to [::1]:PORT first: nobody else may listen there.
    let squatter = std::net::TcpListener::bind(("::1", port));
    assert!(
        squatter.is_err(),
        "another program could listen on [::1]:{port} and own http://localhost:{port}"
    );
    let mut stream = TcpStream::connect(("::1", port)).expect("gatehouse web answers on [::1]");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(
            format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("data-unpaired"), "{reply}");
}

#[test]
fn localhost_is_refused_while_another_program_holds_the_ipv6_loopback_of_the_port() {
    if !ipv6_loopback_available("squatting [::1]") {
        return;
    }
    // Another program listens on [::1]:PORT first; 127.0.0.1:PORT is free.
    let (squatter, port) = (0..20)
        .find_map(|_| {
            let squatter = std::net::TcpListener::bind("[::1]:0").ok()?;
            let port = squatter.local_addr().ok()?.port();
            std::net::TcpListener::bind(("127.0.0.1", port)).ok()?;
            Some((squatter, port))
        })
        .expect("a port free on both loopback addresses");
    let gateway = Gateway::start();
    let web = Web::start(&gateway, &format!("127.0.0.1:{port}"));
    let get = |host: &str| {
        http(
            web.port(),
            &format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
    };
    let (status, reply) = get(&format!("localhost:{port}"));
    assert_eq!(
        status, 403,
        "the origin http://localhost:{port} may be the squatter's: {reply}"
    );
    let (status, reply) = get(&format!("127.0.0.1:{port}"));
    assert_eq!(status, 200, "{reply}");
    drop(squatter);
}
