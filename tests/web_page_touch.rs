//! Nothing moves under the finger (issue 26), on a 390x844 phone in the real Chromium, tapped as
//! a finger taps: WebDriver touch actions at fixed points of the screen, never an element click,
//! so that whatever lies under the point when the finger comes down is what gets the tap.
//!
//! The person taps "Allow once" on the top card, then taps the same point again after 0.3 s,
//! 1.5 s, 3 s and 6 s (a double tap, a second look, an impatient thumb). The page itself is
//! watched from inside (each animation frame: which prompt's button lies under that point, every
//! click, every answer posted), so the test knows what a person would have seen, not what the
//! page says of itself: no tap may answer another prompt unless that prompt's own button had
//! been under the finger, visible and still, for [`READ_ENOUGH`]; a tap that is refused says so
//! next to the button it landed on.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::web_front::{card, script, Front, Paired};
use crate::common::{claude_bash, finish, id_of, Reaped};
use crate::support::browser::{Browser, Theme, PHONE};

use super::DEADLINE;

/// What the test grants as long enough to read a card before a tap on it counts: more than the
/// 1.5 s after which a tap once ran a command unread.
const READ_ENOUGH: Duration = Duration::from_millis(2000);

/// The delays of the second tap after the first.
const DELAYS: [Duration; 4] = [
    Duration::from_millis(300),
    Duration::from_millis(1500),
    Duration::from_millis(3000),
    Duration::from_millis(6000),
];

/// Installed in the page: `window.finger` records, by the page's clock (`performance.now()`),
/// each change of the answer button under the point `(x, y)` (`"<prompt id> <action>"`, or ""
/// when none is), every click, and every POST the page makes (its path and body).
const WATCH_THE_POINT: &str = r#"
const [x, y] = arguments;
window.finger = { under: [], clicks: [], posts: [] };
let last = null;
const look = () => {
  const node = document.elementFromPoint(x, y);
  const button = node && node.closest('[data-action]');
  const card = button && button.closest('[data-prompt-id]');
  const under = card && !button.disabled ? `${card.dataset.promptId} ${button.dataset.action}` : '';
  if (under !== last) { last = under; window.finger.under.push([performance.now(), under]); }
  requestAnimationFrame(look);
};
look();
document.addEventListener('click', () => window.finger.clicks.push(performance.now()), true);
const post = window.fetch;
window.fetch = function (path, options) {
  if (options && options.method === 'POST') window.finger.posts.push([String(path), String(options.body)]);
  return post.apply(this, arguments);
};
return true;
"#;

/// A Claude Code Bash prompt of `command` from the session `session`.
fn bash_in(session: &str, command: &str) -> Value {
    let mut event = claude_bash(command);
    event["session_id"] = json!(session);
    event
}

/// The middle of the first element matching `css`, in CSS pixels of the viewport.
pub async fn centre(browser: &Browser, css: &str) -> (f64, f64) {
    let point = script(
        browser,
        "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]",
        vec![json!(css)],
    )
    .await;
    let point = (point[0].as_f64().unwrap(), point[1].as_f64().unwrap());
    assert!(
        point.1 > 0.0 && point.1 < f64::from(PHONE.1),
        "`{css}` is on the screen: {point:?}"
    );
    point
}

async fn page_clock(browser: &Browser) -> f64 {
    script(browser, "return performance.now()", vec![])
        .await
        .as_f64()
        .unwrap()
}

/// Taps `point` and waits until the page has handled the tap (its click); the page's clock
/// just before the tap.
async fn tap_and_wait(phone: &Browser, point: (f64, f64)) -> f64 {
    let before = page_clock(phone).await;
    phone.tap(point).await;
    phone
        .wait_until(DEADLINE, "the page to get the tap", async |page| {
            let clicks = script(page, "return window.finger.clicks", vec![]).await;
            clicks
                .as_array()
                .is_some_and(|clicks| clicks.iter().any(|at| at.as_f64().unwrap() > before))
        })
        .await;
    before
}

/// What was under the finger at `at` (the page's clock), and for how long it had been.
fn under_at(finger: &Value, at: f64) -> (String, Duration) {
    let (since, under) = finger["under"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| (change[0].as_f64().unwrap(), change[1].as_str().unwrap()))
        .take_while(|(since, _)| *since <= at)
        .last()
        .expect("the watch saw the point before the tap");
    (
        under.to_owned(),
        Duration::from_millis((at - since).max(0.0) as u64),
    )
}

/// How the first prompt ends before the second tap.
#[derive(Clone, Copy, Debug)]
enum First {
    /// The finger's first tap allows it.
    TappedHere,
    /// Someone answers it in a terminal as the finger comes down on it.
    AnsweredElsewhere,
}

