// gatehouse web: the page's script. Agent text is hostile: it is set only with textContent, never
// parsed as markup, after `visible` (from /text.js, generated from gatehouse_core::text: control,
// bidirectional, zero-width and other invisible characters shown as escapes such as \e, \r,
// \u{202e}, exactly as the CLI shows them). The JSON from the server carries the exact text;
// answers send exact option labels and the full prompt id.
//
// The device token lives in this origin's localStorage and goes only in an Authorization header
// (`api` below), never in a cookie: a browser sends a cookie of 127.0.0.1 to every port of it, so
// another local user's server could receive it. The live feed is therefore a streaming fetch
// (`openFeed`), since EventSource cannot set a header.
'use strict';
(() => {
  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
  const { visible, visibleLines } = gatehouseText;

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

  function el(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (name === 'class') node.className = value;
      else if (name === 'text') node.textContent = value;
      else if (value === true) node.setAttribute(name, '');
      else if (value !== false && value != null) node.setAttribute(name, String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  const cards = new Map(); // full id -> { prompt, node, ended }
  let feed = null; // the AbortController of the open feed
  let device = null;

  function show(which) {
    for (const name of ['data-unpaired', 'data-pair-form', 'data-app']) {
      $(`[${name}]`).hidden = name !== which;
    }
  }

  function setConnection(up, text) {
    const label = $('[data-connection]');
    label.dataset.up = up ? 'true' : 'false';
    label.textContent = text;
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
    for (const id of cards.keys()) removeCard(id);
    $('[data-unpaired-reason]').textContent = reason || '';
    setConnection(false, 'not paired');
    $('[data-notify]').hidden = true;
    show('data-unpaired');
  }

  async function start() {
    const match = location.hash.match(/^#pair=([0-9a-f]{64})$/);
    // The token leaves the address bar and this tab's history at once, and never goes in a
    // request's URL. The browser's own history database may keep the link: the token pairs
    // once and expires in 10 minutes.
    if (location.hash) history.replaceState(null, '', location.pathname);
    if (match) return showPairForm(match[1]);
    checkSession();
  }

  async function checkSession() {
    if (!credential.get()) return unpaired('');
    const reply = await api('/api/session');
    if (reply && reply.ok) return startApp((await reply.json()).device);
    if (reply && reply.status === 401) {
      return loggedOut(device ? 'This browser is no longer paired (it was logged out).' : '');
    }
    setConnection(false, 'cannot reach gatehouse web; retrying…');
    setTimeout(checkSession, 2000);
  }

  function showPairForm(token) {
    show('data-pair-form');
    setConnection(false, 'pairing');
    const form = $('[data-pair]');
    form.addEventListener('submit', async (event) => {
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
        return startApp(body.device);
      }
      unpaired(`Pairing failed: ${visible(body.error || 'gatehouse web did not answer')}`);
    });
    $('[data-device-name]').focus();
  }

  function startApp(paired) {
    device = paired;
    show('data-app');
    setUpNotifications();
    setConnection(false, 'connecting…');
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
    endAll('gatehouse web is unreachable; this prompt may come back when it is.');
    setConnection(false, 'gatehouse web is unreachable; reconnecting…');
    setTimeout(checkSession, 1000);
  }

  function handle(message) {
    if (message.type === 'snapshot') {
      gatewayState(message.gateway);
      const live = new Set(message.prompts.map((prompt) => prompt.id));
      for (const [id, card] of cards) if (!live.has(id) && !card.ended) endCard(id, 'ended', 'No longer pending.');
      message.prompts
        .slice()
        .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
        .forEach((prompt) => addCard(prompt, false));
    } else if (message.type === 'gateway') {
      gatewayState(message.gateway);
    } else if (message.type === 'event') {
      const event = message.event;
      if (event.type === 'added') addCard(event.prompt, true);
      else if (event.type === 'changed' && event.state !== 'pending') endCard(event.id, event.state, describe(event));
    } else if (message.type === 'unpaired') {
      loggedOut('This browser was logged out (`gatehouse web revoke`). Pair it again to answer here.');
    }
    updateEmpty();
  }

  function gatewayState(gateway) {
    if (gateway.up) {
      setConnection(true, `live · paired as ${visible(device ? device.name : '')}`);
    } else {
      endAll('The gateway went away; the agent asks again when it is back.');
      setConnection(false, `gateway down: ${visible(gateway.reason || 'unreachable')} · retrying`);
    }
  }

  function describe(event) {
    const by = event.by ? ` by ${visible(event.by)}` : '';
    switch (event.state) {
      case 'resolved':
      case 'delivered':
      case 'unconfirmed':
        return `Answered${event.action ? ` (${event.action})` : ''}${by}.`;
      case 'released':
        return `Handed back to the agent's terminal${by}.`;
      case 'withdrawn':
        return `Withdrawn: ${visible(event.reason || 'answered in the agent\'s terminal')}.`;
      case 'expired':
        return 'Expired: nobody answered in time; the agent\'s terminal decides.';
      default:
        return `Now ${visible(event.state)}.`;
    }
  }

  function addCard(prompt, fresh) {
    const known = cards.get(prompt.id);
    if (known && !known.ended) return;
    if (known) removeCard(prompt.id);
    const node = renderPrompt(prompt);
    cards.set(prompt.id, { prompt, node, ended: false });
    $('[data-prompts]').append(node);
    if (fresh) notify(prompt);
  }

  function removeCard(id) {
    const card = cards.get(id);
    if (card) card.node.remove();
    cards.delete(id);
  }

  function endCard(id, state, why) {
    const card = cards.get(id);
    if (!card || card.ended) return;
    card.ended = true;
    card.node.dataset.state = state;
    for (const node of $$('[data-actions], [data-answer-form] input, [data-answer-form] textarea', card.node)) {
      if (node.matches('[data-actions]')) node.remove();
      else node.disabled = true;
    }
    $('[data-status]', card.node).textContent = why;
    setTimeout(() => { if (cards.get(id) === card) removeCard(id); updateEmpty(); }, 10 * 60 * 1000);
  }

  function endAll(why) {
    for (const [id, card] of cards) if (!card.ended) endCard(id, 'ended', why);
    updateEmpty();
  }

  function updateEmpty() {
    $('[data-empty]').hidden = Array.from(cards.values()).some((card) => !card.ended);
  }

  function age(created) {
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(created)) / 1000));
    if (seconds < 60) return `${seconds}s ago`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
    return `${Math.floor(seconds / 3600)}h ago`;
  }

  function renderPrompt(prompt) {
    const input = prompt.input || {};
    const node = el('article', {
      class: 'prompt', 'data-prompt-id': prompt.id, 'data-state': prompt.state, tabindex: 0,
      'aria-label': `${prompt.adapter} ${prompt.tool} prompt`,
    });
    node.append(el('div', { class: 'meta' },
      el('span', { class: 'agent', text: visible(prompt.adapter) }),
      el('span', { class: 'tool', text: visible(prompt.tool) }),
      el('span', { class: 'kind', text: visible(prompt.kind) }),
      el('time', { class: 'age', 'data-age': true, 'data-created': prompt.created_at, datetime: prompt.created_at, text: age(prompt.created_at) })));
    node.append(el('dl', { class: 'where' },
      el('dt', { text: 'folder' }), el('dd', { text: visible(prompt.cwd) }),
      el('dt', { text: 'session' }), el('dd', { text: visible(prompt.session) }),
      el('dt', { text: 'id' }), el('dd', { text: visible(prompt.short_id || prompt.id), title: prompt.id })));
    const questions = prompt.questions || [];
    const form = el('div', { class: 'answer-form', 'data-answer-form': true });
    if (questions.length) {
      questions.forEach((question) => form.append(renderQuestion(prompt, question)));
    } else if (typeof input.command === 'string') {
      node.append(el('pre', { class: 'input command', 'data-input': true, text: visibleLines(input.command) }));
      if (typeof input.description === 'string') node.append(el('p', { class: 'description', text: visible(input.description) }));
    } else {
      node.append(el('pre', { class: 'input', 'data-input': true, text: visibleLines(JSON.stringify(input, null, 2)) }));
    }
    node.append(form);
    const actions = prompt.actions || [];
    if (!actions.length) {
      const reason = visible(prompt.read_only_reason || 'gatehouse offers no answer for this prompt');
      const where = /terminal/i.test(reason) ? '' : ' Answer it in the agent\'s own terminal.';
      node.append(el('p', { class: 'readonly', 'data-read-only': true, text: `Read-only here: ${reason}.${where}` }));
    } else {
      const bar = el('div', { class: 'actions', 'data-actions': true });
      if (actions.includes('deny')) {
        bar.append(el('input', { type: 'text', class: 'deny-message', 'data-deny-message': true, maxlength: 2000,
          placeholder: 'Message for the agent (optional)', 'aria-label': 'Message for the agent with Deny' }));
      }
      const buttons = el('div', { class: 'buttons' });
      const labels = { once: 'Allow once', answer: 'Send answer', deny: 'Deny' };
      for (const action of ['once', 'answer', 'deny']) {
        if (!actions.includes(action)) continue;
        const button = el('button', { type: 'button', class: action, 'data-action': action, text: labels[action] });
        button.addEventListener('click', () => send(prompt, node, action));
        buttons.append(button);
      }
      const release = el('button', { type: 'button', class: 'release', 'data-action': 'release', text: 'Hand back to terminal' });
      release.addEventListener('click', () => send(prompt, node, 'release'));
      buttons.append(release);
      bar.append(buttons);
      node.append(bar);
    }
    node.append(el('p', { class: 'status', 'data-status': true, role: 'status', 'aria-live': 'polite' }));
    return node;
  }

  function renderQuestion(prompt, question) {
    const set = el('fieldset', { class: 'question', 'data-question-id': question.id });
    const legend = el('legend');
    if (question.header) legend.append(el('span', { class: 'header', text: visible(question.header) }));
    legend.append(el('span', { class: 'text', text: visible(question.text) }));
    if (question.multi) legend.append(el('span', { class: 'hint', text: 'choose any' }));
    set.append(legend);
    const name = `${prompt.id}:${question.id}`;
    const other = el('input', { type: 'text', class: 'other', 'data-other': true, placeholder: 'Other: your own words', 'aria-label': `Other answer to ${question.text}` });
    for (const option of question.options) {
      const box = el('input', { type: question.multi ? 'checkbox' : 'radio', name, 'data-option': option.label });
      if (!question.multi) box.addEventListener('change', () => { other.value = ''; });
      const label = el('label', { class: 'option' }, box,
        el('span', { class: 'label', text: visible(option.label) }));
      if (option.description) label.append(el('small', { text: visible(option.description) }));
      set.append(label);
    }
    if (!question.multi) {
      other.addEventListener('input', () => { for (const box of $$('[data-option]', set)) box.checked = false; });
    }
    set.append(other);
    return set;
  }

  function collectAnswer(prompt, node) {
    const responses = [];
    for (const question of prompt.questions || []) {
      const set = $(`[data-question-id="${CSS.escape(question.id)}"]`, node);
      const picks = $$('[data-option]', set).filter((box) => box.checked).map((box) => box.dataset.option);
      const text = $('[data-other]', set).value.trim();
      if (!picks.length && !text) throw new Error(`Choose an answer to "${visible(question.text)}" first.`);
      const response = { question: question.id, picks };
      if (text) response.text = text;
      responses.push(response);
    }
    return { action: 'answer', responses };
  }

  async function send(prompt, node, action) {
    const status = $('[data-status]', node);
    let path = '/api/answer';
    let body;
    try {
      if (action === 'release') {
        path = '/api/release';
        body = { id: prompt.id };
      } else if (action === 'deny') {
        const message = $('[data-deny-message]', node).value.trim();
        body = { id: prompt.id, answer: message ? { action: 'deny', message } : { action: 'deny' } };
      } else if (action === 'answer') {
        body = { id: prompt.id, answer: collectAnswer(prompt, node) };
      } else {
        body = { id: prompt.id, answer: { action: 'once' } };
      }
    } catch (error) {
      status.textContent = error.message;
      return;
    }
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
    buttons.forEach((button) => { button.disabled = false; });
    status.textContent = reply
      ? `Not accepted: ${visible(result.error || `error ${reply.status}`)}`
      : 'Could not reach gatehouse web; nothing was sent. Try again.';
    node.dataset.refused = 'true';
  }

  function notify(prompt) {
    if (!document.hidden || !('Notification' in window) || Notification.permission !== 'granted') return;
    const title = `${visible(prompt.adapter)}: ${visible(prompt.tool)}`;
    new Notification(title, { body: visible(prompt.summary).slice(0, 200), tag: prompt.id });
  }

  let notificationsSetUp = false;
  function setUpNotifications() {
    const button = $('[data-notify]');
    if (notificationsSetUp || !('Notification' in window) || Notification.permission !== 'default') return;
    notificationsSetUp = true;
    button.hidden = false;
    button.addEventListener('click', async () => {
      await Notification.requestPermission();
      button.hidden = Notification.permission !== 'default';
    });
  }

  setInterval(() => {
    for (const time of $$('[data-age]')) time.textContent = age(time.dataset.created);
  }, 1000);

  document.addEventListener('DOMContentLoaded', start);
})();
