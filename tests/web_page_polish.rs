//! The page after a new user's review on a 390x844 phone (in the real Chromium): an answer is
//! confirmed where the person tapped (a notice at the foot that moves no card), a question says
//! which answer was chosen; the "New" banner goes once its prompt is shown or ends and never
//! covers a card's header; a patch's raw input is labelled; an OpenCode card shows what runs
//! first and its ids last; a cut prompt's start reads as lines and its buttons say which one
//! enables Allow; a read-only reason is one short sentence with the rest behind "Why"; every
//! control is a 44 px tap target.

use serde_json::{json, Value};

use crate::common::web_front::{card, dom_text, script, wait_until_ended, Front, Paired};
use crate::common::{claude_bash, claude_fixture, id_of};
use crate::support::browser::{Browser, Theme, PHONE};

use super::{codex_patch, echo_lines, DEADLINE};

/// The bounding box of the first element matching `css`: [top, height, width].
async fn bounds(browser: &Browser, css: &str) -> Vec<f64> {
    let value = script(
        browser,
        "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.top, r.height, r.width]",
        vec![json!(css)],
    )
    .await;
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_f64().unwrap())
        .collect()
}

#[test]
fn an_answer_is_confirmed_at_the_top_without_moving_a_card_and_a_question_names_its_choice() {
    let Some((front, [(first_hook, first), (_second_hook, second), (question_hook, question)])) =
        Front::holding([
            claude_bash("echo first"),
            claude_bash("echo second"),
            claude_fixture("PermissionRequest-AskUserQuestion"),
        ])
    else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "review phone", async |phone| {
        let deny = format!("{} [data-action='deny']", card(&id_of(&first)));
        phone.wait_for(&deny).await;
        assert!(!phone.shown("[data-outcome]").await, "no notice before anything ended");
        phone.click(&deny).await;
        wait_until_ended(phone, &id_of(&first), "deny").await;
        phone.wait_for("[data-outcome]:not([hidden])").await;
        let notice = phone.text("[data-outcome]").await;
        assert!(notice.contains("Bash") && notice.contains("deny"), "{notice}");
        // Over the foot of the list, clear of the header; a tap on it reaches nothing under it.
        let style = script(
            phone,
            "const outcome = document.querySelector('[data-outcome]');
             const s = getComputedStyle(outcome.parentElement);
             const [o, bar] = [outcome.getBoundingClientRect(), document.querySelector('.bar').getBoundingClientRect()];
             return [s.position, getComputedStyle(outcome).pointerEvents, outcome.getAttribute('role'), o.top >= bar.bottom];",
            vec![],
        )
        .await;
        assert_eq!(style, json!(["fixed", "auto", "status", true]), "over the list, clear of the header");
        // The notice itself moves no card: hiding it leaves the second card where it is.
        phone.screenshot("outcome-notice-phone", PHONE).await;
        let second_card = card(&id_of(&second));
        let before = bounds(phone, &second_card).await[0];
        script(phone, "document.querySelector('[data-outcome]').hidden = true", vec![]).await;
        assert_eq!(bounds(phone, &second_card).await[0], before);

        // A question: the notice and the ended card say which answer was chosen.
        let question_card = card(&id_of(&question));
        let blue = format!("{question_card} [data-option='Blue']");
        phone.wait_for(&blue).await;
        phone.click(&blue).await;
        phone.click(&format!("{question_card} [data-action='answer']")).await;
        wait_until_ended(phone, &id_of(&question), "Answered: “Blue”").await;
        phone
            .wait_until(DEADLINE, "the notice to name the choice", async |page| {
                page.text("[data-outcome]").await.contains("“Blue”")
            })
            .await;
        phone.screenshot("outcome-question-phone", PHONE).await;
    });
    crate::common::finish(first_hook, DEADLINE);
    crate::common::finish(question_hook, DEADLINE);
}

