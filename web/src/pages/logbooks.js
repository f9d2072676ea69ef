// Logbooks: list, create, edit (name and locations), make active (v2 logbook resource).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../session.js';
import { EmptyRow, ErrorLine, useLoad } from '../ui.js';

function LogbookForm({ logbook, stations, onDone }) {
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const ids = [...form.querySelectorAll('input[name=station]:checked')].map((i) => i.value).join(',');
    const body = { name: form.logbook_name.value.trim(), station_ids: ids };
    try {
      if (logbook) await api('/api/v2/logbook/' + logbook.id, { method: 'PATCH', json: body });
      else await api('/api/v2/logbook', { method: 'POST', json: body });
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-label=${logbook ? 'Edit ' + logbook.name : 'New logbook'}>
    <label>Logbook name <input name="logbook_name" value=${logbook ? logbook.name : ''} required /></label>
    <fieldset><legend>Station locations in it</legend>
      ${stations.map((s) => html`<label class="check"><input type="checkbox" name="station" value=${String(s.id)} checked=${!!logbook && logbook.station_ids.includes(s.id)} /> ${s.name}</label>`)}
    </fieldset>
    <div class="buttons"><button type="submit">${logbook ? 'Save' : 'Create'}</button><button type="button" onClick=${() => onDone()}>Cancel</button></div>
    <${ErrorLine} error=${error} />
  </form>`;
}

export function Logbooks({ stations }) {
  const list = useLoad(() => api('/api/v2/logbook'), []);
  const [editing, setEditing] = useState(null);
  const [error, setError] = useState(null);
  const names = (ids) => ids.map((id) => (stations.find((s) => s.id === id) || { name: '#' + id }).name).join(', ');
  const done = () => { setEditing(null); list.reload(); };
  const activate = (b) => api('/api/v2/logbook/' + b.id, { method: 'PATCH', json: { set_active: true } }).then(list.reload, setError);
  return html`<section>
    <h1>Logbooks</h1>
    <${ErrorLine} error=${list.error || error} />
    <div class="scroll"><table>
      <thead><tr><th>Name</th><th>Station locations</th><th>Active</th><th></th></tr></thead>
      <tbody>${(list.data || []).map((b) => html`<tr>
        <td>${b.name}</td><td>${names(b.station_ids) || '–'}</td>
        <td>${b.active ? 'active' : html`<button type="button" onClick=${() => activate(b)} aria-label=${'Make ' + b.name + ' active'}>Make active</button>`}</td>
        <td><button type="button" onClick=${() => setEditing(b)} aria-label=${'Edit ' + b.name}>Edit</button></td></tr>`)}
        <${EmptyRow} rows=${list.data} columns="4">No logbooks yet. A logbook groups station locations; published, it is a public page of your log that updates live.<//></tbody>
    </table></div>
    ${editing ? html`<${LogbookForm} key=${editing === 'new' ? 'new' : editing.id} logbook=${editing === 'new' ? null : editing} stations=${stations} onDone=${done} />`
    : html`<p><button type="button" onClick=${() => setEditing('new')}>New logbook</button></p>`}
  </section>`;
}
