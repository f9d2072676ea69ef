// The browser app: sign in with a v2 token, upload a log, watch the log live. Plain script, no
// build step; everything it loads comes from this server.
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const TOKEN = 'logbook.token';
  const LIVE_STATIONS = 'logbook.live.stations';
  const PAGES = ['signin', 'upload', 'live'];
  const COUNTS = ['parsed', 'imported', 'confirmed', 'unchanged', 'unmatched', 'ambiguous', 'skipped', 'failed'];
  const state = { me: null, stations: [], job: null, poll: null, sockets: new Map(), leaving: false };

  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(path, init = {}) {
    const headers = { Authorization: 'Bearer ' + sessionStorage.getItem(TOKEN), ...(init.headers || {}) };
    const response = await fetch(path, { ...init, headers });
    const body = response.status === 204 ? {} : await response.json().catch(() => ({}));
    if (!response.ok) throw new ApiError(response.status, (body.error && body.error.message) || response.statusText);
    return body.data;
  }

  const text = (value) => (value === null || value === undefined ? '' : String(value));
  function el(tag, content, attributes = {}) {
    const node = document.createElement(tag);
    if (content !== undefined) node.textContent = text(content);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    return node;
  }
  const stationName = (id) => (state.stations.find((s) => s.id === id) || { name: 'location ' + id }).name;

  // ---- pages and sign-in -------------------------------------------------------------------

  function show(page) {
    for (const name of PAGES) $('page-' + name).hidden = name !== page;
    $('nav').hidden = page === 'signin';
    if (page !== 'live') closeLive();
    if (page === 'live') openLive();
    if (page === 'upload') fillStations($('upload-station'));
  }

  function route() {
    if (!state.me) return show('signin');
    const page = location.hash.replace('#', '');
    show(PAGES.includes(page) && page !== 'signin' ? page : 'upload');
  }

  async function signIn(token) {
    sessionStorage.setItem(TOKEN, token);
    try {
      state.me = await api('/api/v2/token');
      state.stations = await api('/api/v2/station');
    } catch (error) {
      sessionStorage.removeItem(TOKEN);
      state.me = null;
      throw error;
    }
    $('who').textContent = state.me.owner + ' (' + state.me.name + ')';
  }

  $('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('signin-error').textContent = '';
    try {
      await signIn($('token').value.trim());
      $('token').value = '';
      if (!location.hash || location.hash === '#signin') location.hash = '#upload';
      route();
    } catch (error) {
      $('signin-error').textContent = error.status === 401 ? 'This token was refused: ' + error.message : 'Sign-in failed: ' + error.message;
    }
  });

  $('sign-out').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN);
    state.me = null;
    location.hash = '#signin';
    route();
  });

  function fillStations(select) {
    const chosen = select.value;
    select.replaceChildren(...state.stations.map((s) => el('option', s.name + ' (' + s.callsign + ')', { value: String(s.id) })));
    if (chosen) select.value = chosen;
  }

  // ---- upload ------------------------------------------------------------------------------

  let file = null;
  function choose(chosen) {
    file = chosen || null;
    $('upload-file-name').textContent = file ? file.name + ' (' + Math.ceil(file.size / 1024) + ' KiB)' : '';
  }
  $('upload-file').addEventListener('change', () => choose($('upload-file').files[0]));
  const drop = $('drop');
  drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    choose(event.dataTransfer.files[0]);
  });

  $('upload-form').addEventListener('submit', (event) => {
    event.preventDefault();
    $('upload-error').textContent = '';
    $('upload-summary').hidden = true;
    if (!file) { $('upload-error').textContent = 'Choose a file first.'; return; }
    const query = new URLSearchParams({ station_profile_id: $('upload-station').value, async: 'true' });
    if ($('upload-dryrun').checked) query.set('dryrun', 'true');
    if ($('upload-unmatched').value) query.set('insert_unmatched', $('upload-unmatched').value);
    if ($('upload-duplicates').value) query.set('on_duplicate', $('upload-duplicates').value);
    if ($('upload-strict').checked) query.set('strict_callsign', 'true');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v2/qso?' + query);
    xhr.setRequestHeader('Authorization', 'Bearer ' + sessionStorage.getItem(TOKEN));
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    if (/\.gz$/i.test(file.name)) xhr.setRequestHeader('Content-Encoding', 'gzip');
    $('upload-progress').hidden = false;
    $('upload-bar').value = 0;
    $('process-bar').value = 0;
    $('process-text').textContent = '';
    xhr.upload.onprogress = (e) => {
      if (!e.lengthComputable) return;
      $('upload-bar').value = Math.round((100 * e.loaded) / e.total);
      $('upload-pct').textContent = $('upload-bar').value + ' %';
    };
    xhr.onload = () => {
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch { /* an answer without JSON: the status says enough */ }
      if (xhr.status !== 202) {
        $('upload-error').textContent = 'Upload refused: ' + ((body.error && body.error.message) || xhr.statusText);
        return;
      }
      $('upload-bar').value = 100;
      $('upload-pct').textContent = '100 %';
      follow(body.data);
    };
    xhr.onerror = () => { $('upload-error').textContent = 'The upload failed: the connection was lost.'; };
    xhr.send(file);
  });

  function follow(job) {
    state.job = job;
    $('upload-cancel').hidden = false;
    clearInterval(state.poll);
    state.poll = setInterval(async () => {
      try { showJob(await api('/api/v2/import/' + job.id)); } catch (error) { $('upload-error').textContent = error.message; }
    }, 500);
  }

  function showJob(job) {
    const share = job.bytes_total ? Math.round((100 * job.bytes_done) / job.bytes_total) : 0;
    $('process-bar').value = job.state === 'done' ? 100 : share;
    const eta = job.eta_seconds !== null ? ', about ' + job.eta_seconds + ' s left' : '';
    $('process-text').textContent = job.state + ': ' + job.records_done + ' records' + eta;
    if (job.state === 'queued' || job.state === 'running') return;
    clearInterval(state.poll);
    $('upload-cancel').hidden = true;
    // One verdict: the summary's heading when there is a summary, else the error line.
    const failed = job.state !== 'done' ? 'Import ' + job.state + ': ' + text(job.error) : null;
    if (job.summary) renderSummary(job.summary, job.dryrun, failed || (job.dryrun ? 'Dry run: nothing was stored' : 'Import finished'));
    else if (failed) $('upload-error').textContent = failed;
  }

  $('upload-cancel').addEventListener('click', async () => {
    if (!state.job) return;
    try { await api('/api/v2/import/' + state.job.id, { method: 'DELETE' }); } catch (error) { $('upload-error').textContent = error.message; }
  });

  /** "record 12, line 340: not imported: …" → the kind ("not imported: …") and the place. */
  function splitMessage(message) {
    const match = /^(record \d+(?:, line \d+)?): (.*)$/.exec(message);
    return match ? { place: match[1], kind: match[2] } : { place: '', kind: message };
  }

  function renderSummary(summary, dryRun, verdict) {
    const box = $('upload-summary');
    box.replaceChildren();
    box.className = 'summary';
    box.append(el('h2', verdict));
    const counts = el('dl');
    for (const key of COUNTS) {
      if (typeof summary[key] !== 'number') continue;
      counts.append(el('dt', dryRun && key === 'imported' ? 'would import' : key), el('dd', summary[key], { 'data-count': key }));
    }
    box.append(counts);
    const groups = new Map();
    for (const message of summary.messages || []) {
      const { place, kind } = splitMessage(message);
      if (!groups.has(kind)) groups.set(kind, []);
      groups.get(kind).push(place);
    }
    if (groups.size) {
      box.append(el('h3', 'Messages'));
      const list = el('ul', undefined, { id: 'summary-messages' });
      for (const [kind, places] of groups) {
        const item = el('li', kind + (places.filter(Boolean).length ? ' — ' + places.filter(Boolean).length + '×: ' + places.filter(Boolean).join('; ') : ''));
        if (/no stored QSO|unmatched|matches no/i.test(kind)) item.className = 'unmatched';
        list.append(item);
      }
      box.append(list);
    }
    box.hidden = false;
  }

  // ---- live --------------------------------------------------------------------------------

  function chosenStations() {
    const saved = JSON.parse(localStorage.getItem(LIVE_STATIONS) || 'null');
    const ids = state.stations.map((s) => s.id);
    return Array.isArray(saved) ? saved.filter((id) => ids.includes(id)) : ids;
  }

  function openLive() {
    const box = $('live-stations');
    box.replaceChildren(el('legend', 'Station locations'));
    const chosen = chosenStations();
    for (const station of state.stations) {
      const input = el('input', undefined, { type: 'checkbox', value: String(station.id) });
      input.checked = chosen.includes(station.id);
      input.addEventListener('change', () => {
        const ids = [...box.querySelectorAll('input:checked')].map((i) => Number(i.value));
        localStorage.setItem(LIVE_STATIONS, JSON.stringify(ids));
        loadLatest();
      });
      const label = el('label', undefined, { class: 'check' });
      label.append(input, document.createTextNode(station.name));
      box.append(label);
    }
    state.leaving = false;
    loadLatest();
    loadRadios();
    connect('qsos_user.' + state.me.user_id, onQsoEvent, loadLatest);
    connect('radios_user.' + state.me.user_id, onRadioEvent, loadRadios);
  }

  function closeLive() {
    state.leaving = true;
    for (const socket of state.sockets.values()) socket.close();
    state.sockets.clear();
  }

  function qsoRow(qso) {
    const row = el('tr', undefined, { 'data-qso-id': String(qso.id) });
    for (const value of [text(qso.qso_date).slice(0, 16), qso.call, qso.band, qso.submode || qso.mode, stationName(qso.station_id)]) row.append(el('td', value));
    return row;
  }

  async function loadLatest() {
    const ids = chosenStations();
    if (!ids.length) { $('live-qsos').replaceChildren(); return; }
    try {
      const qsos = await api('/api/v2/qso?limit=50&station_id=' + ids.join(','));
      $('live-qsos').replaceChildren(...qsos.map(qsoRow));
    } catch (error) {
      $('live-status').textContent = 'QSOs could not be loaded: ' + error.message;
    }
  }

  function radioRow(radio) {
    const row = el('tr', undefined, { id: 'radio-' + radio.id });
    for (const value of [radio.radio, radio.frequency, radio.mode, radio.power, radio.updated_at]) row.append(el('td', value));
    return row;
  }

  async function loadRadios() {
    try { $('live-radios').replaceChildren(...(await api('/api/v2/radio')).map(radioRow)); } catch { /* no radio scope: the panel stays empty */ }
  }

  function addEventLine(key, line) {
    let item = key ? document.getElementById(key) : null;
    if (!item) {
      item = el('li', undefined, key ? { id: key } : {});
      $('live-events').prepend(item);
    }
    item.textContent = new Date().toISOString().slice(11, 19) + ' UTC — ' + line;
  }

  async function onQsoEvent(event) {
    if (event.type === 'import_progress') {
      const share = event.bytes_total ? ' (' + Math.round((100 * event.bytes_done) / event.bytes_total) + ' %)' : '';
      addEventLine('job-' + event.job_id, 'import #' + event.job_id + ' into ' + stationName(event.station_id) + ': ' + event.state + ', ' + event.records_done + ' records' + share);
      return;
    }
    if (!chosenStations().includes(event.station_id)) return;
    if (event.type === 'qso_imported') {
      addEventLine(null, event.imported + ' QSOs imported into ' + stationName(event.station_id));
      return loadLatest();
    }
    const existing = document.querySelector('#live-qsos tr[data-qso-id="' + event.qso_id + '"]');
    if (event.type === 'qso_deleted') { if (existing) existing.remove(); return; }
    let qso;
    try { qso = await api('/api/v2/qso/' + event.qso_id); } catch { return; }
    const row = qsoRow(qso);
    row.classList.add('fresh');
    setTimeout(() => row.classList.remove('fresh'), 3000);
    if (existing) existing.replaceWith(row); else $('live-qsos').prepend(row);
  }

  function onRadioEvent(event) {
    const radio = { id: event.radio_id, ...(event.radio_status || {}) };
    const row = radioRow(radio);
    const existing = document.getElementById('radio-' + radio.id);
    if (existing) existing.replaceWith(row); else $('live-radios').append(row);
  }

  /** One socket per topic; after a drop it reconnects with backoff (1 s, 2 s, … 30 s) and catches up with `resync`. */
  function connect(topic, onPush, resync, delay = 1000) {
    const retry = (why) => {
      if (state.leaving) return;
      $('live-status').textContent = why + '; reconnecting in ' + Math.round(delay / 1000) + ' s…';
      setTimeout(() => { if (!state.leaving) connect(topic, onPush, resync, Math.min(delay * 2, 30000)); }, delay);
    };
    api('/live/token?topic=' + encodeURIComponent(topic)).then((grant) => {
      if (state.leaving) return;
      const socket = new WebSocket(grant.ws_url);
      state.sockets.set(topic, socket);
      let open = false;
      socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: grant.token }));
      socket.onmessage = (message) => {
        const frame = JSON.parse(message.data);
        if (frame.type === 'auth_ok') {
          if (delay > 1000) resync();
          delay = 1000;
          open = true;
          $('live-status').textContent = 'connected';
        } else if (frame.type === 'push') onPush(frame.payload || {});
        else if (frame.type === 'error') $('live-status').textContent = 'live updates: ' + frame.message;
      };
      socket.onclose = () => {
        if (state.sockets.get(topic) === socket) state.sockets.delete(topic);
        retry(open ? 'disconnected' : 'could not connect');
      };
    }, (error) => {
      if (error.status === 409) { $('live-status').textContent = 'Live updates are not configured on this server.'; return; }
      retry('could not get a live token (' + error.message + ')');
    });
  }

  // ---- start -------------------------------------------------------------------------------

  window.addEventListener('hashchange', route);
  const saved = sessionStorage.getItem(TOKEN);
  if (saved) signIn(saved).then(route, () => route());
  else route();
})();