#[test]
fn the_new_prompt_banner_goes_when_its_card_is_shown_and_never_covers_a_card_header() {
    let Some(front) = Front::start() else {
        return;
    };
    // Enough cards that a new one lands off the screen of a phone.
    let hooks: Vec<_> = (0..4)
        .map(|n| front.hold_claude(&claude_bash(&format!("echo old {n}"))).0)
        .collect();
    front.with_paired(Browser::phone(Theme::Light), "banner phone", async |phone| {
        phone
            .wait_until(DEADLINE, "four cards", async |page| {
                page.count("[data-answerable-list] > [data-prompt-id]")
                    .await
                    == 4
            })
            .await;
        let (_hook, fresh) = front.hold_claude(&claude_bash("echo new one"));
        phone.wait_for("[data-banner]:not([hidden])").await;
        phone.screenshot("banner-phone", PHONE).await;
        phone.click("[data-banner-show]").await;
        assert!(!phone.shown("[data-banner]").await, "Show hides the banner");
        let fresh_card = card(&id_of(&fresh));
        let card_top = bounds(phone, &fresh_card).await[0];
        let bar = bounds(phone, ".bar").await;
        assert!(
            card_top >= bar[0] + bar[1],
            "the card's header ({card_top}) is below the top bar ({bar:?})"
        );
        phone.screenshot("banner-shown-card-phone", PHONE).await;

        // A banner whose prompt ends goes with it; one whose card is scrolled onto the screen
        // goes too.
        let (_hook, other) = front.hold_claude(&claude_bash("echo another"));
        phone.wait_for("[data-banner]:not([hidden])").await;
        let answered = front.run(&["answer", &id_of(&other), "deny"]);
        assert!(answered.status.success(), "{answered:?}");
        phone
            .wait_until(DEADLINE, "the banner to go with its prompt", async |page| {
                !page.shown("[data-banner]").await
            })
            .await;
        script(phone, "window.scrollTo(0, 0)", vec![]).await;
        let (_hook, last) = front.hold_claude(&claude_bash("echo last"));
        phone.wait_for("[data-banner]:not([hidden])").await;
        // Give the banner's watch a frame to see the card off the screen, then scroll to it.
        phone.wait_for(&card(&id_of(&last))).await;
        script(
            phone,
            "return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 100))))",
            vec![],
        )
        .await;
        assert!(phone.shown("[data-banner]").await, "a card off the screen keeps its banner");
        script(phone, "window.scrollTo(0, document.body.scrollHeight)", vec![]).await;
        phone
            .wait_until(DEADLINE, "the banner of a card scrolled onto the screen to go", async |page| {
                !page.shown("[data-banner]").await
            })
            .await;
    });
    drop(hooks);
}

#[test]
fn a_patch_labels_its_raw_part_and_an_opencode_card_shows_what_runs_first() {
    let Some(front) = Front::start() else {
        return;
    };
    let patch = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+bye\n*** End Patch";
    let patch_prompt = codex_patch(&front, patch);
    let opencode = json!({ "directory": "", "payload": { "id": "evt_1", "type": "permission.asked", "properties": {
        "id": "per_review", "sessionID": "ses_review", "permission": "bash",
        "patterns": ["git status"], "metadata": { "command": "git status" },
        "always": ["git status *"], "tool": { "messageID": "m", "callID": "c" } } } });
    crate::common::finish(
        front.spawn_hook("opencode", opencode.to_string().as_bytes(), &[]),
        DEADLINE,
    );
    let opencode_prompt = front
        .wait_for_pending(2)
        .into_iter()
        .find(|prompt| prompt["adapter"] == "opencode")
        .expect("the OpenCode prompt is listed");
    front.with_paired(Browser::phone(Theme::Light), "patch phone", async |phone| {
        let patch_card = card(&id_of(&patch_prompt));
        phone.wait_for(&format!("{patch_card} [data-diff]")).await;
        assert_eq!(phone.text(&format!("{patch_card} [data-as-sent]")).await, "As Codex sent it");
        let title_font = script(
            phone,
            "return getComputedStyle(document.querySelector(arguments[0])).fontFamily",
            vec![json!(format!("{patch_card} .preview-title"))],
        )
        .await;
        assert!(!title_font.as_str().unwrap().contains("monospace"), "{title_font}");
        phone.screenshot("codex-patch-phone", PHONE).await;

        let opencode_card = card(&id_of(&opencode_prompt));
        phone.wait_for(&opencode_card).await;
        let names = script(
            phone,
            "return Array.from(document.querySelectorAll(arguments[0])).map(n => n.dataset.fieldName)",
            vec![json!(format!("{opencode_card} [data-field-name]"))],
        )
        .await;
        let names: Vec<&str> = names.as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        let at = |name: &str| names.iter().position(|n| *n == name);
        if let (Some(patterns), Some(id)) = (at("patterns"), at("id")) {
            assert!(patterns < id, "what runs before the ids: {names:?}");
        }
        for name in ["id", "sessionID"] {
            if at(name).is_some() {
                assert_eq!(
                    phone.count(&format!("{opencode_card} [data-field='{name}'][data-bookkeeping]")).await,
                    1,
                    "{name} is shown, dimmed"
                );
            }
        }
        let patterns = dom_text(phone, &format!("{opencode_card} [data-field='patterns']")).await;
        assert_eq!(patterns, "• git status", "a list of patterns reads as lines");
        let folder = dom_text(phone, &format!("{opencode_card} [data-folder]")).await;
        assert!(!folder.trim().is_empty(), "an empty folder says so: {folder:?}");
        script(phone, "document.querySelector(arguments[0]).scrollIntoView()", vec![json!(opencode_card)]).await;
        phone.screenshot("opencode-phone", PHONE).await;
    });
}

