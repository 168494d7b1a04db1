// gatehouse web: a unified diff (a prompt's `preview` of format `diff`) as coloured lines. Each
// line keeps its first character (`-`, `+`, ` `, `@`), so the diff reads the same without colour;
// the text is made visible and set with textContent only.
'use strict';
const gatehouseDiff = (() => {
  const { el, lineNodes } = gatehouseDom;

  function kindOf(line) {
    if (line.startsWith('+++') || line.startsWith('---')) return 'file';
    if (line.startsWith('@@')) return 'hunk';
    if (line.startsWith('+')) return 'add';
    if (line.startsWith('-')) return 'del';
    if (line.startsWith('\\')) return 'note';
    return 'context';
  }

  // The lines of a diff, each as a node, for a collapsible block.
  function lines(text) {
    const raw = String(text ?? '').split('\n');
    if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
    return raw.map((line) => {
      const kind = kindOf(line);
      // The sign column stays as it is; trailing spaces are marked in the text after it.
      const sign = kind === 'file' || kind === 'hunk' ? '' : line.slice(0, 1);
      const rest = line.slice(sign.length);
      return [el('span', { class: `diff-line ${kind}`, 'data-diff-line': kind }, document.createTextNode(sign), ...lineNodes(rest))];
    });
  }

  return Object.freeze({ lines });
})();
