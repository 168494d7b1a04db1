//! A Web Push service on loopback for the tests (RFC 8030), and an ntfy stand-in.
//!
//! [`PushService`] makes a subscription as a browser would (a fresh P-256 key pair and a 16-byte
//! auth secret), and for every POST it receives checks the VAPID header (RFC 8292: an ES256 JWT
//! verified with the `k` key, `aud` the service's own origin, `exp` within 24 hours, `sub`
//! present) and decrypts the body (RFC 8291 / RFC 8188 aes128gcm) with the subscription's
//! private key and auth secret: written here from the RFCs, sharing no code with gatehouse.
//! What the path asks for is what it answers: `/push/gone/...` 410, `/push/moved/...` a 302 to
//! `Location`, `/push/hang/...` nothing at all; else 201.
//!
//! [`Recorder`] records any HTTP request (the ntfy server, or a place nothing may reach).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
use ring::agreement::{self, EphemeralPrivateKey, UnparsedPublicKey, ECDH_P256};
use ring::hkdf::{KeyType, Salt, HKDF_SHA256};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{UnparsedPublicKey as SignatureKey, ECDSA_P256_SHA256_FIXED};

/// One HTTP request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub received_at: SystemTime,
    pub method: String,
    pub path: String,
    /// Header names in lowercase.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// A push as the push service saw it.
#[derive(Debug, Clone)]
pub struct Push {
    pub request: Request,
    /// The VAPID check: the JWT's claims, or why it failed.
    pub vapid: Result<serde_json::Value, String>,
    /// The `k` key of the VAPID header (base64url).
    pub vapid_key: String,
    /// The decrypted message, or why decryption failed.
    pub plaintext: Result<Vec<u8>, String>,
}

type Handler = Arc<dyn Fn(&Request) -> Option<String> + Send + Sync>;

/// An HTTP/1.1 server on a free loopback port that records every request and answers with what
/// `answer` returns (a whole response), or holds the connection open on `None`.
pub struct Recorder {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<Request>>>,
}

