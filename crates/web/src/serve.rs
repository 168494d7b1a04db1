//! `gatehouse web` itself: decide the address and TLS, refuse plain HTTP off loopback, open the
//! pairing store, follow the gateway, open the control socket, and serve HTTP(S) until stopped.
//! It prints where it listens and, only to a terminal, a first pairing link (never to the log
//! or a service's journal).
//!
//! Every connection is admitted by [`Connections`] (bounded in total and per client address; a
//! flood pushes out only unproven connections), must finish its TLS handshake within
//! [`TLS_HANDSHAKE_LIMIT`] and each request head within [`HEADER_READ_LIMIT`], and may buffer at
//! most [`MAX_READ_BUFFER`] bytes.

use std::io::IsTerminal;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use super::auth::{loopback_twin_of, Access, LoopbackTwin};
use super::bridge::Bridge;
use super::connections::{ConnectionLimits, Connections};
use super::control::{self, ControlReply, ControlRequest};
use super::devices::{DeviceStore, PAIRING_LIFETIME};
use super::routes::{self, Shared, WebState};
use super::tls;
use crate::settings::WebSettings;

pub const DEFAULT_LISTEN: &str = "127.0.0.1:7780";

/// What `gatehouse web` prints instead of its first pairing link when its output is not a
/// terminal (a service's output, kept in a journal).
pub const NO_LINK_OUTSIDE_A_TERMINAL: &str = "No pairing link printed: this output is not a terminal, and a service's output is kept in a journal that others may read. Run `gatehouse web pair --qr` in your terminal for one.";

/// How long a TLS handshake may take.
pub const TLS_HANDSHAKE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long a connection may take to send a whole request head (and may stay idle between
/// requests).
pub const HEADER_READ_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The most a connection buffers: a request head is far smaller.
pub const MAX_READ_BUFFER: usize = 16 * 1024;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on [default: `[web] listen` in config.toml, else 127.0.0.1:7780].
    /// Any address but loopback needs TLS.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Another name the page is reached by (a tailnet name, a reverse proxy's); repeatable.
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
    /// The TLS certificate chain (PEM), with --tls-key.
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_key",
        conflicts_with = "tls_self_signed"
    )]
    tls_cert: Option<PathBuf>,
    /// The TLS private key (PEM), with --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Make (once) and use a self-signed certificate kept in the state folder (web-tls/; delete
    /// that folder to make a new one, for new names).
    #[arg(long)]
    tls_self_signed: bool,
}

