// gatehouse web: a plan (a prompt's `preview` of format `markdown`) as readable text: headings,
// lists, code blocks, paragraphs, inline `code` and **bold**. It builds DOM nodes and sets every
// text with textContent after `visible`, so the agent's Markdown can never become markup; what it
// does not know (tables, links, HTML) stays as the text it is.
'use strict';
const gatehousePlan = (() => {
  const { el, visibleLineNodes, appendLines } = gatehouseDom;
  const { visible } = gatehouseText;

  // Inline `code` and **bold**, as nodes.
  function inline(text) {
    const nodes = [];
    const pattern = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*/g;
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      if (match.index > last) nodes.push(document.createTextNode(visible(text.slice(last, match.index))));
      if (match[2] !== undefined) nodes.push(el('code', { text: visible(match[2]) }));
      else nodes.push(el('strong', { text: visible(match[3]) }));
      last = match.index + match[0].length;
    }
    if (last < text.length) nodes.push(document.createTextNode(visible(text.slice(last))));
    return nodes;
  }

  // The plan as one element `[data-plan]`.
  function render(markdown) {
    const root = el('div', { class: 'plan', 'data-plan': true });
    const lines = String(markdown ?? '').split('\n');
    let list = null;
    let paragraph = null;
    const close = () => { list = null; paragraph = null; };
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index];
      const fence = line.match(/^\s*(```+|~~~+)/);
      if (fence) {
        close();
        const body = [];
        index += 1;
        while (index < lines.length && !lines[index].trimStart().startsWith(fence[1])) {
          body.push(lines[index]);
          index += 1;
        }
        root.append(appendLines(el('pre', { class: 'plan-code' }), visibleLineNodes(body.join('\n'))));
        continue;
      }
      const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
      if (heading) {
        close();
        const level = Math.min(6, heading[1].length + 2);
        root.append(el(`h${level}`, {}, ...inline(heading[2])));
        continue;
      }
      const item = line.match(/^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/);
      if (item) {
        paragraph = null;
        const ordered = /\d/.test(item[2]);
        const tag = ordered ? 'ol' : 'ul';
        if (!list || list.tagName.toLowerCase() !== tag) {
          list = el(tag);
          if (ordered) list.start = parseInt(item[2], 10);
          root.append(list);
        }
        const entry = el('li', {}, ...inline(item[3]));
        if (item[1].length >= 2) entry.className = 'nested';
        list.append(entry);
        continue;
      }
      if (line.trim() === '') {
        close();
        continue;
      }
      if (list && /^\s+/.test(line)) {
        list.lastElementChild.append(' ', ...inline(line.trim()));
        continue;
      }
      if (!paragraph) {
        list = null;
        paragraph = el('p');
        root.append(paragraph);
      } else {
        paragraph.append(el('br'));
      }
      paragraph.append(...inline(line));
    }
    return root;
  }

  return Object.freeze({ render });
})();
