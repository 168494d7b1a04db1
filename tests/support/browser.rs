//! The real Chromium, driven through WebDriver: Debian's `chromium` and `chromium-driver`.
//!
//! One chromedriver serves the whole test binary, on a free loopback port, started on first use
//! from a thread that lives as long as the process; chromedriver gets SIGKILL when the process
//! ends (`PR_SET_PDEATHSIG`). Each [`Browser`] is a fresh headless Chromium with a profile of its
//! own, so no cookie passes from one browser to the next, and chromedriver runs with a private
//! home in cargo's temporary folder for tests. Without chromedriver the tests are
//! skipped locally and fail in CI (`CI` set; `.ci/run` installs it).
//!
//! Chromium will not size a window below 500 px wide: [`Browser::phone`] emulates a true phone
//! (chromedriver's `mobileEmulation`: 390x844 CSS pixels, touch, a phone's user agent), and
//! [`Theme::Dark`] makes the page see `prefers-color-scheme: dark`.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// How long a condition on the page may take.
pub const PAGE_DEADLINE: Duration = Duration::from_secs(15);

/// The phone and desktop sizes the screenshots are taken at.
pub const PHONE: (u32, u32) = (390, 844);
pub const DESKTOP: (u32, u32) = (1280, 900);

/// Whether Chromium and chromedriver are installed; panics in CI when they are not.
pub fn browser_available() -> bool {
    let found = Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium and chromium-driver are not installed; .ci/run installs them"
        );
        eprintln!("skipped: chromium and chromium-driver are not installed");
    }
    found
}

/// The chromedriver of this test binary, started on first use.
fn chromedriver() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|probe| probe.local_addr())
            .expect("a free port for chromedriver")
            .port();
        let (started, is_started) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("chromedriver".into())
            .spawn(move || {
                use std::os::unix::process::CommandExt;
                let home = private_home();
                let mut command = Command::new(CHROMEDRIVER);
                command
                    .arg(format!("--port={port}"))
                    .env("HOME", &home)
                    .env("XDG_CONFIG_HOME", home.join(".config"))
                    .env("XDG_CACHE_HOME", home.join(".cache"))
                    .env("XDG_DATA_HOME", home.join(".local/share"))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                // SAFETY: prctl is async-signal-safe and touches only the child being made.
                unsafe {
                    command.pre_exec(|| {
                        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                        Ok(())
                    });
                }
                let child = command.spawn().expect("chromedriver starts");
                started.send(()).unwrap();
                // This thread's end would kill chromedriver: it lives as long as the process.
                let _child = child;
                loop {
                    std::thread::park();
                }
            })
            .expect("the chromedriver thread starts");
        is_started.recv().unwrap();
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        format!("http://127.0.0.1:{port}")
    })
}

