//! A page that says what is true (issue 26), on a 390x844 phone in the real Chromium, measured in
//! CSS pixels: the header keeps one short bar in every notification state and says each in a few
//! words (with ntfy where Web Push cannot work, and a timeout where it cannot finish); a card
//! shows what it asks right under who asks and where, its hold in one short line; an ended card
//! says how it ended and nothing else; a plan's buttons say what they do in Claude Code's words;
//! the "New" banner covers no card's header and goes once its prompt is answered; a question's
//! header sits inside its border; a large Write shows its content once.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::touch::centre;
use super::DEADLINE;
use crate::common::web_front::{card, dom_text, script, Front, Paired, Web};
use crate::common::{claude_bash, claude_fixture, finish, id_of, Gateway};
use crate::support::browser::{browser_available, Browser, Theme, PHONE};
use crate::support::push_service::PushService;

/// The tallest the top bar may be on a phone: one row, whatever it says.
const BAR_AT_MOST: f64 = 100.0;

/// The furthest below a card's top that what it asks may start.
const ASKS_WITHIN: f64 = 150.0;

/// The bounding box of the first element matching `css`: [top, height, width, bottom].
async fn bounds(browser: &Browser, css: &str) -> Vec<f64> {
    let value = script(
        browser,
        "const node = document.querySelector(arguments[0]);
         if (!node) return null;
         const r = node.getBoundingClientRect(); return [r.top, r.height, r.width, r.bottom]",
        vec![json!(css)],
    )
    .await;
    assert!(value.is_array(), "no `{css}` on the page");
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_f64().unwrap())
        .collect()
}

/// The notification state the page is in, what the header says of it, and the help line.
async fn notify_state(phone: &Browser) -> (String, String, String) {
    let value = script(
        phone,
        "const help = document.querySelector('[data-notify-help]');
         return [document.querySelector('[data-notify]').dataset.notifyState || '',
           document.querySelector('[data-notify-status]').textContent,
           help && !help.hidden ? help.textContent : ''];",
        vec![],
    )
    .await;
    let text = |index: usize| value[index].as_str().unwrap_or_default().to_owned();
    (text(0), text(1), text(2))
}

/// The top bar stays one short row (under [`BAR_AT_MOST`]) and its connection text readable
/// (not squeezed to a letter per line) in `state`; a screenshot of it.
async fn bar_holds(phone: &Browser, state: &str) {
    let bar = bounds(phone, ".bar").await;
    let connection = bounds(phone, "[data-connection]").await;
    let (_, short, _) = notify_state(phone).await;
    phone
        .screenshot(&format!("notify-{state}-phone"), PHONE)
        .await;
    assert!(
        bar[1] < BAR_AT_MOST,
        "{state}: the top bar is {} px tall ({short:?})",
        bar[1]
    );
    assert!(
        connection[2] >= 80.0 && connection[1] < 40.0,
        "{state}: the connection text is {connection:?}"
    );
    assert!(
        short.split_whitespace().count() <= 4,
        "{state}: a few words: {short:?}"
    );
}

/// A gateway and `gatehouse web` that take subscriptions of `service` (as `web_push` makes them).
pub(super) fn push_front(service: &PushService) -> Option<Front> {
    if !browser_available() {
        return None;
    }
    let gateway = Gateway::start();
    let folder = gateway
        .sandbox
        .folder
        .path()
        .join("config")
        .join("gatehouse");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("config.toml"),
        format!("[web]\npush_endpoints = [\"{}/push/\"]\n", service.origin()),
    )
    .unwrap();
    let web = Web::start(&gateway, "127.0.0.1:0");
    Some(Front { web, gateway })
}

