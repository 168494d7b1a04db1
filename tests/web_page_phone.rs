//! The findings of a cold review on a 390x844 phone (issue 26), in the real Chromium, tapped as a
//! finger taps (WebDriver touch actions at screen points) and measured in CSS pixels: opening a
//! card's "then?" moves none of its buttons, so "Hand back" takes the next tap; a refusal goes
//! once its moment has passed; the "New" banner goes once its card was on the screen and never
//! lies over the outcome notice, which covers no part of the header; the notification notes move
//! no card and the header's connection state is never cut; an answered card keeps its place
//! showing what was answered; code words are `<code>`, never backticks; an ended question says
//! "Answered: “Blue”" and a denied card its message.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::touch::centre;
use super::truth::push_front;
use super::DEADLINE;
use crate::common::web_front::{card, dom_text, script, Front, Paired};
use crate::common::{claude_bash, claude_fixture, finish, id_of};
use crate::support::browser::{Browser, Theme, PHONE};
use crate::support::push_service::PushService;
use crate::web_push::{deliver, notifications};

/// Installed in the page: `window.posts` records the path and body of every POST it makes.
const WATCH_POSTS: &str = r#"
window.posts = [];
const post = window.fetch;
window.fetch = function (path, options) {
  if (options && options.method === 'POST') window.posts.push([String(path), String(options.body)]);
  return post.apply(this, arguments);
};
return true;
"#;

/// Where each answer button of the card `css` is, in CSS pixels of the page:
/// `[action, left, top, width, height]`.
async fn buttons(phone: &Browser, css: &str) -> Value {
    script(
        phone,
        "return Array.from(document.querySelector(arguments[0]).querySelectorAll('[data-action]')).map((b) => {
           const r = b.getBoundingClientRect();
           return [b.dataset.action, r.left, r.top + scrollY, r.width, r.height];
         })",
        vec![json!(css)],
    )
    .await
}

/// The box of the first element matching `css` in the viewport, `[left, top, right, bottom]`,
/// or null when there is none or it is not shown.
async fn rect(phone: &Browser, css: &str) -> Value {
    script(
        phone,
        "const node = document.querySelector(arguments[0]);
         if (!node) return null;
         const r = node.getBoundingClientRect();
         if (r.width === 0 && r.height === 0) return null;
         return [r.left, r.top, r.right, r.bottom];",
        vec![json!(css)],
    )
    .await
}

fn overlap(a: &Value, b: &Value) -> bool {
    let n = |v: &Value, i: usize| v[i].as_f64().unwrap();
    n(a, 0) < n(b, 2) && n(b, 0) < n(a, 2) && n(a, 1) < n(b, 3) && n(b, 1) < n(a, 3)
}

