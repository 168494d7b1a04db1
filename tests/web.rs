//! `gatehouse web`, proven by real clicks: the real Chromium (through chromedriver) against a real
//! `gatehouse web` and `gatehouse serve`, with the real Claude Code in tmux against the scripted
//! model (as in `e2e_claude`). What the fake model records is the proof of what reached the model;
//! what the page shows is what the person saw. Screenshots go to `target/web-screenshots/`.
//!
//! Without Chromium, chromedriver or Claude Code the tests are skipped locally, and fail in CI.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::web_front::{
    card, card_input_text, dom_text, http, pair, pair_link, pair_over_http, run, script,
    wait_until_ended, with_browser, with_paired_browser, Front, Paired, Web,
};
use crate::common::{claude_bash, claude_fixture, id_of, Gateway, Reaped, Sandbox};
use crate::support::browser::{browser_available, Browser, DESKTOP, PAGE_DEADLINE, PHONE};
use crate::support::claude_env::{
    answer_dialog, find_claude_bin, wait_idle, ClaudeEnv, BASH_DIALOG, CLAUDE_VERSION,
};
use crate::support::claude_world::{bash_turn, question_turn};
use crate::support::fake_anthropic::{tool_result_text, FakeAnthropic, ScriptedTurn};
use crate::support::tmux::Tmux;

