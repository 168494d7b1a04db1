//! A scripted model API on loopback: an HTTP/1.1 server on `127.0.0.1:0` that answers every
//! request with what a caller-supplied handler returns, one thread a connection, and
//! `Connection: close`. The agent's request and response formats (Anthropic messages, OpenAI
//! responses or chat completions, Gemini's generateContent) belong to the handler; this module
//! reads requests (with `Content-Length` or chunked bodies), writes responses, and stops when
//! dropped.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The largest request body read; agents' requests are far smaller.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// A request as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The path with its query, such as `/v1beta/models/x:streamGenerateContent?alt=sse`.
    pub path: String,
    /// Header names in lower case, with their values.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The path without its query.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(header, _)| *header == name)
            .map(|(_, value)| value.as_str())
    }
}

/// A response to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Such as `200 OK`.
    pub status: String,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Response {
    pub fn json(status: &str, body: impl Into<String>) -> Response {
        Response {
            status: status.into(),
            content_type: "application/json".into(),
            body: body.into().into_bytes(),
        }
    }

    /// Server-sent events, written at once: `events` as (event name or `None`, data) pairs.
    pub fn events<'a>(events: impl IntoIterator<Item = (Option<&'a str>, String)>) -> Response {
        let mut body = String::new();
        for (name, data) in events {
            if let Some(name) = name {
                body.push_str(&format!("event: {name}\n"));
            }
            body.push_str(&format!("data: {data}\n\n"));
        }
        Response {
            status: "200 OK".into(),
            content_type: "text/event-stream".into(),
            body: body.into_bytes(),
        }
    }

    pub fn not_found(request: &Request) -> Response {
        Response::json(
            "404 Not Found",
            format!(
                "{{\"error\":{{\"message\":\"the scripted model has no {} {}\"}}}}",
                request.method,
                request.route()
            ),
        )
    }
}

/// A running server; it stops when dropped.
pub struct ScriptedServer {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    /// Starts the server on a free loopback port; `handler` answers each request.
    pub fn start(
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> io::Result<ScriptedServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let address = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handler = Arc::new(handler);
        let stopping = Arc::clone(&stop);
        let acceptor = std::thread::Builder::new()
            .name("scripted-model".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    let handler = Arc::clone(&handler);
                    // A connection that fails is the agent's to retry; the caller's deadlines catch
                    // the rest.
                    let _ = std::thread::Builder::new()
                        .name("scripted-model-connection".into())
                        .spawn(move || {
                            let _ = serve(stream, handler.as_ref());
                        });
                }
            })?;
        Ok(ScriptedServer {
            address,
            stop,
            acceptor: Some(acceptor),
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the acceptor so that it sees the flag.
        let _ = TcpStream::connect(self.address);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn serve(
    mut stream: TcpStream,
    handler: &(impl Fn(&Request) -> Response + ?Sized),
) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let request = read_request(&stream)?;
    let response = handler(&request);
    let head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(&response.body)?;
    stream.flush()
}

/// Reads one request: its line, its headers, and its body.
pub fn read_request(stream: &TcpStream) -> io::Result<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((header.as_str(), ""));
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let find = |wanted: &str| {
        headers
            .iter()
            .find(|(name, _)| name == wanted)
            .map(|(_, value)| value.as_str())
    };
    let chunked = find("transfer-encoding")
        .is_some_and(|value| value.to_ascii_lowercase().contains("chunked"));
    let length: usize = find("content-length")
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 || body.len() + size > MAX_BODY_BYTES {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            let mut end_of_chunk = String::new();
            reader.read_line(&mut end_of_chunk)?;
        }
    } else {
        body.resize(length.min(MAX_BODY_BYTES), 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Request {
        method,
        path,
        headers,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts a server with `handler`, sends it `request` and returns the whole reply.
    fn exchange(
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
        request: &str,
    ) -> String {
        let server = ScriptedServer::start(handler).unwrap();
        let mut stream = TcpStream::connect(server.address()).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply
    }

    #[test]
    fn the_handler_sees_the_request_and_its_answer_is_written() {
        let reply = exchange(
            |request| {
                assert_eq!(request.header("X-Test"), Some("yes"));
                Response::json(
                    "200 OK",
                    format!(
                        "{{\"route\":\"{}\",\"body\":\"{}\"}}",
                        request.route(),
                        String::from_utf8_lossy(&request.body)
                    ),
                )
            },
            "POST /v1/x?alt=sse HTTP/1.1\r\nX-Test: yes\r\nContent-Length: 2\r\n\r\nhi",
        );
        assert!(reply.starts_with("HTTP/1.1 200 OK\r\n"), "{reply}");
        assert!(
            reply.ends_with("{\"route\":\"/v1/x\",\"body\":\"hi\"}"),
            "{reply}"
        );
    }

    #[test]
    fn a_chunked_body_is_read_whole_and_events_are_framed() {
        let reply = exchange(
            |request| {
                Response::events([
                    (
                        Some("one"),
                        String::from_utf8_lossy(&request.body).into_owned(),
                    ),
                    (None, "[DONE]".into()),
                ])
            },
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        );
        assert!(reply.contains("text/event-stream"), "{reply}");
        assert!(
            reply.ends_with("event: one\ndata: abcde\n\ndata: [DONE]\n\n"),
            "{reply}"
        );
    }
}