/// The text of a refusal ("Not sent ...") in the card `css`, or "" when it says none.
async fn refusal_in(phone: &Browser, css: &str) -> String {
    script(
        phone,
        "const card = document.querySelector(arguments[0]);
         if (!card) return '';
         const note = Array.from(card.querySelectorAll('*'))
           .find((node) => node.children.length === 0 && /not sent/i.test(node.textContent));
         return note ? note.textContent : '';",
        vec![json!(css)],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// Waits until the card `css` takes taps on its `action` button.
async fn takes_taps(phone: &Browser, css: &str, action: &str) {
    phone
        .wait_until(DEADLINE, "the card to take a tap", async |page| {
            page.count(&format!(
                "{css}:not([data-settling]) [data-action='{action}']:not(:disabled)"
            ))
            .await
                == 1
        })
        .await;
}

/// The person opens "then?" on a held card (what happens when the hold ends): none of the
/// card's buttons moves, and a tap on "Hand back to terminal" right after is sent, not refused
/// as "the list moved".
#[test]
fn opening_then_moves_no_button_and_hand_back_takes_the_next_tap() {
    let Some(front) = Front::start() else {
        return;
    };
    let held = front.spawn_hook(
        "claude",
        claude_bash("make release").to_string().as_bytes(),
        &[("GATEHOUSE_HOOK__WAIT_SECONDS", "600")],
    );
    let prompt = front.wait_for_pending(1).remove(0);
    let id = id_of(&prompt);
    let this = card(&id);
    front.with_paired(Browser::phone(Theme::Light), "then phone", async |phone| {
        phone.wait_for(&format!("{this} [data-hold-left]")).await;
        takes_taps(phone, &this, "release").await;
        let before = buttons(phone, &this).await;
        let toggle = format!("{this} [data-hold] .then summary, {this} [data-then]");
        let at = centre(phone, &toggle).await;
        eprintln!("then? at {at:?}");
        phone.tap(at).await;
        let after_hold = format!("{this} [data-after-hold]");
        phone
            .wait_until(DEADLINE, "what happens then to be shown", async |page| {
                !rect(page, &after_hold).await.is_null()
            })
            .await;
        // Hand back is tapped at once, well within the 2.5 s a card that moved waits.
        let opened = Instant::now();
        let after = buttons(phone, &this).await;
        let text = dom_text(phone, &after_hold).await;
        assert_eq!(script(phone, WATCH_POSTS, vec![]).await, json!(true));
        phone
            .tap(centre(phone, &format!("{this} [data-action='release']")).await)
            .await;
        let tapped_after = opened.elapsed();
        phone.screenshot("then-hand-back-phone", PHONE).await;
        eprintln!("buttons before {before}, after {after}; Hand back tapped {tapped_after:?} after then? opened");
        assert_eq!(before, after, "opening then? moved the card's buttons");
        assert!(text.contains("When the hold ends"), "{text}");
        assert!(tapped_after < Duration::from_secs(3), "tapped within 3 s: {tapped_after:?}");
        phone
            .wait_until(DEADLINE, "the tap to be sent or refused", async |page| {
                let posts = script(page, "return window.posts", vec![]).await;
                !posts.as_array().unwrap().is_empty() || !refusal_in(page, &this).await.is_empty()
            })
            .await;
        let refused = refusal_in(phone, &this).await;
        assert_eq!(refused, "", "the tap on Hand back was refused");
        let posts = script(phone, "return window.posts", vec![]).await;
        assert_eq!(posts[0][0], "/api/release", "{posts}");
    });
    finish(held, DEADLINE);
}

/// A tap on a card that just came is refused, and the refusal goes once the buttons take taps
/// again (within a few seconds), without moving "Hand back" when it comes or goes.
#[test]
fn a_refusal_goes_once_the_buttons_take_taps_again() {
    let Some((front, [(hook, prompt)])) = Front::holding([claude_bash("make deploy")]) else {
        return;
    };
    let id = id_of(&prompt);
    let this = card(&id);
    front.with_paired(
        Browser::phone(Theme::Light),
        "refusal phone",
        async |phone| {
            // Loaded again, the card has just come: its buttons wait.
            phone.open(&front.web.base).await;
            phone
                .wait_for(&format!("{this}[data-settling] [data-action='once']"))
                .await;
            let release = format!("{this} [data-action='release']");
            let hand_back = rect(phone, &release).await;
            phone
                .tap(centre(phone, &format!("{this} [data-action='once']")).await)
                .await;
            let tapped = Instant::now();
            phone
                .wait_until(DEADLINE, "the refusal", async |page| {
                    !refusal_in(page, &this).await.is_empty()
                })
                .await;
            phone.screenshot("refusal-shown-phone", PHONE).await;
            assert_eq!(
                rect(phone, &release).await,
                hand_back,
                "the refusal moved Hand back"
            );
            // Watched until it goes: when the buttons take taps again, the refusal is gone.
            let mut unsettled_at = None;
            let gone_at = loop {
                let state = script(
                    phone,
                    "const card = document.querySelector(arguments[0]);
                 return [card.hasAttribute('data-settling')]",
                    vec![json!(this)],
                )
                .await;
                let refusal = refusal_in(phone, &this).await;
                if state[0] == json!(false) && unsettled_at.is_none() {
                    unsettled_at = Some(tapped.elapsed());
                }
                if refusal.is_empty() {
                    break tapped.elapsed();
                }
                assert!(
                    tapped.elapsed() < Duration::from_secs(15),
                    "the refusal `{refusal}` is still there {:?} after the tap",
                    tapped.elapsed()
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            };
            phone.screenshot("refusal-gone-phone", PHONE).await;
            eprintln!(
                "the buttons took taps after {unsettled_at:?}, the refusal went after {gone_at:?}"
            );
            assert!(
                gone_at < Duration::from_secs(6),
                "the refusal stayed {gone_at:?}"
            );
            if let Some(unsettled) = unsettled_at {
                assert!(
                gone_at <= unsettled + Duration::from_millis(600),
                "the refusal stayed {gone_at:?} though the buttons took taps after {unsettled:?}"
            );
            }
            assert_eq!(
                rect(phone, &release).await,
                hand_back,
                "the refusal's going moved Hand back"
            );
        },
    );
    let denied = front.run(&["answer", &id, "deny"]);
    assert!(denied.status.success(), "{denied:?}");
    finish(hook, DEADLINE);
}

/// The "New" banner goes once its card has been on the screen; the outcome notice of a prompt
/// that ended never lies over the banner or the header.
#[test]
fn the_new_banner_goes_once_its_card_was_on_screen_and_the_outcome_covers_neither_it_nor_the_header(
) {
    let Some((front, [(hook_a, a)])) = Front::holding([claude_bash("echo a")]) else {
        return;
    };
    let mut hooks = Vec::new();
    let mut others = Vec::new();
    front.with_paired(
        Browser::phone(Theme::Light),
        "banner phone",
        async |phone| {
            phone.wait_for(&card(&id_of(&a))).await;
            let (hook_b, b) = front.hold_claude(&claude_bash("echo b"));
            hooks.push(hook_b);
            others.push(id_of(&b));
            phone.wait_for("[data-banner]:not([hidden])").await;
            phone.wait_for(&card(&id_of(&b))).await;
            script(
                phone,
                "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })",
                vec![json!(card(&id_of(&b)))],
            )
            .await;
            let seen = Instant::now();
            phone
                .wait_until(
                    Duration::from_secs(8),
                    "the banner to go once its card was seen",
                    async |page| !page.shown("[data-banner]").await,
                )
                .await;
            eprintln!(
                "the banner went {:?} after its card was on the screen",
                seen.elapsed()
            );
            assert!(
                seen.elapsed() < Duration::from_secs(6),
                "{:?}",
                seen.elapsed()
            );

            // A new prompt's banner and the outcome of another at once.
            script(phone, "window.scrollTo(0, 0)", vec![]).await;
            let (hook_c, c) = front.hold_claude(&claude_bash("echo c"));
            hooks.push(hook_c);
            others.push(id_of(&c));
            phone.wait_for("[data-banner]:not([hidden])").await;
            let answered = front.run(&["answer", &id_of(&a), "deny"]);
            assert!(answered.status.success(), "{answered:?}");
            phone.wait_for("[data-outcome]:not([hidden])").await;
            phone.screenshot("banner-and-outcome-phone", PHONE).await;
            let banner = rect(phone, "[data-banner]").await;
            let outcome = rect(phone, "[data-outcome]").await;
            let bar = rect(phone, ".bar").await;
            eprintln!("banner {banner}, outcome {outcome}, bar {bar}");
            assert!(!outcome.is_null(), "the outcome is shown");
            if !banner.is_null() {
                assert!(
                    !overlap(&banner, &outcome),
                    "the outcome {outcome} lies over the banner {banner}"
                );
            }
            assert!(
                !overlap(&bar, &outcome),
                "the outcome {outcome} lies over the header {bar}"
            );
        },
    );
    for id in others {
        let denied = front.run(&["answer", &id, "deny"]);
        assert!(denied.status.success(), "{denied:?}");
    }
    finish(hook_a, DEADLINE);
    for hook in hooks {
        finish(hook, DEADLINE);
    }
}

/// Installed in the page: `window.cardTops` keeps the lowest and highest top (in the page) the
/// card `css` had at any frame.
const WATCH_THE_CARD: &str = r#"
const css = arguments[0];
window.cardTops = [Infinity, -Infinity];
const look = () => {
  const node = document.querySelector(css);
  if (node) {
    const top = node.getBoundingClientRect().top + scrollY;
    window.cardTops = [Math.min(window.cardTops[0], top), Math.max(window.cardTops[1], top)];
  }
  requestAnimationFrame(look);
};
look();
return true;
"#;

/// The header: whether the connection state is shown whole (not cut, clear of the
/// notification control), and how wide the notification control is.
async fn header(phone: &Browser, state: &str) -> (bool, f64, String) {
    let value = script(
        phone,
        "const state = document.querySelector('[data-connection-state]') || document.querySelector('[data-connection]');
         const slot = document.querySelector('#notify-slot').getBoundingClientRect();
         const box = state.getBoundingClientRect();
         const whole = state.scrollWidth <= state.clientWidth + 1 && box.right <= slot.left && box.height > 0;
         return [whole, slot.width, state.textContent];",
        vec![],
    )
    .await;
    phone
        .screenshot(&format!("header-{state}-phone"), PHONE)
        .await;
    (
        value[0] == json!(true),
        value[1].as_f64().unwrap(),
        value[2].as_str().unwrap_or_default().to_owned(),
    )
}

/// Notes about notifications (blocked, then no push service within seconds after "Try again")
/// move no card; the header keeps the connection state whole and the notification control
/// short in every state.
#[test]
fn notification_notes_move_no_card_and_the_header_keeps_the_connection_state_whole() {
    let service = PushService::start(None);
    let Some(front) = push_front(&service) else {
        return;
    };
    let (hook, prompt) = front.hold_claude(&claude_bash("make deploy"));
    let this = card(&id_of(&prompt));
    front.with_paired(Browser::phone(Theme::Light), "a phone with a long name", async |phone| {
        phone.wait_for(&format!("{this} [data-input]")).await;
        let notify = "[data-notify]:not([hidden])";
        phone.wait_for(notify).await;
        let (whole, slot, words) = header(phone, "off").await;
        assert!(whole, "off: the connection state `{words}` is cut");
        assert!(slot <= 120.0, "off: the notification control is {slot} px wide");
        assert_eq!(script(phone, WATCH_THE_CARD, vec![json!(this)]).await, json!(true));
        let origin = front.web.base.clone();
        let permission = async |setting: &str| {
            phone
                .cdp(
                    "Browser.setPermission",
                    json!({ "origin": origin, "permission": { "name": "notifications" }, "setting": setting }),
                )
                .await;
        };
        permission("denied").await;
        phone.tap(centre(phone, notify).await).await;
        phone.wait_for("[data-notify][data-notify-state='blocked']").await;
        phone.wait_for("[data-notify-help]:not([hidden])").await;
        let (whole, slot, words) = header(phone, "blocked").await;
        assert!(whole, "blocked: the connection state `{words}` is cut");
        assert!(slot <= 120.0, "blocked: the notification control is {slot} px wide");
        let tops = script(phone, "return window.cardTops", vec![]).await;
        assert_eq!(tops[0], tops[1], "the blocked note moved the card: {tops}");

        permission("granted").await;
        phone.tap(centre(phone, "[data-notify-retry]:not([hidden])").await).await;
        phone
            .wait_until(Duration::from_secs(20), "the page to stop asking", async |page| {
                let state = script(page, "return document.querySelector('[data-notify]').dataset.notifyState", vec![]).await;
                state == json!("unreachable") || state == json!("failed")
            })
            .await;
        phone.wait_for("[data-notify-help]:not([hidden])").await;
        let (whole, slot, words) = header(phone, "no-push-service").await;
        assert!(whole, "no push service: the connection state `{words}` is cut");
        assert!(slot <= 120.0, "no push service: the notification control is {slot} px wide");
        let tops = script(phone, "return window.cardTops", vec![]).await;
        assert_eq!(tops[0], tops[1], "the no-push-service note moved the card: {tops}");
        let help = dom_text(phone, "[data-notify-help]").await;
        assert!(help.contains("ntfy"), "{help}");
    });
    drop(hook);
}

/// Every text node of `root` (a selector) outside code, commands and inputs that holds a
/// backtick.
const BACKTICKS_IN: &str = r#"
const root = arguments[0] instanceof Element ? arguments[0] : document.querySelector(arguments[0]);
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
const found = [];
while (walker.nextNode()) {
  const node = walker.currentNode;
  if (node.parentElement.closest('code, pre, .input, [data-input], [data-field], [data-rule]')) continue;
  if (node.textContent.includes('`')) found.push(node.textContent);
}
return found;
"#;

/// Code words the page or the gateway writes between backticks are shown as `<code>`, never as
/// backticks: what an "always" rule lets through, a read-only reason, what happens after a hold,
/// and the page's own words when the browser is logged out; a notification (plain text) has none.
#[test]
fn code_words_are_shown_as_code_never_as_backticks() {
    let Some((front, [(hook, prompt)])) = Front::holding([claude_bash("make deploy")]) else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "code phone", async |phone| {
        phone.wait_for(&card(&id_of(&prompt))).await;
        let live = script(phone, &format!("return (function () {{ {BACKTICKS_IN} }})(document.body)"), vec![]).await;
        assert_eq!(live, json!([]), "backticks on the live page");
        let ends = "2999-01-01T00:00:00Z";
        let answerable = json!({
            "id": "01900000-0000-7000-8000-000000000001", "short_id": "0001", "adapter": "claude",
            "tool": "Edit", "kind": "permission", "state": "pending", "host": "here", "origin": "local",
            "cwd": "/home/dev/project", "created_at": "2026-01-01T00:00:00Z",
            "input": { "file_path": "/home/dev/project/a.txt" }, "actions": ["once", "always", "deny"],
            "hold_ends_at": ends, "after_hold": "then `claude` asks in its own dialog",
            "suggestions": [{ "id": "s1", "summary": "mode `acceptEdits`", "native": { "mode": "acceptEdits" }, "scopes": ["session"],
              "allows": [{ "kind": "mode", "mode": "acceptEdits", "lets_through": "every edit in `/home/dev/project`, and `mkdir`" }] }],
        });
        let read_only = json!({
            "id": "01900000-0000-7000-8000-000000000002", "short_id": "0002", "adapter": "claude",
            "tool": "Write", "kind": "permission", "state": "pending", "host": "here", "origin": "local",
            "cwd": "/home/dev/project", "created_at": "2026-01-01T00:00:00Z",
            "input": { "file_path": "/home/dev/project/b.txt", "content": "x" }, "actions": [],
            "read_only_reason": "no probe of `claude` 2.1 proved `Write` answers: run `gatehouse probe claude`. Until then its own dialog decides",
        });
        for (name, prompt) in [("always", answerable), ("read-only", read_only)] {
            let found = script(
                phone,
                &format!(
                    "const card = gatehouseCards.render(arguments[0], {{ localHost: 'here', home: '/home/dev', act: () => {{}} }});
                     document.querySelector('[data-answerable-list]').append(card);
                     for (const details of card.querySelectorAll('details')) details.open = true;
                     const codes = Array.from(card.querySelectorAll('code')).map((code) => code.textContent);
                     const found = (function () {{ {} }})(card);
                     card.remove();
                     return [found, codes];",
                    BACKTICKS_IN
                ),
                vec![prompt],
            )
            .await;
            eprintln!("{name}: {found}");
            assert_eq!(found[0], json!([]), "{name}: backticks as text");
            assert!(!found[1].as_array().unwrap().is_empty(), "{name}: code as <code>: {found}");
        }

        // A notification is plain text: the push test's names its command without backticks.
        phone
            .cdp(
                "Browser.grantPermissions",
                json!({ "origin": front.web.base, "permissions": ["notifications"] }),
            )
            .await;
        deliver(phone, &front.web.base, r#"{"type":"test"}"#, |shown| {
            shown.iter().any(|shown| shown["title"] == "gatehouse")
        })
        .await;
        let shown = notifications(phone).await;
        let body = shown[0]["body"].as_str().unwrap_or_default();
        assert!(body.contains("gatehouse web push-test") && !body.contains('`'), "{shown:?}");

        // Logged out: the page's own words name the command as code.
        let revoked = front.run(&["web", "revoke", "--all"]);
        assert!(revoked.status.success(), "{revoked:?}");
        phone.wait_for("[data-unpaired]:not([hidden])").await;
        phone.screenshot("logged-out-phone", PHONE).await;
        // The page hears of it as the feed's last word or as its next request's 401.
        let reason = dom_text(phone, "[data-unpaired-reason]").await;
        assert!(!reason.contains('`'), "{reason}");
        if reason.contains("gatehouse web revoke") {
            assert_eq!(dom_text(phone, "[data-unpaired-reason] code").await, "gatehouse web revoke", "{reason}");
        }
        // How the page reads code words: a run of backticks closed by the same run, one space of
        // padding around code that starts or ends with a backtick (as the core quotes it).
        let read = script(
            phone,
            "return arguments[0].map((text) => gatehouseDom.withCode(text)
               .map((node) => node.nodeType === 1 ? ['code', node.textContent] : node.textContent))",
            vec![json!([
                "logged out (`gatehouse web revoke`).",
                "the rule ``a`b`` and `` `x` ``",
                "an unclosed ` stays",
                "<b>`</b>` is text",
            ])],
        )
        .await;
        assert_eq!(
            read,
            json!([
                ["logged out (", ["code", "gatehouse web revoke"], ")."],
                ["the rule ", ["code", "a`b"], " and ", ["code", "`x`"]],
                ["an unclosed ` stays"],
                ["<b>", ["code", "</b>"], " is text"],
            ])
        );
        assert_eq!(phone.count("b").await, 0, "no markup was made");
    });
    drop(hook);
}

