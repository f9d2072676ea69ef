// One QSO: its form sends only the changed fields (PATCH), Delete asks first.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../session.js';
import { ErrorLine, useForm, useLoad } from '../ui.js';
import { QsoForm } from '../qsoForm.js';
import { toBody, toForm } from '../qsoFields.js';
import { Badges } from './log.js';

function Editor({ qso, stations, onSaved }) {
  const before = toForm(qso);
  const form = useForm(before);
  const [status, setStatus] = useState({});
  useEffect(() => form.setValues(toForm(qso)), [qso]);
  const save = async (e) => {
    e.preventDefault();
    try {
      const body = toBody(form.values, before);
      if (!Object.keys(body).length) return setStatus({ note: 'Nothing changed.' });
      onSaved(await api('/api/v2/qso/' + qso.id, { method: 'PATCH', json: body }));
      setStatus({ note: 'Saved.' });
    } catch (error) {
      setStatus({ error });
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the QSO with ${qso.call} on ${qso.qso_date.slice(0, 16)} UTC? This cannot be undone.`)) return;
    try {
      await api('/api/v2/qso/' + qso.id, { method: 'DELETE' });
      location.hash = '#log';
    } catch (error) {
      setStatus({ error });
    }
  };
  return html`
    <p class="facts">${qso.country || (qso.dxcc ? 'DXCC entity ' + qso.dxcc : 'no DXCC entity')}${qso.cqz ? ' · CQ ' + qso.cqz : ''}${qso.station_callsign ? ' · worked as ' + qso.station_callsign : ''} <${Badges} qso=${qso} /></p>
    <${QsoForm} form=${form} stations=${stations} onSubmit=${save} submitLabel="Save" />
    <p role="status">${status.note || ''}</p>
    <${ErrorLine} error=${status.error} />
    <button type="button" class="danger" onClick=${remove}>Delete QSO</button>`;
}

export function QsoEdit({ id, stations }) {
  const [qso, setQso] = useState(null);
  const loaded = useLoad(() => api('/api/v2/qso/' + id), [id]);
  const shown = qso && qso.id === id ? qso : loaded.data;
  return html`<section>
    <p><a href="#log">← Log</a></p>
    <h1>QSO ${shown ? 'with ' + shown.call : ''}</h1>
    <${ErrorLine} error=${loaded.error} />
    ${shown ? html`<${Editor} qso=${shown} stations=${stations} onSaved=${setQso} />` : null}
  </section>`;
}
