// gatehouse web: Web Push for the page (src/web/push on the server). The `[data-notify]` button
// asks for permission, subscribes with the browser's own PushManager and the gateway's VAPID
// public key, and hands the subscription to gatehouse web (device token in the Authorization
// header only, as every other call). The pushes carry no prompt text: at most a count and a
// short id. The service worker (/sw.js, its push handlers at its end) then fetches the details
// from this origin with the device token, which this script copies into this origin's
// IndexedDB (a service worker cannot read localStorage) and deletes there when the page is no
// longer paired; the worker deletes it too on a 401.
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

  function state(which, text) {
    const button = $('[data-notify]');
    const status = $('[data-notify-status]');
    if (!button) return;
    button.dataset.notifyState = which;
    if (status) {
      status.textContent = text || '';
      status.hidden = !text;
    }
  }

  async function registration() {
    await navigator.serviceWorker.register('/sw.js');
    return navigator.serviceWorker.ready;
  }

  async function turnOn() {
    const button = $('[data-notify]');
    button.disabled = true;
    state('asking', 'Asking the browser…');
    try {
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') {
        state('blocked', 'Notifications are blocked for this page (the browser\'s site settings can allow them).');
        return;
      }
      const info = await api('/api/push');
      if (!info.ok || typeof info.json.public_key !== 'string') {
        state('failed', `Push is not available: ${info.json.error || 'gatehouse web did not answer'}`);
        return;
      }
      const key = bytesFromBase64url(info.json.public_key);
      const worker = await registration();
      let subscription = await worker.pushManager.getSubscription();
      const subscribedKey = subscription && subscription.options && subscription.options.applicationServerKey;
      if (subscription && subscribedKey && base64url(subscribedKey) !== info.json.public_key) {
        await subscription.unsubscribe();
        subscription = null;
      }
      if (!subscription) {
        subscription = await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
      }
      const json = subscription.toJSON();
      await keepForWorker(token());
      const reply = await api('/api/push/subscribe', { endpoint: json.endpoint, keys: json.keys });
      if (!reply.ok) {
        state('failed', `Not accepted: ${reply.json.error || `error ${reply.status}`}`);
        return;
      }
      button.hidden = true;
      state('on', 'Notifications on');
    } catch (error) {
      state('failed', `Could not turn notifications on: ${error && error.message ? error.message : error}`);
    } finally {
      button.disabled = false;
    }
  }

  // The page became paired (or not): show the button when this device gets no pushes yet.
  async function paired(isPaired) {
    const button = $('[data-notify]');
    if (!button) return;
    if (!isPaired) {
      if (!token()) await keepForWorker(null);
      state('off', '');
      return;
    }
    if (!supported) return;
    await keepForWorker(token());
    const info = await api('/api/push');
    if (!info.ok) return;
    if ((info.json.services || []).length) {
      button.hidden = true;
      state('on', 'Notifications on');
    } else {
      button.hidden = false;
      state('off', '');
    }
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
    if (button) button.addEventListener('click', () => { if (supported) turnOn(); });
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
