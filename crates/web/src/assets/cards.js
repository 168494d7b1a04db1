// gatehouse web: one prompt's card. It shows everything that will run: who asks and where (agent,
// host, folder, terminal pane, age), every field of the input, the fields that widen a call as
// flags, an edit's diff or a plan as text, and for `always` the exact rule and what it lets
// through. Nothing is hidden: a long text is either shown whole or collapsed behind an explicit
// `[data-expand]` control, and the approving buttons stay disabled until every collapsed part has
// been opened. A cut prompt (the gateway sent only its start) can never be approved here.
//
// The order is the order of reading: agent, host and folder, then at once what it asks (the
// command, the diff, the plan or the question), its flags, then the buttons; the terminal pane
// and the id come last. A prompt its hook holds (`hold_ends_at`) counts down in one short line
// above the buttons (`[data-hold]`); what happens then, in the gateway's words (`after_hold`),
// opens under "then?" below every button, so that opening it moves none; once the hold has
// ended, the card offers nothing: the gateway
// refuses any answer after it. An ended card (`ended`) says how it ended and shows what it
// asked, nothing more.
//
// Agent text is hostile: it is set only with textContent after `visible` (see dom.js).
'use strict';
const gatehouseCards = (() => {
  const { $, $$, el, visibleLineNodes, appendLines, age, withCode } = gatehouseDom;
  const { visible } = gatehouseText;

  // A text longer than this is collapsed behind `[data-expand]`.
  const MOST_LINES = 16;
  const MOST_CHARACTERS = 1600;
  // The fields whose content a complete preview (diff, new file, plan) shows whole: as sent,
  // they stay one tap away. Every other field (a path, `replace_all`, anything unknown) is shown.
  const PREVIEWED = ['content', 'old_string', 'new_string', 'edits', 'plan'];
  // The actions that let the agent go ahead.
  const APPROVING = ['once', 'always', 'answer'];
  // Input fields that widen what a call may do, and how the card flags them.
  const WIDENING = {
    dangerouslyDisableSandbox: (value) => value === true && 'sandbox OFF: runs outside the sandbox',
    run_in_background: (value) => value === true && 'runs in the background (keeps running after the answer)',
    timeout: (value) => value != null && `timeout ${describeTimeout(value)}`,
    replace_all: (value) => value === true && 'replaces every match in the file, not one',
  };

  function describeTimeout(value) {
    if (typeof value !== 'number') return visible(JSON.stringify(value));
    const minutes = value / 60000;
    return minutes >= 1 ? `${value} ms (${Math.round(minutes * 10) / 10} min)` : `${value} ms`;
  }

  // `text` between backticks, as gatehouse_core::rule_match::code quotes it.
  function code(text) {
    const longest = Math.max(0, ...String(text).split(/[^`]/).map((run) => run.length));
    const fence = '`'.repeat(longest + 1);
    const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
    return `${fence}${pad}${text}${pad}${fence}`;
  }

  // What one rule lets through, in the words of gatehouse_core::RuleMatch::describe.
  function describeRule(rule) {
    switch (rule.kind) {
      case 'every_call': return `every ${rule.tool} call, whatever its input`;
      case 'exact': return `only the ${rule.tool} command ${code(rule.command)}, exactly as written`;
      case 'prefix': return `every ${rule.tool} command that is ${code(rule.prefix)} or starts with it followed by a space, whatever comes after (such as ${code(`${rule.prefix} --force ...`)})`;
      case 'wildcard': return `every ${rule.tool} command that matches the pattern ${code(rule.pattern)}, where each * stands for any text (spaces and options included)`;
      case 'agent_rule': return `every ${rule.tool} call that the agent's own rule ${code(`${rule.tool}(${rule.rule})`)} matches`;
      case 'mode': return `mode ${code(rule.mode)}: ${rule.lets_through}`;
      case 'word_prefix': {
        const words = Array.isArray(rule.words) ? rule.words.map(String) : [];
        return `every ${rule.tool} command whose words begin with ${words.map(code).join(' ')} (that command, or it followed by more words, such as ${code(`${words.join(' ')} --force ...`)})`;
      }
      case 'warned': {
        const inner = rule.rule && typeof rule.rule === 'object' ? describeRule(rule.rule) : null;
        return inner === null ? null : `${inner}. ${rule.warning}`;
      }
      case 'next_session': {
        const inner = rule.rule && typeof rule.rule === 'object' ? describeRule(rule.rule) : null;
        return inner === null ? null : `${inner}, from your next ${rule.agent} session on; this session will still ask`;
      }
      default: return null;
    }
  }

  // What a suggestion lets through, as Suggestion::describe says it.
  function describeSuggestion(suggestion) {
    const allows = Array.isArray(suggestion.allows) ? suggestion.allows : [];
    const words = allows.map(describeRule);
    if (!allows.length || words.includes(null)) return String(suggestion.summary ?? '');
    return words.join('; and ');
  }

  // The agent's own rule, as it will be written.
  function nativeRule(native) {
    if (native && Array.isArray(native.rules)) {
      const rules = native.rules.map((rule) => (rule && rule.ruleContent != null
        ? `${rule.toolName}(${rule.ruleContent})` : String(rule && rule.toolName)));
      return `${native.behavior || 'allow'} ${rules.join(', ')}`;
    }
    if (native && typeof native.mode === 'string') return `set mode ${native.mode}`;
    // An agent's rule that the adapter gives as the text it will write.
    if (native && typeof native.rule_text === 'string') return native.rule_text;
    return JSON.stringify(native ?? null);
  }

  function terminalWords(terminal) {
    if (!terminal || typeof terminal !== 'object') return '';
    const parts = [];
    if (terminal.tmux_window) parts.push(`tmux ${terminal.tmux_window}.${terminal.tmux_pane || ''}`);
    else if (terminal.tmux_pane || terminal.tmux_socket) {
      const server = String(terminal.tmux_socket || '').split('/').pop();
      parts.push(`tmux ${server} ${terminal.tmux_pane || ''}`.trim());
    }
    if (terminal.pid != null) parts.push(`pid ${terminal.pid}`);
    return parts.join(', ');
  }

  // The folder, with `~` for the home of this machine when the prompt comes from it.
  function folderWords(cwd, local, home) {
    const folder = String(cwd ?? '');
    if (local && home && home !== '/') {
      if (folder === home) return '~';
      if (folder.startsWith(`${home}/`)) return `~${folder.slice(home.length)}`;
    }
    return folder;
  }

  // A block of lines, collapsed behind `[data-expand]` when long; a collapsed block counts
  // against the card's gate until it is opened.
  // `total` is how many lines the text has (a run of blank lines is shown as one).
  function block(card, lines, attributes, { blockLines = false, total = lines.length } = {}) {
    const node = el('pre', attributes);
    appendLines(node, lines, blockLines);
    const characters = node.textContent.length;
    if (lines.length <= MOST_LINES && characters <= MOST_CHARACTERS) return node;
    node.dataset.collapsed = 'true';
    card.dataset.unopened = String(Number(card.dataset.unopened || 0) + 1);
    const what = total > 1 ? `all ${total} lines` : `all ${characters} characters`;
    // On a cut card opening the start enables nothing: only loading the whole prompt can.
    let text = `Show ${what} (Allow stays off until you do)`;
    if (card.dataset.answerable !== 'true') text = `Show ${what}`;
    else if (card.dataset.cut === 'true') text = `Show ${what} of this start (Allow stays off: only “Load the whole prompt” can turn it on)`;
    const button = el('button', {
      type: 'button', class: 'expand small', 'data-expand': true, 'aria-expanded': 'false', 'data-what': what, text,
    });
    button.addEventListener('click', () => {
      delete node.dataset.collapsed;
      button.remove();
      card.dataset.unopened = String(Math.max(0, Number(card.dataset.unopened || 0) - 1));
      updateGate(card);
    });
    const wrapper = el('div', { class: 'collapsible' }, node, button);
    return wrapper;
  }

  // Time left, rounded up to the second: `38s`, `9m 32s`, `2h 5m`.
  function timeLeft(millis) {
    const seconds = Math.max(0, Math.ceil(millis / 1000));
    if (seconds < 60) return `${seconds}s`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
    return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  }

  // What happens when the hold ends, in the gateway's words (they start with "then").
  function afterHold(prompt) {
    return visible(typeof prompt.after_hold === 'string' && prompt.after_hold
      ? prompt.after_hold : 'then the agent\'s own prompt decides, and an answer here is refused');
  }

  // A hold that ends within this long says so louder.
  const URGENT_MS = 20000;

  // The countdown of a prompt its hook holds for an answer, in one short line above the buttons,
  // with a "then?" toggle (`[data-then]`); none for a watched or read-only one. The line keeps
  // its height as it counts, so the buttons under it never move.
  function renderHold(prompt) {
    if (typeof prompt.hold_ends_at !== 'string' || !(prompt.actions || []).length) return null;
    if (!Number.isFinite(Date.parse(prompt.hold_ends_at))) return null;
    return el('div', { class: 'hold', 'data-hold': true, 'data-hold-ends': prompt.hold_ends_at, 'data-hold-after': afterHold(prompt) },
      el('p', { class: 'hold-line' },
        el('strong', { class: 'left', 'data-hold-left': true, text: '' }),
        el('span', { 'data-hold-lead': true, text: ' left to answer here' })),
      el('button', { type: 'button', class: 'then', 'data-then': true, 'aria-expanded': 'false', text: 'then?' }));
  }

  // What happens when the hold ends, in the gateway's words: shown by "then?" below everything
  // that takes a tap, so that opening it moves no button of the card (a tap on "Hand back" right
  // after it is the person's, on a card that did not move).
  function renderThen(hold) {
    const after = hold.dataset.holdAfter;
    const text = el('p', { class: 'then-text', 'data-after-hold': after, hidden: true },
      ...withCode(`When the hold ends, ${after.replace(/^then /, '')}.`));
    const toggle = $('[data-then]', hold);
    toggle.addEventListener('click', () => {
      text.hidden = !text.hidden;
      toggle.setAttribute('aria-expanded', String(!text.hidden));
    });
    return text;
  }

  // Counts the card's hold down; when it has ended, takes the card's answers away (the gateway
  // refuses them now) and says what happened instead.
  function updateHold(card) {
    const note = $('[data-hold]', card);
    if (!note || card.dataset.holdEnded === 'true') return;
    const left = Date.parse(note.dataset.holdEnds) - Date.now();
    if (left > 0) {
      $('[data-hold-left]', note).textContent = timeLeft(left);
      if (left <= URGENT_MS) note.dataset.holdUrgent = 'true';
      return;
    }
    card.dataset.holdEnded = 'true';
    const after = note.dataset.holdAfter;
    note.replaceChildren(el('p', { class: 'hold-ended' },
      el('span', { 'data-hold-lead': true, text: 'The hold has ended' }),
      el('span', { 'data-after-hold': after }, ...withCode(`: nothing can be answered here any more; ${after}.`))));
    keepStatus(card);
    for (const node of $$('[data-actions], [data-suggestions], [data-gate-note], .then-text', card)) node.remove();
    for (const node of $$('[data-answer-form] input, [data-answer-form] textarea', card)) node.disabled = true;
  }

  // Moves the card's status line out of its buttons' bar, under who asks and where, before the
  // bar goes.
  function keepStatus(card) {
    const status = $('[data-status]', card);
    const top = $('[data-where]', card) || $('.meta', card);
    if (status && top && status.closest('[data-actions]')) top.after(status);
  }

  // An ended card says how it ended (its status, at the top) and shows what it asked, nothing
  // more: no buttons, no countdown, no word of what would turn Allow on, and none of the live
  // card's advice (a read-only card's "answer it in the agent's terminal" and its "Why").
  function ended(card) {
    keepStatus(card);
    for (const node of $$('[data-actions], [data-suggestions], [data-gate-note], [data-hold], .then-text, [data-load-whole], [data-cut], [data-plan-effect], [data-read-only]', card)) node.remove();
    for (const node of $$('[data-answer-form] input, [data-answer-form] textarea', card)) node.disabled = true;
    for (const button of $$('[data-expand]', card)) button.textContent = `Show ${button.dataset.what}`;
    delete card.dataset.settling;
  }

  // Enables the approving buttons only when nothing is left unopened and the prompt is whole.
  function updateGate(card) {
    const unopened = Number(card.dataset.unopened || 0);
    const blocked = card.dataset.cut === 'true' || unopened > 0 || card.dataset.holdEnded === 'true';
    for (const button of $$('[data-action]', card)) {
      if (APPROVING.includes(button.dataset.action)) {
        button.disabled = blocked || card.dataset.sending === 'true';
      }
    }
    const note = $('[data-gate-note]', card);
    if (!note) return;
    if (card.dataset.cut === 'true') {
      note.textContent = 'Allowing is off: this page has only the start of this prompt. Load it whole (above) to allow it; Deny works here.';
    } else if (unopened > 0) {
      note.textContent = `Allowing is off until you open the ${unopened === 1 ? 'collapsed part' : `${unopened} collapsed parts`} above (“Show all”).`;
    } else {
      note.textContent = '';
    }
  }

  // A text in a block: every line made visible, collapsed when long.
  function textBlock(card, text, attributes) {
    const total = String(text ?? '').replace(/\n$/, '').split('\n').length;
    return block(card, visibleLineNodes(text), attributes, { total });
  }

  // An agent's name for people.
  // From /agents.js, which the binary writes from its registry of agents.
  const AGENT_NAMES = globalThis.GATEHOUSE_AGENT_NAMES ?? {};
  function agentName(adapter) {
    return Object.hasOwn(AGENT_NAMES, adapter) ? AGENT_NAMES[adapter] : visible(adapter);
  }

  // The agent's own ids of a call: shown, last and dimmed, since they change nothing that runs.
  const BOOKKEEPING = /^(id|sessionID|session_id|messageID|message_id|callID|call_id|turn_id|tool_use_id)$/;
  // Fields that say what will run, first.
  const FIRST = ['patterns', 'pattern', 'file_path', 'path', 'filePath', 'url'];
  function isListOfLines(value) {
    return Array.isArray(value) && value.length > 0
      && value.every((item) => typeof item === 'string' && item !== '' && !/[\n\r]/.test(item));
  }

  function fieldRank(name) {
    if (FIRST.includes(name)) return 0;
    return BOOKKEEPING.test(name) ? 2 : 1;
  }

  // A cut input's JSON start, as lines: the escapes of a JSON string (\n, \t, \", \uXXXX) made
  // into what they stand for. `visible` then shows every control character as an escape.
  function jsonExcerptAsText(excerpt) {
    return String(excerpt).replace(/\\(["\\/bfnrt]|u[0-9a-fA-F]{4})/g, (whole, code) => {
      const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (code in simple) return simple[code];
      return String.fromCharCode(parseInt(code.slice(1), 16));
    });
  }

  // The words up to the first `.`, `:` or `;` followed by a space, outside brackets and backticks.
  function firstClause(words) {
    let depth = 0;
    let quoted = false;
    for (let index = 0; index < words.length - 1; index += 1) {
      const char = words[index];
      if (char === '`') quoted = !quoted;
      else if (!quoted && char === '(') depth += 1;
      else if (!quoted && char === ')') depth = Math.max(0, depth - 1);
      else if (!quoted && depth === 0 && '.:;'.includes(char) && words[index + 1] === ' ') return words.slice(0, index);
    }
    return words.replace(/[.]$/, '');
  }

  // A read-only reason: its first clause, then the whole reason behind "Why".
  function renderReadOnly(reason) {
    const words = visible(reason || 'gatehouse offers no answer for this prompt');
    // The first clause without a bracketed aside at its end (Why has it).
    const first = firstClause(words).replace(/\s\([^()]*\)$/, '');
    const there = /terminal/i.test(first) ? '' : ' Answer it in the agent\'s own terminal.';
    const node = el('div', { class: 'readonly', 'data-read-only': true });
    const lead = el('p', { 'data-read-only-short': true }, el('strong', { text: 'Read-only here: ' }), ...withCode(first), document.createTextNode(`.${there}`));
    node.append(lead);
    if (first !== words.replace(/[.]$/, '')) {
      node.append(el('details', { class: 'why', 'data-read-only-why': true },
        el('summary', { text: 'Why' }), el('p', {}, ...withCode(`${words.replace(/[.]$/, '')}.`))));
    }
    return node;
  }

  function renderFlags(input) {
    const flags = el('div', { class: 'flags', 'data-flags': true });
    if (input && typeof input === 'object' && !Array.isArray(input)) {
      for (const [name, words] of Object.entries(WIDENING)) {
        if (!(name in input)) continue;
        const text = words(input[name]);
        if (text) flags.append(el('span', { class: 'flag', 'data-flag': name, title: `${name}: ${visible(JSON.stringify(input[name]))}`, text }));
      }
    }
    return flags.childElementCount ? flags : null;
  }

  // Every field of the input: `command` first (as `[data-input]`), then the others in order.
  function renderInput(card, prompt, covered, asSent = null) {
    const input = prompt.input;
    const root = el('div', { class: 'fields', 'data-fields': true });
    if (prompt.cut || input === null || typeof input !== 'object' || Array.isArray(input)) {
      let text = typeof input === 'string' ? input : JSON.stringify(input, null, 2);
      if (prompt.cut && typeof input === 'string') {
        root.append(el('p', { class: 'muted small-note', 'data-cut-start': true, text: 'The start of the input, as its JSON with each \\n shown as a new line:' }));
        text = jsonExcerptAsText(input);
      }
      root.append(textBlock(card, text, { class: 'input', 'data-input': true }));
      if (prompt.cut) root.append(el('p', { class: 'cut-end', 'data-cut-end': true, text: '✂ cut here: the rest of the input is not on this page' }));
      return root;
    }
    const names = Object.keys(input);
    // Under a diff, the input as the agent sent it is labelled as such.
    if (asSent && names.some((name) => !(covered && PREVIEWED.includes(name)))) {
      root.append(el('h3', { class: 'as-sent', 'data-as-sent': true, text: asSent }));
    }
    if (typeof input.command === 'string') {
      root.append(textBlock(card, input.command, { class: 'input command', 'data-input': true, 'data-field': 'command' }));
    }
    // What will run first (patterns, a path), the agent's bookkeeping (its ids) last, dimmed.
    const rest = names.filter((name) => !(name === 'command' && typeof input.command === 'string'))
      .sort((a, b) => fieldRank(a) - fieldRank(b));
    const list = el('dl', { class: 'field-list' });
    const coveredList = el('dl', { class: 'field-list' });
    for (const name of rest) {
      const into = covered && PREVIEWED.includes(name) ? coveredList : list;
      const value = input[name];
      const shortScalar = value === null || typeof value !== 'object';
      const oneLine = shortScalar && !String(value).includes('\n') && String(value).length <= 200;
      const bookkeeping = fieldRank(name) === 2;
      into.append(el('dt', { 'data-field-name': name, class: bookkeeping ? 'bookkeeping' : '', text: visible(name) }));
      const cell = el('dd', { 'data-field': name });
      if (bookkeeping) cell.dataset.bookkeeping = 'true';
      if (name === 'description' && typeof value === 'string' && oneLine) cell.className = 'description';
      // The new content a preview shows as it is (a Write's): said once, above.
      if (PREVIEWED.includes(name) && prompt.preview && typeof value === 'string' && value === prompt.preview.text) cell.textContent = '(the very text shown above)';
      else if (oneLine) cell.textContent = typeof value === 'string' ? visible(value) : visible(JSON.stringify(value));
      else if (isListOfLines(value)) {
        // A list of one-line texts (OpenCode's patterns): one line each, marked as a list.
        cell.append(textBlock(card, value.map((item) => `• ${item}`).join('\n'), { class: 'input', 'data-list': true }));
      } else cell.append(textBlock(card, typeof value === 'string' ? value : JSON.stringify(value, null, 2), { class: 'input' }));
      into.append(cell);
    }
    if (list.childElementCount) root.append(list);
    if (coveredList.childElementCount) {
      // The complete preview above shows these; as sent, they stay one tap away.
      const shown = rest.filter((name) => PREVIEWED.includes(name)).map(visible).join(', ');
      root.append(el('details', { class: 'raw', 'data-raw-input': true },
        el('summary', { text: `As sent: ${shown} (shown above)` }), coveredList));
    }
    if (!names.length) root.append(el('p', { class: 'muted', 'data-input': true, text: '(no input)' }));
    return root;
  }

  // Whether the preview is the new content cut short (a large Write): the input's `content`
  // shows it whole, so the preview's text would only repeat its start.
  function repeatsContent(prompt) {
    const preview = prompt.preview;
    const content = prompt.input && typeof prompt.input === 'object' ? prompt.input.content : null;
    return preview.format === 'text' && Boolean(preview.incomplete) && typeof content === 'string'
      && typeof preview.text === 'string' && content.startsWith(preview.text.slice(0, 4096));
  }

  function renderPreview(card, prompt) {
    const preview = prompt.preview;
    if (!preview || typeof preview !== 'object') return null;
    const root = el('section', { class: 'preview', 'data-preview': preview.format });
    if (preview.title) root.append(el('h3', { class: 'preview-title', 'data-preview-title': true }, ...withCode(visible(preview.title))));
    if (repeatsContent(prompt)) {
      // Its start again, cut short, above the whole of it: said once, below.
      root.append(el('p', { class: 'incomplete', 'data-incomplete': true }, ...withCode(`Preview incomplete: ${visible(preview.incomplete)}; the whole new content is below, as sent.`)));
      return root;
    }
    if (preview.format === 'diff') {
      root.append(block(card, gatehouseDiff.lines(preview.text), { class: 'diff', 'data-diff': true }, { blockLines: true }));
    } else if (preview.format === 'markdown') {
      root.append(gatehousePlan.render(preview.text));
    } else {
      root.append(textBlock(card, preview.text, { class: 'input', 'data-preview-text': true }));
    }
    if (preview.incomplete) {
      root.append(el('p', { class: 'incomplete', 'data-incomplete': true }, ...withCode(`Preview incomplete: ${visible(preview.incomplete)}`)));
    }
    return root;
  }

  function renderQuestion(prompt, question) {
    const set = el('fieldset', { class: 'question', 'data-question-id': question.id });
    // A floated legend sits inside the border, however many lines it wraps to on a phone.
    const legend = el('legend');
    if (question.header) legend.append(el('span', { class: 'header', text: visible(question.header) }));
    legend.append(el('span', { class: 'text', text: visible(question.text) }));
    if (question.multi) legend.append(el('span', { class: 'hint', text: 'choose any' }));
    set.append(legend);
    const name = `${prompt.id}:${question.id}`;
    const other = el('input', { type: 'text', class: 'other', 'data-other': true, placeholder: 'Other: your own words', 'aria-label': `Other answer to ${visible(question.text)}` });
    for (const option of question.options || []) {
      const box = el('input', { type: question.multi ? 'checkbox' : 'radio', name, 'data-option': option.label });
      if (!question.multi) box.addEventListener('change', () => { other.value = ''; });
      const label = el('label', { class: 'option' }, box, el('span', { class: 'label', text: visible(option.label) }));
      if (option.description) label.append(el('small', { text: visible(option.description) }));
      set.append(label);
    }
    if (!question.multi) {
      other.addEventListener('input', () => { for (const box of $$('[data-option]', set)) box.checked = false; });
    }
    set.append(other);
    return set;
  }

  function renderSuggestions(prompt, act) {
    const suggestions = Array.isArray(prompt.suggestions) ? prompt.suggestions : [];
    if (!(prompt.actions || []).includes('always') || !suggestions.length) return null;
    const root = el('section', { class: 'suggestions', 'data-suggestions': true });
    for (const suggestion of suggestions) {
      const box = el('div', { class: 'suggestion', 'data-suggestion': suggestion.id });
      box.append(el('p', { class: 'rule' }, el('span', { class: 'muted', text: 'Always allow, by the rule ' }),
        el('code', { 'data-rule': true, text: visible(nativeRule(suggestion.native)) })));
      box.append(el('p', { class: 'meaning', 'data-rule-meaning': true }, ...withCode(`It lets through ${visible(describeSuggestion(suggestion))}.`)));
      const scopes = Array.isArray(suggestion.scopes) && suggestion.scopes.length ? suggestion.scopes : ['session', 'project', 'user'];
      const select = el('select', { 'data-scope': true, 'aria-label': 'Where the rule is kept' });
      const words = { session: 'for this session', project: 'for this project', user: 'for every project' };
      for (const scope of scopes) select.append(el('option', { value: scope, text: words[scope] || visible(scope) }));
      const button = el('button', { type: 'button', class: 'always', 'data-action': 'always', 'data-suggestion': suggestion.id, text: 'Always allow' });
      button.addEventListener('click', () => act('always', { suggestion: suggestion.id, scope: select.value, button }));
      box.append(el('div', { class: 'buttons' }, select, button));
      box.append(el('p', { class: 'status', 'data-row-status': true, role: 'status' }));
      root.append(box);
    }
    return root;
  }

  // The card of `prompt`. `context`: { localHost, home, act(prompt, card, action, extra),
  // loadWhole(prompt, card) for a cut prompt }.
  function render(prompt, context) {
    const input = prompt.input;
    const actions = prompt.actions || [];
    const host = typeof prompt.host === 'string' ? prompt.host : '';
    // This machine's only when the gateway says so (from the socket it came through), never by
    // the host's name, which a link chooses.
    const origin = gatehouseWho.isLocal(prompt) ? 'local' : 'remote';
    const local = origin === 'local';
    const card = el('article', {
      class: 'prompt', 'data-prompt-id': prompt.id, 'data-state': prompt.state, 'data-origin': origin, tabindex: 0,
      'data-answerable': actions.length ? 'true' : 'false',
      'aria-label': `${visible(prompt.adapter)} ${visible(prompt.tool)} prompt`,
    });
    if (prompt.cut) card.dataset.cut = 'true';
    const act = (action, extra) => context.act(prompt, card, action, extra);

    const hostNode = el('span', { class: 'host', 'data-host': host, text: host ? `@${visible(host)}` : '@(host not given)' });
    // Local or remote only when this machine's name is known (gatehouse web says it).
    const where = host && context.localHost ? el('span', { class: `place ${local ? 'local' : 'remote'}`, 'data-local': local ? 'true' : 'false', text: local ? 'local' : 'remote' }) : null;
    card.append(el('div', { class: 'meta' },
      el('span', { class: 'agent', text: visible(prompt.adapter) }), hostNode, where,
      el('span', { class: 'tool', text: visible(prompt.tool) }),
      el('span', { class: 'kind', text: visible(prompt.kind) }),
      el('time', { class: 'age', 'data-age': true, 'data-created': prompt.held_since || prompt.created_at, datetime: prompt.created_at, text: age(prompt.held_since || prompt.created_at) })));
    // Who and where, then at once what it asks: the command, the diff, the plan or the question.
    card.append(el('dl', { class: 'where', 'data-where': true },
      el('dt', { text: 'folder' }), el('dd', { 'data-folder': true, title: visible(prompt.cwd), text: visible(folderWords(prompt.cwd, local, context.home)) || '(not given)' })));

    const preview = prompt.cut ? null : renderPreview(card, prompt);
    if (preview) card.append(preview);
    const questions = prompt.questions || [];
    const form = el('div', { class: 'answer-form', 'data-answer-form': true });
    if (questions.length) {
      questions.forEach((question) => form.append(renderQuestion(prompt, question)));
    } else {
      const covered = Boolean(preview) && !prompt.preview.incomplete && $('[data-collapsed]', preview) === null;
      const asSent = preview && prompt.preview.format === 'diff' ? `As ${agentName(prompt.adapter)} sent it` : null;
      card.append(renderInput(card, prompt, covered && prompt.kind !== 'question', asSent));
    }
    card.append(form);
    const flags = renderFlags(input);
    if (flags) card.append(flags);
    if (prompt.cut) {
      const size = Number(prompt.cut.full_bytes) || 0;
      // A read-only prompt has no Allow to turn on: loading it is only for reading.
      const answerable = (prompt.actions || []).length > 0;
      const how = answerable ? 'Load it whole here to allow it' : 'Load it whole here to read it';
      card.append(el('p', { class: 'cut', 'data-cut': true },
        ...withCode(`Cut: this prompt is ${size.toLocaleString('en')} bytes and the page shows only its start. ${how}, or read it with \`gatehouse show ${visible(prompt.short_id || prompt.id)}\` on the machine that runs gatehouse.`)));
      if (context.loadWhole) {
        const why = answerable ? 'the only way to turn Allow on' : 'to read it; it stays read-only';
        const load = el('button', { type: 'button', class: 'expand small', 'data-load-whole': true,
          text: `Load the whole prompt (${size.toLocaleString('en')} bytes): ${why}` });
        load.addEventListener('click', () => context.loadWhole(prompt, card));
        card.append(load);
      }
    }

    let hold = null;
    if (!actions.length) {
      card.append(renderReadOnly(prompt.read_only_reason));
      card.append(el('p', { class: 'status', 'data-status': true, role: 'status', 'aria-live': 'polite' }));
    } else {
      hold = renderHold(prompt);
      if (hold) card.append(hold);
      const words = answerWords(prompt);
      if (words.effect) card.append(el('p', { class: 'plan-effect', 'data-plan-effect': true, text: words.effect }));
      const bar = el('div', { class: 'actions', 'data-actions': true });
      if (actions.includes('deny')) {
        bar.append(el('input', { type: 'text', class: 'deny-message', 'data-deny-message': true, maxlength: 2000,
          placeholder: words.message, 'aria-label': 'Message for the agent, sent with Deny' }));
      }
      const buttons = el('div', { class: 'buttons' });
      for (const action of ['once', 'answer', 'deny']) {
        if (!actions.includes(action)) continue;
        const button = el('button', { type: 'button', class: action, 'data-action': action, text: words[action] });
        button.addEventListener('click', () => act(action, { button }));
        buttons.append(button);
      }
      bar.append(buttons);
      // One line kept right under the answer buttons (and right above "Hand back"), whatever it
      // says: what a tap there did (or why not), or how long until the buttons take one. Next
      // to the finger, never under another row of buttons.
      bar.append(el('div', { class: 'answer-line' },
        el('p', { class: 'status', 'data-status': true, role: 'status', 'aria-live': 'polite' }),
        el('p', { class: 'settle', 'data-settle-note': true })));
      const release = el('button', { type: 'button', class: 'release', 'data-action': 'release', text: 'Hand back to terminal' });
      release.addEventListener('click', () => act('release', { button: release }));
      bar.append(el('div', { class: 'buttons' }, release));
      card.append(bar);
      card.append(el('p', { class: 'gate', 'data-gate-note': true, role: 'note' }));
      // The broader answer comes after the narrow ones, with its exact rule and what it matches.
      const suggestions = renderSuggestions(prompt, act);
      if (suggestions) card.append(suggestions);
    }
    // What happens when the hold ends, below every button (see renderThen).
    if (hold) card.append(renderThen(hold));
    // The rest of where it runs, last: the terminal pane and the id.
    const more = el('dl', { class: 'where more' });
    const pane = terminalWords(prompt.terminal);
    if (pane) more.append(el('dt', { text: 'terminal' }), el('dd', { 'data-pane': true, text: visible(pane) }));
    more.append(el('dt', { text: 'id' }), el('dd', { text: visible(prompt.short_id || prompt.id), title: prompt.id }));
    card.append(more);
    updateGate(card);
    updateHold(card);
    return card;
  }

  // The words of a card's buttons. A plan's are the agent's own: approving it ends plan mode,
  // and Claude Code goes on in the mode it had before planning (prePlanMode, else its default
  // mode, which asks before each edit and command); denying keeps it planning.
  function answerWords(prompt) {
    const words = { once: 'Allow once', answer: 'Send answer', deny: 'Deny', message: 'Message with Deny (optional)', effect: '' };
    if (prompt.kind !== 'plan') return words;
    const agent = agentName(prompt.adapter);
    words.once = 'Yes, approve the plan';
    words.deny = 'No, keep planning';
    words.message = `What ${agent} should change (optional)`;
    words.effect = prompt.adapter === 'claude'
      ? 'Approving ends plan mode: Claude Code starts on the plan in the mode it was in before planning (from its default mode, it still asks before each edit and command). “Keep planning” sends your words back and it plans again.'
      : `Approving ends plan mode and ${agent} starts on the plan; “Keep planning” sends your words back.`;
    return words;
  }

  // The answer the card's question form holds; throws with a message when one is missing.
  function collectAnswer(prompt, card) {
    const responses = [];
    for (const question of prompt.questions || []) {
      const set = $(`[data-question-id="${CSS.escape(question.id)}"]`, card);
      const picks = $$('[data-option]', set).filter((box) => box.checked).map((box) => box.dataset.option);
      const text = $('[data-other]', set).value.trim();
      if (!picks.length && !text) throw new Error(`choose an answer to "${visible(question.text)}" first.`);
      const response = { question: question.id, picks };
      if (text) response.text = text;
      responses.push(response);
    }
    return { action: 'answer', responses };
  }

  // The answer chosen, in words: each question's picks and own text, as sent.
  function describeAnswer(answer) {
    return (answer.responses || []).map((response) => [...response.picks, ...(response.text ? [response.text] : [])]
      .map(visible).join(', ')).join('; ');
  }

  return Object.freeze({ render, updateGate, updateHold, ended, collectAnswer, describeAnswer, describeSuggestion, APPROVING });
})();