/// chromedriver's and its Chromiums' home, so that nothing of theirs lands in the person's: one
/// folder in cargo's temporary folder for tests (not the system's), made afresh for each run of
/// the test binary.
fn private_home() -> PathBuf {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("chromedriver-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("chromedriver's home can be made");
    home
}

/// The colour scheme the page is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

/// A fresh headless Chromium with a private profile.
pub struct Browser {
    pub client: Client,
    /// Whether it emulates a phone ([`PHONE`]); its window size then changes nothing.
    phone: bool,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub async fn start(size: (u32, u32)) -> Browser {
        Browser::start_with(size, false).await
    }

    /// Like [`Browser::start`]; `accept_insecure_certs` lets it open a self-signed HTTPS page.
    pub async fn start_with(size: (u32, u32), accept_insecure_certs: bool) -> Browser {
        Browser::launch(size, accept_insecure_certs, false, Theme::Light).await
    }

    /// A phone: a [`PHONE`]-sized viewport by device emulation, in `theme`.
    pub async fn phone(theme: Theme) -> Browser {
        Browser::launch(PHONE, false, true, theme).await
    }

    /// A desktop window of [`DESKTOP`] in `theme`.
    pub async fn desktop(theme: Theme) -> Browser {
        Browser::launch(DESKTOP, false, false, theme).await
    }

    async fn launch(
        size: (u32, u32),
        accept_insecure_certs: bool,
        phone: bool,
        theme: Theme,
    ) -> Browser {
        let profile = tempfile::Builder::new()
            .prefix("gh-chromium")
            .tempdir()
            .expect("a profile folder");
        let arguments = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--no-first-run".to_owned(),
            "--hide-scrollbars".to_owned(),
            format!("--window-size={},{}", size.0, size.1),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let mut arguments = arguments;
        if theme == Theme::Dark {
            // Blink's preferred colour scheme: 0 is dark.
            arguments.push("--blink-settings=preferredColorScheme=0".to_owned());
        } else {
            arguments.push("--blink-settings=preferredColorScheme=1".to_owned());
        }
        let mut options = json!({ "binary": CHROMIUM, "args": arguments });
        if phone {
            options["mobileEmulation"] = json!({
                "deviceMetrics": { "width": PHONE.0, "height": PHONE.1, "pixelRatio": 2.0, "touch": true, "mobile": true },
                "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36",
            });
        }
        let capabilities = json!({
            "browserName": "chrome",
            "acceptInsecureCerts": accept_insecure_certs,
            "goog:chromeOptions": options,
        });
        let capabilities = capabilities.as_object().unwrap().clone();
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(capabilities)
            .connect(chromedriver())
            .await
            .expect("chromedriver starts a Chromium session");
        Browser {
            client,
            phone,
            _profile: profile,
        }
    }

    /// Runs a Chrome DevTools Protocol command through chromedriver (`goog/cdp/execute`), such
    /// as `Browser.grantPermissions`; its result.
    pub async fn cdp(&self, command: &str, params: serde_json::Value) -> serde_json::Value {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let session = self
            .client
            .session_id()
            .await
            .expect("the session id")
            .expect("a session");
        let address = chromedriver().trim_start_matches("http://").to_owned();
        let body = json!({ "cmd": command, "params": params }).to_string();
        let mut stream = tokio::net::TcpStream::connect(&address)
            .await
            .expect("chromedriver answers");
        let request = format!(
            "POST /session/{session}/goog/cdp/execute HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        // chromedriver may keep the connection open: read the head, then Content-Length bytes.
        let mut reply = Vec::new();
        let mut chunk = [0u8; 4096];
        let head_end = loop {
            let read = stream.read(&mut chunk).await.unwrap();
            assert!(read > 0, "chromedriver closed the connection: {reply:?}");
            reply.extend_from_slice(&chunk[..read]);
            if let Some(end) = reply.windows(4).position(|window| window == b"\r\n\r\n") {
                break end + 4;
            }
        };
        let head = String::from_utf8_lossy(&reply[..head_end]).into_owned();
        let length = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())?
            })
            .unwrap_or(0);
        while reply.len() < head_end + length {
            let read = stream.read(&mut chunk).await.unwrap();
            assert!(read > 0, "chromedriver closed the connection early");
            reply.extend_from_slice(&chunk[..read]);
        }
        let body = String::from_utf8_lossy(&reply[head_end..]).into_owned();
        assert!(
            head.starts_with("HTTP/1.1 200"),
            "{command} failed: {head}{body}"
        );
        serde_json::from_str::<serde_json::Value>(&body)
            .map_or(serde_json::Value::Null, |json| json["value"].clone())
    }

    /// Loads `url`, as following a link would.
    pub async fn open(&self, url: &str) {
        self.client.goto(url).await.unwrap();
    }

    /// Ends the browser session.
    pub async fn close(self) {
        let _ = self.client.close().await;
    }

    /// The first element matching `css`, once there is one.
    pub async fn wait_for(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(PAGE_DEADLINE)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|error| {
                panic!("no `{css}` on the page within {PAGE_DEADLINE:?}: {error}")
            })
    }

    /// How many elements match `css` right now.
    pub async fn count(&self, css: &str) -> usize {
        self.client
            .find_all(Locator::Css(css))
            .await
            .map_or(0, |found| found.len())
    }

    /// Whether an element matching `css` is shown (present and not hidden).
    pub async fn shown(&self, css: &str) -> bool {
        match self.client.find(Locator::Css(css)).await {
            Ok(element) => element.is_displayed().await.unwrap_or(false),
            Err(_) => false,
        }
    }

    /// The text of the first element matching `css`, or "" when there is none.
    pub async fn text(&self, css: &str) -> String {
        match self.client.find(Locator::Css(css)).await {
            Ok(element) => element.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Polls `condition` until it holds, or panics after `deadline` naming `what`.
    pub async fn wait_until(
        &self,
        deadline: Duration,
        what: &str,
        mut condition: impl AsyncFnMut(&Browser) -> bool,
    ) {
        let start = Instant::now();
        while !condition(self).await {
            assert!(
                start.elapsed() < deadline,
                "timed out after {deadline:?} waiting for {what}"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Resizes the window so that the page's viewport is `size` (the window's frame takes some).
    pub async fn set_viewport(&self, size: (u32, u32)) {
        self.client
            .set_window_size(size.0, size.1)
            .await
            .expect("the window is resized");
        let inner = self
            .client
            .execute("return [window.innerWidth, window.innerHeight]", vec![])
            .await
            .expect("the viewport's size");
        let inner = |index: usize| inner[index].as_u64().unwrap_or(0) as u32;
        let width = size.0 + size.0.saturating_sub(inner(0));
        let height = size.1 + size.1.saturating_sub(inner(1));
        self.client
            .set_window_size(width, height)
            .await
            .expect("the window is resized");
    }

    /// Clicks the first element matching `css`, scrolled to the middle of the screen first (as a
    /// person scrolls to what they tap, out from under the notices at the screen's foot); an
    /// answer button only once its card has stood still on the screen long enough to be read
    /// (the page takes no answer while the card is `[data-settling]`, as a person's finger would
    /// wait).
    pub async fn click(&self, css: &str) {
        const ON_SCREEN: &str = "const node = document.querySelector(arguments[0]);
             if (node) node.scrollIntoView({ block: 'center' });
             return true";
        self.wait_for(css).await;
        let _ = self.client.execute(ON_SCREEN, vec![json!(css)]).await;
        self.wait_until(PAGE_DEADLINE, "the card to be still", async |browser| {
            let settling = browser
                .client
                .execute(
                    "const node = document.querySelector(arguments[0]);
                     return Boolean(node && node.matches('[data-action]') && node.closest('[data-settling]'))",
                    vec![json!(css)],
                )
                .await;
            settling.is_ok_and(|settling| settling == json!(false))
        })
        .await;
        self.click_at_once(css).await;
    }

    /// Clicks the first element matching `css` at once, even while the list moves.
    pub async fn click_at_once(&self, css: &str) {
        self.wait_for(css)
            .await
            .click()
            .await
            .unwrap_or_else(|error| panic!("cannot click `{css}`: {error}"));
    }

    /// A finger's tap at `(x, y)` CSS pixels of the viewport: a WebDriver touch pointer goes
    /// down and up there, whatever is under it then (no element is aimed at, as no finger aims).
    pub async fn tap(&self, (x, y): (f64, f64)) {
        use fantoccini::actions::{InputSource, PointerAction, TouchActions};
        let finger = TouchActions::new("finger".to_owned())
            .then(PointerAction::MoveTo {
                duration: None,
                x: x.round(),
                y: y.round(),
            })
            .then(PointerAction::Down { button: 0 })
            .pause(Duration::from_millis(60))
            .then(PointerAction::Up { button: 0 });
        self.client
            .perform_actions(finger)
            .await
            .unwrap_or_else(|error| panic!("cannot tap at ({x}, {y}): {error}"));
        let _ = self.client.release_actions().await;
    }

    /// Types `text` into the first element matching `css`.
    pub async fn type_into(&self, css: &str, text: &str) {
        self.wait_for(css)
            .await
            .send_keys(text)
            .await
            .unwrap_or_else(|error| panic!("cannot type into `{css}`: {error}"));
    }

    /// Saves a screenshot of a `size` viewport as `target/web-screenshots/<name>.png` (a
    /// [`Browser::phone`] takes it at its own size).
    pub async fn screenshot(&self, name: &str, size: (u32, u32)) -> PathBuf {
        if !self.phone {
            self.set_viewport(size).await;
        }
        // Let layout settle at the new size before the picture is taken.
        let _ = self
            .client
            .execute(
                "return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
                vec![],
            )
            .await;
        let png = self.client.screenshot().await.expect("a screenshot");
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .join("web-screenshots");
        std::fs::create_dir_all(&folder).expect("the screenshot folder");
        let path = folder.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("the screenshot is written");
        path
    }
}
