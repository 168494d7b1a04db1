// gatehouse web: small DOM helpers shared by the page's scripts. Nothing here parses markup:
// every text goes in with textContent, after `visible` (from /text.js).
//
// `textBlock` shows a text as lines the person can trust: every control and invisible character
// as an escape, trailing spaces marked, and runs of blank lines shown as one marked line that
// says how many there were, so that nothing can push the end of a command out of sight.
'use strict';
const gatehouseDom = (() => {
  const { visible } = gatehouseText;
  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

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

  // The lines of `text` as the person should see them: each an array of DOM nodes, built only
  // with textContent. A run of two or more blank lines becomes one marked line.
  function visibleLineNodes(text) {
    const raw = String(text ?? '').split('\n');
    const lines = [];
    for (let index = 0; index < raw.length; index += 1) {
      if (raw[index].trim() === '') {
        let end = index;
        while (end + 1 < raw.length && raw[end + 1].trim() === '') end += 1;
        const count = end - index + 1;
        // A last empty line after a final newline is no blank line of the text.
        const finalNewline = end === raw.length - 1 && raw[end] === '';
        const shownCount = finalNewline ? count - 1 : count;
        if (shownCount >= 2) {
          lines.push([el('span', { class: 'blank-run', 'data-blank-run': shownCount, text: `⋯ ${shownCount} blank lines ⋯` })]);
          index = end;
          continue;
        }
        if (finalNewline && shownCount === 0) continue;
      }
      lines.push(lineNodes(raw[index]));
    }
    return lines;
  }

  // A run of this many spaces or more inside a line is shown as one mark saying how many: a
  // long run would wrap into what looks like blank lines and push the rest out of sight.
  const LONG_SPACE_RUN = 24;

  // One line: its text made visible, long runs of spaces and trailing spaces marked.
  function lineNodes(line) {
    const trailing = line.match(/[ \u00a0]+$/);
    const body = trailing ? line.slice(0, trailing.index) : line;
    const nodes = [];
    let last = 0;
    for (const run of body.matchAll(new RegExp(`[ \u00a0]{${LONG_SPACE_RUN},}`, 'g'))) {
      nodes.push(document.createTextNode(visible(body.slice(last, run.index))));
      nodes.push(el('span', { class: 'blank-run', 'data-space-run': run[0].length, text: `⋯ ${run[0].length} spaces ⋯` }));
      last = run.index + run[0].length;
    }
    nodes.push(document.createTextNode(visible(body.slice(last))));
    if (trailing) {
      nodes.push(el('span', {
        class: 'trailing', 'data-trailing': trailing[0].length,
        title: `${trailing[0].length} trailing space${trailing[0].length === 1 ? '' : 's'}`,
        text: '·'.repeat(trailing[0].length),
      }));
    }
    return nodes;
  }

  // Appends `lines` (arrays of nodes) to `node`, one per line; `blockLines` when each line is
  // a block element of its own (no line break between them then).
  // Each line is a block of its own (`.ln`), so that a line the screen wraps is shown indented
  // under its start and cannot pass for a new line (where a shell would see a new command). The
  // text keeps its newlines: each line but the last ends with one.
  function appendLines(node, lines, blockLines = false) {
    if (blockLines) {
      lines.forEach((line) => node.append(...line));
      return node;
    }
    lines.forEach((line, index) => {
      const block = el('span', { class: 'ln' });
      block.append(...line);
      if (index + 1 < lines.length) block.append('\n');
      node.append(block);
    });
    return node;
  }

  // The age of a timestamp, in words.
  function age(created) {
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(created)) / 1000));
    if (!Number.isFinite(seconds)) return '';
    if (seconds < 60) return `${seconds}s ago`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
    return `${Math.floor(seconds / 3600)}h ago`;
  }

  // `text` with its code words as `<code>` elements, never as backticks and never parsed as
  // markup: a run of backticks opens a code span that the same run closes (as
  // gatehouse_core::rule_match::code quotes, with one space of padding when the code itself
  // starts or ends with a backtick). Text nodes only; the caller makes the text visible first.
  function withCode(text) {
    const source = String(text ?? '');
    const nodes = [];
    let last = 0;
    for (const match of source.matchAll(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g)) {
      let inner = match[2];
      if (inner.length > 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim()) inner = inner.slice(1, -1);
      if (match.index > last) nodes.push(document.createTextNode(source.slice(last, match.index)));
      nodes.push(el('code', { text: inner }));
      last = match.index + match[0].length;
    }
    if (last < source.length || !nodes.length) nodes.push(document.createTextNode(source.slice(last)));
    return nodes;
  }

  return Object.freeze({ $, $$, el, visibleLineNodes, lineNodes, appendLines, age, withCode });
})();
