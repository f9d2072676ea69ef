// Station locations: list, create, edit, make active (v2 station resource).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { ErrorLine, useForm } from '../ui.js';

const FIELDS = [['name', 'Name'], ['callsign', 'Callsign'], ['gridsquare', 'Gridsquare'], ['city', 'City'], ['dxcc', 'DXCC entity number'],
  ['cq', 'CQ zone'], ['itu', 'ITU zone'], ['power', 'Power (W)'], ['iota', 'IOTA'], ['sota', 'SOTA'], ['pota', 'POTA'], ['wwff', 'WWFF']];
const toValues = (s) => Object.fromEntries(FIELDS.map(([k]) => [k, s && s[k] !== null && s[k] !== undefined ? String(s[k]) : '']));

function StationForm({ station, onDone }) {
  const form = useForm(toValues(station));
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const body = {};
    for (const [key] of FIELDS) {
      const value = form.values[key].trim();
      if (!station || value !== toValues(station)[key]) body[key] = value === '' ? null : value;
    }
    try {
      if (station) await api('/api/v2/station/' + station.id, { method: 'PATCH', json: body });
      else await api('/api/v2/station', { method: 'POST', json: body });
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-label=${station ? 'Edit ' + station.name : 'New station location'}>
    <div class="grid">${FIELDS.map(([key, label]) => html`<label>${label}<input ...${form.bind(key)} required=${['name', 'callsign', 'dxcc', 'cq', 'itu'].includes(key)} /></label>`)}</div>
    <div class="buttons"><button type="submit">${station ? 'Save' : 'Create'}</button><button type="button" onClick=${() => onDone(true)}>Cancel</button></div>
    <${ErrorLine} error=${error} />
  </form>`;
}

export function Stations({ stations, reloadStations }) {
  const [editing, setEditing] = useState(null);
  const [error, setError] = useState(null);
  const done = () => { setEditing(null); reloadStations(); };
  const activate = (s) => api('/api/v2/station/' + s.id, { method: 'PATCH', json: { set_active: true } }).then(reloadStations, setError);
  return html`<section>
    <h1>Station locations</h1>
    <${ErrorLine} error=${error} />
    <div class="scroll"><table>
      <thead><tr><th>Name</th><th>Callsign</th><th>Grid</th><th class="wide">Entity</th><th class="wide">CQ / ITU</th><th>Active</th><th></th></tr></thead>
      <tbody>${stations.map((s) => html`<tr>
        <td>${s.name}</td><td>${s.callsign}</td><td>${s.gridsquare}</td><td class="wide">${s.country}</td><td class="wide">${s.cq ?? "–"} / ${s.itu ?? "–"}</td>
        <td>${s.active ? 'active' : html`<button type="button" onClick=${() => activate(s)} aria-label=${'Make ' + s.name + ' active'}>Make active</button>`}</td>
        <td><button type="button" onClick=${() => setEditing(s)} aria-label=${'Edit ' + s.name}>Edit</button></td></tr>`)}</tbody>
    </table></div>
    ${editing ? html`<${StationForm} key=${editing === 'new' ? 'new' : editing.id} station=${editing === 'new' ? null : editing} onDone=${done} />`
    : html`<p><button type="button" onClick=${() => setEditing('new')}>New station location</button></p>`}
  </section>`;
}
