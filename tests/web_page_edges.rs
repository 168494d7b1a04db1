//! The rough edges a cold review on a 390x844 phone still found (issue 26), in the real Chromium,
//! tapped as a finger taps and measured in CSS pixels: a card in "Recently ended" says how it
//! ended and what it asked, nothing that invites action; the notification help leaves the top
//! card's command on the first screen and comes back after it was dismissed; a refused tap says so
//! right next to the button that got it, on the screen; a push notification marks a remote
//! prompt as its card does.

use std::time::Duration;

use serde_json::{json, Value};

use super::touch::centre;
use super::DEADLINE;
use crate::common::web_front::{card, dom_text, script, Front, Paired};
use crate::common::{claude_bash, claude_fixture, id_of};
use crate::support::browser::{Browser, Theme, PHONE};
use crate::web_push::{deliver, notifications};

/// Every control of the element `css` that could be taken for one that acts, with its text: any
/// button but one that only shows more of what was asked, any disclosure but the input as
/// sent, any field that takes input.
async fn controls_in(phone: &Browser, css: &str) -> Value {
    script(
        phone,
        "const root = document.querySelector(arguments[0]);
         return Array.from(root.querySelectorAll('button, summary, select, input, textarea'))
           .filter((node) => !node.matches('[data-expand]') && !node.closest('[data-raw-input]')
             && !(node.matches('input, textarea, select') && node.disabled))
           .map((node) => node.outerHTML.slice(0, 100));",
        vec![json!(css)],
    )
    .await
}

/// A read-only prompt (Write, with no probe record) ends while its card is on the screen: in
/// "Recently ended" it says how it ended and shows what it asked, without the live card's
/// advice ("Read-only here ... answer it in the agent's terminal") or its "Why".
#[test]
fn an_ended_read_only_card_says_how_it_ended_without_the_live_cards_advice_or_why() {
    let Some((front, [(mut hook, prompt)])) =
        Front::holding([claude_fixture("PermissionRequest-Write")])
    else {
        return;
    };
    assert_eq!(prompt["actions"], json!([]), "read-only here: {prompt}");
    let id = id_of(&prompt);
    front.with_paired(Browser::phone(Theme::Light), "ended phone", async |phone| {
        phone
            .wait_for(&format!("{} [data-read-only-why]", card(&id)))
            .await;
        // Claude Code wrote the file after the person answered in its own dialog.
        hook.stop();
        let observed = front.spawn_hook(
            "claude",
            claude_fixture("PostToolUse-Write").to_string().as_bytes(),
            &[],
        );
        crate::common::finish(observed, DEADLINE);
        let ended = format!("[data-ended-items] {}", card(&id));
        phone.wait_for(&ended).await;
        script(
            phone,
            "document.querySelector('[data-ended-list]').open = true;
             document.querySelector(arguments[0]).scrollIntoView()",
            vec![json!(ended)],
        )
        .await;
        phone.screenshot("ended-read-only-phone", PHONE).await;
        let text = dom_text(phone, &ended).await;
        eprintln!("the ended card says: {text}");
        let status = dom_text(phone, &format!("{ended} [data-status]")).await;
        assert!(
            status.starts_with("Withdrawn") || status.starts_with("Answered"),
            "how it ended: {status}"
        );
        assert!(
            phone
                .count(&format!("{ended} [data-preview], {ended} [data-fields]"))
                .await
                > 0,
            "what it asked: {text}"
        );
        for live in ["Read-only here", "Answer it", "Why"] {
            assert!(!text.contains(live), "an ended card says `{live}`: {text}");
        }
        assert_eq!(phone.count(&format!("{ended} [data-read-only]")).await, 0);
        assert_eq!(controls_in(phone, &ended).await, json!([]), "{text}");
    });
}

