// One live-update socket per topic: a browser token from /live/token, the first frame
// authenticates; after a drop it reconnects with backoff (1 s, 2 s, … 30 s) and calls `resync`.
import { api } from './session.js';

export const NOT_CONFIGURED = 'not configured';

export function openTopic(topic, { onPush, resync, onStatus }) {
  let closed = false;
  let socket = null;
  let delay = 1000;
  const retry = (why) => {
    if (closed) return;
    onStatus(why + '; reconnecting in ' + Math.round(delay / 1000) + ' s…');
    setTimeout(() => { if (!closed) connect(); }, delay);
    delay = Math.min(delay * 2, 30000);
  };
  const connect = () => api('/live/token?topic=' + encodeURIComponent(topic)).then((grant) => {
    if (closed) return;
    socket = new WebSocket(grant.ws_url);
    let open = false;
    socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: grant.token }));
    socket.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      if (frame.type === 'auth_ok') {
        if (delay > 1000) resync();
        delay = 1000;
        open = true;
        onStatus('connected');
      } else if (frame.type === 'push') onPush(frame.payload || {});
      else if (frame.type === 'error') onStatus('live updates: ' + frame.message);
    };
    socket.onclose = () => retry(open ? 'disconnected' : 'could not connect');
  }, (error) => {
    if (error.status === 409) onStatus(NOT_CONFIGURED);
    else retry('could not get a live token (' + error.message + ')');
  });
  connect();
  return () => { closed = true; if (socket) socket.close(); };
}