/// The two rounds of each delay: the first prompt, the second prompt (of another session,
/// whose card is the same size and comes next), each round in a freshly loaded page.
fn second_taps_answer_nothing_unread(first: First) {
    let Some(front) = Front::start() else {
        return;
    };
    let mut hooks: Vec<Reaped> = Vec::new();
    front.with_paired(Browser::phone(Theme::Light), "finger phone", async |phone| {
        for (round, delay) in DELAYS.into_iter().enumerate() {
            let (hook_a, a) = front.hold_claude(&bash_in("session-a", &format!("echo first {round}")));
            let (hook_b, b) = front.hold_claude(&bash_in("session-b", &format!("echo second {round}")));
            let (id_a, id_b) = (id_of(&a), id_of(&b));
            phone.open(&front.web.base).await;
            let once_a = format!("{} [data-action='once']", card(&id_a));
            phone.wait_for(&format!("{} [data-action='once']", card(&id_b))).await;
            // The person reads the top card until its buttons take a tap.
            phone
                .wait_until(DEADLINE, "the top card to take a tap", async |page| {
                    page.count(&format!("{}:not([data-settling]) [data-action='once']:not(:disabled)", card(&id_a)))
                        .await
                        == 1
                })
                .await;
            let point = centre(phone, &once_a).await;
            assert_eq!(
                script(phone, WATCH_THE_POINT, vec![json!(point.0), json!(point.1)]).await,
                json!(true)
            );
            let started = Instant::now();
            match first {
                First::TappedHere => {
                    tap_and_wait(phone, point).await;
                }
                First::AnsweredElsewhere => {
                    let answered = front.run(&["answer", &id_a, "deny"]);
                    assert!(answered.status.success(), "{answered:?}");
                }
            }
            tokio::time::sleep(delay.saturating_sub(started.elapsed())).await;
            let second = tap_and_wait(phone, point).await;
            let name = format!("finger-{first:?}-{}ms-phone", delay.as_millis()).to_lowercase();
            phone.screenshot(&name, PHONE).await;
            let finger = script(phone, "return window.finger", vec![]).await;
            let (under, still_for) = under_at(&finger, second);
            let posts: Vec<String> = finger["posts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|post| post[1].as_str().unwrap().to_owned())
                .collect();
            let for_a = posts.iter().filter(|body| body.contains(&id_a)).count();
            let for_b = posts.iter().filter(|body| body.contains(&id_b)).count();
            match first {
                First::TappedHere => assert_eq!(for_a, 1, "the first tap answers the first prompt, once: {posts:?}"),
                First::AnsweredElsewhere => assert_eq!(for_a, 0, "{posts:?}"),
            }
            if for_b > 0 {
                assert!(
                    under == format!("{id_b} once") && still_for >= READ_ENOUGH,
                    "{first:?}, {delay:?}: the second prompt was answered by a tap on `{under}`, \
                     there for only {still_for:?}: {posts:?} (see {name}.png)"
                );
            } else if under.starts_with(&id_b) {
                // The tap landed on the second card's button and was refused: it says so right
                // there, on the screen.
                let refusal = script(
                    phone,
                    "const card = document.querySelector(arguments[0]);
                     const note = Array.from(card.querySelectorAll('*')).reverse()
                       .find((node) => node.children.length === 0 && /not sent/i.test(node.textContent));
                     if (!note) return null;
                     const r = note.getBoundingClientRect();
                     return [note.textContent, r.top, r.bottom];",
                    vec![json!(card(&id_b))],
                )
                .await;
                assert!(refusal.is_array(), "{first:?}, {delay:?}: a refused tap says so (see {name}.png)");
                let (top, bottom) = (refusal[1].as_f64().unwrap(), refusal[2].as_f64().unwrap());
                assert!(
                    top >= 0.0 && bottom <= f64::from(PHONE.1) && (top - point.1).abs() < 120.0,
                    "{first:?}, {delay:?}: the refusal {refusal} is next to the tap at {point:?}"
                );
            }
            eprintln!("{first:?} {delay:?}: under the finger `{under}` for {still_for:?}, posts {posts:?}");
            // The second prompt stays pending unless the test allowed its answer above.
            if for_b == 0 {
                assert!(
                    front.list().iter().any(|prompt| prompt["id"] == b["id"]),
                    "{first:?}, {delay:?}: the second prompt was answered"
                );
                let denied = front.run(&["answer", &id_b, "deny"]);
                assert!(denied.status.success(), "{denied:?}");
            }
            let output = finish(hook_a, DEADLINE);
            if let First::TappedHere = first {
                assert!(String::from_utf8_lossy(&output.stdout).contains("allow"), "{output:?}");
            }
            hooks.push(hook_b);
        }
    });
    for hook in hooks {
        finish(hook, DEADLINE);
    }
}

#[test]
fn a_second_tap_where_allow_once_was_answers_no_other_prompt_unread() {
    second_taps_answer_nothing_unread(First::TappedHere);
}

#[test]
fn a_tap_as_the_card_under_it_is_answered_elsewhere_answers_no_other_prompt_unread() {
    second_taps_answer_nothing_unread(First::AnsweredElsewhere);
}

/// The person types a message into a card's Deny field; meanwhile the "New" banner goes by
/// itself (its prompt was answered in a terminal). The Deny they then tap is sent: a banner that
/// hides itself moves nothing under the finger.
#[test]
fn a_deny_typed_into_a_card_is_sent_as_the_new_prompt_banner_goes_by_itself() {
    let Some(front) = Front::start() else {
        return;
    };
    let (hook, prompt) = front.hold_claude(&bash_in("session-a", "rm -rf build"));
    let id = id_of(&prompt);
    let mut others = Vec::new();
    front.with_paired(
        Browser::phone(Theme::Light),
        "typing phone",
        async |phone| {
            let deny = format!("{} [data-action='deny']", card(&id));
            phone.wait_for(&deny).await;
            let (other_hook, other) = front.hold_claude(&bash_in("session-b", "echo other"));
            others.push(other_hook);
            phone.wait_for("[data-banner]:not([hidden])").await;
            let field = format!("{} [data-deny-message]", card(&id));
            phone.tap(centre(phone, &field).await).await;
            phone.type_into(&field, "not now").await;
            let answered = front.run(&["answer", &id_of(&other), "deny"]);
            assert!(answered.status.success(), "{answered:?}");
            phone
                .wait_until(DEADLINE, "the banner to go with its prompt", async |page| {
                    !page.shown("[data-banner]").await
                })
                .await;
            let point = centre(phone, &deny).await;
            assert_eq!(
                script(phone, WATCH_THE_POINT, vec![json!(point.0), json!(point.1)]).await,
                json!(true)
            );
            tap_and_wait(phone, point).await;
            phone.screenshot("typed-deny-phone", PHONE).await;
        },
    );
    let output = finish(hook, DEADLINE);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("deny") && stdout.contains("not now"),
        "{output:?}"
    );
    for other in others {
        finish(other, DEADLINE);
    }
}

