//! One HTTP POST to a push service (or an ntfy server), bounded in every way a hostile or broken
//! server could use: the whole exchange within [`REQUEST_LIMIT`], a response head of at most
//! [`MAX_RESPONSE_HEAD`] bytes, at most [`MAX_RESPONSE_BODY`] bytes of its body read, no
//! redirect followed (a 3xx is a failure), one fresh connection per post (HTTP/1.1, TLS with the
//! Mozilla root certificates of `webpki-roots`, so the system's trust store plays no part).
//!
//! A vendor's host must resolve to public addresses only ([`is_public`]); the addresses of a
//! prefix the owner listed are used as they are.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::endpoints::{is_public, Allowed, Scheme, Url};

/// The longest one post may take, connection and TLS included.
pub const REQUEST_LIMIT: Duration = Duration::from_secs(10);

/// The largest response head read (hyper's smallest buffer).
pub const MAX_RESPONSE_HEAD: usize = 8 * 1024;

/// The most of a response body read (for the log); the rest is never read.
pub const MAX_RESPONSE_BODY: usize = 2 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("cannot resolve {host}: {error}")]
    Resolve { host: String, error: std::io::Error },
    #[error("{0} resolves to no public address; not posted")]
    NoPublicAddress(String),
    #[error("cannot connect: {0}")]
    Connect(std::io::Error),
    #[error("TLS failed: {0}")]
    Tls(std::io::Error),
    #[error("HTTP failed: {0}")]
    Http(String),
    #[error("no answer within {REQUEST_LIMIT:?}")]
    Timeout,
}

/// What the server answered.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// The start of the body, at most [`MAX_RESPONSE_BODY`] bytes.
    pub body: Vec<u8>,
}

/// Posts with one TLS configuration, made once.
#[derive(Clone)]
pub struct Client {
    tls: Arc<rustls::ClientConfig>,
}

impl Client {
    pub fn new() -> anyhow::Result<Client> {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Client {
            tls: Arc::new(config),
        })
    }

    /// POSTs `body` with `headers` to `url`, within [`REQUEST_LIMIT`].
    pub async fn post(
        &self,
        url: &Url,
        allowed: Allowed,
        headers: &[(&str, String)],
        body: Vec<u8>,
    ) -> Result<Reply, SendError> {
        let post = async {
            let stream = connect(url, allowed).await?;
            let request = request(url, headers, body)?;
            match url.scheme {
                Scheme::Http => exchange(TokioIo::new(stream), request).await,
                Scheme::Https => {
                    let name = rustls::pki_types::ServerName::try_from(url.host.clone())
                        .map_err(|error| SendError::Http(error.to_string()))?;
                    let tls = tokio_rustls::TlsConnector::from(self.tls.clone())
                        .connect(name, stream)
                        .await
                        .map_err(SendError::Tls)?;
                    exchange(TokioIo::new(tls), request).await
                }
            }
        };
        tokio::time::timeout(REQUEST_LIMIT, post)
            .await
            .map_err(|_| SendError::Timeout)?
    }
}

/// A fresh connection to `url`'s host, at one of its addresses that `allowed` permits.
async fn connect(url: &Url, allowed: Allowed) -> Result<TcpStream, SendError> {
    let addresses: Vec<SocketAddr> = match url.ip() {
        Some(ip) => vec![SocketAddr::new(ip, url.port)],
        None => tokio::net::lookup_host((url.host.as_str(), url.port))
            .await
            .map_err(|error| SendError::Resolve {
                host: url.host.clone(),
                error,
            })?
            .collect(),
    };
    let addresses: Vec<SocketAddr> = addresses
        .into_iter()
        .filter(|address| allowed == Allowed::Listed || is_public(address.ip()))
        .collect();
    if addresses.is_empty() {
        return Err(SendError::NoPublicAddress(url.host.clone()));
    }
    let mut last_error = None;
    for address in addresses {
        match TcpStream::connect(address).await {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(error) => last_error = Some(error),
        }
    }
    Err(SendError::Connect(
        last_error.unwrap_or_else(|| std::io::ErrorKind::NotFound.into()),
    ))
}