/// Stands in for the browser maker's push service: `PushManager.subscribe` answers with
/// `endpoint` (only it: the page's own flow does the rest).
const SUBSCRIBE_STUB: &str = r#"
const [endpoint, p256dh, auth] = arguments;
PushManager.prototype.getSubscription = async function () { return null; };
PushManager.prototype.subscribe = async function (options) {
  return { endpoint, options, toJSON() { return { endpoint, expirationTime: null, keys: { p256dh, auth } }; },
    unsubscribe: async () => true };
};
return true;
"#;

#[test]
fn the_header_stays_one_short_row_and_says_each_notification_state_in_a_few_words() {
    let service = PushService::start(None);
    let Some(front) = push_front(&service) else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "a phone with a long name", async |phone| {
        let notify = "[data-notify]:not([hidden])";
        phone.wait_for(notify).await;
        bar_holds(phone, "off").await;
        let origin = front.web.base.clone();
        let permission = async |setting: &str| {
            phone
                .cdp(
                    "Browser.setPermission",
                    json!({ "origin": origin, "permission": { "name": "notifications" }, "setting": setting }),
                )
                .await;
        };

        // Blocked by the browser: it says so, and what to do, ntfy included.
        permission("denied").await;
        phone.tap(centre(phone, notify).await).await;
        phone
            .wait_until(DEADLINE, "the blocked state", async |page| {
                notify_state(page).await.0 == "blocked"
            })
            .await;
        let (_, short, help) = notify_state(phone).await;
        assert!(short.contains("Blocked"), "{short}");
        assert!(help.contains("site settings") && help.contains("ntfy"), "{help}");
        bar_holds(phone, "blocked").await;

        // Allowed, but this browser reaches no push service (Chromium without its vendor's): it
        // says so within seconds, never "asking" for ever.
        let again = "[data-notify-retry]:not([hidden])";
        permission("granted").await;
        phone.tap(centre(phone, again).await).await;
        let asked = Instant::now();
        phone
            .wait_until(DEADLINE, "the asking state", async |page| {
                let state = notify_state(page).await.0;
                state != "blocked" && state != "off"
            })
            .await;
        if notify_state(phone).await.0 == "asking" {
            bar_holds(phone, "asking").await;
        }
        phone
            .wait_until(Duration::from_secs(12), "the page to stop asking", async |page| {
                notify_state(page).await.0 != "asking"
            })
            .await;
        let (state, short, help) = notify_state(phone).await;
        eprintln!("without a push service after {:?}: {state} {short:?} {help:?}", asked.elapsed());
        assert!(state == "unreachable" || state == "failed", "{state}");
        assert!(help.contains("ntfy"), "{help}");
        bar_holds(phone, "no-push-service").await;

        // On.
        let endpoint = service.endpoint("ok", "header");
        let stubbed = script(
            phone,
            SUBSCRIBE_STUB,
            vec![json!(endpoint), json!(service.p256dh), json!(service.auth)],
        )
        .await;
        assert_eq!(stubbed, json!(true));
        phone.tap(centre(phone, again).await).await;
        phone
            .wait_for("[data-notify][data-notify-state='on']")
            .await;
        let (_, short, help) = notify_state(phone).await;
        assert_eq!(short, "Notifying");
        assert_eq!(help, "", "nothing to do when it is on");
        bar_holds(phone, "on").await;
    });
}

/// Where the page cannot use Web Push at all (plain HTTP off this machine), the button says why
/// and names ntfy.
#[test]
fn where_web_push_cannot_work_the_page_says_so_and_names_ntfy() {
    let Some(front) = Front::start() else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "plain phone", async |phone| {
        // As over plain HTTP to another machine: no secure context, so no service worker and no
        // PushManager. The page is loaded again with them gone.
        phone.wait_for("[data-app]:not([hidden])").await;
        phone
            .cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": "delete window.PushManager; Object.defineProperty(window, 'isSecureContext', { value: false });" }),
            )
            .await;
        phone.open(&front.web.base).await;
        let notify = "[data-notify]:not([hidden])";
        phone.wait_for(notify).await;
        phone.tap(centre(phone, notify).await).await;
        phone
            .wait_until(DEADLINE, "the page to say why", async |page| {
                notify_state(page).await.0 == "unsupported"
            })
            .await;
        let (_, short, help) = notify_state(phone).await;
        assert!(help.contains("HTTPS") && help.contains("ntfy_url"), "{help}");
        assert!(!short.is_empty());
        bar_holds(phone, "unsupported").await;
    });
}