/// What the notification help and the top card are at the top of the page: the help's box
/// ([top, bottom], or null when hidden) and the bottom of the top card's command and of its
/// "Allow once".
async fn first_screen(phone: &Browser, id: &str) -> (Option<(f64, f64)>, f64, f64) {
    let value = script(
        phone,
        "window.scrollTo(0, 0);
         const help = document.querySelector('[data-notify-help]');
         const box = help.hidden ? null : help.getBoundingClientRect();
         const bottom = (css) => document.querySelector(arguments[0] + ' ' + css).getBoundingClientRect().bottom;
         return [box && [box.top, box.bottom], bottom('[data-input]'), bottom(\"[data-action='once']\")];",
        vec![json!(card(id))],
    )
    .await;
    let help = value[0]
        .as_array()
        .map(|b| (b[0].as_f64().unwrap(), b[1].as_f64().unwrap()));
    (help, value[1].as_f64().unwrap(), value[2].as_f64().unwrap())
}

/// The person taps "Notify me" in a browser that blocks notifications: the help that says what
/// to do (ntfy included) leaves the top card's command, 7 lines, and its "Allow once" on the
/// first screen; dismissed with ×, it comes back from the header,
/// where "Try again" works.
#[test]
fn the_notification_help_leaves_the_top_command_on_the_first_screen_and_comes_back_once_dismissed()
{
    let command: String = (1..=7)
        .map(|n| format!("./scripts/step-{n:02}.sh --target staging\n"))
        .collect();
    let Some((front, [(_hook, prompt)])) = Front::holding([claude_bash(&command)]) else {
        return;
    };
    let id = id_of(&prompt);
    front.with_paired(Browser::phone(Theme::Light), "notify phone", async |phone| {
        phone.wait_for(&format!("{} [data-input]", card(&id))).await;
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
        let notify = "[data-notify]:not([hidden])";
        phone.tap(centre(phone, notify).await).await;
        phone
            .wait_for("[data-notify][data-notify-state='blocked']")
            .await;
        phone.wait_for("[data-notify-help]:not([hidden])").await;
        phone.screenshot("notify-help-open-phone", PHONE).await;
        let (help, command_bottom, allow_bottom) = first_screen(phone, &id).await;
        let help = help.expect("the help is shown");
        let text = dom_text(phone, "[data-notify-help]").await;
        assert!(text.contains("site settings") && text.contains("ntfy"), "{text}");
        eprintln!("the help is {help:?}, the command ends at {command_bottom}, Allow once at {allow_bottom}");
        assert!(
            command_bottom <= f64::from(PHONE.1) && allow_bottom <= f64::from(PHONE.1),
            "with the help open the top card's command ends at {command_bottom} px and its \
             Allow once at {allow_bottom} px, on a {} px screen (the help is {help:?})",
            PHONE.1
        );

        // Dismissed, it leaves the card where it was before it came...
        phone
            .tap(centre(phone, "[data-notify-help-close]").await)
            .await;
        phone
            .wait_until(DEADLINE, "the help to go", async |page| {
                !page.shown("[data-notify-help]").await
            })
            .await;
        // ...and the header's state brings it back, with its "Try again".
        let again = "[data-notify-again]:not([hidden])";
        phone.wait_for(again).await;
        phone.tap(centre(phone, again).await).await;
        phone.wait_for("[data-notify-help]:not([hidden])").await;
        phone.screenshot("notify-help-again-phone", PHONE).await;
        permission("granted").await;
        phone
            .tap(centre(phone, "[data-notify-retry]:not([hidden])").await)
            .await;
        phone
            .wait_until(DEADLINE, "the page to ask again", async |page| {
                script(
                    page,
                    "return document.querySelector('[data-notify]').dataset.notifyState",
                    vec![],
                )
                .await
                    != json!("blocked")
            })
            .await;
    });
}

/// Where a refusal is, next to the button `button` that got it: the button's box and the
/// refusal's ([top, bottom, left, right]), its text, and the answer buttons lying between them.
async fn refusal_by(phone: &Browser, card_css: &str, button: &str) -> Value {
    script(
        phone,
        "const card = document.querySelector(arguments[0]);
         const pressed = card.querySelector(arguments[1]);
         const note = Array.from(card.querySelectorAll('*')).reverse()
           .find((node) => node.children.length === 0 && /not sent|choose an answer/i.test(node.textContent));
         if (!note) return null;
         const box = (node) => { const r = node.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; };
         const [b, n] = [box(pressed), box(note)];
         const between = Array.from(card.querySelectorAll('[data-action]')).filter((other) => {
           const o = box(other);
           return other !== pressed && o[0] >= Math.min(b[1], n[1]) && o[1] <= Math.max(b[0], n[0]);
         }).map((other) => other.textContent);
         return { button: b, note: n, text: note.textContent, between };",
        vec![json!(card_css), json!(button)],
    )
    .await
}

/// Taps `button` in the card `card_css` as a finger does (once the card takes taps) and checks
/// that the refusal it gets is right next to it, whole on the screen, with no other button
/// between; `name` names the screenshot.
async fn refused_next_to_the_button(phone: &Browser, card_css: &str, button: &str, name: &str) {
    let css = format!("{card_css} {button}");
    phone
        .wait_until(DEADLINE, "the card to take a tap", async |page| {
            page.count(&format!(
                "{card_css}:not([data-settling]) {button}:not(:disabled)"
            ))
            .await
                == 1
        })
        .await;
    phone.tap(centre(phone, &css).await).await;
    phone
        .wait_until(DEADLINE, "the refusal", async |page| {
            !refusal_by(page, card_css, button).await.is_null()
        })
        .await;
    phone.screenshot(name, PHONE).await;
    let refusal = refusal_by(phone, card_css, button).await;
    let number = |key: &str, index: usize| refusal[key][index].as_f64().unwrap();
    let gap = if number("note", 0) >= number("button", 1) {
        number("note", 0) - number("button", 1)
    } else {
        number("button", 0) - number("note", 1)
    };
    eprintln!("{name}: {refusal}");
    assert!(
        gap <= 16.0,
        "{name}: the refusal is {gap} px from the button it answers: {refusal}"
    );
    assert_eq!(refusal["between"], json!([]), "{name}: {refusal}");
    assert!(
        number("note", 0) >= 0.0 && number("note", 1) <= f64::from(PHONE.1),
        "{name}: the refusal is on the screen: {refusal}"
    );
}

/// A tap that is refused says why right next to the button it landed on, never under the card's
/// lowest button: "Allow once" with a message typed for Deny, "Send answer" with no choice made,
/// and each of them where it lies at the bottom of the screen.
#[test]
fn a_refused_tap_says_why_right_next_to_the_button_it_landed_on() {
    let Some((front, [(_bash_hook, bash), (_question_hook, question)])) = Front::holding([
        claude_bash("make deploy"),
        claude_fixture("PermissionRequest-AskUserQuestion"),
    ]) else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "refused phone", async |phone| {
        let bash_card = card(&id_of(&bash));
        let question_card = card(&id_of(&question));
        phone.wait_for(&format!("{question_card} [data-action='answer']")).await;
        let field = format!("{bash_card} [data-deny-message]");
        phone.type_into(&field, "use the staging target").await;
        refused_next_to_the_button(phone, &bash_card, "[data-action='once']", "refused-once-phone").await;
        script(
            phone,
            "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })",
            vec![json!(format!("{question_card} [data-action='answer']"))],
        )
        .await;
        refused_next_to_the_button(
            phone,
            &question_card,
            "[data-action='answer']",
            "refused-answer-phone",
        )
        .await;
        // The same taps with the button at the bottom edge of the screen.
        for (card_css, button) in [
            (&bash_card, "[data-action='once']"),
            (&question_card, "[data-action='answer']"),
        ] {
            script(
                phone,
                "for (const status of document.querySelectorAll('[data-status], [data-row-status]')) status.textContent = '';
                 const button = document.querySelector(arguments[0]);
                 window.scrollBy(0, button.getBoundingClientRect().bottom + 4 - innerHeight);",
                vec![json!(format!("{card_css} {button}"))],
            )
            .await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            refused_next_to_the_button(phone, card_css, button, "refused-at-the-bottom-phone").await;
        }
    });
}

/// A push for a prompt from another machine (through the hooks socket, as `gatehouse remote`
/// forwards it) names it as remote, as its card does; one of this machine's does not.
#[test]
fn a_push_notification_marks_a_remote_prompt_as_its_card_does() {
    let Some(front) = Front::start() else {
        return;
    };
    let hooks = gatehouse_host_ipc::socket::hooks_socket_path(&front.socket());
    let _hook = front.spawn_hook(
        "claude",
        claude_bash("make deploy").to_string().as_bytes(),
        &[("GATEHOUSE_SOCKET", &hooks.display().to_string())],
    );
    let prompt = front.wait_for_pending(1).remove(0);
    assert_eq!(prompt["origin"], "remote", "{prompt}");
    let host = prompt["host"].as_str().unwrap().to_owned();
    let id = id_of(&prompt);
    front.with_paired(Browser::phone(Theme::Light), "push phone", async |phone| {
        phone
            .cdp(
                "Browser.grantPermissions",
                json!({ "origin": front.web.base, "permissions": ["notifications"] }),
            )
            .await;
        let mark = phone.text(&format!("{} [data-local]", card(&id))).await;
        assert_eq!(mark, "remote");
        let data = json!({ "type": "prompt", "waiting": 1, "id": prompt["short_id"] }).to_string();
        deliver(phone, &front.web.base, &data, |shown| {
            shown.iter().any(|shown| shown["id"] == prompt["id"])
        })
        .await;
        let shown = notifications(phone).await;
        assert_eq!(
            shown[0]["title"],
            json!(format!("claude@remote:{host} wants to run Bash")),
            "{shown:?}"
        );
    });
}
