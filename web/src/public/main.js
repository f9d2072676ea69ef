// The public live log's page (/public/{slug}, docs/public-log.md): no sign-in, every datum from
// /api/public/{slug}. Live through the worker when the server has one (a public topic, no
// token); on every (re)connection it refetches the JSON, so nothing pushed meanwhile is missed.
// Without a worker, or while the socket is down, it polls the JSON (ETag makes that a 304).
import './public.css';
import { render } from 'preact';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { mhz, number, utc } from '../format.js';
import { MapFrame } from '../map/worldMap.js';
import { connectLive } from './liveLog.js';
import { Search } from './search.js';

const slug = decodeURIComponent(location.pathname.split('/')[2] || '');
const base = '/api/public/' + encodeURIComponent(slug);

/** Applies a push: the log as sent, its map's worked positions merged unless the push holds them all. */
export function applyPush(current, log) {
  if (log.map.complete || !current) return { ...log, map: { stations: log.map.stations, worked: log.map.worked } };
  const worked = new Map(current.map.worked.map((p) => [p.lat + ',' + p.lng, p]));
  for (const p of log.map.worked) {
    if (p.qsos === 0) worked.delete(p.lat + ',' + p.lng);
    else worked.set(p.lat + ',' + p.lng, p);
  }
  return { ...log, map: { stations: log.map.stations, worked: [...worked.values()] } };
}

function Recent({ log }) {
  if (!log.recent.length) return html`<p class="note">No QSOs yet.</p>`;
  return html`<div class="scroll"><table class="recent">
    <thead><tr>${log.show_times ? html`<th>UTC</th>` : null}<th>Call</th><th>Band</th><th>Mode</th>${log.show_frequency ? html`<th class="num">MHz</th>` : null}</tr></thead>
    <tbody>${log.recent.map((q, i) => html`<tr key=${i + q.call}>
      ${log.show_times ? html`<td>${utc(q.time_on)}</td>` : null}<td class="call">${q.call}</td><td>${q.band}</td><td>${q.mode}</td>
      ${log.show_frequency ? html`<td class="num">${mhz(q.freq)}</td>` : null}</tr>`)}</tbody>
  </table></div>`;
}

/** Bands down, modes across: QSOs of the last hour. */
function LastHour({ cells }) {
  if (!cells.length) return html`<p class="note">No QSOs in the last hour.</p>`;
  const bands = [...new Set(cells.map((c) => c.band))];
  const modes = [...new Set(cells.map((c) => c.mode))].sort();
  const count = new Map(cells.map((c) => [c.band + ' ' + c.mode, c.qsos]));
  return html`<div class="scroll"><table class="hour">
    <thead><tr><th>Band</th>${modes.map((m) => html`<th class="num">${m}</th>`)}</tr></thead>
    <tbody>${bands.map((b) => html`<tr><th>${b}</th>${modes.map((m) => html`<td class="num">${count.get(b + ' ' + m) ?? ''}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

function PublicMap({ map }) {
  const label = 'World map: the station and ' + map.worked.length + ' places worked';
  const most = Math.max(1, ...map.worked.map((p) => p.qsos));
  return html`<${MapFrame} label=${label} draw=${(_path, projection) => html`
    <g class="worked">${map.worked.map((p) => {
      const [x, y] = projection([p.lng, p.lat]);
      return html`<circle cx=${x} cy=${y} r=${3 + 5 * Math.sqrt(p.qsos / most)}><title>${p.qsos} QSO${p.qsos === 1 ? '' : 's'}</title></circle>`;
    })}</g>
    <g class="station">${map.stations.map((p) => {
      const [x, y] = projection([p.lng, p.lat]);
      return html`<path d=${`M${x},${y - 9}L${x + 8},${y + 6}L${x - 8},${y + 6}Z`}><title>The station</title></path>`;
    })}</g>`} />`;
}

function Page() {
  const [log, setLog] = useState(null);
  const [gone, setGone] = useState(false);
  const [status, setStatus] = useState('loading…');
  useEffect(() => connectLive(base, {
    onLog: (data) => setLog(data),
    onPush: (pushed) => setLog((current) => applyPush(current, pushed)),
    onGone: () => setGone(true),
    onStatus: setStatus,
  }), []);
  if (gone) return html`<main><h1>No public log at this address</h1><p>The logbook is not published here (or no longer).</p></main>`;
  if (!log) return html`<main><p class="status" role="status">${status}</p></main>`;
  return html`
    <header class="public"><strong class="brand">${log.callsigns.join(' · ') || 'Public log'}</strong>
      <span class="live-status" role="status">${status}</span></header>
    <main>
      ${log.banner ? html`<p class="banner">${log.banner}</p>` : null}
      <dl class="totals"><div><dt>QSOs</dt><dd id="qso-count">${number(log.qsos)}</dd></div></dl>
      <${Search} base=${base} showTimes=${log.show_times} />
      <div class="columns">
        <div><h2>Last ${log.recent.length} QSOs</h2><${Recent} log=${log} /></div>
        <div><h2>Last hour</h2><${LastHour} cells=${log.last_hour} /></div>
      </div>
      <h2>Map</h2>
      <${PublicMap} map=${log.map} />
    </main>`;
}

render(html`<${Page} />`, document.getElementById('public'));