/// The distance from the top of the card of `id` to the top of `what` in it.
async fn below_card_top(phone: &Browser, id: &str, what: &str) -> f64 {
    let card_top = bounds(phone, &card(id)).await[0];
    let what_top = bounds(phone, &format!("{} {what}", card(id))).await[0];
    what_top - card_top
}

#[test]
fn what_a_card_asks_comes_right_under_who_and_where_and_a_hold_is_one_short_line() {
    let Some(front) = Front::start() else {
        return;
    };
    // Held 60 s, as Codex holds its prompts.
    let held = front.spawn_hook(
        "claude",
        claude_bash("cargo publish --allow-dirty")
            .to_string()
            .as_bytes(),
        &[("GATEHOUSE_HOOK__WAIT_SECONDS", "60")],
    );
    let bash = front.wait_for_pending(1).remove(0);
    let (_edit_hook, edit) = front.hold_claude(&claude_fixture("PermissionRequest-Edit"));
    let (_plan_hook, plan) = front.hold_claude(&claude_fixture("PermissionRequest-ExitPlanMode"));
    let (_question_hook, question) =
        front.hold_claude(&claude_fixture("PermissionRequest-AskUserQuestion"));
    front.with_paired(Browser::phone(Theme::Light), "order phone", async |phone| {
        let cases = [
            (&bash, "[data-input]"),
            (&edit, "[data-diff]"),
            (&plan, "[data-plan]"),
            (&question, "[data-question-id]"),
        ];
        for (prompt, what) in cases {
            let id = id_of(prompt);
            phone.wait_for(&format!("{} {what}", card(&id))).await;
            script(
                phone,
                "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })",
                vec![json!(card(&id))],
            )
            .await;
            let below = below_card_top(phone, &id, what).await;
            phone
                .screenshot(
                    &format!("asks-first-{}-phone", prompt["tool"].as_str().unwrap()),
                    PHONE,
                )
                .await;
            assert!(
                below <= ASKS_WITHIN,
                "{}: `{what}` starts {below} px below the card's top",
                prompt["tool"]
            );
        }
        // The hold: one line, its countdown standing out, below the command and above the
        // buttons.
        let bash_card = card(&id_of(&bash));
        let hold = bounds(phone, &format!("{bash_card} .hold-line")).await;
        assert!(hold[1] < 32.0, "one line: {hold:?}");
        let left = format!("{bash_card} [data-hold-left]");
        let weight = script(
            phone,
            "return getComputedStyle(document.querySelector(arguments[0])).fontWeight",
            vec![json!(left)],
        )
        .await;
        assert!(
            weight.as_str().unwrap().parse::<u32>().unwrap() >= 700,
            "{weight}"
        );
        assert!(phone.text(&left).await.ends_with('s'));
        let command = bounds(phone, &format!("{bash_card} [data-input]")).await;
        let buttons = bounds(phone, &format!("{bash_card} [data-action='once']")).await;
        assert!(
            command[3] <= hold[0] && hold[3] <= buttons[0],
            "{command:?} {hold:?} {buttons:?}"
        );
        // A question's header sits inside its border, never on it.
        let question_card = card(&id_of(&question));
        let inside = script(
            phone,
            "const set = document.querySelector(arguments[0] + ' fieldset');
             const header = set.querySelector('.header').getBoundingClientRect();
             const border = parseFloat(getComputedStyle(set).borderTopWidth);
             return [header.top, set.getBoundingClientRect().top + border];",
            vec![json!(question_card)],
        )
        .await;
        assert!(
            inside[0].as_f64().unwrap() >= inside[1].as_f64().unwrap(),
            "the question's header is below its top border: {inside}"
        );
    });
    drop(held);
}

