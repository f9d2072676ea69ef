// Statistics from the v2 statistic resource (profiles qso and dxcc) and a map of the worked grid
// squares from the lookup resource: every number is computed by the server.
import { html } from 'htm/preact';
import { api } from '../session.js';
import { ErrorLine, useLoad } from '../ui.js';
import { number } from '../format.js';
import { BarChart } from '../barChart.js';
import { WorldMap } from '../worldMap.js';

function loadGrids() {
  const grids = (cnfm) => api('/api/v2/lookup?grid=all' + (cnfm ? '&cnfm=' + cnfm : '')).then((d) => d.grids);
  return Promise.all([grids(null), grids('qsl'), grids('lotw')]).then(([worked, qsl, lotw]) => ({ worked, confirmed: [...new Set([...qsl, ...lotw])] }));
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
  const dxcc = useLoad(() => api('/api/v2/statistic?profile=dxcc').then((d) => d.dxcc_by_band), []);
  const grids = useLoad(loadGrids, []);
  const s = qso.data;
  return html`<section>
    <h1>Statistics</h1>
    <${ErrorLine} error=${qso.error || dxcc.error || grids.error} />
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
      ${dxcc.data ? html`<${DxccTable} dxcc=${s.dxcc} byBand=${dxcc.data} />` : html`<p>Counting…</p>`}` : html`<p>Counting…</p>`}
    <h2>Worked grid squares</h2>
    ${grids.data ? html`<p>${number(grids.data.worked.length)} squares worked, ${number(grids.data.confirmed.length)} confirmed (QSL or LoTW).</p>
      <${WorldMap} worked=${grids.data.worked} confirmed=${grids.data.confirmed} />
      <p class="legend"><span class="key worked"></span> worked <span class="key confirmed"></span> confirmed</p>` : null}
  </section>`;
}
