//! `gatehouse web`, proven by real clicks: the real Chromium (through chromedriver) against a real
//! `gatehouse web` and `gatehouse serve`, with the real Claude Code in tmux against the scripted
//! model (as in `e2e_claude`). What the fake model records is the proof of what reached the model;
//! what the page shows is what the person saw. Screenshots go to `target/web-screenshots/`.
//!
//! Without Chromium, chromedriver or Claude Code the tests are skipped locally, and fail in CI.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::{json, Value};

use crate::common::{claude_fixture, Gateway, Sandbox};
use crate::support::browser::{browser_available, Browser, DESKTOP, PAGE_DEADLINE, PHONE};
use crate::support::claude_env::{
    answer_dialog, find_claude_bin, wait_idle, ClaudeEnv, BASH_DIALOG, CLAUDE_VERSION,
};
use crate::support::fake_anthropic::{tool_result_text, FakeAnthropic, ScriptedTurn};
use crate::support::tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(30);

/// A running `gatehouse web` on a free loopback port, stopped when dropped.
pub struct Web {
    pub process: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The pairing link it printed when it started.
    pub first_link: String,
}

impl Web {
    pub fn start(gateway: &Gateway, listen: &str) -> Web {
        Web::start_with(gateway, listen, |_| {})
    }

    /// Like [`Web::start`], with `configure` applied to the command first.
    pub fn start_with(
        gateway: &Gateway,
        listen: &str,
        configure: impl FnOnce(&mut std::process::Command),
    ) -> Web {
        let mut command = gateway.command(&["web", "--listen", listen]);
        configure(&mut command);
        let mut process = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("gatehouse web starts");
        let (lines, received) = mpsc::channel();
        let stdout = process.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let (mut base, mut first_link) = (None, None);
        let start = Instant::now();
        while first_link.is_none() {
            let left = DEADLINE.saturating_sub(start.elapsed());
            let line = received
                .recv_timeout(left)
                .expect("gatehouse web prints its address and a pairing link");
            if let Some(rest) = line.split("listening on ").nth(1) {
                base = rest.split_whitespace().next().map(str::to_owned);
            }
            if line.starts_with("Pair a browser") {
                first_link = line.split_whitespace().last().map(str::to_owned);
            }
        }
        Web {
            process,
            base: base.expect("the address line"),
            first_link: first_link.unwrap(),
        }
    }

    pub fn port(&self) -> u16 {
        self.base.rsplit(':').next().unwrap().parse().unwrap()
    }