pub fn run(
    socket: PathBuf,
    arguments: ServeArgs,
    settings: WebSettings,
) -> anyhow::Result<ExitCode> {
    let config = settings.web;
    let client_error_words = settings.client_error_words;
    let agents_js = super::assets::agents_js(&settings.agent_names);
    let allow_list = super::push::endpoints::AllowList::new(&config.push_endpoints)?;
    let ntfy = settings
        .notify
        .ntfy_url
        .as_deref()
        .map(|url| super::ntfy::Ntfy::new(url, settings.notify.ntfy_token.clone()))
        .transpose()?;
    let push_contact = config
        .push_contact
        .clone()
        .unwrap_or_else(|| super::push::vapid::DEFAULT_CONTACT.to_owned());
    let listen_text = arguments
        .listen
        .or(config.listen)
        .unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
    let listen: SocketAddr = listen_text.parse().with_context(|| {
        format!("`{listen_text}` is not an address to listen on; give an IP and a port, such as 127.0.0.1:7780 or 0.0.0.0:7780")
    })?;
    let tls_wanted = arguments.tls_self_signed || arguments.tls_cert.is_some();
    if !listen.ip().is_loopback() && !tls_wanted {
        bail!(
            "{listen} is reachable from other machines, and gatehouse serves plain HTTP only on loopback; add --tls-self-signed (or --tls-cert FILE --tls-key FILE), or keep the default 127.0.0.1:7780 and use an SSH tunnel (`ssh -L 7780:127.0.0.1:7780 HOST`)"
        );
    }
    let mut hosts = config.hosts;
    hosts.extend(arguments.hosts);
    let limits = ConnectionLimits::for_open_file_limit(settings.open_file_limit);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let tls = if let (Some(cert), Some(key)) = (&arguments.tls_cert, &arguments.tls_key) {
            Some(tls::from_files(cert, key)?)
        } else if arguments.tls_self_signed {
            let folder = DeviceStore::default_path()?.with_file_name("web-tls");
            let mut names = hosts.clone();
            names.extend(["localhost".to_owned(), link_ip(listen.ip()).to_string()]);
            Some(tls::self_signed(&folder, &names)?)
        } else {
            None
        };
        let listener = TcpListener::bind(listen).await.with_context(|| {
            format!("cannot listen on {listen}; is another `gatehouse web` (or another server) using it? choose another with --listen")
        })?;
        let bound = listener.local_addr()?;
        let (twin, twin_listener) = hold_loopback_twin(bound).await;
        if let LoopbackTwin::TakenByAnother(ip) = twin {
            eprintln!(
                "warning: another program listens on {}, where a browser sends http://localhost:{}; gatehouse web refuses the name localhost: open the link it prints (with {})",
                SocketAddr::new(ip, bound.port()),
                bound.port(),
                bound.ip()
            );
        }
        let access = Access::new(bound, hosts.clone(), tls.is_some()).with_loopback_twin(twin);
        let link_host = hosts
            .first()
            .cloned()
            .unwrap_or_else(|| match link_ip(bound.ip()) {
                IpAddr::V6(ip) => format!("[{ip}]"),
                ip => ip.to_string(),
            });
        let link_base = format!("{}://{link_host}:{}", access.scheme(), bound.port());
        let control_socket = control::bind(&control::control_path(&socket)).await?;
        let store = DeviceStore::open(Some(DeviceStore::default_path()?))?;
        let bridge = Bridge::new(socket.clone(), client_error_words);
        let push = start_push(allow_list, push_contact, ntfy);
        if let Some(push) = &push {
            bridge.send_alerts_to(push.alerts());
        }
        let connections = Connections::new(limits);
        let state: Shared = Arc::new(WebState {
            access,
            devices: Mutex::new(store),
            bridge: bridge.clone(),
            connections: connections.clone(),
            link_base: link_base.clone(),
            push: push.clone(),
            agents_js,
        });
        if let Some(push) = &push {
            push.start(state.clone());
        }
        tokio::spawn(bridge.follow());
        tokio::spawn(control::serve(control_socket, state.clone(), answer_control));
        println!("gatehouse web: listening on {link_base} (answers go to the gateway on {})", socket.display());
        if let Some(tls) = &tls {
            println!("TLS certificate SHA-256 fingerprint: {}", tls.fingerprint);
        }
        // A pairing link is a password for one browser: a service's output lands in a journal
        // that other users may read, so the first link is printed only to a terminal.
        if std::io::stdout().is_terminal() {
            let ControlReply::Pairing { url, expires_at } = answer_control(&state, ControlRequest::Pair) else {
                bail!("cannot open a pairing link");
            };
            println!("Pair a browser (once, until {expires_at}): {url}");
        } else {
            println!("{NO_LINK_OUTSIDE_A_TERMINAL}");
        }
        println!("More links: `gatehouse web pair --qr`; paired browsers: `gatehouse web devices`.");
        let router = routes::router(state);
        let tls = tls.map(|tls| tls.config);
        if let Some(twin_listener) = twin_listener {
            tokio::spawn(serve_http(
                twin_listener,
                router.clone(),
                tls.clone(),
                connections.clone(),
            ));
        }
        serve_http(listener, router, tls, connections).await
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The push sender, with the VAPID key made once in the state folder; `None` (push off, said
/// once on stderr) when the key cannot be kept.
fn start_push(
    allow_list: super::push::endpoints::AllowList,
    contact: String,
    ntfy: Option<super::ntfy::Ntfy>,
) -> Option<Arc<super::push::notifier::Notifier>> {
    let made = super::push::vapid::VapidKey::default_path()
        .and_then(|path| super::push::vapid::VapidKey::load_or_create(&path))
        .and_then(|key| super::push::notifier::Notifier::new(key, allow_list, contact, ntfy));
    match made {
        Ok(notifier) => Some(notifier),
        Err(error) => {
            eprintln!("warning: push notifications are off: {error:#}");
            None
        }
    }
}

/// Listens on the other loopback address at the same port too (`[::1]` beside `127.0.0.1`), so
/// that no other user can answer there for `localhost`; says so when another program already
/// does.
async fn hold_loopback_twin(bound: SocketAddr) -> (LoopbackTwin, Option<TcpListener>) {
    let Some(twin) = loopback_twin_of(bound.ip()) else {
        return (LoopbackTwin::Absent, None);
    };
    match TcpListener::bind(SocketAddr::new(twin, bound.port())).await {
        Ok(listener) => (LoopbackTwin::Held(twin), Some(listener)),
        Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => {
            (LoopbackTwin::TakenByAnother(twin), None)
        }
        // No such address here (IPv6 off): nothing can answer there for `localhost`.
        Err(_) => (LoopbackTwin::Absent, None),
    }
}

/// The address a link names for a server listening on `ip`: a guess at this machine's address
/// on the network for an unspecified one (no packet is sent), else `ip`.
fn link_ip(ip: IpAddr) -> IpAddr {
    if !ip.is_unspecified() {
        return ip;
    }
    std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|probe| {
            probe.connect("192.0.2.1:9")?;
            probe.local_addr()
        })
        .map(|local| local.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

/// Runs one control request against the live state.
pub fn answer_control(state: &Shared, request: ControlRequest) -> ControlReply {
    let mut store = state.devices.lock().unwrap();
    match request {
        ControlRequest::Pair => match store.open_pairing(Instant::now()) {
            Ok(token) => {
                let expires =
                    gatehouse_host_ipc::now().unix_millis() + PAIRING_LIFETIME.as_millis() as u64;
                ControlReply::Pairing {
                    url: format!("{}/#pair={}", state.link_base, token.expose()),
                    expires_at: gatehouse_core::Timestamp::from_unix_millis(expires).to_string(),
                }
            }
            Err(error) => ControlReply::Error {
                message: format!("{error:#}"),
            },
        },
        ControlRequest::PushTest => ControlReply::Error {
            message: "push-test is answered by the control socket itself".into(),
        },
        ControlRequest::Devices => ControlReply::Devices {
            devices: store.devices(),
        },
        ControlRequest::Revoke { id } => {
            let ids = store.revoke(id.as_deref());
            if let Err(error) = store.save() {
                return ControlReply::Error {
                    message: format!(
                        "the devices were logged out but the file was not written: {error:#}"
                    ),
                };
            }
            drop(store);
            state.bridge.revoked();
            state.connections.close_devices(&ids);
            ControlReply::Revoked { ids }
        }
    }
}

/// Accepts connections for as long as the process runs, and serves each with hyper, through
/// TLS when it is on. Each request carries its connection's [`ConnectionTicket`] (an
/// extension), which a paired device's request marks.
///
/// [`ConnectionTicket`]: super::connections::ConnectionTicket
async fn serve_http(
    listener: TcpListener,
    router: axum::Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    connections: Arc<Connections>,
) -> anyhow::Result<()> {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!("accepting a connection failed: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let Some((ticket, pushed_out)) = connections.admit(peer.ip()) else {
            let counts = connections.counts();
            tracing::debug!(
                "refused a connection from {peer}: every slot it could take serves a paired device ({} of {} open)",
                counts.paired,
                counts.open
            );
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            router.clone(),
            move |mut request: axum::http::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ticket.clone());
                request
            },
        ));
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_LIMIT)
                .max_buf_size(MAX_READ_BUFFER);
            let serve = async {
                match acceptor {
                    // A peer that never finishes its handshake is let go.
                    Some(acceptor) => {
                        let Ok(Ok(stream)) =
                            tokio::time::timeout(TLS_HANDSHAKE_LIMIT, acceptor.accept(stream))
                                .await
                        else {
                            return Ok(());
                        };
                        builder
                            .serve_connection(TokioIo::new(stream), service)
                            .await
                    }
                    None => {
                        builder
                            .serve_connection(TokioIo::new(stream), service)
                            .await
                    }
                }
            };
            tokio::select! {
                served = serve => {
                    if let Err(error) = served {
                        tracing::debug!("a connection ended: {error}");
                    }
                }
                _ = pushed_out => tracing::debug!(
                    "closed a connection from {peer}: pushed out by newer ones, or its device was revoked"
                ),
            }
        });
    }
}
