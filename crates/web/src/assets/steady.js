// gatehouse web: nothing moves under the finger. A card's answer buttons take a tap only once the
// card has been on the screen, with its buttons where they are, for READ_MS: long enough to read
// what a tap there would answer. A card that just came, that slid into the place of one that
// left, or whose buttons moved (something above them grew) says so on its own reserved line
// (`[data-settle-note]`), dims its buttons (`[data-settling]`) and refuses the tap (app.js); a
// refused tap starts the wait again.
//
// A move counts only when a button moved both on the screen and in the page: the person's own
// scrolling moves it on the screen only, and the browser's scroll anchoring (which keeps what is
// on the screen still when something above it goes) moves it in the page only. Neither puts
// another button under a finger that stayed where it was. Where the buttons are is looked at
// every LOOK_MS, and again at the very tap (`left`), so a move just before a tap is never missed.
//
// A button that something lies over (the notification sheet, the outcome notice: anything but
// the top bar and the banner over it, under which the person's own scrolling puts it) is not on
// the screen: when what covered it goes, its wait starts then, so that a second tap where the
// sheet's × was lands on no button it uncovered.
'use strict';
const gatehouseSteady = (() => {
  const READ_MS = 2500;
  const LOOK_MS = 100;
  const watched = new Map(); // card node -> { view, page, shown, since }

  // Where the card's answer buttons are, on the screen and in the page, and whether the card is
  // on the screen at all.
  function where(card) {
    const view = [];
    const page = [];
    let covered = false;
    for (const button of card.querySelectorAll('[data-action]')) {
      const box = button.getBoundingClientRect();
      view.push(`${Math.round(box.left)},${Math.round(box.top)},${Math.round(box.width)}`);
      page.push(`${Math.round(box.left + scrollX)},${Math.round(box.top + scrollY)},${Math.round(box.width)}`);
      covered = covered || isCovered(button, box);
    }
    const box = card.getBoundingClientRect();
    const shown = box.height > 0 && box.bottom > 0 && box.top < innerHeight && !document.hidden && !covered;
    return { view: view.join(' '), page: page.join(' '), shown };
  }

  // Whether something other than the top bar lies over the middle of `button` (on the screen).
  function isCovered(button, box) {
    const x = box.left + box.width / 2;
    const y = box.top + box.height / 2;
    if (box.width === 0 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const hit = document.elementFromPoint(x, y);
    return Boolean(hit) && !button.contains(hit) && !hit.closest('.bar, [data-banner]');
  }

  // Looks at the card now; how many ms are left before its buttons take a tap.
  function look(card, now = performance.now()) {
    const seen = watched.get(card);
    if (!seen) return 0;
    const here = where(card);
    const moved = here.view !== seen.view && here.page !== seen.page;
    if (moved || !here.shown) seen.since = now;
    Object.assign(seen, here);
    return Math.max(0, READ_MS - (now - seen.since));
  }

  function say(card, wait) {
    const note = card.querySelector('[data-settle-note]');
    if (wait > 0) {
      card.dataset.settling = 'true';
      // Kept to one line: a note that wraps moves the buttons below it, which starts the wait again.
      if (note) note.textContent = `Read it first: its buttons take a tap in ${Math.ceil(wait / 1000)} s.`;
    } else {
      delete card.dataset.settling;
      if (note) note.textContent = '';
    }
  }

  // Starts watching an answerable card, as just come: its buttons wait READ_MS.
  function watch(card) {
    watched.set(card, { ...where(card), since: performance.now() });
    say(card, READ_MS);
  }

  function forget(card) {
    watched.delete(card);
    say(card, 0);
  }

  // At a tap: ms left before the card's buttons take one (0: they do now). A tap refused
  // starts the wait again, so that a finger tapping again and again never gets through to a card
  // that moved under it.
  function left(card) {
    const now = performance.now();
    let wait = look(card, now);
    if (wait > 0) {
      watched.get(card).since = now;
      wait = READ_MS;
    }
    say(card, wait);
    return wait;
  }

  setInterval(() => {
    let moving = false;
    for (const card of watched.keys()) {
      if (!card.isConnected) {
        watched.delete(card);
        continue;
      }
      const wait = look(card);
      say(card, wait);
      // The page-wide mark names cards on the screen only (one below it waits for ever).
      moving = moving || (wait > 0 && watched.get(card).shown);
    }
    if (moving) document.body.dataset.settling = 'true';
    else delete document.body.dataset.settling;
  }, LOOK_MS);

  return Object.freeze({ READ_MS, watch, forget, left });
})();