#[test]
fn an_ended_card_says_how_it_ended_and_nothing_else() {
    let Some(front) = Front::start() else {
        return;
    };
    let long: String = (1..=40).map(|n| format!("echo step {n}\n")).collect();
    let held = front.spawn_hook(
        "claude",
        claude_bash(&long).to_string().as_bytes(),
        &[("GATEHOUSE_HOOK__WAIT_SECONDS", "600")],
    );
    let prompt = front.wait_for_pending(1).remove(0);
    let id = id_of(&prompt);
    front.with_paired(Browser::phone(Theme::Light), "ended phone", async |phone| {
        phone
            .wait_for(&format!("{} [data-hold-left]", card(&id)))
            .await;
        let answered = front.run(&["answer", &id, "deny"]);
        assert!(answered.status.success(), "{answered:?}");
        let ended = format!("[data-ended-items] {}", card(&id));
        phone.wait_for(&ended).await;
        script(
            phone,
            "document.querySelector('[data-ended-list]').open = true",
            vec![],
        )
        .await;
        script(
            phone,
            "document.querySelector(arguments[0]).scrollIntoView()",
            vec![json!(ended)],
        )
        .await;
        phone.screenshot("ended-card-phone", PHONE).await;
        let text = dom_text(phone, &ended).await;
        assert!(text.contains("Answered (deny)"), "{text}");
        for stale in ["within", "left to answer", "Allow", "collapsed", "then?"] {
            assert!(
                !text.contains(stale),
                "an ended card says `{stale}`: {text}"
            );
        }
        assert_eq!(phone.count(&format!("{ended} [data-hold]")).await, 0);
        // How it ended comes first, under who asked and where.
        let status = bounds(phone, &format!("{ended} [data-status]")).await[0];
        let command = bounds(phone, &format!("{ended} [data-input]")).await[0];
        assert!(status < command, "the outcome above the command");
    });
    finish(held, DEADLINE);
}

#[test]
fn a_plans_buttons_say_what_they_do_in_claude_codes_words() {
    let Some(front) = Front::start() else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "plan phone", async |phone| {
        // An answerable plan as the gateway lists it once Claude Code's plans are probed.
        let mut plan = json!({
            "id": "01900000-0000-7000-8000-000000000001", "short_id": "0001", "adapter": "claude",
            "tool": "ExitPlanMode", "kind": "plan", "state": "pending", "host": "here", "origin": "local",
            "cwd": "/home/dev/project", "created_at": "2026-01-01T00:00:00Z",
            "input": { "plan": "# Plan\n1. do X\n" }, "actions": ["once", "deny"],
            "preview": { "format": "markdown", "text": "# Plan\n1. do X\n" },
        });
        let words = script(
            phone,
            "const card = gatehouseCards.render(arguments[0], { localHost: 'here', home: '/home/dev', act: () => {} });
             const text = (css) => card.querySelector(css) && card.querySelector(css).textContent;
             return [text('[data-action=once]'), text('[data-action=deny]'), text('[data-plan-effect]')];",
            vec![plan.clone()],
        )
        .await;
        let once = words[0].as_str().unwrap();
        assert!(once.contains("approve the plan") && !once.contains("Allow"), "{words}");
        assert_eq!(words[1], "No, keep planning");
        let effect = words[2].as_str().unwrap();
        assert!(
            effect.contains("Claude Code") && effect.contains("mode it was in before planning"),
            "{effect}"
        );
        // Anything else keeps its words.
        plan["kind"] = json!("permission");
        let once = script(
            phone,
            "return gatehouseCards.render(arguments[0], { localHost: 'here', home: '', act: () => {} })
               .querySelector('[data-action=once]').textContent",
            vec![plan],
        )
        .await;
        assert_eq!(once, "Allow once");
    });
}