    fn stop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A new pairing link from `gatehouse web pair --json`.
pub fn pair_link(gateway: &Gateway) -> String {
    let output = gateway.run(&["web", "pair", "--json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reply: Value = serde_json::from_slice(&output.stdout).expect("pair --json prints JSON");
    assert!(reply["expires_at"].is_string());
    reply["url"].as_str().unwrap().to_owned()
}

/// One test's world: gateway, fake model, Claude Code's home with gatehouse's hooks, Claude Code
/// in tmux once started, and `gatehouse web`.
pub struct World {
    pub gateway: Gateway,
    pub fake: FakeAnthropic,
    pub claude: ClaudeEnv,
    pub tmux: Option<Tmux>,
    pub web: Web,
}

impl World {
    pub fn new(script: Vec<ScriptedTurn>) -> Option<World> {
        World::with(script, false, &[])
    }

    /// Like [`World::new`], with a passing probe record for the installed Claude Code in the
    /// gateway's state folder (as `gatehouse probe claude` writes it): edits, plans and `always`
    /// are answerable.
    pub fn probed(script: Vec<ScriptedTurn>) -> Option<World> {
        World::with(script, true, &[])
    }

    /// Like [`World::probed`], with Claude Code started with `arguments`.
    pub fn probed_with(script: Vec<ScriptedTurn>, arguments: &[&str]) -> Option<World> {
        World::with(script, true, arguments)
    }

    fn with(script: Vec<ScriptedTurn>, probed: bool, arguments: &[&str]) -> Option<World> {
        if !browser_available() {
            return None;
        }
        let Some(bin) = find_claude_bin() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "Claude Code is not installed; run `npm ci`"
            );
            eprintln!("skipped: Claude Code is not installed (run `npm ci`)");
            return None;
        };
        let sandbox = Sandbox::new();
        let state_home = sandbox.home().join(".local/state");
        if probed {
            crate::e2e_claude_more::write_record(&sandbox, &bin, CLAUDE_VERSION);
        }
        let gateway = Gateway::start_in(sandbox);
        let fake = FakeAnthropic::start(script);
        let mut claude = ClaudeEnv::new(&bin, &fake);
        claude.set_env("GATEHOUSE_SOCKET", &gateway.socket().display().to_string());
        claude.add_args(arguments);
        if probed {
            // The hooks read the probe record where it is kept (as in `e2e_claude_more`).
            claude.set_env("XDG_STATE_HOME", &state_home.display().to_string());
        }
        let installed = gateway
            .command(&["install", "claude"])
            .env("HOME", claude.home())
            .output()
            .unwrap();
        assert!(
            installed.status.success(),
            "{}",
            String::from_utf8_lossy(&installed.stderr)
        );
        let web = Web::start(&gateway, "127.0.0.1:0");
        Some(World {
            gateway,
            fake,
            claude,
            tmux: None,
            web,
        })
    }

    pub fn start(&mut self, prompt: &str) {
        let tmux = self.claude.start_in_tmux();
        self.claude.submit_prompt(&tmux, prompt);
        self.tmux = Some(tmux);
    }

    pub fn ask(&self, prompt: &str) {
        let tmux = self.tmux.as_ref().unwrap();
        wait_idle(tmux, DEADLINE);
        self.claude.submit_prompt(tmux, prompt);
    }

    /// The id of the one prompt the gateway holds, once it is there.
    pub fn held_id(&self) -> String {
        self.gateway.wait_for_pending(1)[0]["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub fn workspace_file(&self, name: &str) -> PathBuf {
        self.claude.workspace().join(name)
    }
}

fn bash_turn(command: &str) -> ScriptedTurn {
    ScriptedTurn::tool_use(
        "Bash",
        json!({ "command": command, "description": "write a file" }),
    )
}

fn question_turn(question: &str, multi: bool, labels: &[&str]) -> ScriptedTurn {
    let options: Vec<Value> = labels
        .iter()
        .map(|label| json!({ "label": label, "description": format!("{label} option") }))
        .collect();
    ScriptedTurn::tool_use(
        "AskUserQuestion",
        json!({ "questions": [{ "question": question, "header": "Pick", "options": options, "multiSelect": multi }] }),
    )
}

/// Runs an async test body on a runtime of its own.
pub fn run(body: impl std::future::Future<Output = ()>) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(body);
}

/// Runs `body` with a fresh browser, and closes the browser even when `body` panics.
pub async fn with_browser(size: (u32, u32), body: impl AsyncFnOnce(&Browser)) {
    using(Browser::start(size).await, body).await;
}

/// Runs `body` with `browser`, and closes it even when `body` panics.
pub async fn using(browser: Browser, body: impl AsyncFnOnce(&Browser)) {
    let outcome = AssertUnwindSafe(body(&browser)).catch_unwind().await;
    browser.close().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Where the page keeps its device token: this origin's `localStorage`.
pub const TOKEN_KEY: &str = "gatehouse-device-token";

/// The device token the page keeps, if any.
pub async fn stored_token(browser: &Browser) -> Option<String> {
    browser
        .client
        .execute(
            &format!("return localStorage.getItem('{TOKEN_KEY}')"),
            vec![],
        )
        .await
        .expect("localStorage is readable")
        .as_str()
        .map(str::to_owned)
}

/// Opens a pairing link and pairs as `name`, then waits until the page is live.
pub async fn pair(browser: &Browser, link: &str, name: &str) {
    browser.client.goto(link).await.unwrap();
    browser.wait_for("[data-pair-form]:not([hidden])").await;
    let address = browser.client.current_url().await.unwrap();
    assert!(
        address.fragment().is_none(),
        "the token left the address bar: {address}"
    );
    browser.type_into("[data-device-name]", name).await;
    browser.click("[data-pair-submit]").await;
    browser.wait_for("[data-app]:not([hidden])").await;
    browser.wait_for("[data-connection][data-up='true']").await;
    let token = stored_token(browser)
        .await
        .expect("the page keeps its device token");
    assert_eq!(token.len(), 64, "a 256-bit token in hex");
    let cookies = browser.client.get_all_cookies().await.unwrap();
    assert!(cookies.is_empty(), "no cookie is set: {cookies:?}");
}

pub fn card(id: &str) -> String {
    format!("[data-prompt-id='{id}']")
}

/// The `textContent` of the first element matching `css` (also inside a collapsed list), or "".
pub async fn dom_text(browser: &Browser, css: &str) -> String {
    browser
        .client
        .execute(
            "const node = document.querySelector(arguments[0]); return node ? node.textContent : ''",
            vec![json!(css)],
        )
        .await
        .expect("the page runs a script")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Waits until the prompt's card offers no action and says why (an ended card sits in the
/// collapsed "recently ended" list, so its text is read from the DOM).
pub async fn wait_until_ended(browser: &Browser, id: &str, why: &str) {
    let card = card(id);
    browser
        .wait_until(
            Duration::from_secs(5),
            &format!("{card} to stop offering actions"),
            async |page| {
                page.count(&format!("{card} [data-action]")).await == 0
                    && dom_text(page, &format!("{card} [data-status]"))
                        .await
                        .contains(why)
            },
        )
        .await;
}

fn audit_by(world: &World) -> Vec<String> {
    let output = world.gateway.run(&["log", "--json"]);
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|record| record["event"]["by"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn an_unpaired_browser_sees_nothing_a_link_pairs_once_and_once_runs_the_command() {
    let Some(mut world) = World::new(vec![bash_turn("printf web > web.txt")]) else {
        return;
    };
    world.start("write web.txt");
    let id = world.held_id();
    run(async {
        with_browser(PHONE, async |stranger| {
            stranger.client.goto(&world.web.base).await.unwrap();
            stranger.wait_for("[data-unpaired]:not([hidden])").await;
            assert_eq!(stranger.count("[data-prompt-id]").await, 0);
            assert!(!stranger
                .client
                .source()
                .await
                .unwrap()
                .contains("printf web"));
            stranger.screenshot("unpaired-phone", PHONE).await;
        })
        .await;
        with_browser(PHONE, async |phone| {
            pair(phone, &world.web.first_link, "test phone").await;
            phone.wait_for(&card(&id)).await;
            let input = phone.text(&format!("{} [data-input]", card(&id))).await;
            assert_eq!(input, "printf web > web.txt");
            for action in ["once", "deny", "release"] {
                assert_eq!(
                    phone
                        .count(&format!("{} [data-action='{action}']", card(&id)))
                        .await,
                    1,
                    "{action}"
                );
            }
            assert_eq!(
                phone
                    .count(&format!("{} [data-action='answer']", card(&id)))
                    .await,
                0
            );
            phone.screenshot("bash-prompt-desktop", DESKTOP).await;
            phone.screenshot("bash-prompt-phone", PHONE).await;
            with_browser(PHONE, async |second| {
                second.client.goto(&world.web.first_link).await.unwrap();
                second.click("[data-pair-submit]").await;
                second.wait_for("[data-unpaired]:not([hidden])").await;
                assert!(second
                    .text("[data-unpaired-reason]")
                    .await
                    .contains("used up or expired"));
                assert_eq!(second.count("[data-prompt-id]").await, 0);
            })
            .await;
            phone
                .click(&format!("{} [data-action='once']", card(&id)))
                .await;
            wait_until_ended(phone, &id, "Answered (once) by web:test phone").await;
        })
        .await;
    });
    let result = world.fake.wait_for_tool_results(1, DEADLINE).remove(0);
    assert_eq!(result["is_error"], json!(false), "{result}");
    assert_eq!(
        std::fs::read_to_string(world.workspace_file("web.txt")).unwrap(),
        "web"
    );
    assert!(
        audit_by(&world).contains(&"web:test phone".to_owned()),
        "{:?}",
        audit_by(&world)
    );
}

#[test]
fn deny_with_a_typed_message_reaches_the_model() {
    let Some(mut world) = World::new(vec![bash_turn("rm -rf build && printf x > gone.txt")]) else {
        return;
    };
    world.start("clean the build");
    let id = world.held_id();
    run(async {
        with_browser(PHONE, async |phone| {
            pair(phone, &world.web.first_link, "deny phone").await;
            let card = card(&id);
            phone
                .type_into(
                    &format!("{card} [data-deny-message]"),
                    "use make clean instead",
                )
                .await;
            phone.click(&format!("{card} [data-action='deny']")).await;
            wait_until_ended(phone, &id, "Answered (deny) by web:deny phone").await;
        })
        .await;
    });
    let result = world.fake.wait_for_tool_results(1, DEADLINE).remove(0);
    assert_eq!(result["is_error"], json!(true), "{result}");
    assert!(
        tool_result_text(&result).starts_with("use make clean instead"),
        "{result}"
    );
    assert!(
        !world.workspace_file("gone.txt").exists(),
        "the command did not run"
    );
}

#[test]
fn clicks_on_options_answer_a_single_and_a_multi_select_question() {
    let script = vec![
        question_turn("Which color?", false, &["Red", "Blue"]),
        question_turn("Which toppings?", true, &["Cheese", "Olives", "Basil"]),
    ];
    let Some(mut world) = World::new(script) else {
        return;
    };
    world.start("ask me a color");
    let color = world.held_id();
    let link = world.web.first_link.clone();
    run(async {
        with_browser(PHONE, async |phone| {
            pair(phone, &link, "quiz phone").await;
            let card = card(&color);
            phone
                .wait_for(&format!(
                    "{card} [data-question-id='q1'] input[type='radio'][data-option='Blue']"
                ))
                .await;
            assert_eq!(
                phone.count(&format!("{card} [data-action='answer']")).await,
                1
            );
            phone.screenshot("question-phone", PHONE).await;
            phone
                .click(&format!(
                    "{card} [data-question-id='q1'] [data-option='Blue']"
                ))
                .await;
            phone.click(&format!("{card} [data-action='answer']")).await;
            wait_until_ended(phone, &color, "Answered (answer)").await;
            let text = tool_result_text(&world.fake.wait_for_tool_results(1, DEADLINE)[0]);
            assert!(text.contains(r#""Which color?"="Blue""#), "{text}");

            world.ask("ask me toppings");
            let toppings = world.held_id();
            let card = self::card(&toppings);
            phone
                .wait_for(&format!(
                    "{card} [data-question-id='q1'] input[type='checkbox'][data-option='Olives']"
                ))
                .await;
            phone.click(&format!("{card} [data-option='Cheese']")).await;
            phone.click(&format!("{card} [data-option='Olives']")).await;
            phone
                .type_into(
                    &format!("{card} [data-question-id='q1'] [data-other]"),
                    "extra garlic",
                )
                .await;
            phone.screenshot("multi-question-desktop", DESKTOP).await;
            phone.click(&format!("{card} [data-action='answer']")).await;
            wait_until_ended(phone, &toppings, "Answered (answer)").await;
        })
        .await;
    });
    let text = tool_result_text(&world.fake.wait_for_tool_results(2, DEADLINE)[1]);
    assert!(
        text.contains(r#""Which toppings?"="Cheese, Olives, extra garlic""#),
        "{text}"
    );
}

#[test]
fn a_prompt_answered_in_the_terminal_stops_offering_actions_on_the_page() {
    let Some(mut world) = World::new(vec![bash_turn("printf yes > yes.txt")]) else {
        return;
    };
    world.start("write yes.txt");
    let id = world.held_id();
    run(async {
        with_browser(DESKTOP, async |desktop| {
            pair(desktop, &world.web.first_link, "desk").await;
            desktop
                .wait_for(&format!("{} [data-action='once']", card(&id)))
                .await;
            answer_dialog(world.tmux.as_ref().unwrap(), BASH_DIALOG, "1", DEADLINE);
            wait_until_ended(desktop, &id, "Withdrawn").await;
            desktop.screenshot("withdrawn-desktop", DESKTOP).await;
        })
        .await;
    });
    world.fake.wait_for_tool_results(1, DEADLINE);
    assert!(world.workspace_file("yes.txt").exists());
}

#[test]
fn a_paired_device_survives_a_restart_and_revoke_logs_it_out_at_once() {
    if !browser_available() {
        return;
    }
    let gateway = Gateway::start();
    let mut web = Web::start(&gateway, "127.0.0.1:0");
    let port = web.port();
    run(async {
        with_browser(PHONE, async |phone| {
            pair(phone, &pair_link(&gateway), "kept phone").await;
            web.stop();
            phone
                .wait_until(
                    PAGE_DEADLINE,
                    "the page to say it lost gatehouse web",
                    async |page| page.count("[data-connection][data-up='false']").await == 1,
                )
                .await;
            web = Web::start(&gateway, &format!("127.0.0.1:{port}"));
            phone.wait_for("[data-connection][data-up='true']").await;
            phone.client.refresh().await.unwrap();
            phone.wait_for("[data-app]:not([hidden])").await;
            let listed = gateway.run(&["web", "devices", "--json"]);
            let devices: Value = serde_json::from_slice(&listed.stdout).unwrap();
            assert_eq!(devices[0]["name"], "kept phone", "{devices}");
            assert!(devices[0].get("token_sha256").is_none(), "no hash is shown");
            let revoked = gateway.run(&["web", "revoke", devices[0]["id"].as_str().unwrap()]);
            assert!(
                revoked.status.success(),
                "{}",
                String::from_utf8_lossy(&revoked.stderr)
            );
            phone
                .wait_until(
                    Duration::from_secs(5),
                    "the open page to say it is no longer paired",
                    async |page| page.shown("[data-unpaired]").await,
                )
                .await;
            assert!(phone
                .text("[data-unpaired-reason]")
                .await
                .contains("logged out"));
            phone.screenshot("revoked-phone", PHONE).await;
            phone.client.refresh().await.unwrap();
            phone.wait_for("[data-unpaired]:not([hidden])").await;
        })
        .await;
    });
    let file = gateway
        .home()
        .join(".local/state/gatehouse/web-devices.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

/// One raw HTTP/1.1 request; the status and the body.
pub fn http(port: u16, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, reply)
}

/// Pairs over HTTP as the page does; the device token from the reply (no cookie is set).
pub fn pair_over_http(port: u16, link: &str) -> String {
    let host = format!("127.0.0.1:{port}");
    let token = link.split("#pair=").nth(1).unwrap();
    let body = format!(r#"{{"token":"{token}","name":"curl"}}"#);
    let (status, reply) = http(port, &format!(
        "POST /api/pair HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    assert_eq!(status, 200, "{reply}");
    assert!(
        !reply.to_ascii_lowercase().contains("set-cookie"),
        "{reply}"
    );
    let json = reply.split("\r\n\r\n").nth(1).expect("a body");
    let json: Value = serde_json::from_str(json).expect("the pairing reply is JSON");
    json["token"].as_str().expect("a device token").to_owned()
}

#[test]
fn requests_without_the_token_or_with_a_forged_host_get_no_data() {
    let gateway = Gateway::start();
    let web = Web::start(&gateway, "127.0.0.1:0");
    let port = web.port();
    let mut hook = gateway.spawn_hook(
        "claude",
        claude_fixture("PermissionRequest-Bash")
            .to_string()
            .as_bytes(),
        &[],
    );
    let id = gateway.wait_for_pending(1)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let host = format!("127.0.0.1:{port}");
    let device_token = pair_over_http(port, &web.first_link);
    let get = |path: &str, host: &str, credential: &str| {
        http(
            port,
            &format!(
                "GET {path} HTTP/1.1\r\nHost: {host}\r\n{credential}Connection: close\r\n\r\n"
            ),
        )
    };
    let with_token = format!("Authorization: Bearer {device_token}\r\n");
    let as_cookie = format!("Cookie: gatehouse-device={device_token}\r\n");
    let (status, reply) = get("/api/prompts", &host, &with_token);
    assert_eq!(status, 200);
    assert!(
        reply.contains("printf hi > hi.txt"),
        "the control case sees the prompt: {reply}"
    );
    for path in ["/api/prompts", "/api/events", "/api/session"] {
        for credential in ["", as_cookie.as_str()] {
            let (status, reply) = get(path, &host, credential);
            assert_eq!(status, 401, "{path} {credential}: {reply}");
            assert!(
                !reply.contains("printf hi") && !reply.contains(&id),
                "{reply}"
            );
        }
        for forged in [
            "rebind.attacker.example",
            "rebind.attacker.example:7780",
            "localhost:1",
        ] {
            let (status, reply) = get(path, forged, &with_token);
            assert_eq!(status, 403, "{path} {forged}: {reply}");
            assert!(
                !reply.contains("printf hi") && !reply.contains(&id),
                "{reply}"
            );
        }
    }
    let answer = format!(r#"{{"id":"{id}","answer":{{"action":"once"}}}}"#);
    for origin in ["http://attacker.example", "null"] {
        let (status, _) = http(port, &format!(
            "POST /api/answer HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n{with_token}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
            answer.len()
        ));
        assert_eq!(status, 403);
    }
    assert_eq!(gateway.list().len(), 1, "nothing was answered");
    use std::os::unix::fs::PermissionsExt;
    let control = gateway.socket().with_file_name("gatehouse.web.sock");
    let mode = std::fs::metadata(&control)
        .expect("the control socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the control socket is private");
    let _ = hook.kill();
    let _ = hook.wait();
}

#[test]
fn hostile_agent_text_shows_as_visible_escapes_and_never_as_markup() {
    if !browser_available() {
        return;
    }
    let gateway = Gateway::start();
    let web = Web::start(&gateway, "127.0.0.1:0");
    let mut event = claude_fixture("PermissionRequest-Bash");
    let command = "echo \u{1b}[8mhidden\u{1b}[0m <img src=x onerror=alert(1)> \u{202e}txt.exe";
    event["tool_input"]["command"] = json!(command);
    let mut hook = gateway.spawn_hook("claude", event.to_string().as_bytes(), &[]);
    let id = gateway.wait_for_pending(1)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    run(async {
        with_browser(PHONE, async |phone| {
            pair(phone, &web.first_link, "careful phone").await;
            let input = format!("{} [data-input]", card(&id));
            phone.wait_for(&input).await;
            assert_eq!(
                phone.text(&input).await,
                r"echo \e[8mhidden\e[0m <img src=x onerror=alert(1)> \u{202e}txt.exe"
            );
            assert_eq!(
                phone.count(&format!("{} img", card(&id))).await,
                0,
                "no markup"
            );
        })
        .await;
    });
    let _ = hook.kill();
    let _ = hook.wait();
}

#[test]
fn a_read_only_prompt_says_why_and_offers_no_button() {
    if !browser_available() {
        return;
    }
    let gateway = Gateway::start();
    let web = Web::start(&gateway, "127.0.0.1:0");
    let event = claude_fixture("PermissionRequest-Write");
    let mut hook = gateway.spawn_hook("claude", event.to_string().as_bytes(), &[]);
    let prompt = gateway.wait_for_pending(1).remove(0);
    let id = prompt["id"].as_str().unwrap().to_owned();
    run(async {
        with_browser(PHONE, async |phone| {
            pair(phone, &web.first_link, "reader").await;
            let note = phone
                .wait_for(&format!("{} [data-read-only]", card(&id)))
                .await;
            let text = note.text().await.unwrap();
            assert!(text.starts_with("Read-only here: "), "{text}");
            assert!(text.contains("terminal"), "it says where to answer: {text}");
            if let Some(reason) = prompt["read_only_reason"].as_str() {
                // The whole reason is one tap away ("Why"), its `quoted` parts shown as code.
                let why = format!("{} [data-read-only-why] summary", card(&id));
                if phone.count(&why).await > 0 {
                    phone.click(&why).await;
                }
                let whole = dom_text(phone, &format!("{} [data-read-only]", card(&id))).await;
                let reason = reason.replace('`', "");
                assert!(whole.contains(&reason), "{whole} lacks {reason}");
            }
            assert_eq!(
                phone.count(&format!("{} [data-action]", card(&id))).await,
                0
            );
            phone.screenshot("read-only-phone", PHONE).await;
        })
        .await;
    });
    let _ = hook.kill();
    let _ = hook.wait();
}

#[test]
fn the_page_says_when_the_gateway_is_down_and_follows_it_back_by_itself() {
    if !browser_available() {
        return;
    }
    let mut gateway = Gateway::start();
    let web = Web::start(&gateway, "127.0.0.1:0");
    let event = claude_fixture("PermissionRequest-Bash");
    let mut hook = gateway.spawn_hook("claude", event.to_string().as_bytes(), &[]);
    let id = gateway.wait_for_pending(1)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    run(async {
        with_browser(DESKTOP, async |desktop| {
            pair(desktop, &web.first_link, "watcher").await;
            desktop
                .wait_for(&format!("{} [data-action='once']", card(&id)))
                .await;
            gateway.kill();
            desktop
                .wait_until(
                    Duration::from_secs(5),
                    "the page to say the gateway is down",
                    async |page| {
                        page.count("[data-connection][data-up='false']").await == 1
                            && page
                                .text("[data-connection]")
                                .await
                                .contains("gateway down")
                    },
                )
                .await;
            wait_until_ended(desktop, &id, "The gateway went away").await;
            // One short line, no socket path; and never "nothing waits", which it cannot know.
            let connection = desktop.text("[data-connection]").await;
            assert!(!connection.contains('/'), "{connection}");
            assert!(desktop.shown("[data-empty]").await);
            let empty = desktop.text("[data-empty]").await;
            assert!(
                empty.contains("gateway is down") && !empty.contains("No prompt"),
                "{empty}"
            );
            desktop.screenshot("gateway-down-desktop", DESKTOP).await;
            gateway.start_again();
            desktop.wait_for("[data-connection][data-up='true']").await;
            // The hook holds its prompt again, under a new id, and the page shows it by itself.
            desktop
                .wait_for("[data-prompt-id][data-state='pending'] [data-action='once']")
                .await;
        })
        .await;
    });
    let _ = hook.kill();
    let _ = hook.wait();
}

#[test]
fn off_loopback_plain_http_is_refused_and_a_self_signed_certificate_is_served() {
    let gateway = Gateway::start();
    let refused = gateway.run(&["web", "--listen", "0.0.0.0:0"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--tls-self-signed"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let mut process = gateway
        .command(&["web", "--listen", "127.0.0.1:0", "--tls-self-signed"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(process.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("listening on https://127.0.0.1:"), "{first}");
    let fingerprint = lines.next().unwrap().unwrap();
    assert!(
        fingerprint.starts_with("TLS certificate SHA-256 fingerprint: "),
        "{fingerprint}"
    );
    let link = lines.next().unwrap().unwrap();
    assert!(
        link.contains("https://127.0.0.1:") && link.contains("/#pair="),
        "{link}"
    );
    let cert = gateway
        .home()
        .join(".local/state/gatehouse/web-tls/cert.pem");
    assert!(cert.exists(), "the certificate is kept in the state folder");
    let link = link.split_whitespace().last().unwrap().to_owned();
    if browser_available() {
        run(async {
            let browser = Browser::start_with(PHONE, true).await;
            let outcome = AssertUnwindSafe(async {
                // `pair` checks that the token is in this origin's storage and no cookie is set.
                pair(&browser, &link, "tls phone").await;
            })
            .catch_unwind()
            .await;
            browser.close().await;
            if let Err(panic) = outcome {
                std::panic::resume_unwind(panic);
            }
        });
    }
    let _ = process.kill();
    let _ = process.wait();
}

#[test]
fn the_page_escapes_every_character_the_cli_escapes() {
    if !browser_available() {
        return;
    }
    let gateway = Gateway::start();
    let web = Web::start(&gateway, "127.0.0.1:0");
    // Characters the hand-copied list of the page once missed: a variation selector, Hangul
    // fillers, the combining grapheme joiner, a variation selector of the supplement.
    let mut event = claude_fixture("PermissionRequest-Bash");
    let command = "echo ok\u{fe0f}\u{3164}\u{115f}\u{ffa0}\u{34f}\u{e0100}.txt";
    event["tool_input"]["command"] = json!(command);
    let _hook = gateway.spawn_hook("claude", event.to_string().as_bytes(), &[]);
    let id = gateway.wait_for_pending(1)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Every character the CLI escapes, and every other character of the Basic Multilingual
    // Plane, each followed by a letter.
    let sample: String = (0..=u32::from(char::MAX))
        .filter_map(char::from_u32)
        .filter(|&character| {
            gatehouse_core::text::needs_escape(character) || u32::from(character) < 0x1_0000
        })
        .flat_map(|character| [character, 'a'])
        .collect();
    let expected = gatehouse_core::text::visible(&sample).into_owned();
    run(async {
        with_browser(PHONE, async |phone| {
            pair(phone, &web.first_link, "escaping phone").await;
            let input = format!("{} [data-input]", card(&id));
            phone.wait_for(&input).await;
            assert_eq!(
                phone.text(&input).await,
                gatehouse_core::text::visible(command),
                "the card shows what the CLI shows"
            );
            let shown = phone
                .client
                .execute(
                    "return gatehouseText.visible(arguments[0])",
                    vec![json!(sample)],
                )
                .await
                .expect("the page's visible() runs");
            let shown = shown.as_str().expect("a string");
            if shown != expected {
                let first = shown
                    .chars()
                    .zip(expected.chars())
                    .position(|(page, cli)| page != cli)
                    .unwrap_or(shown.len().min(expected.len()));
                let around = |text: &str| {
                    text.chars()
                        .skip(first.saturating_sub(10))
                        .take(40)
                        .collect::<String>()
                };
                panic!(
                    "the page and the CLI differ at character {first}: page {:?}, CLI {:?}",
                    around(shown),
                    around(&expected)
                );
            }
        })
        .await;
    });
}