#[test]
fn a_cut_prompt_reads_as_lines_and_its_buttons_say_which_one_enables_allow() {
    let Some((front, [(_hook, prompt)])) = Front::holding([claude_bash(&echo_lines(4000))]) else {
        return;
    };
    assert!(
        !prompt["cut"].is_null(),
        "the gateway lists it cut: {prompt}"
    );
    front.with_paired(Browser::phone(Theme::Light), "cut phone", async |phone| {
        let cut_card = card(&id_of(&prompt));
        phone.wait_for(&format!("{cut_card} [data-input]")).await;
        let start = dom_text(phone, &format!("{cut_card} [data-input]")).await;
        assert!(
            start.contains("echo 00000000\necho 00000001"),
            "lines, not \\n: {start:.200}"
        );
        assert!(!start.contains("\\n"), "{start:.200}");
        let load = phone.text(&format!("{cut_card} [data-load-whole]")).await;
        assert!(load.contains("turn Allow on"), "{load}");
        if phone.count(&format!("{cut_card} [data-expand]")).await > 0 {
            let expand = phone.text(&format!("{cut_card} [data-expand]")).await;
            assert!(
                expand.contains("Allow stays off") && expand.contains("Load the whole prompt"),
                "{expand}"
            );
        }
        phone.screenshot("cut-start-phone", PHONE).await;
    });
}

#[test]
fn a_read_only_reason_is_one_short_sentence_with_the_rest_behind_why() {
    // No probe record: the Write prompt is read-only here, with a reason.
    let Some((front, [(_hook, prompt)])) =
        Front::holding([claude_fixture("PermissionRequest-Write")])
    else {
        return;
    };
    let reason = prompt["read_only_reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    front.with_paired(
        Browser::phone(Theme::Light),
        "read-only phone",
        async |phone| {
            let read_only = format!("{} [data-read-only]", card(&id_of(&prompt)));
            phone.wait_for(&read_only).await;
            let short = phone
                .text(&format!("{read_only} [data-read-only-short]"))
                .await;
            assert!(!short.contains('`'), "no literal backticks: {short}");
            assert!(short.len() < 200, "one short sentence: {short}");
            assert_eq!(
                short.matches('(').count(),
                short.matches(')').count(),
                "never cut inside brackets: {short}"
            );
            if reason.contains('`') {
                assert!(
                    phone.count(&format!("{read_only} code")).await > 0,
                    "backticks become code"
                );
            }
            if reason.len() > short.len() {
                let why = format!("{read_only} [data-read-only-why]");
                phone.click(&format!("{why} summary")).await;
                let whole = dom_text(phone, &why).await;
                assert!(!whole.contains('`'), "{whole}");
                assert!(
                    whole.len() + 4 >= reason.replace('`', "").len(),
                    "all of it: {whole} / {reason}"
                );
            }
            phone.screenshot("read-only-why-phone", PHONE).await;
        },
    );
}

#[test]
fn every_control_on_a_phone_is_a_44_px_tap_target() {
    let Some((front, [(_question_hook, question), (_edit_hook, _edit)])) = Front::holding([
        claude_fixture("PermissionRequest-AskUserQuestion"),
        claude_fixture("PermissionRequest-Edit"),
    ]) else {
        return;
    };
    front.with_paired(Browser::phone(Theme::Light), "tap phone", async |phone| {
        phone.wait_for(&format!("{} [data-option]", card(&id_of(&question)))).await;
        let small: Value = script(
            phone,
            "const out = [];
             for (const node of document.querySelectorAll('button, summary, label.option, select, input[type=text]')) {
               const r = node.getBoundingClientRect();
               if (r.width === 0 && r.height === 0) continue;
               if (r.height < 43.5) out.push([node.outerHTML.slice(0, 80), r.width, r.height]);
             }
             return out;",
            vec![],
        )
        .await;
        assert_eq!(small, json!([]), "controls under 44 px tall");
    });
}
