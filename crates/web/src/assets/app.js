// gatehouse web: the page's script: pairing, the live feed, the order of the cards, and calling the
// person (the tab's title starts with `(N)`, N the prompts that wait for an answer here; the
// favicon changes; a banner names a new prompt). The cards themselves are cards.js's.
//
// Agent text is hostile: it is set only with textContent, never parsed as markup, after `visible`
// (from /text.js, generated from gatehouse_core::text). The JSON from the server carries the
// exact text; answers send exact option labels and the full prompt id.
//
// The device token lives in this origin's localStorage and goes only in an Authorization header
// (`api` below), never in a cookie: a browser sends a cookie of 127.0.0.1 to every port of it, so
// another local user's server could receive it. The live feed is therefore a streaming fetch
// (`openFeed`), since EventSource cannot set a header. The service worker (sw.js) never sees it.
'use strict';
const gatehouseApp = (() => {
  const { $, $$, el, age, withCode } = gatehouseDom;
  const { visible } = gatehouseText;
  const { APPROVING } = gatehouseCards;

  // How many ended cards the "recently ended" list keeps, and for how long.
  const ENDED_KEPT = 20;
  const ENDED_FOR_MS = 10 * 60 * 1000;
  // Nothing moves under the finger. A card that ends keeps its place and its height, showing only
  // who asked and what happened, until the person scrolls or this long has passed; only then
  // does it go to the "recently ended" list and the cards below move up. A card that moved (or
  // just came) takes no tap until it has stood still on the screen long enough to be read
  // (steady.js).
  const ENDED_IN_PLACE_MS = 5000;
  const SCROLL_FILES_PX = 48;
  const inPlace = new Set(); // the cards kept in place
  let scrolledFrom = 0;
  // How long the notice of an ended prompt stays, and how long a banner for a new one.
  const OUTCOME_FOR_MS = 8000;
  const BANNER_FOR_MS = 20000;
  // The banner goes once its card has been on the screen this long (in a visible tab): it
  // called the person, who has had it in front of them since.
  const BANNER_SEEN_MS = 3000;
  // A refusal goes once the card's buttons take taps again, and at the latest after this long.
  const REFUSAL_FOR_MS = 5000;
  let outcomeTimer = null;
  let bannerTimer = null;
  let bannerSeenTimer = null;
  // Hides the banner (over the top bar: it moves nothing) once the card it names has been on
  // the screen for BANNER_SEEN_MS: a third of it, or half the screen for a card taller than that.
  const bannerWatch = 'IntersectionObserver' in window ? new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if ($('[data-banner]').dataset.for !== entry.target.dataset.promptId) continue;
      clearTimeout(bannerSeenTimer);
      const inView = entry.isIntersecting && (entry.intersectionRatio >= 0.3
        || entry.intersectionRect.height >= innerHeight / 2);
      if (inView) bannerSeenTimer = setTimeout(bannerCardSeen, BANNER_SEEN_MS);
    }
  }, { threshold: [0, 0.1, 0.2, 0.3, 0.5, 1] }) : null;

  function bannerCardSeen() {
    // A tab in the background showed nothing: it is looked at again when the tab comes back.
    if (document.hidden) {
      document.addEventListener('visibilitychange', () => {
        clearTimeout(bannerSeenTimer);
        bannerSeenTimer = setTimeout(bannerCardSeen, BANNER_SEEN_MS);
      }, { once: true });
      return;
    }
    hideBanner();
  }
  const TITLE = 'gatehouse';

  // The device token, kept per origin (scheme, host and port) by the browser.
  const credential = {
    key: 'gatehouse-device-token',
    get() {
      try { return localStorage.getItem(this.key); } catch { return null; }
    },
    set(token) { localStorage.setItem(this.key, token); },
    forget() {
      try { localStorage.removeItem(this.key); } catch { /* storage unavailable */ }
    },
  };

  // A request to gatehouse web with the device token (when there is one); null when unreachable.
  function api(path, { method = 'GET', body, signal } = {}) {
    const headers = {};
    const token = credential.get();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(path, {
      method, headers, signal, credentials: 'omit', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch(() => null);
  }

  // Reads server-sent events from a streaming fetch: calls onMessage with each event's parsed
  // data; resolves with the reply (null when unreachable) once the stream ends.
  async function openFeed(path, signal, onMessage) {
    const reply = await api(path, { signal });
    if (!reply || !reply.ok || !reply.body) return reply;
    const reader = reply.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, '\n');
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n');
          if (data) onMessage(JSON.parse(data));
        }
      }
    } catch {
      // The stream broke or was aborted; the caller decides what next.
    }
    return reply;
  }

  const cards = new Map(); // full id -> { prompt, node, ended }
  let feed = null; // the AbortController of the open feed
  let device = null;
  let here = { host: '', home: '' }; // this machine, as gatehouse web knows it
  // What the page knows about the prompts: 'live' only with a snapshot from a reachable gateway.
  let knowledge = 'starting';

  function show(which) {
    for (const name of ['data-unpaired', 'data-pair-form', 'data-app']) {
      $(`[${name}]`).hidden = name !== which;
    }
  }

  // The connection's state in a word or two that is never cut (`[data-connection-state]`),
  // and its detail (which device this is) after it, cut short where the header has no room.
  function setConnection(up, state, detail = '') {
    const label = $('[data-connection]');
    label.dataset.up = up ? 'true' : 'false';
    label.replaceChildren(el('span', { class: 'state', 'data-connection-state': true, text: state }),
      detail ? el('span', { class: 'detail', text: detail }) : '');
  }

  function closeFeed() {
    if (feed) feed.abort();
    feed = null;
  }

  // The server no longer knows this browser's token: forget it.
  function loggedOut(reason) {
    credential.forget();
    unpaired(reason);
  }

  function unpaired(reason) {
    closeFeed();
    device = null;
    for (const id of cards.keys()) removeCard(id);
    $('[data-unpaired-reason]').replaceChildren(...(reason ? withCode(reason) : []));
    setConnection(false, 'not paired');
    knowledge = 'starting';
    updateCalls();
    show('data-unpaired');
    document.dispatchEvent(new CustomEvent('gatehouse:unpaired'));
  }

  // A pairing link's token in the address (`#pair=...`), taken out of the address bar and this
  // tab's history at once; it never goes in a request's URL. The browser's own history database
  // may keep the link: the token pairs once and expires in 10 minutes.
  function takePairingToken() {
    // Only a pairing link's `#` part is taken (and removed from the address bar and the tab's
    // back list); another one, such as a push's `#prompt=ID`, is push.js's.
    if (!location.hash.startsWith('#pair=')) return null;
    const match = location.hash.match(/^#pair=([0-9a-f]{64})$/);
    history.replaceState(null, '', location.pathname);
    return match ? match[1] : null;
  }

  function start() {
    registerServiceWorker();
    // A pairing link opened in this tab (pasted, or scanned while the page is open) pairs it
    // at once: only the `#` part changes, so the page is not loaded again.
    window.addEventListener('hashchange', () => {
      const token = takePairingToken();
      if (token) showPairForm(token);
    });
    const token = takePairingToken();
    if (token) return showPairForm(token);
    checkSession();
  }

  async function registerServiceWorker() {
    if (!('serviceWorker' in navigator)) return;
    try {
      await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    } catch {
      // A page over a certificate the browser does not trust gets no service worker; the page
      // works without it.
    }
  }

  async function checkSession() {
    if (!credential.get()) return unpaired('');
    const reply = await api('/api/session');
    if (reply && reply.ok) {
      const session = await reply.json().catch(() => ({}));
      return startApp(session);
    }
    if (reply && reply.status === 401) {
      return loggedOut(device ? 'This browser is no longer paired (it was logged out).' : '');
    }
    setConnection(false, 'unreachable', 'gatehouse web does not answer · retrying…');
    knowledge = 'unreachable';
    updateCalls();
    setTimeout(checkSession, 2000);
  }

  function showPairForm(token) {
    closeFeed();
    show('data-pair-form');
    setConnection(false, 'pairing');
    $('[data-pair-error]').textContent = '';
    $('[data-pair-submit]').disabled = false;
    // One handler, replaced for each link: a second link opened in this tab pairs with its own.
    $('[data-pair]').onsubmit = async (event) => {
      event.preventDefault();
      $('[data-pair-submit]').disabled = true;
      const name = $('[data-device-name]').value;
      const reply = await api('/api/pair', { method: 'POST', body: { token, name } });
      const body = reply ? await reply.json().catch(() => ({})) : {};
      if (reply && reply.ok && typeof body.token === 'string') {
        try {
          credential.set(body.token);
        } catch {
          return unpaired('Pairing failed: this browser does not let the page keep its pairing (site storage is off).');
        }
        return checkSession();
      }
      unpaired(`Pairing failed: ${visible(body.error || 'gatehouse web did not answer')}`);
    };
    $('[data-device-name]').focus();
  }

  function startApp(session) {
    device = session.device || { name: '' };
    here = { host: typeof session.host === 'string' ? session.host : '', home: typeof session.home === 'string' ? session.home : '' };
    show('data-app');
    setConnection(false, 'connecting…');
    document.dispatchEvent(new CustomEvent('gatehouse:paired'));
    connect();
  }

  async function connect() {
    closeFeed();
    const controller = new AbortController();
    feed = controller;
    const reply = await openFeed('/api/events', controller.signal, handle);
    if (feed !== controller) return; // closed on purpose, or replaced
    feed = null;
    if (reply && reply.status === 401) {
      return loggedOut('This browser is no longer paired (it was logged out).');
    }
    knowledge = 'unreachable';
    endAll('gatehouse web is unreachable; this prompt may come back when it is.');
    setConnection(false, 'unreachable', 'gatehouse web does not answer · retrying…');
    setTimeout(checkSession, 1000);
  }

  function handle(message) {
    if (message.type === 'snapshot') {
      gatewayState(message.gateway);
      const live = new Set(message.prompts.map((prompt) => prompt.id));
      for (const [id, card] of cards) if (!live.has(id) && !card.ended) endCard(id, 'ended', 'No longer pending.');
      message.prompts.forEach((prompt) => addCard(prompt, false));
    } else if (message.type === 'gateway') {
      gatewayState(message.gateway);
    } else if (message.type === 'event') {
      const event = message.event;
      if (event.type === 'added') addCard(event.prompt, true);
      else if (event.type === 'changed' && event.state !== 'pending') {
      const known = cards.get(event.id);
      endCard(event.id, event.state, describe(event, known && { ...known.prompt, answered: known.answered, denied: known.denied }), true);
    }
    } else if (message.type === 'unpaired') {
      loggedOut('This browser was logged out (`gatehouse web revoke`). Pair it again to answer here.');
    }
    updateCalls();
  }

  function gatewayState(gateway) {
    if (gateway.up) {
      knowledge = 'live';
      setConnection(true, 'live', `paired as ${visible(device ? device.name : '')}`);
    } else {
      knowledge = 'gateway-down';
      endAll('The gateway went away; the agent asks again when it is back.');
      // One short line: the reason may name a socket path, which says nothing on a phone.
      setConnection(false, 'gateway down', 'retrying…');
    }
  }

  // What happened to a prompt, in words; `prompt` (when the page has it) tells what the end of
  // its hold meant.
  function describe(event, prompt) {
    const by = event.by ? ` by ${visible(event.by)}` : '';
    switch (event.state) {
      case 'resolved':
      case 'delivered':
      case 'unconfirmed':
        if (event.action === 'answer' && prompt && prompt.answered) return `Answered: “${prompt.answered}”${by}.`;
        if (event.action === 'deny' && prompt && prompt.denied) return `Answered (deny)${by}, with the message: “${prompt.denied}”.`;
        return `Answered${event.action ? ` (${visible(event.action)})` : ''}${by}.`;
      case 'released':
        return `Handed back to the agent's terminal${by}.`;
      case 'withdrawn':
        return `Withdrawn: ${visible(event.reason || 'answered in the agent\'s terminal')}.`;
      case 'expired':
        if (prompt && typeof prompt.hold_ends_at === 'string' && typeof prompt.after_hold === 'string') {
          return `Expired: the hold ended with no answer here; ${visible(prompt.after_hold)}.`;
        }
        return 'Expired: nobody answered in time; the agent\'s terminal decides.';
      default:
        return `Now ${visible(event.state)}.`;
    }
  }

  function listFor(prompt) {
    return (prompt.actions || []).length ? $('[data-answerable-list]') : $('[data-read-only-list]');
  }

  function cardContext() {
    return { localHost: here.host, home: here.home, act: send, loadWhole };
  }

  // A cut prompt, fetched whole from the gateway (`prompt.get`) and shown in place of its cut
  // card. Its digest goes with an approving answer: the gateway takes no approval of a cut
  // prompt that does not name what the person was shown.
  async function loadWhole(prompt, node) {
    const status = $('[data-status]', node);
    status.textContent = 'Loading the whole prompt…';
    const reply = await api(`/api/prompt/${encodeURIComponent(prompt.id)}`);
    if (reply && reply.status === 401) return loggedOut('This browser is no longer paired (it was logged out).');
    const whole = reply ? await reply.json().catch(() => null) : null;
    const card = cards.get(prompt.id);
    if (!card || card.ended || card.node !== node) return;
    if (!reply.ok || !whole || !whole.prompt || whole.prompt.id !== prompt.id || whole.prompt.cut || typeof whole.digest !== 'string') {
      const why = whole && whole.error ? visible(whole.error) : 'it could not be loaded';
      status.replaceChildren(...withCode(`Not loaded: ${why}. Deny still works here.`));
      return;
    }
    const fresh = gatehouseCards.render(whole.prompt, cardContext());
    fresh.dataset.whole = 'true';
    gatehouseSteady.forget(node);
    node.replaceWith(fresh);
    cards.set(prompt.id, { prompt: whole.prompt, node: fresh, ended: false, seen: whole.digest });
    if ((whole.prompt.actions || []).length) gatehouseSteady.watch(fresh);
  }

  function addCard(prompt, fresh) {
    const known = cards.get(prompt.id);
    if (known && !known.ended) return;
    if (known) removeCard(prompt.id);
    const node = gatehouseCards.render(prompt, cardContext());
    cards.set(prompt.id, { prompt, node, ended: false });
    // Oldest first within its list: the prompt that has waited longest is on top.
    const list = listFor(prompt);
    const when = (item) => Date.parse(item.held_since || item.created_at) || 0;
    const after = $$(':scope > [data-prompt-id]', list)
      .find((other) => when(cards.get(other.dataset.promptId)?.prompt || {}) > when(prompt));
    list.insertBefore(node, after || null);
    if ((prompt.actions || []).length) gatehouseSteady.watch(node);
    if (fresh) banner(prompt);
  }

  function removeCard(id) {
    const card = cards.get(id);
    if (card) {
      gatehouseSteady.forget(card.node);
      clearTimeout(card.fileTimer);
      inPlace.delete(card);
      card.node.remove();
    }
    cards.delete(id);
    const shown = $('[data-banner]');
    if (shown.dataset.for === id) hideBanner();
  }

  function endCard(id, state, why, tellAtTop = false) {
    const card = cards.get(id);
    if (!card || card.ended) return;
    if (tellAtTop) outcome(card.prompt, why);
    card.ended = true;
    card.why = why;
    gatehouseSteady.forget(card.node);
    card.node.dataset.state = state;
    $('[data-status]', card.node).replaceChildren(...withCode(why));
    if ($('[data-banner]').dataset.for === id) hideBanner();
    const height = card.node.getBoundingClientRect().height;
    if (card.node.isConnected && height > 0 && !card.node.closest('[data-ended-items]')) keepInPlace(card, height);
    else fileEnded(card);
  }

  // The ended card keeps its place and its very height, showing who asked, how it ended and
  // what it asked (its buttons and everything that invited a tap are gone, as in "Recently
  // ended"), so that nothing slides under the finger that just tapped.
  function keepInPlace(card, height) {
    const node = card.node;
    node.style.height = `${height}px`;
    node.dataset.endedHere = 'true';
    gatehouseCards.ended(node);
    if (!inPlace.size) scrolledFrom = scrollY;
    inPlace.add(card);
    card.fileTimer = setTimeout(() => fileEnded(card), ENDED_IN_PLACE_MS);
  }

  // Into the "recently ended" list, as a card that says how it ended and what it asked.
  function fileEnded(card) {
    if (cards.get(card.prompt.id) !== card || card.filed) return;
    card.filed = true;
    clearTimeout(card.fileTimer);
    inPlace.delete(card);
    const node = card.node;
    node.style.height = '';
    delete node.dataset.endedHere;
    gatehouseCards.ended(node);
    const ended = $('[data-ended-items]');
    ended.prepend(node);
    $('[data-ended-last]').replaceChildren(...withCode(`last: ${visible(card.prompt.adapter)} ${visible(card.prompt.tool)}: ${card.why}`));
    const items = $$(':scope > [data-prompt-id]', ended);
    for (const extra of items.slice(ENDED_KEPT)) removeCard(extra.dataset.promptId);
    const id = card.prompt.id;
    setTimeout(() => { if (cards.get(id) === card) removeCard(id); updateCalls(); }, ENDED_FOR_MS);
    updateCalls();
  }

  // The person scrolls: the cards kept in place go (they moved the page themselves).
  window.addEventListener('scroll', () => {
    if (inPlace.size && Math.abs(scrollY - scrolledFrom) > SCROLL_FILES_PX) {
      for (const card of Array.from(inPlace)) fileEnded(card);
    }
  }, { passive: true });

  function endAll(why) {
    for (const [id, card] of cards) if (!card.ended) endCard(id, 'ended', why);
    updateCalls();
  }

  // The title, the favicon, the empty line and the list headings, from the live cards.
  function updateCalls() {
    const live = Array.from(cards.values()).filter((card) => !card.ended);
    const answerable = live.filter((card) => (card.prompt.actions || []).length).length;
    const readOnly = live.length - answerable;
    document.title = answerable ? `(${answerable}) ${TITLE}` : TITLE;
    const icon = $('link[rel="icon"]');
    const wanted = answerable ? '/icon-waiting.svg' : '/icon.svg';
    if (icon && icon.getAttribute('href') !== wanted) icon.setAttribute('href', wanted);
    const empty = $('[data-empty]');
    if (knowledge === 'live') {
      empty.textContent = 'No prompt is waiting.';
      empty.hidden = live.length > 0 || inPlace.size > 0;
    } else if (knowledge === 'gateway-down') {
      empty.textContent = 'The gateway is down: what waits cannot be seen or answered here until it is back.';
      empty.hidden = false;
    } else if (knowledge === 'unreachable') {
      empty.textContent = 'Not connected: what waits cannot be seen here until gatehouse web answers again.';
      empty.hidden = false;
    } else {
      empty.textContent = 'Connecting…';
      empty.hidden = false;
    }
    $('[data-read-only-heading]').hidden = readOnly === 0;
    $('[data-read-only-heading]').textContent = `Read-only here (${readOnly}): answer these in the agent's terminal`;
    const endedCount = $$('[data-ended-items] > [data-prompt-id]').length;
    $('[data-ended-list]').hidden = endedCount === 0;
    $('[data-ended-count]').textContent = `Recently ended (${endedCount})`;
  }

  // Where the person looked: a notice at the top of the list (over it, so no card moves) naming
  // the prompt that just ended and how. It takes no taps and goes by itself.
  function outcome(prompt, why) {
    const node = $('[data-outcome]');
    const what = prompt.kind === 'question' ? 'question' : visible(prompt.tool);
    node.replaceChildren(...withCode(`${visible(prompt.adapter)} ${what} (${visible(prompt.short_id || prompt.id)}): ${why}`));
    node.hidden = false;
    clearTimeout(outcomeTimer);
    outcomeTimer = setTimeout(() => { node.hidden = true; }, OUTCOME_FOR_MS);
    node.onclick = () => { node.hidden = true; };
  }

  // A banner at the top for a new prompt, until it is looked at, ends, or a while has passed.
  function banner(prompt) {
    const node = $('[data-banner]');
    node.dataset.for = prompt.id;
    const who = gatehouseWho.who(prompt);
    const what = prompt.kind === 'question' ? 'asks a question' : prompt.kind === 'plan' ? 'has a plan' : `wants to use ${visible(prompt.tool)}`;
    $('[data-banner-text]', node).textContent = `New: ${who} ${what}${(prompt.actions || []).length ? '' : ' (read-only here)'}`;
    node.hidden = false;
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(hideBanner, BANNER_FOR_MS);
    const card = cards.get(prompt.id);
    if (bannerWatch && card) {
      bannerWatch.disconnect();
      clearTimeout(bannerSeenTimer);
      // Only once the banner is drawn, so that the card's place is final.
      requestAnimationFrame(() => { if (node.dataset.for === prompt.id) bannerWatch.observe(card.node); });
    }
  }

  function hideBanner() {
    const node = $('[data-banner]');
    node.hidden = true;
    delete node.dataset.for;
    clearTimeout(bannerTimer);
    clearTimeout(bannerSeenTimer);
    if (bannerWatch) bannerWatch.disconnect();
  }

  function showBannerCard() {
    const id = $('[data-banner]').dataset.for;
    const card = id && cards.get(id);
    hideBanner();
    if (!card) return;
    card.node.scrollIntoView({ block: 'start' });
    card.node.focus({ preventScroll: true });
  }

  // A refusal of a tap, said next to the button that got it: the line right under an "always"
  // row, else the one right under the answer buttons (and right above "Hand back"). When that
  // line is off the screen (the button lay at its very edge), the page scrolls just enough to
  // show it: only that card's own parts come under the finger, and the refusal has just started
  // their wait again (steady.js).
  // The refusal goes once its moment has passed: when the card's buttons take taps again, at the
  // latest after REFUSAL_FOR_MS (unless something else has been said there since).
  // `untilSteady`: the refusal of a card that just came or moved, which goes with its wait.
  function refuse(node, button, text, untilSteady = false) {
    const row = button && button.closest('[data-suggestion]');
    const line = (row && $('[data-row-status]', row)) || $('[data-status]', node);
    line.textContent = text;
    node.dataset.refused = 'true';
    const said = performance.now();
    clearInterval(line.refusalTimer);
    line.refusalTimer = setInterval(() => {
      const since = performance.now() - said;
      const passed = since >= REFUSAL_FOR_MS || (untilSteady && !node.dataset.settling && since >= 400);
      if (line.textContent !== text) clearInterval(line.refusalTimer);
      else if (passed) {
        clearInterval(line.refusalTimer);
        line.textContent = '';
        delete node.dataset.refused;
      }
    }, 100);
    const box = line.getBoundingClientRect();
    if (box.top < $('.bar').getBoundingClientRect().bottom || box.bottom > innerHeight) {
      line.scrollIntoView({ block: 'nearest' });
    }
  }

  // Sends `action` for the card's prompt; `extra` carries the button pressed, and an `always`
  // answer's suggestion and scope.
  async function send(prompt, node, action, extra = {}) {
    const status = $('[data-status]', node);
    let path = '/api/answer';
    let body;
    const messageField = $('[data-deny-message]', node);
    const message = messageField ? messageField.value.trim() : '';
    // A card that just came or moved takes no tap yet, but a Deny with words the person typed
    // into this very card: they were looking at it.
    const wait = gatehouseSteady.left(node);
    if (wait > 0 && !(action === 'deny' && message)) {
      refuse(node, extra.button, `Not sent: this card just came or moved. Read it; tap again in ${Math.ceil(wait / 1000)} s.`, true);
      return;
    }
    if (APPROVING.includes(action)) {
      if (node.dataset.cut === 'true' || Number(node.dataset.unopened || 0) > 0) {
        refuse(node, extra.button, 'Not sent: open every collapsed part first; a cut prompt is allowed only on the machine.');
        return;
      }
      if (message) {
        refuse(node, extra.button, 'Not sent: a message goes to the agent only with Deny. Clear it to allow, or press Deny to send it.');
        messageField.focus();
        return;
      }
    }
    try {
      if (action === 'release') {
        path = '/api/release';
        body = { id: prompt.id };
      } else if (action === 'deny') {
        body = { id: prompt.id, answer: message ? { action: 'deny', message } : { action: 'deny' } };
        const entry = cards.get(prompt.id);
        if (entry && message) entry.denied = visible(message);
      } else if (action === 'answer') {
        body = { id: prompt.id, answer: gatehouseCards.collectAnswer(prompt, node) };
        const entry = cards.get(prompt.id);
        if (entry) entry.answered = gatehouseCards.describeAnswer(body.answer);
      } else if (action === 'always') {
        body = { id: prompt.id, answer: { action: 'always', suggestion: extra.suggestion, scope: extra.scope || 'session' } };
      } else {
        body = { id: prompt.id, answer: { action: 'once' } };
      }
    } catch (error) {
      refuse(node, extra.button, `Not sent: ${error.message}`);
      return;
    }
    const seen = cards.get(prompt.id)?.seen;
    if (seen && body.answer) body.seen = seen;
    delete node.dataset.refused;
    node.dataset.sending = 'true';
    const buttons = $$('[data-action]', node);
    buttons.forEach((button) => { button.disabled = true; });
    status.textContent = 'Sending…';
    const reply = await api(path, { method: 'POST', body });
    const result = reply ? await reply.json().catch(() => ({})) : {};
    if (reply && reply.ok) {
      if (!cards.get(prompt.id)?.ended) status.textContent = `Sent (${visible(result.state)}).`;
      return;
    }
    if (reply && reply.status === 401) return loggedOut('This browser is no longer paired (it was logged out).');
    delete node.dataset.sending;
    buttons.forEach((button) => { button.disabled = false; });
    gatehouseCards.updateGate(node);
    status.replaceChildren(...withCode(reply
      ? `Not accepted: ${visible(result.error || `error ${reply.status}`)}`
      : 'Could not reach gatehouse web; nothing was sent. Try again.'));
    node.dataset.refused = 'true';
  }

  setInterval(() => {
    for (const time of $$('[data-age]')) time.textContent = age(time.dataset.created);
    for (const note of $$('[data-hold]')) {
      const card = note.closest('[data-prompt-id]');
      if (card && !cards.get(card.dataset.promptId)?.ended) gatehouseCards.updateHold(card);
    }
  }, 1000);

  document.addEventListener('DOMContentLoaded', () => {
    $('[data-banner-show]').addEventListener('click', showBannerCard);
    $('[data-banner-close]').addEventListener('click', hideBanner);
    start();
  });

  // For the page's other scripts (the notification button): requests with the device token,
  // and whether this browser is paired now. They never read the token itself.
  return Object.freeze({ api, paired: () => device !== null });
})();