impl Recorder {
    pub fn start(answer: impl Fn(&Request) -> Option<String> + Send + Sync + 'static) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let answer: Handler = Arc::new(answer);
        let kept = requests.clone();
        // The thread ends with the test process; it holds only the listener.
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let kept = kept.clone();
                let answer = answer.clone();
                std::thread::spawn(move || serve(stream, &kept, &answer));
            }
        });
        Recorder { port, requests }
    }

    /// A recorder that answers every request with `status`.
    pub fn answering(status: u16) -> Recorder {
        Recorder::start(move |_| Some(response(status, &[])))
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// Waits until `count` requests arrived; all of them.
    pub fn wait_for(&self, count: usize, deadline: Duration) -> Vec<Request> {
        let start = Instant::now();
        loop {
            let requests = self.requests();
            if requests.len() >= count {
                return requests;
            }
            assert!(
                start.elapsed() < deadline,
                "{} of {count} requests within {deadline:?} on port {}: {requests:?}",
                requests.len(),
                self.port
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

pub fn response(status: u16, extra_headers: &[(&str, &str)]) -> String {
    let mut text =
        format!("HTTP/1.1 {status} Status\r\nContent-Length: 0\r\nConnection: close\r\n");
    for (name, value) in extra_headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text
}

fn serve(stream: TcpStream, kept: &Mutex<Vec<Request>>, answer: &Handler) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() || first.is_empty() {
        return;
    }
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line.trim_end().is_empty() {
            break;
        }
        if let Some((name, value)) = line.trim_end().split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length.min(1 << 20)];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request = Request {
        received_at: SystemTime::now(),
        method,
        path,
        headers,
        body,
    };
    let reply = answer(&request);
    kept.lock().unwrap().push(request);
    let mut stream = stream;
    match reply {
        Some(reply) => {
            let _ = stream.write_all(reply.as_bytes());
        }
        // Hold the connection until the sender gives up.
        None => {
            let mut sink = [0u8; 64];
            let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
            let _ = stream.read(&mut sink);
        }
    }
}

/// A push service with one subscription made as a browser makes it.
pub struct PushService {
    pub recorder: Recorder,
    ua_private: [u8; 32],
    /// The subscription's public key and auth secret, base64url, as `toJSON().keys` has them.
    pub p256dh: String,
    pub auth: String,
}

impl PushService {
    /// `moved_to`: where `/push/moved/...` redirects.
    pub fn start(moved_to: Option<String>) -> PushService {
        let random = SystemRandom::new();
        let mut ua_private = [0u8; 32];
        random.fill(&mut ua_private).unwrap();
        let mut auth = [0u8; 16];
        random.fill(&mut auth).unwrap();
        let p256dh = URL_SAFE_NO_PAD.encode(
            private_key(&ua_private)
                .compute_public_key()
                .unwrap()
                .as_ref(),
        );
        let recorder = Recorder::start(move |request| {
            if request.path.starts_with("/push/hang/") {
                None
            } else if request.path.starts_with("/push/gone/") {
                Some(response(410, &[]))
            } else if request.path.starts_with("/push/moved/") {
                let to = moved_to.clone().unwrap_or_default();
                Some(response(302, &[("Location", to.as_str())]))
            } else {
                Some(response(201, &[("Location", "/message/1")]))
            }
        });
        PushService {
            recorder,
            ua_private,
            p256dh,
            auth: URL_SAFE_NO_PAD.encode(auth),
        }
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.recorder.port)
    }

    /// An endpoint on this service; `kind` is `ok`, `gone`, `moved` or `hang`.
    pub fn endpoint(&self, kind: &str, name: &str) -> String {
        format!("{}/push/{kind}/{name}", self.origin())
    }

    /// Every push received, checked and decrypted.
    pub fn pushes(&self) -> Vec<Push> {
        self.recorder
            .requests()
            .into_iter()
            .map(|request| self.check(request))
            .collect()
    }

    pub fn wait_for(&self, count: usize, deadline: Duration) -> Vec<Push> {
        self.recorder.wait_for(count, deadline);
        self.pushes()
    }

    fn check(&self, request: Request) -> Push {
        let (vapid, vapid_key) = match request.header("authorization") {
            Some(header) => verify_vapid(header, &self.origin()),
            None => (Err("no Authorization header".into()), String::new()),
        };
        let plaintext = if request.method != "POST" {
            Err(format!("method {}", request.method))
        } else if request.header("content-encoding") != Some("aes128gcm") {
            Err("not Content-Encoding: aes128gcm".into())
        } else if request.header("ttl").is_none() {
            Err("no TTL header (RFC 8030 requires it)".into())
        } else {
            let auth = URL_SAFE_NO_PAD.decode(&self.auth).unwrap();
            decrypt(&self.ua_private, &auth, &request.body)
        };
        Push {
            request,
            vapid,
            vapid_key,
            plaintext,
        }
    }
}

#[allow(deprecated)]
fn private_key(scalar: &[u8]) -> EphemeralPrivateKey {
    // ring makes only random keys; its fixed "random" source for known-answer tests gives the
    // scalar, so the same browser key decrypts every push.
    EphemeralPrivateKey::generate(
        &ECDH_P256,
        &ring::test::rand::FixedSliceRandom { bytes: scalar },
    )
    .unwrap()
}

/// RFC 8292 section 3: `vapid t=<JWT>, k=<key>`; the claims when everything holds.
fn verify_vapid(header: &str, origin: &str) -> (Result<serde_json::Value, String>, String) {
    let Some(rest) = header.strip_prefix("vapid ") else {
        return (Err(format!("not a vapid header: {header}")), String::new());
    };
    let mut token = None;
    let mut key = None;
    for part in rest.split(',') {
        let part = part.trim();
        if let Some(value) = part.strip_prefix("t=") {
            token = Some(value.to_owned());
        } else if let Some(value) = part.strip_prefix("k=") {
            key = Some(value.to_owned());
        }
    }
    let (Some(token), Some(key)) = (token, key) else {
        return (Err("t= or k= missing".into()), String::new());
    };
    let checked = (|| {
        let parts: Vec<&str> = token.split('.').collect();
        if parts.len() != 3 {
            return Err("not a JWS".to_owned());
        }
        let decode = |text: &str| URL_SAFE_NO_PAD.decode(text).map_err(|e| e.to_string());
        let head: serde_json::Value =
            serde_json::from_slice(&decode(parts[0])?).map_err(|e| e.to_string())?;
        if head["alg"] != "ES256" {
            return Err(format!("alg is {}", head["alg"]));
        }
        let public = decode(&key)?;
        SignatureKey::new(&ECDSA_P256_SHA256_FIXED, &public)
            .verify(
                format!("{}.{}", parts[0], parts[1]).as_bytes(),
                &decode(parts[2])?,
            )
            .map_err(|_| "the ES256 signature does not verify with k".to_owned())?;
        let claims: serde_json::Value =
            serde_json::from_slice(&decode(parts[1])?).map_err(|e| e.to_string())?;
        if claims["aud"] != origin {
            return Err(format!("aud is {}, not {origin}", claims["aud"]));
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let exp = claims["exp"].as_u64().ok_or("no exp")?;
        if exp <= now || exp > now + 24 * 60 * 60 {
            return Err(format!("exp {exp} is not within 24 hours of {now}"));
        }
        if !claims["sub"]
            .as_str()
            .is_some_and(|sub| sub.starts_with("mailto:") || sub.starts_with("https://"))
        {
            return Err(format!("sub is {}", claims["sub"]));
        }
        Ok(claims)
    })();
    (checked, key)
}

struct Length(usize);

impl KeyType for Length {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf(salt: &[u8], ikm: &[u8], info: &[u8], length: usize) -> Vec<u8> {
    let mut out = vec![0u8; length];
    Salt::new(HKDF_SHA256, salt)
        .extract(ikm)
        .expand(&[info], Length(length))
        .unwrap()
        .fill(&mut out)
        .unwrap();
    out
}

/// RFC 8291 section 3.4, from the user agent's side, and RFC 8188's one record.
fn decrypt(ua_private: &[u8; 32], auth: &[u8], body: &[u8]) -> Result<Vec<u8>, String> {
    if body.len() < 21 + 65 + 17 {
        return Err(format!("{} bytes are too short", body.len()));
    }
    let salt = &body[..16];
    let record_size = u32::from_be_bytes(body[16..20].try_into().unwrap()) as usize;
    let id_length = body[20] as usize;
    if id_length != 65 {
        return Err(format!("keyid of {id_length} bytes"));
    }
    let as_public = &body[21..86];
    let ciphertext = &body[86..];
    if ciphertext.len() > record_size {
        return Err("more than one record".into());
    }
    let ua = private_key(ua_private);
    let ua_public = ua.compute_public_key().unwrap().as_ref().to_vec();
    let ecdh_secret = agreement::agree_ephemeral(
        ua,
        &UnparsedPublicKey::new(&ECDH_P256, as_public),
        |secret| secret.to_vec(),
    )
    .map_err(|_| "the sender's key is not on the curve".to_owned())?;
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(&ua_public);
    key_info.extend_from_slice(as_public);
    let ikm = hkdf(auth, &ecdh_secret, &key_info, 32);
    let cek = hkdf(salt, &ikm, b"Content-Encoding: aes128gcm\0", 16);
    let nonce = hkdf(salt, &ikm, b"Content-Encoding: nonce\0", 12);
    let key = LessSafeKey::new(UnboundKey::new(&AES_128_GCM, &cek).unwrap());
    let mut record = ciphertext.to_vec();
    let plain = key
        .open_in_place(
            Nonce::try_assume_unique_for_key(&nonce).unwrap(),
            Aad::empty(),
            &mut record,
        )
        .map_err(|_| "the record does not decrypt (wrong keys, or tampered)".to_owned())?;
    let end = plain
        .iter()
        .rposition(|byte| *byte != 0)
        .ok_or("no delimiter")?;
    if plain[end] != 2 {
        return Err(format!("the last record's delimiter is {}", plain[end]));
    }
    Ok(plain[..end].to_vec())
}

/// Standard base64 (as `btoa` writes it) to base64url.
pub fn url_safe(standard: &str) -> String {
    URL_SAFE_NO_PAD.encode(STANDARD.decode(standard).unwrap())
}
