// The owner's QSOs newest first, one page at a time from GET /api/v2/qso (the server pages and
// counts; the browser never holds more than a page), with the list's filters and an ADIF export
// the server streams as a download (GET /app/export.adi, the same filter).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { ErrorLine, useLoad } from '../ui.js';
import { mhz, number, utc } from '../format.js';
import { CONFIRMATIONS, received } from '../confirmations.js';
import { DATE } from '../qsoForm.js';

const PER_PAGE = 50;
const EMPTY = { callsign: '', band: '', mode: '', qso_since: '', qso_until: '', qsl_filter: '', station_id: '' };
// Kept while the tab lives, so that coming back from a QSO finds the same filter and page.
let remembered = { filter: EMPTY, page: 1 };

/** The list's query for a filter: only the members that are set. */
export function filterQuery(filter) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (String(value).trim()) query.set(key, String(value).trim());
  return query;
}

export const Badges = ({ qso }) => html`<span class="badges">${received(qso).map((c) => html`<span class=${'badge ' + c.key} title=${c.label + ' received'}>${c.label}</span>`)}</span>`;

/**
 * The filter form holds what is typed (default values, not controlled ones): a page arriving
 * while someone types must not put the applied filter back. Keyed by the applied filter, so
 * that Apply and Clear start it afresh.
 */
function Filters({ filter, stations, onApply }) {
  const submit = (e) => {
    e.preventDefault();
    onApply(Object.fromEntries(Object.keys(EMPTY).map((key) => [key, e.currentTarget[key].value])));
  };
  return html`<form class="filters" onSubmit=${submit} aria-label="Filter">
    <label>Callsign <input name="callsign" defaultValue=${filter.callsign} autocapitalize="characters" /></label>
    <label>Band <input name="band" defaultValue=${filter.band} placeholder="20m" size="5" /></label>
    <label>Mode <input name="mode" defaultValue=${filter.mode} placeholder="SSB" size="6" /></label>
    <label>From (UTC) <input name="qso_since" defaultValue=${filter.qso_since} ...${DATE} /></label>
    <label>To (UTC) <input name="qso_until" defaultValue=${filter.qso_until} ...${DATE} /></label>
    <label>Confirmed by <select name="qsl_filter">
      <option value="">any or none</option>
      ${CONFIRMATIONS.map((c) => html`<option value=${c.key} selected=${filter.qsl_filter === c.key}>${c.label}</option>`)}
    </select></label>
    <label>Location <select name="station_id">
      <option value="">all</option>
      ${stations.map((s) => html`<option value=${String(s.id)} selected=${filter.station_id === String(s.id)}>${s.name}</option>`)}
    </select></label>
    <div class="buttons"><button type="submit">Apply</button>
      <button type="button" onClick=${(e) => { e.currentTarget.form.reset(); onApply(EMPTY); }}>Clear</button></div>
  </form>`;
}

export function Log({ stations }) {
  const [{ filter, page }, setView] = useState(remembered);
  const view = (next) => { remembered = next; setView(next); };
  const list = useLoad(() => {
    const query = filterQuery(filter);
    query.set('page', String(page));
    query.set('per_page', String(PER_PAGE));
    return api('/api/v2/qso?' + query, { whole: true });
  }, [filter, page]);
  const stationName = (id) => (stations.find((s) => s.id === id) || { name: '#' + id }).name;
  const meta = list.data ? list.data.meta : null;
  return html`<section>
    <h1>Log</h1>
    <${Filters} key=${JSON.stringify(filter)} filter=${filter} stations=${stations} onApply=${(f) => view({ filter: f, page: 1 })} />
    <div class="toolbar">
      <a class="button" href="#new">Log a QSO</a>
      ${meta && meta.total > 0
        ? html`<a class="button" href=${'/app/export.adi?' + filterQuery(filter)} download>Export ADIF</a>`
        : html`<button type="button" disabled>Export ADIF</button>`}
    </div>
    <${ErrorLine} error=${list.error} />
    ${meta ? html`<p class="count" role="status">${number(meta.total)} ${meta.total === 1 ? 'QSO' : 'QSOs'}${meta.total_pages > 1 ? ` · page ${number(meta.page)} of ${number(meta.total_pages)}` : ''}</p>` : null}
    <div class="scroll"><table class="log">
      <thead><tr><th>Date / time UTC</th><th>Call</th><th>Band</th><th>Mode</th><th class="wide">MHz</th><th class="wide">RST s/r</th><th class="wide">Location</th><th>Confirmed</th></tr></thead>
      <tbody>${(list.data ? list.data.data : []).map((q) => html`<tr data-qso-id=${q.id}>
        <td>${utc(q.qso_date)}</td><td><a href=${'#qso/' + q.id}>${q.call}</a></td><td>${q.band}</td><td>${q.submode || q.mode}</td>
        <td class="wide">${mhz(q.freq)}</td><td class="wide">${q.rst_sent} / ${q.rst_rcvd}</td><td class="wide">${stationName(q.station_id)}</td><td><${Badges} qso=${q} /></td></tr>`)}</tbody>
    </table></div>
    ${meta && meta.total === 0 ? html`<p>No QSOs match.</p>` : null}
    <nav class="pager" aria-label="Pages of the log">
      <button type="button" disabled=${page <= 1 || list.loading} onClick=${() => view({ filter, page: page - 1 })}>Newer</button>
      <button type="button" disabled=${!meta || !meta.has_more || list.loading} onClick=${() => view({ filter, page: page + 1 })}>Older</button>
    </nav>
  </section>`;
}
