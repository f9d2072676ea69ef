// The log live: the latest QSOs of the chosen locations and the radios, kept current by pushes
// from the live-update worker; locations by name, never by number.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../session.js';
import { utc } from '../format.js';
import { NOT_CONFIGURED, openTopic } from '../liveSocket.js';
import { EmptyRow } from '../ui.js';

const CHOSEN = 'logbook.live.stations';

function chosenIds(stations) {
  const saved = JSON.parse(localStorage.getItem(CHOSEN) || 'null');
  const ids = stations.map((s) => s.id);
  return Array.isArray(saved) ? saved.filter((id) => ids.includes(id)) : ids;
}

export const NotConfigured = () => html`<div class="notice" role="status" id="live-status">
  <strong>Live updates are not configured on this server.</strong> Everything else works; this page
  just does not update by itself. To turn them on, the operator runs the live-update worker
  (<code>logbook worker</code>) and sets <code>worker.url</code>, <code>worker.secret</code> and <code>worker.public_url</code>
  in the server's configuration (README, "Configuration";
  docs/worker.md), then restarts <code>logbook serve</code>.</div>`;

export function Live({ stations, me }) {
  const [chosen, setChosen] = useState(() => chosenIds(stations));
  const [qsos, setQsos] = useState([]);
  const [radios, setRadios] = useState([]);
  const [events, setEvents] = useState([]);
  const [status, setStatus] = useState('not connected');
  const [fresh, setFresh] = useState(new Set());
  const name = (id) => (stations.find((s) => s.id === id) || { name: 'location ' + id }).name;
  const loadLatest = () => (chosen.length ? api('/api/v2/qso?limit=50&station_id=' + chosen.join(',')).then(setQsos, (e) => setStatus('QSOs could not be loaded: ' + e.message)) : setQsos([]));
  const loadRadios = () => api('/api/v2/radio').then(setRadios, () => setRadios([]));
  const note = (key, line) => setEvents((list) => [{ key, line: new Date().toISOString().slice(11, 19) + ' UTC — ' + line }, ...list.filter((e) => !key || e.key !== key)].slice(0, 20));

  useEffect(() => { loadLatest(); }, [chosen.join(',')]);
  useEffect(() => {
    loadRadios();
    const userId = me.user.id;
    const onQso = async (event) => {
      if (event.type === 'import_progress') {
        const share = event.bytes_total ? ' (' + Math.round((100 * event.bytes_done) / event.bytes_total) + ' %)' : '';
        return note('job-' + event.job_id, 'import #' + event.job_id + ' into ' + name(event.station_id) + ': ' + event.state + ', ' + event.records_done + ' records' + share);
      }
      if (!chosenIds(stations).includes(event.station_id)) return;
      if (event.type === 'qso_imported') { note(null, event.imported + ' QSOs imported into ' + name(event.station_id)); return loadLatest(); }
      if (event.type === 'qso_deleted') return setQsos((list) => list.filter((q) => q.id !== event.qso_id));
      const qso = await api('/api/v2/qso/' + event.qso_id).catch(() => null);
      if (!qso) return;
      setQsos((list) => [qso, ...list.filter((q) => q.id !== qso.id)]);
      setFresh((ids) => new Set(ids).add(qso.id));
      setTimeout(() => setFresh((ids) => { const next = new Set(ids); next.delete(qso.id); return next; }), 3000);
    };
    const onRadio = (event) => setRadios((list) => [{ id: event.radio_id, ...(event.radio_status || {}) }, ...list.filter((r) => r.id !== event.radio_id)]);
    const closers = [openTopic('qsos_user.' + userId, { onPush: onQso, resync: loadLatest, onStatus: setStatus }),
      openTopic('radios_user.' + userId, { onPush: onRadio, resync: loadRadios, onStatus: setStatus })];
    return () => closers.forEach((close) => close());
  }, [me.api_token]);

  const toggle = (id, on) => {
    const next = on ? [...chosen, id] : chosen.filter((x) => x !== id);
    localStorage.setItem(CHOSEN, JSON.stringify(next));
    setChosen(next);
  };
  return html`<section>
    <h1>Live log</h1>
    <fieldset id="live-stations"><legend>Station locations</legend>
      ${stations.map((s) => html`<label class="check"><input type="checkbox" checked=${chosen.includes(s.id)} onChange=${(e) => toggle(s.id, e.currentTarget.checked)} /> ${s.name}</label>`)}
    </fieldset>
    ${status === NOT_CONFIGURED ? html`<${NotConfigured} />` : html`<p id="live-status" class="status" role="status">${status}</p>`}
    <ul id="live-events">${events.map((e) => html`<li key=${e.key || e.line}>${e.line}</li>`)}</ul>
    <div class="columns">
      <div><h2>Latest QSOs</h2><div class="scroll"><table>
        <thead><tr><th>Time (UTC)</th><th>Call</th><th>Band</th><th>Mode</th><th>Location</th></tr></thead>
        <tbody id="live-qsos">${qsos.map((q) => html`<tr key=${q.id} data-qso-id=${q.id} class=${fresh.has(q.id) ? 'fresh' : ''}>
          <td>${utc(q.qso_date)}</td><td><a href=${'#qso/' + q.id}>${q.call}</a></td><td>${q.band}</td><td>${q.submode || q.mode}</td><td>${name(q.station_id)}</td></tr>`)}</tbody>
      </table></div></div>
      <div><h2>Radios</h2><div class="scroll"><table>
        <thead><tr><th>Radio</th><th>MHz</th><th>Mode</th><th>Power</th><th>Updated</th></tr></thead>
        <tbody id="live-radios">${radios.map((r) => html`<tr key=${r.id} id=${'radio-' + r.id}>
          <td>${r.radio}</td><td>${r.frequency ? Number(r.frequency) / 1e6 : ''}</td><td>${r.mode}</td><td>${r.power ? r.power + ' W' : ''}</td><td>${utc(r.updated_at)}</td></tr>`)}
          <${EmptyRow} rows=${radios} columns="5">No radio has reported yet: a CAT tool reports with a token of scope <code>radio:write</code> (the Tokens page).<//></tbody>
      </table></div></div>
    </div>
  </section>`;
}
