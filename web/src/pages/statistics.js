// Statistics from the v2 statistic resource (profiles qso and dxcc) and a map, of the worked grid
// squares (lookup resource) or of the worked DXCC entities (profile dxcc's entities, placed where
// the catalog puts them): every number is computed by the server.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { ErrorLine, useLoad } from '../ui.js';
import { number } from '../format.js';
import { BarChart } from '../barChart.js';
import { WorldMap } from '../map/worldMap.js';

function loadGrids() {
  const grids = (cnfm) => api('/api/v2/lookup?grid=all' + (cnfm ? '&cnfm=' + cnfm : '')).then((d) => d.grids);
  return Promise.all([grids(null), grids('qsl'), grids('lotw')]).then(([worked, qsl, lotw]) => {
    const confirmed = new Set([...qsl, ...lotw]);
    return worked.map((grid) => ({ grid, confirmed: confirmed.has(grid) }));
  });
}

/** The worked entities as map points: each at the catalog's position of its entity. */
function entityPoints(worked) {
  return api('/api/v2/catalog?topic=dxcc').then((catalog) => {
    const byCode = new Map(catalog.map((e) => [e.adif, e]));
    return worked.map((w) => ({ entity: byCode.get(w.dxcc), confirmed: w.confirmed }))
      .filter(({ entity }) => entity && entity.lat !== null && entity.long !== null)
      .map(({ entity: e, confirmed }) => ({ id: e.adif, name: e.name + ' (' + e.prefix + ')', lat: e.lat, long: e.long, confirmed }));
  });
}

const confirmedCount = (items) => items.filter((item) => item.confirmed).length;

function MapChoice({ dxccWorked }) {
  const [kind, setKind] = useState('grids');
  const grids = useLoad(() => (kind === 'grids' ? loadGrids() : Promise.resolve(null)), [kind]);
  const points = useLoad(() => (kind === 'dxcc' && dxccWorked ? entityPoints(dxccWorked) : Promise.resolve(null)), [kind, dxccWorked]);
  const choice = (value, label) => html`<label class="check"><input type="radio" name="map" value=${value} checked=${kind === value} onChange=${() => setKind(value)} /> ${label}</label>`;
  let map = null;
  if (kind === 'grids' && grids.data) {
    map = html`<p>${number(grids.data.length)} squares worked, ${number(confirmedCount(grids.data))} confirmed (QSL or LoTW).</p>
      <${WorldMap} label=${`World map: ${grids.data.length} squares worked, ${confirmedCount(grids.data)} confirmed`} squares=${grids.data} />`;
  } else if (kind === 'dxcc' && points.data) {
    map = html`<p>${number(points.data.length)} DXCC entities worked, ${number(confirmedCount(points.data))} confirmed (QSL or LoTW).</p>
      <${WorldMap} label=${`World map: ${points.data.length} DXCC entities worked, ${confirmedCount(points.data)} confirmed`} points=${points.data} />`;
  }
  return html`<h2>Map</h2>
    <fieldset class="mapchoice"><legend>Map of</legend>${choice('grids', 'Worked grid squares')}${choice('dxcc', 'Worked DXCC entities')}</fieldset>
    <${ErrorLine} error=${grids.error || points.error} />
    ${map}
    ${map ? html`<p class="legend"><span class="key worked"></span> worked <span class="key confirmed"></span> confirmed</p>` : null}`;
}

function DxccTable({ dxcc, byBand }) {
  return html`<table class="dxcc" aria-label="DXCC">
    <thead><tr><th>Band</th><th>Worked</th><th>Confirmed</th></tr></thead>
    <tbody>
      <tr class="all"><td>All bands</td><td class="num" data-dxcc="worked">${dxcc.worked}</td><td class="num" data-dxcc="confirmed">${dxcc.confirmed}</td></tr>
      ${byBand.map((b) => html`<tr data-band=${b.band}><td>${b.band}</td><td class="num">${b.worked}</td><td class="num">${b.confirmed}</td></tr>`)}
    </tbody></table>
    <p class="note">Of ${dxcc.available} current entities; confirmed = QSL card or LoTW (paper ${dxcc.confirmed_paper}, LoTW ${dxcc.confirmed_lotw}).</p>`;
}

export function Statistics() {
  const qso = useLoad(() => api('/api/v2/statistic?profile=qso').then((d) => d.qso), []);
  const dxcc = useLoad(() => api('/api/v2/statistic?profile=dxcc'), []);
  const s = qso.data;
  return html`<section>
    <h1>Statistics</h1>
    <${ErrorLine} error=${qso.error || dxcc.error} />
    ${s ? html`
      <dl class="totals">
        <div><dt>QSOs</dt><dd data-total>${number(s.total)}</dd></div>
        <div><dt>Today (UTC)</dt><dd>${number(s.activity.today)}</dd></div>
        <div><dt>This month</dt><dd>${number(s.activity.month)}</dd></div>
        <div><dt>This year</dt><dd>${number(s.activity.year)}</dd></div>
        <div><dt>DXCC worked / confirmed</dt><dd>${s.dxcc.worked} / ${s.dxcc.confirmed}</dd></div>
      </dl>
      <div class="charts">
        <${BarChart} title="QSOs by band" labelName="Band" rows=${s.breakdown.by_band.map((r) => ({ label: r.band, count: r.count }))} />
        <${BarChart} title="QSOs by mode" labelName="Mode" rows=${s.breakdown.by_mode.map((r) => ({ label: r.mode, count: r.count }))} />
        <${BarChart} title="QSOs by year" labelName="Year" rows=${s.breakdown.by_year.map((r) => ({ label: String(r.year), count: r.count }))} />
      </div>
      <h2>DXCC</h2>
      ${dxcc.data ? html`<${DxccTable} dxcc=${s.dxcc} byBand=${dxcc.data.dxcc_by_band} />` : html`<p>Counting…</p>`}` : html`<p>Counting…</p>`}
    <${MapChoice} dxccWorked=${dxcc.data ? dxcc.data.dxcc_entities : null} />
  </section>`;
}
