// gatehouse web: Web Push for the page (src/web/push on the server). The `[data-notify]` button
// asks for permission, subscribes with the browser's own PushManager and the gateway's VAPID
// public key, and hands the subscription to gatehouse web (device token in the Authorization
// header only, as every other call). The pushes carry no prompt text: at most a count and a
// short id. The service worker (/sw.js, its push handlers at its end) then fetches the details
// from this origin with the device token, which this script copies into this origin's
// IndexedDB (a service worker cannot read localStorage) and deletes there when the page is no
// longer paired; the worker deletes it too on a 401.
//
// The header says the state in one short word of a fixed width (on, blocked, no push service:
// the connection's state beside it is never cut), and a sheet at the foot of the screen what
// to do about it, ntfy included, for wherever Web Push cannot work: it moves no card. Every step after the person's permission has STEP_MS to finish: a push
// service that cannot be reached says so instead of "asking" for ever.
'use strict';
(() => {
  const TOKEN_KEY = 'gatehouse-device-token';
  const DB_NAME = 'gatehouse';
  const DB_STORE = 'keys';
  const DB_TOKEN = 'device-token';
  // Read now, before the page's script clears the address's `#` part.
  const promptIn = (hash) => (hash.match(/^#prompt=([0-9A-Za-z-]{1,64})$/) || [])[1] || null;
  const opened = promptIn(location.hash);
  const supported = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window
    && window.isSecureContext;

  const $ = (selector) => document.querySelector(selector);
  const token = () => { try { return localStorage.getItem(TOKEN_KEY); } catch { return null; } };

  function database() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(DB_STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }

  // Keeps (or with null, deletes) the service worker's copy of the device token.
  async function keepForWorker(value) {
    try {
      const db = await database();
      await new Promise((resolve, reject) => {
        const transaction = db.transaction(DB_STORE, 'readwrite');
        const store = transaction.objectStore(DB_STORE);
        if (value) store.put(value, DB_TOKEN); else store.delete(DB_TOKEN);
        transaction.oncomplete = resolve;
        transaction.onerror = () => reject(transaction.error);
      });
      db.close();
    } catch { /* storage unavailable: the worker shows only the count */ }
  }

  async function api(path, body) {
    const headers = {};
    const current = token();
    if (current) headers.Authorization = `Bearer ${current}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const reply = await fetch(path, {
      method: body === undefined ? 'GET' : 'POST', headers, credentials: 'omit', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch(() => null);
    const json = reply ? await reply.json().catch(() => ({})) : {};
    return { ok: !!(reply && reply.ok), status: reply ? reply.status : 0, json };
  }

  function bytesFromBase64url(text) {
    const base64 = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=');
    return Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
  }

  function base64url(buffer) {
    if (!buffer) return '';
    const bytes = new Uint8Array(buffer);
    let text = '';
    for (const byte of bytes) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  // How long a step after the person's permission may take (reaching the push service above
  // all): a step that cannot finish says so instead of asking for ever.
  const STEP_MS = 8000;

  function within(promise, what) {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(what), { late: true })), STEP_MS);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  // What to do where Web Push cannot work: ntfy calls the phone through a topic instead (one tap
  // away under "Or use ntfy", so that the help stays short).
  const NTFY = ['On the machine that runs gatehouse, put ',
    '[notify] ntfy_url = "https://ntfy.sh/<a topic of yours>"',
    ' in gatehouse\'s config.toml, and subscribe to that topic in the ntfy app.'];

  // Shows or hides the help, and says so on the header's words that bring it back.
  function showHelp(shown) {
    const box = $('[data-notify-help]');
    box.hidden = !shown;
    $('[data-notify-again]').setAttribute('aria-expanded', String(shown));
  }

  // The notification state, in the header in a short word (`[data-notify-status]`; `long` says it
  // whole to a screen reader and on hover), with what to do about it in a sheet at the foot of
  // the screen (`[data-notify-help]`) when it is not on. The panel comes with each new state; dismissed, a tap on the header's words
  // (`[data-notify-again]`) brings it back, "Try again" with it.
  function state(which, short, help = '', long = short) {
    const button = $('[data-notify]');
    if (!button) return;
    button.dataset.notifyState = which;
    // The header holds the button or the state's few words, never both.
    button.hidden = which !== 'off';
    const again = $('[data-notify-again]');
    $('[data-notify-status]').textContent = short;
    again.hidden = !short;
    again.title = long;
    again.setAttribute('aria-label', `Notifications: ${long}`);
    // Words with nothing to do behind them ("Notifications on") are only words.
    again.toggleAttribute('data-plain', !help);
    again.tabIndex = help ? 0 : -1;
    const box = $('[data-notify-help]');
    box.querySelector('[data-notify-retry]').hidden = which === 'unsupported';
    box.querySelector('[data-notify-help-text]').replaceChildren(...gatehouseDom.withCode(help));
    box.querySelector('[data-notify-ntfy-text]').replaceChildren(NTFY[0],
      Object.assign(document.createElement('code'), { textContent: NTFY[1] }), NTFY[2]);
    showHelp(Boolean(help));
  }

  // Why this page cannot use Web Push at all, or null when it can.
  function unsupported() {
    if (supported) return null;
    if (!window.isSecureContext) return 'Web Push works only over HTTPS with a certificate the browser trusts (or on this very machine).';
    return 'This browser has no Web Push.';
  }

  async function registration() {
    await navigator.serviceWorker.register('/sw.js');
    return navigator.serviceWorker.ready;
  }

  async function turnOn() {
    const cannot = unsupported();
    if (cannot) {
      state('unsupported', 'No push', cannot, 'no Web Push here');
      return;
    }
    state('asking', 'Asking…');
    try {
      const permission = await Notification.requestPermission();
      if (permission === 'denied') {
        state('blocked', 'Blocked', 'Blocked for this page: allow notifications in the browser\'s site settings, then try again.', 'blocked by the browser');
        return;
      }
      if (permission !== 'granted') {
        state('blocked', 'Not allowed', 'Notifications were not allowed: try again and allow them.', 'not allowed');
        return;
      }
      const info = await within(api('/api/push'), 'gatehouse web did not answer');
      if (!info.ok || typeof info.json.public_key !== 'string') {
        state('failed', 'Push off', `Push is not available: ${info.json.error || 'gatehouse web did not answer'}.`, 'push is off');
        return;
      }
      const key = bytesFromBase64url(info.json.public_key);
      const worker = await within(registration(), 'the page\'s service worker did not start');
      let subscription = await within(worker.pushManager.getSubscription(), 'the browser did not answer');
      const subscribedKey = subscription && subscription.options && subscription.options.applicationServerKey;
      if (subscription && subscribedKey && base64url(subscribedKey) !== info.json.public_key) {
        await within(subscription.unsubscribe(), 'the browser did not answer');
        subscription = null;
      }
      if (!subscription) {
        subscription = await within(worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }), 'no push service reachable');
      }
      const json = subscription.toJSON();
      await keepForWorker(token());
      const reply = await within(api('/api/push/subscribe', { endpoint: json.endpoint, keys: json.keys }), 'gatehouse web did not answer');
      if (!reply.ok) {
        state('failed', 'Not on', `Not accepted: ${reply.json.error || `error ${reply.status}`}.`, 'not on');
        return;
      }
      state('on', 'Notifying', '', 'on');
    } catch (error) {
      const why = error && error.message ? error.message : String(error);
      if (error && error.late && why === 'no push service reachable') {
        state('unreachable', 'No push', `This browser reached no push service within ${STEP_MS / 1000} s (Web Push goes through its maker's servers).`, 'no push service reachable');
      } else {
        state('failed', 'Not on', `Could not turn notifications on: ${why}.`, 'not on');
      }
    }
  }

  // The page became paired (or not): show the button when this device gets no pushes yet.
  async function paired(isPaired) {
    const button = $('[data-notify]');
    if (!button) return;
    if (!isPaired) {
      if (!token()) await keepForWorker(null);
      state('off', '');
      button.hidden = true;
      return;
    }
    if (!supported) {
      // The button stays: a tap says why Web Push cannot work here, and what can (ntfy).
      state('off', '');
      return;
    }
    await keepForWorker(token());
    const info = await api('/api/push');
    if (!info.ok) return;
    if ((info.json.services || []).length) state('on', 'Notifying', '', 'on');
    else state('off', '');
  }

  // Brings the card of prompt `id` into view once it is on the page.
  function openCard(id) {
    if (!id) return;
    const started = Date.now();
    const look = () => {
      const card = Array.from(document.querySelectorAll('[data-prompt-id]'))
        .find((node) => node.dataset.promptId === id);
      if (card) {
        card.scrollIntoView({ block: 'center' });
        card.focus({ preventScroll: true });
        card.dataset.opened = 'true';
      } else if (Date.now() - started < 15000) {
        setTimeout(look, 100);
      }
    };
    look();
  }

  document.addEventListener('DOMContentLoaded', () => {
    const button = $('[data-notify]');
    if (button) button.addEventListener('click', turnOn);
    const close = $('[data-notify-help-close]');
    if (close) close.addEventListener('click', () => showHelp(false));
    const again = $('[data-notify-again]');
    if (again) {
      again.addEventListener('click', () => {
        if (!again.hasAttribute('data-plain')) showHelp($('[data-notify-help]').hidden);
      });
    }
    const retry = $('[data-notify-retry]');
    if (retry) retry.addEventListener('click', turnOn);
    const app = $('[data-app]');
    if (app) {
      let last = null;
      const check = () => {
        const now = !app.hidden;
        if (now !== last) { last = now; paired(now); }
      };
      new MutationObserver(check).observe(app, { attributes: true, attributeFilter: ['hidden'] });
      check();
    }
    if (supported) {
      navigator.serviceWorker.addEventListener('message', (event) => {
        if (event.data && event.data.type === 'gatehouse-open') openCard(String(event.data.id || ''));
      });
    }
    openCard(opened);
    // A link to a card opened in this tab (only the `#` part changes).
    window.addEventListener('hashchange', () => {
      const id = promptIn(location.hash);
      if (!id) return;
      history.replaceState(null, '', location.pathname);
      openCard(id);
    });
  });
})();
