import { createHash } from 'node:crypto';

/**
 * The live page: plain HTML and a small script, no framework. It trades the user's v2 token
 * for a browser token (`/live/token`), connects to the worker, authenticates with the first
 * frame and shows QSOs and radio state as pushes arrive. The v2 token lives in the page's memory
 * only (no storage a script of the origin could read later); it is never sent to the worker.
 * The script and style are inline, allowed by their hashes (liveCsp), never by 'unsafe-inline'.
 * The app at / has the same view for a signed-in user (web/src/pages/live.js); this page serves
 * programs and people holding only a token.
 */
export const livePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Logbook · live</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
  form { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; }
  label { display: flex; flex-direction: column; font-size: .85rem; }
  input { font: inherit; padding: .3rem; min-width: 16rem; }
  #status { margin: 1rem 0; font-weight: 600; }
  table { border-collapse: collapse; width: 100%; margin-bottom: 2rem; }
  th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #ddd; }
  tr.fresh { background: #fff6c8; }
</style>
</head>
<body>
<h1>Live log</h1>
<form id="connect-form">
  <label>v2 token <input id="token" type="password" autocomplete="off" placeholder="wl2_…"></label>
  <label>topic <input id="topic" placeholder="qsos_user.1"></label>
  <button id="connect" type="submit">Connect</button>
</form>
<div id="status">not connected</div>
<h2>QSOs</h2>
<table><thead><tr><th>time</th><th>call</th><th>band</th><th>mode</th><th>station</th><th>event</th></tr></thead><tbody id="qsos"></tbody></table>
<h2>Radios</h2>
<table><thead><tr><th>radio</th><th>frequency</th><th>mode</th><th>power</th><th>updated</th></tr></thead><tbody id="radios"></tbody></table>
<script>
(() => {
  const $ = (id) => document.getElementById(id);
  const status = (text) => { $('status').textContent = text; };
  let socket = null;
  let retry = 1000;
  let expired = false;

  const api = async (path) => {
    const response = await fetch(path, { headers: { Authorization: 'Bearer ' + $('token').value.trim() } });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw Object.assign(new Error((body.error && body.error.message) || response.statusText), { status: response.status });
    return body.data;
  };
  const NOT_CONFIGURED = 'Live updates are not configured on this server. To turn them on, the operator runs the '
    + 'live-update worker (logbook worker) and sets worker.url, worker.secret and worker.public_url in the configuration '
    + 'of the server (README, "Configuration"; docs/worker.md), then restarts logbook serve.';

  // Locations by name: the token's locations, read once per connection.
  let names = null;
  async function stationName(id) {
    names ??= api('/api/v2/station').then((list) => new Map(list.map((s) => [s.id, s.name])), () => new Map());
    return (await names).get(id) || (id === undefined ? '' : 'location ' + id);
  }

  const cell = (text) => { const td = document.createElement('td'); td.textContent = text == null ? '' : String(text); return td; };

  async function showQso(payload) {
    const row = document.createElement('tr');
    row.className = 'fresh';
    if (payload.qso_id) row.dataset.qsoId = String(payload.qso_id);
    let qso = {};
    if (payload.qso_id && payload.type !== 'qso_deleted') qso = await api('/api/v2/qso/' + payload.qso_id).catch(() => ({}));
    const label = payload.type === 'qso_imported' ? (payload.imported + ' imported' + (payload.confirmed ? ', ' + payload.confirmed + ' confirmed' : '')) : payload.type;
    [qso.qso_date, qso.call, qso.band, qso.submode || qso.mode, await stationName(payload.station_id), label].forEach((v) => row.appendChild(cell(v)));
    $('qsos').prepend(row);
    setTimeout(() => row.classList.remove('fresh'), 3000);
  }

  function showRadio(payload) {
    const radio = payload.radio_status || {};
    const id = 'radio-' + (payload.radio_id || radio.id);
    let row = document.getElementById(id);
    if (!row) { row = document.createElement('tr'); row.id = id; $('radios').appendChild(row); }
    row.replaceChildren(cell(radio.radio), cell(radio.frequency), cell(radio.mode), cell(radio.power), cell(radio.updated_at));
  }

  async function connect() {
    if (socket) socket.close();
    names = null;
    const topic = $('topic').value.trim();
    localStorage.setItem('logbook.topic', topic);
    status('getting a browser token…');
    let grant;
    try { grant = await api('/live/token?topic=' + encodeURIComponent(topic)); }
    catch (error) {
      status(error.status === 409 ? NOT_CONFIGURED : 'cannot connect: ' + error.message);
      return;
    }
    status('connecting…');
    socket = new WebSocket(grant.ws_url);
    socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: grant.token }));
    socket.onmessage = (event) => {
      const frame = JSON.parse(event.data);
      if (frame.type === 'auth_ok') { retry = 1000; status('connected to ' + topic); }
      else if (frame.type === 'error') {
        // An expired browser token ends the socket; a fresh one (connect() asks for it) goes on.
        if (frame.code === 'token_expired') expired = true;
        status('worker: ' + frame.message);
      }
      else if (frame.type === 'push') {
        const payload = frame.payload || {};
        if (payload.type === 'radio_updated') showRadio(payload); else showQso(payload);
      }
    };
    socket.onclose = () => {
      if (socket && socket.readyState === WebSocket.CLOSED && (expired || $('status').textContent.startsWith('connected'))) {
        expired = false;
        status('disconnected; reconnecting…');
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 30000);
      }
    };
  }

  $('connect-form').addEventListener('submit', (event) => { event.preventDefault(); connect(); });
  localStorage.removeItem('logbook.token');
  $('topic').value = localStorage.getItem('logbook.topic') || '';
})();
</script>
</body>
</html>
`;

const inlineHash = (tag: string): string => {
  const text = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(livePage)![1]!;
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
};

/** The live page's Content-Security-Policy: its own inline script and style by hash, nothing else inline; never framed. */
export const liveCsp = `default-src 'self'; connect-src 'self' ws: wss:; script-src ${inlineHash('script')}; style-src ${inlineHash('style')}; frame-ancestors 'none'`;
