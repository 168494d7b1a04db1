// gatehouse web: the service worker. It makes the page installable and is where push
// notifications arrive. It keeps nothing: no cache, no copy of a prompt.
//
// It has no `fetch` handler, on purpose: every request of the page goes straight to the network
// as if there were no service worker (prompts are never served stale), and the page's requests,
// whose `Authorization` header carries the device token, never pass through this worker at all.
'use strict';

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

// push: handlers below
// Web Push (src/web/push, src/web/assets/push.js). A push carries no prompt text: only
// {"type": "prompt", "waiting": N, "id": short id} (or {"type": "test"}). The worker fetches the
// details from this origin's /api/prompts with the device token that push.js keeps in this
// origin's IndexedDB, and shows "claude@remote:devbox wants to run Bash" (who asks as the page's
// banner says it, who.js, with the remote mark the card shows); without a token, or when the
// fetch fails, it shows only "2 prompts waiting". A 401 deletes the token. A tap opens the card.
if (typeof gatehouseText === 'undefined') importScripts('/text.js');
if (typeof gatehouseWho === 'undefined') importScripts('/who.js');
const gatehousePush = (() => {
  const DB_NAME = 'gatehouse';
  const DB_STORE = 'keys';
  const DB_TOKEN = 'device-token';

  function withStore(mode, act) {
    return new Promise((resolve) => {
      const request = indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(DB_STORE);
      request.onerror = () => resolve(null);
      request.onsuccess = () => {
        const db = request.result;
        try {
          const transaction = db.transaction(DB_STORE, mode);
          const result = act(transaction.objectStore(DB_STORE));
          transaction.oncomplete = () => { db.close(); resolve(result && result.result); };
          transaction.onerror = () => { db.close(); resolve(null); };
        } catch {
          db.close();
          resolve(null);
        }
      };
    });
  }

  const storedToken = async () => {
    const value = await withStore('readonly', (store) => store.get(DB_TOKEN));
    return typeof value === 'string' ? value : null;
  };
  const forgetToken = () => withStore('readwrite', (store) => store.delete(DB_TOKEN));
  const line = (text, max) => {
    const shown = gatehouseText.visible(String(text ?? '')).replace(/\s+/g, ' ').trim();
    return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
  };

  // The waiting answerable prompts and the one the push names; null when unknown.
  async function details(message) {
    const token = await storedToken();
    if (!token) return null;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 5000);
    try {
      const reply = await fetch('/api/prompts', {
        headers: { Authorization: `Bearer ${token}` }, credentials: 'omit', cache: 'no-store',
        signal: controller.signal,
      });
      if (reply.status === 401) {
        await forgetToken();
        return null;
      }
      if (!reply.ok) return null;
      const prompts = await reply.json();
      if (!Array.isArray(prompts)) return null;
      const waiting = prompts.filter((prompt) => prompt.state === 'pending' && (prompt.actions || []).length);
      const id = typeof message.id === 'string' ? message.id : '';
      const named = waiting.find((prompt) => id && prompt.short_id
        && (prompt.short_id.startsWith(id) || id.startsWith(prompt.short_id)));
      const prompt = named || waiting[waiting.length - 1];
      return prompt ? { prompt, waiting: waiting.length } : null;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  async function show(message) {
    if (message.type === 'test') {
      return self.registration.showNotification('gatehouse', {
        // A notification is plain text: no backticks around the command.
        body: 'A test from gatehouse web push-test: this device is called when a prompt waits.',
        tag: 'gatehouse-test',
      });
    }
    const found = await details(message);
    if (!found) {
      const count = Number.isInteger(message.waiting) && message.waiting > 0 ? message.waiting : 1;
      return self.registration.showNotification('gatehouse', {
        body: count === 1 ? '1 prompt waiting' : `${count} prompts waiting`,
        tag: 'gatehouse-prompt', renotify: true, data: { id: null },
      });
    }
    const { prompt, waiting } = found;
    const who = gatehouseWho.who(prompt, line);
    const title = prompt.kind === 'question' ? `${who} asks a question` : `${who} wants to run ${line(prompt.tool, 40)}`;
    const more = waiting > 1 ? ` (+${waiting - 1} more waiting)` : '';
    return self.registration.showNotification(title, {
      body: `${line(prompt.summary, 180)}${more}`,
      tag: 'gatehouse-prompt', renotify: true, data: { id: prompt.id },
    });
  }

  async function open(id) {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const page = windows.find((client) => new URL(client.url).origin === self.location.origin);
    if (page) {
      await page.focus();
      page.postMessage({ type: 'gatehouse-open', id });
      return;
    }
    await self.clients.openWindow(id ? `/#prompt=${encodeURIComponent(id)}` : '/');
  }

  return { show, open };
})();

self.addEventListener('push', (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch { /* not JSON: show the count */ }
  event.waitUntil(gatehousePush.show(message || {}));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const id = event.notification.data && event.notification.data.id;
  event.waitUntil(gatehousePush.open(typeof id === 'string' ? id : null));
});
