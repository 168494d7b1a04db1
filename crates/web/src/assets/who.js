// gatehouse web: who asks, in words, for the page's "New" banner and the service worker's
// notifications, with the mark its card shows: `claude@devbox` for a prompt of this machine
// (the gateway stamped its `origin` `local`, from the socket it came through), and
// `claude@remote:devbox` for any other, as the console writes it. The mark comes before the
// host's name, which the far side chooses: no name can take it away.
//
// Agent text is hostile: `clip` (by default gatehouseText.visible) makes each part visible.
'use strict';
const gatehouseWho = (() => {
  // Whether the gateway says the prompt came from this machine; anything else is remote.
  const isLocal = (prompt) => prompt.origin === 'local';

  function who(prompt, clip = (text) => gatehouseText.visible(String(text ?? ''))) {
    const agent = clip(prompt.adapter, 30);
    const host = prompt.host ? clip(prompt.host, 40) : '';
    if (isLocal(prompt)) return `${agent}@${host || 'this machine'}`;
    return `${agent}@remote:${host || '(host not given)'}`;
  }

  return Object.freeze({ isLocal, who });
})();