/// The POST of `body` with `headers` to `url`'s path.
fn request(
    url: &Url,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> Result<hyper::Request<Full<Bytes>>, SendError> {
    let mut request = hyper::Request::post(url.path.as_str())
        .header(hyper::header::HOST, url.authority())
        .header(hyper::header::CONTENT_LENGTH, body.len());
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    request
        .body(Full::new(Bytes::from(body)))
        .map_err(|error| SendError::Http(error.to_string()))
}

async fn exchange<I>(io: I, request: hyper::Request<Full<Bytes>>) -> Result<Reply, SendError>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let http = |error: hyper::Error| SendError::Http(error.to_string());
    let (mut sender, connection) = hyper::client::conn::http1::Builder::new()
        .max_buf_size(MAX_RESPONSE_HEAD)
        .handshake(io)
        .await
        .map_err(http)?;
    let driver = tokio::spawn(connection);
    let _stop = AbortOnDrop(driver);
    let response = sender.send_request(request).await.map_err(http)?;
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut start = Vec::new();
    while start.len() < MAX_RESPONSE_BODY {
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    let room = MAX_RESPONSE_BODY - start.len();
                    start.extend_from_slice(&data[..data.len().min(room)]);
                }
            }
            _ => break,
        }
    }
    Ok(Reply {
        status,
        body: start,
    })
}

/// Ends the connection's task when the exchange is over (or dropped at its deadline).
struct AbortOnDrop(tokio::task::JoinHandle<Result<(), hyper::Error>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::push::endpoints::parse;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// Posts one byte, as to a listed push service, to a server on loopback that replies `reply`.
    async fn post_to_listed(client: &Client, reply: Vec<u8>) -> Result<Reply, SendError> {
        let url = parse(&server(reply).await).unwrap();
        client.post(&url, Allowed::Listed, &[], vec![1]).await
    }

    /// A server on loopback that reads a request and writes `reply`; its URL.
    async fn server(reply: Vec<u8>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let reply = reply.clone();
                tokio::spawn(async move {
                    let mut buffer = [0u8; 4096];
                    let _ = stream.read(&mut buffer).await;
                    let _ = stream.write_all(&reply).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        format!("http://127.0.0.1:{port}/push/x")
    }

    #[tokio::test]
    async fn a_long_body_is_read_only_in_part_and_a_huge_head_is_refused() {
        let client = Client::new().unwrap();
        let mut long = b"HTTP/1.1 201 Created\r\nContent-Length: 1000000\r\n\r\n".to_vec();
        long.extend(std::iter::repeat_n(b'a', 1_000_000));
        let reply = post_to_listed(&client, long).await.unwrap();
        assert_eq!((reply.status, reply.body.len()), (201, MAX_RESPONSE_BODY));

        let mut huge = b"HTTP/1.1 201 Created\r\n".to_vec();
        for index in 0..2_000 {
            huge.extend(format!("X-Filler-{index}: {}\r\n", "b".repeat(40)).bytes());
        }
        huge.extend(b"Content-Length: 0\r\n\r\n");
        let error = post_to_listed(&client, huge).await.unwrap_err();
        assert!(matches!(error, SendError::Http(_)), "{error}");
    }

    #[tokio::test]
    async fn a_redirect_is_reported_not_followed() {
        let client = Client::new().unwrap();
        let moved =
            b"HTTP/1.1 307 Moved\r\nLocation: http://169.254.169.254/\r\nContent-Length: 0\r\n\r\n"
                .to_vec();
        let reply = post_to_listed(&client, moved).await.unwrap();
        assert_eq!(reply.status, 307);
    }

    #[tokio::test]
    async fn a_vendor_name_is_never_posted_to_a_private_address() {
        let client = Client::new().unwrap();
        // `localhost` stands for a vendor's name that resolves to loopback (a poisoned DNS).
        let url = parse(&server(b"HTTP/1.1 201 Created\r\n\r\n".to_vec()).await).unwrap();
        let url = Url {
            host: "localhost".into(),
            ..url
        };
        let error = client
            .post(&url, Allowed::Vendor, &[], vec![1])
            .await
            .unwrap_err();
        assert!(matches!(error, SendError::NoPublicAddress(_)), "{error}");
    }

    #[tokio::test]
    async fn https_needs_a_certificate_from_the_web_roots() {
        let folder = tempfile::tempdir().unwrap();
        let tls = crate::tls::self_signed(folder.path(), &["localhost".to_owned()]).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let acceptor = tokio_rustls::TlsAcceptor::from(tls.config);
        let (told, heard) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let _ = told.send(acceptor.accept(stream).await.is_ok());
        });
        let client = Client::new().unwrap();
        let url = parse(&format!("https://localhost:{port}/push/x")).unwrap();
        let error = client
            .post(&url, Allowed::Listed, &[], vec![1])
            .await
            .unwrap_err();
        assert!(matches!(error, SendError::Tls(_)), "{error}");
        assert!(!heard.await.unwrap(), "the handshake did not complete");
    }
}