#[test]
fn the_new_banner_covers_no_card_header_and_goes_once_its_prompt_is_answered_here() {
    let Some(front) = Front::start() else {
        return;
    };
    let hooks: Vec<_> = (0..3)
        .map(|n| front.hold_claude(&claude_bash(&format!("echo old {n}"))).0)
        .collect();
    let mut answered_hook = None;
    front.with_paired(Browser::phone(Theme::Light), "banner phone", async |phone| {
        phone
            .wait_until(DEADLINE, "three cards", async |page| {
                page.count("[data-answerable-list] > [data-prompt-id]").await == 3
            })
            .await;
        // A card's header right under the top bar.
        script(
            phone,
            "const second = document.querySelectorAll('[data-answerable-list] > [data-prompt-id]')[1];
             window.scrollTo(0, second.getBoundingClientRect().top + scrollY - document.querySelector('.bar').offsetHeight);",
            vec![],
        )
        .await;
        let (hook, fresh) = front.hold_claude(&claude_bash("echo new one"));
        answered_hook = Some(hook);
        phone.wait_for("[data-banner]:not([hidden])").await;
        phone.screenshot("banner-over-the-bar-phone", PHONE).await;
        let covered: Value = script(
            phone,
            "const banner = document.querySelector('[data-banner]').getBoundingClientRect();
             return Array.from(document.querySelectorAll('[data-prompt-id] .meta'))
               .map((meta) => meta.getBoundingClientRect())
               .filter((meta) => meta.height > 0 && meta.top < banner.bottom && meta.bottom > banner.top)
               .map((meta) => [meta.top, meta.bottom, banner.top, banner.bottom]);",
            vec![],
        )
        .await;
        assert_eq!(covered, json!([]), "card headers under the banner");
        // Answered on the page, the banner goes with it.
        let fresh_card = card(&id_of(&fresh));
        phone.click(&format!("{fresh_card} [data-action='deny']")).await;
        phone
            .wait_until(Duration::from_secs(3), "the banner to go with its prompt", async |page| {
                !page.shown("[data-banner]").await
            })
            .await;
    });
    if let Some(hook) = answered_hook {
        finish(hook, DEADLINE);
    }
    drop(hooks);
}

/// An 857 KB Write, loaded whole: its content is on the page once, not twice.
#[test]
fn a_large_write_shows_its_content_once() {
    let Some(front) = Front::start() else {
        return;
    };
    let content: String = (0..30_600)
        .map(|n| format!("line {n:06} of the big file\n"))
        .collect();
    assert!(content.len() > 850_000, "{}", content.len());
    let mut event = claude_fixture("PermissionRequest-Write");
    event["tool_input"]["content"] = json!(content);
    let (_hook, prompt) = front.hold_claude(&event);
    front.with_paired(Browser::phone(Theme::Light), "write phone", async |phone| {
        let cut = card(&id_of(&prompt));
        phone.wait_for(&format!("{cut} [data-load-whole]")).await;
        phone.click(&format!("{cut} [data-load-whole]")).await;
        let whole = format!("{}[data-whole]", card(&id_of(&prompt)));
        phone.wait_for(&whole).await;
        phone.screenshot("large-write-phone", PHONE).await;
        let counts = script(
            phone,
            "const text = document.querySelector(arguments[0]).textContent;
             return ['line 000000 of', 'line 030599 of'].map((line) => text.split(line).length - 1);",
            vec![json!(whole)],
        )
        .await;
        eprintln!("the first and last lines appear {counts} times");
        for count in counts.as_array().unwrap() {
            assert!(count.as_u64().unwrap() <= 1, "content twice: {counts}");
        }
        assert!(
            counts[0].as_u64().unwrap() == 1,
            "the content is shown: {counts}"
        );
    });
}
