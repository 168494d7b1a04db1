// gatehouse web: the service worker. It makes the page installable and is where push
// notifications arrive. It keeps nothing: no cache, no copy of a prompt, and it never sees the
// device token (the page keeps that in its own localStorage and sends it only itself). Every
// request goes to the network as if there were no service worker: prompts are never served stale.
'use strict';

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

// Passthrough: no respondWith, so the browser fetches every request itself; nothing is cached.
self.addEventListener('fetch', () => {});

// push: handlers below
