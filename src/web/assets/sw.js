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