/// An answered card keeps its place showing what was answered; a question answered here says
/// "Answered: “Blue”"; a denied card shows the message sent with it, in place and under
/// "Recently ended".
#[test]
fn an_answered_card_shows_what_was_answered_and_a_denied_one_its_message() {
    let Some((front, [(question_hook, question), (bash_hook, bash)])) = Front::holding([
        claude_fixture("PermissionRequest-AskUserQuestion"),
        claude_bash("make deploy --target production"),
    ]) else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "ended phone", async |phone| {
        let question_card = card(&id_of(&question));
        let bash_card = card(&id_of(&bash));
        phone
            .wait_for(&format!("{question_card} [data-option='Blue']"))
            .await;
        phone
            .click(&format!("{question_card} [data-option='Blue']"))
            .await;
        takes_taps(phone, &question_card, "answer").await;
        let height = rect(phone, &question_card).await;
        phone
            .tap(centre(phone, &format!("{question_card} [data-action='answer']")).await)
            .await;
        phone
            .wait_for(&format!("{question_card}[data-ended-here]"))
            .await;
        phone.screenshot("answered-in-place-phone", PHONE).await;
        let kept = rect(phone, &question_card).await;
        let tall = |r: &Value| r[3].as_f64().unwrap() - r[1].as_f64().unwrap();
        assert!(
            (tall(&kept) - tall(&height)).abs() < 1.0,
            "the place is kept: {height} {kept}"
        );
        let text = script(
            phone,
            "return document.querySelector(arguments[0]).innerText",
            vec![json!(question_card)],
        )
        .await;
        let text = text.as_str().unwrap();
        assert!(text.contains("Which color?"), "what was asked: {text}");
        assert!(text.contains("Answered: “Blue”"), "the verdict: {text}");
        assert!(!text.contains("(answer)"), "{text}");
        let outcome = rect(phone, "[data-outcome]").await;
        if !outcome.is_null() {
            assert!(
                !overlap(&rect(phone, ".bar").await, &outcome),
                "the outcome covers the header"
            );
        }

        script(
            phone,
            "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })",
            vec![json!(bash_card)],
        )
        .await;
        let field = format!("{bash_card} [data-deny-message]");
        phone.tap(centre(phone, &field).await).await;
        phone.type_into(&field, "use the staging target").await;
        takes_taps(phone, &bash_card, "deny").await;
        phone
            .tap(centre(phone, &format!("{bash_card} [data-action='deny']")).await)
            .await;
        phone
            .wait_for(&format!("{bash_card}[data-ended-here]"))
            .await;
        phone.screenshot("denied-in-place-phone", PHONE).await;
        let text = script(
            phone,
            "return document.querySelector(arguments[0]).innerText",
            vec![json!(bash_card)],
        )
        .await;
        let text = text.as_str().unwrap();
        assert!(
            text.contains("make deploy --target production"),
            "what was denied: {text}"
        );
        assert!(
            text.contains("use the staging target"),
            "the message: {text}"
        );
        let ended = format!("[data-ended-items] {bash_card}");
        phone.wait_for(&ended).await;
        let status = dom_text(phone, &format!("{ended} [data-status]")).await;
        assert!(status.contains("use the staging target"), "{status}");
        let asked = dom_text(
            phone,
            &format!("[data-ended-items] {question_card} [data-status]"),
        )
        .await;
        assert!(asked.starts_with("Answered: “Blue”"), "{asked}");
    });
    finish(question_hook, DEADLINE);
    let output = finish(bash_hook, DEADLINE);
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("use the staging target"),
        "{output:?}"
    );
}