/// A hurried thumb that keeps tapping where "Allow once" was, every quarter of a second for
/// ten seconds, answers the first prompt and never the one that slides under it: each refused tap
/// starts the card's wait again (a cold review saw the 32nd tap, 7.95 s in, approve it).
#[test]
fn a_thumb_that_keeps_tapping_where_allow_once_was_never_answers_the_next_prompt() {
    let Some(front) = Front::start() else {
        return;
    };
    let (hook_a, a) = front.hold_claude(&bash_in("session-a", "echo first"));
    let (hook_b, b) = front.hold_claude(&bash_in("session-b", "echo second"));
    let (id_a, id_b) = (id_of(&a), id_of(&b));
    front.with_paired(Browser::phone(Theme::Light), "thumb phone", async |phone| {
        phone.open(&front.web.base).await;
        phone
            .wait_for(&format!("{} [data-action='once']", card(&id_b)))
            .await;
        phone
            .wait_until(DEADLINE, "the top card to take a tap", async |page| {
                page.count(&format!(
                    "{}:not([data-settling]) [data-action='once']:not(:disabled)",
                    card(&id_a)
                ))
                .await
                    == 1
            })
            .await;
        let point = centre(phone, &format!("{} [data-action='once']", card(&id_a))).await;
        assert_eq!(
            script(phone, WATCH_THE_POINT, vec![json!(point.0), json!(point.1)]).await,
            json!(true)
        );
        let started = Instant::now();
        let mut taps = 0;
        while started.elapsed() < Duration::from_secs(10) {
            phone.tap(point).await;
            taps += 1;
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        phone.screenshot("thumb-keeps-tapping-phone", PHONE).await;
        let finger = script(phone, "return window.finger", vec![]).await;
        let posts: Vec<String> = finger["posts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|post| post[1].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            posts.iter().filter(|body| body.contains(&id_a)).count(),
            1,
            "{posts:?}"
        );
        assert!(
            !posts.iter().any(|body| body.contains(&id_b)),
            "after {taps} taps the second prompt was answered: {posts:?}"
        );
    });
    assert!(
        front.list().iter().any(|prompt| prompt["id"] == b["id"]),
        "the second prompt is still pending"
    );
    let denied = front.run(&["answer", &id_b, "deny"]);
    assert!(denied.status.success(), "{denied:?}");
    finish(hook_a, DEADLINE);
    finish(hook_b, DEADLINE);
}