const DEADLINE: Duration = Duration::from_secs(30);

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

    /// Like [`World::new`], with Claude Code started on `prompt`: the world, and the id of the
    /// prompt its first turn holds.
    pub fn holding(script: Vec<ScriptedTurn>, prompt: &str) -> Option<(World, String)> {
        let mut world = World::new(script)?;
        world.start(prompt);
        let id = world.held_id();
        Some((world, id))
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

fn audit_by(world: &World) -> Vec<String> {
    world
        .gateway
        .audit_log()
        .iter()
        .filter_map(|record| record["event"]["by"].as_str().map(str::to_owned))
        .collect()
}

impl Paired for World {
    fn web(&self) -> &Web {
        &self.web
    }
}

#[test]
fn an_unpaired_browser_sees_nothing_a_link_pairs_once_and_once_runs_the_command() {
    let Some((world, id)) =
        World::holding(vec![bash_turn("printf web > web.txt")], "write web.txt")
    else {
        return;
    };
    run(async {
        with_browser(PHONE, async |stranger| {
            stranger.open(&world.web.base).await;
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
                second.open(&world.web.first_link).await;
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
    let Some((world, id)) = World::holding(
        vec![bash_turn("rm -rf build && printf x > gone.txt")],
        "clean the build",
    ) else {
        return;
    };
    world.with_paired(Browser::start(PHONE), "deny phone", async |phone| {
        let card = card(&id);
        phone
            .type_into(
                &format!("{card} [data-deny-message]"),
                "use make clean instead",
            )
            .await;
        phone.click(&format!("{card} [data-action='deny']")).await;
        wait_until_ended(phone, &id, "Answered (deny) by web:deny phone").await;
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
    let Some((world, color)) = World::holding(script, "ask me a color") else {
        return;
    };
    let link = world.web.first_link.clone();
    with_paired_browser(Browser::start(PHONE), &link, "quiz phone", async |phone| {
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
        wait_until_ended(phone, &color, "Answered: “").await;
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
        wait_until_ended(phone, &toppings, "Answered: “").await;
    });
    let text = tool_result_text(&world.fake.wait_for_tool_results(2, DEADLINE)[1]);
    assert!(
        text.contains(r#""Which toppings?"="Cheese, Olives, extra garlic""#),
        "{text}"
    );
}

#[test]
fn a_prompt_answered_in_the_terminal_stops_offering_actions_on_the_page() {
    let Some((world, id)) =
        World::holding(vec![bash_turn("printf yes > yes.txt")], "write yes.txt")
    else {
        return;
    };
    world.with_paired(Browser::start(DESKTOP), "desk", async |desktop| {
        desktop
            .wait_for(&format!("{} [data-action='once']", card(&id)))
            .await;
        answer_dialog(world.tmux.as_ref().unwrap(), BASH_DIALOG, "1", DEADLINE);
        wait_until_ended(desktop, &id, "Withdrawn").await;
        desktop.screenshot("withdrawn-desktop", DESKTOP).await;
    });
    world.fake.wait_for_tool_results(1, DEADLINE);
    assert!(world.workspace_file("yes.txt").exists());
}

#[test]
fn a_paired_device_survives_a_restart_and_revoke_logs_it_out_at_once() {
    let Some(Front { mut web, gateway }) = Front::start() else {
        return;
    };
    let port = web.port();
    with_paired_browser(
        Browser::start(PHONE),
        &pair_link(&gateway),
        "kept phone",
        async |phone| {
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
        },
    );
    let file = gateway
        .home()
        .join(".local/state/gatehouse/web-devices.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn requests_without_the_token_or_with_a_forged_host_get_no_data() {
    let Front { web, gateway } = Front::start_without_browser();
    let port = web.port();
    let (_hook, prompt) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let id = id_of(&prompt);
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
}

#[test]
fn hostile_agent_text_shows_as_visible_escapes_and_never_as_markup() {
    let command = "echo \u{1b}[8mhidden\u{1b}[0m <img src=x onerror=alert(1)> \u{202e}txt.exe";
    let Some((front, [(_hook, prompt)])) = Front::holding([claude_bash(command)]) else {
        return;
    };
    let id = id_of(&prompt);
    front.with_paired(Browser::start(PHONE), "careful phone", async |phone| {
        assert_eq!(
            card_input_text(phone, &id).await,
            r"echo \e[8mhidden\e[0m <img src=x onerror=alert(1)> \u{202e}txt.exe"
        );
        assert_eq!(
            phone.count(&format!("{} img", card(&id))).await,
            0,
            "no markup"
        );
    });
}

#[test]
fn a_read_only_prompt_says_why_and_offers_no_button() {
    let Some((front, [(_hook, prompt)])) =
        Front::holding([claude_fixture("PermissionRequest-Write")])
    else {
        return;
    };
    let id = id_of(&prompt);
    front.with_paired(Browser::start(PHONE), "reader", async |phone| {
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
    });
}

#[test]
fn the_page_says_when_the_gateway_is_down_and_follows_it_back_by_itself() {
    let Some(Front { web, mut gateway }) = Front::start() else {
        return;
    };
    let (_hook, prompt) = gateway.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let id = id_of(&prompt);
    with_paired_browser(
        Browser::start(DESKTOP),
        &web.first_link,
        "watcher",
        async |desktop| {
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
        },
    );
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
    let mut process = Reaped::from(
        gateway
            .command(&["web", "--listen", "127.0.0.1:0", "--tls-self-signed"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(process.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("listening on https://127.0.0.1:"), "{first}");
    let fingerprint = lines.next().unwrap().unwrap();
    assert!(
        fingerprint.starts_with("TLS certificate SHA-256 fingerprint: "),
        "{fingerprint}"
    );
    let said = lines.next().unwrap().unwrap();
    assert!(said.starts_with("No pairing link printed"), "{said}");
    let link = pair_link(&gateway);
    assert!(
        link.starts_with("https://127.0.0.1:") && link.contains("/#pair="),
        "{link}"
    );
    let cert = gateway
        .home()
        .join(".local/state/gatehouse/web-tls/cert.pem");
    assert!(cert.exists(), "the certificate is kept in the state folder");
    if browser_available() {
        // `pair` checks that the token is in this origin's storage and no cookie is set.
        with_paired_browser(
            Browser::start_with(PHONE, true),
            &link,
            "tls phone",
            async |_| {},
        );
    }
}

#[test]
fn the_page_escapes_every_character_the_cli_escapes() {
    // Characters the hand-copied list of the page once missed: a variation selector, Hangul
    // fillers, the combining grapheme joiner, a variation selector of the supplement.
    let command = "echo ok\u{fe0f}\u{3164}\u{115f}\u{ffa0}\u{34f}\u{e0100}.txt";
    let Some((front, [(_hook, prompt)])) = Front::holding([claude_bash(command)]) else {
        return;
    };
    let id = id_of(&prompt);
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
    front.with_paired(Browser::start(PHONE), "escaping phone", async |phone| {
        assert_eq!(
            card_input_text(phone, &id).await,
            gatehouse_core::text::visible(command),
            "the card shows what the CLI shows"
        );
        let shown = script(
            phone,
            "return gatehouseText.visible(arguments[0])",
            vec![json!(sample)],
        )
        .await;
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
    });
}

/// A pairing link is a password for one browser. Printed by a service, it lands in the journal,
/// which other users may read: `gatehouse web` prints its first link only to a terminal, and to
/// anything else says where to get one. (Every [`Web::start`] also checks that its piped output
/// carries no link.)
#[test]
fn the_first_pairing_link_is_printed_only_to_a_terminal() {
    let gateway = Gateway::start();
    let piped = gateway
        .command(&["web", "--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("gatehouse web starts");
    let mut piped = Reaped::from(piped);
    let mut lines = BufReader::new(piped.stdout.take().unwrap()).lines();
    let said = loop {
        let line = lines.next().expect("a line").expect("text");
        assert!(
            !line.contains("#pair="),
            "a pairing link reached a pipe: {line}"
        );
        if line.starts_with("No pairing link printed") {
            break line;
        }
    };
    assert!(said.contains("gatehouse web pair"), "{said}");
    piped.stop();

    let home = gateway.sandbox.home();
    let config = gateway.sandbox.folder.path().join("config");
    let run = gateway.sandbox.folder.path().join("run");
    let socket = gateway.socket();
    let path = std::env::var("PATH").unwrap_or_default();
    let binary = crate::common::binary();
    let terminal = Tmux::start(
        "web",
        &home,
        &[
            ("PATH", path.as_str()),
            ("HOME", home.to_str().unwrap()),
            ("XDG_CONFIG_HOME", config.to_str().unwrap()),
            ("XDG_RUNTIME_DIR", run.to_str().unwrap()),
            ("GATEHOUSE_SOCKET", socket.to_str().unwrap()),
        ],
        &[binary.to_str().unwrap(), "web", "--listen", "127.0.0.1:0"],
    );
    terminal.wait_for_text("#pair=", DEADLINE);
}
