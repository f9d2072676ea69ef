// The public log's data, kept current: the JSON first, then pushes through the worker's public
// topic (no token). Every (re)connection refetches the JSON, so what was pushed while the socket
// was down is caught up without a reload. While there is no socket (no worker configured, or it
// cannot be reached) the JSON is polled; with one, it is still refetched now and then, since the
// last hour's grid moves on with the clock. A 404 (unpublished) or a closed topic ends it all.

/** How often the JSON is asked while there is no socket (its answers may be reused 5 s). */
export const POLL_MS = 5000;
/** How often it is refetched while live. */
const REFRESH_MS = 60_000;

export function connectLive(base, { onLog, onPush, onGone, onStatus }) {
  let stopped = false;
  let socket = null;
  let live = false;
  let delay = 1000;
  let fetchedAt = 0;
  let timer;

  const stop = () => {
    stopped = true;
    clearInterval(timer);
    if (socket) socket.close();
  };

  async function refetch() {
    fetchedAt = Date.now();
    // no-cache: the browser asks with If-None-Match and reuses its copy on a 304.
    const response = await fetch(base, { cache: 'no-cache' });
    if (response.status === 404) {
      stop();
      onGone();
      return;
    }
    if (!response.ok) throw new Error('HTTP ' + response.status);
    onLog((await response.json()).data);
  }
  const refresh = () => refetch().catch((error) => onStatus('could not load the log (' + error.message + ')'));

  function retry(why) {
    if (stopped) return;
    live = false;
    // Jittered, so that a crowd whose worker restarted does not come back in the same instant.
    const wait = delay * (0.5 + Math.random());
    onStatus(why + '; polling, live again in ' + Math.round(wait / 1000) + ' s');
    setTimeout(open, wait);
    delay = Math.min(delay * 2, 30000);
  }

  async function open() {
    if (stopped) return;
    let grant;
    try {
      const response = await fetch(base + '/live', { cache: 'no-store' });
      if (response.status === 409) {
        onStatus('updated every ' + POLL_MS / 1000 + ' s');
        return;
      }
      if (response.status === 404) return refresh();
      if (!response.ok) throw new Error('HTTP ' + response.status);
      grant = (await response.json()).data;
    } catch (error) {
      retry('live updates unavailable (' + error.message + ')');
      return;
    }
    if (stopped) return;
    const ws = new WebSocket(grant.ws_url);
    socket = ws;
    let opened = false;
    ws.onopen = () => ws.send(JSON.stringify({ type: 'auth', token: 'public' }));
    ws.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      if (frame.type === 'auth_ok') {
        opened = true;
        live = true;
        delay = 1000;
        onStatus('live');
        refresh();
      } else if (frame.type === 'push' && frame.payload && frame.payload.type === 'public_log') onPush(frame.payload.log);
      else if (frame.type === 'error' && frame.code === 'topic_closed') refresh();
    };
    ws.onclose = () => {
      if (socket === ws) socket = null;
      retry(opened ? 'disconnected' : 'could not connect');
    };
  }

  timer = setInterval(() => {
    if (!live || Date.now() - fetchedAt >= REFRESH_MS) refresh();
  }, POLL_MS);
  refresh().then(open);
  return stop;
}
