// Entering one QSO by hand: date and time start at now (UTC), the callsign is looked up as it is
// typed (entity, CQ zone, worked before on this band and mode) from the lookup resource.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../session.js';
import { ErrorLine, useForm } from '../ui.js';
import { QsoForm } from '../qsoForm.js';
import { toBody } from '../qsoFields.js';
import { nowUtc } from '../format.js';

const yesNo = (flag) => (flag ? 'yes' : 'no');

function CallInfo({ call, band, mode }) {
  const [info, setInfo] = useState(null);
  useEffect(() => {
    const callsign = call.trim().toUpperCase();
    if (!/^[A-Z0-9/-]{3,}$/.test(callsign)) { setInfo(null); return undefined; }
    let live = true;
    const timer = setTimeout(() => {
      const query = new URLSearchParams({ callsign, detail: 'full' });
      if (band.trim()) query.set('band', band.trim());
      if (mode.trim()) query.set('mode', mode.trim());
      api('/api/v2/lookup?' + query).then((data) => live && setInfo({ callsign, data }), (error) => live && setInfo({ callsign, error }));
    }, 250);
    return () => { live = false; clearTimeout(timer); };
  }, [call, band, mode]);
  if (!info) return html`<div class="callinfo" aria-live="polite"></div>`;
  if (info.error) return html`<div class="callinfo" aria-live="polite"><${ErrorLine} error=${info.error} /></div>`;
  const d = info.data;
  return html`<dl class="callinfo" aria-live="polite" aria-label="Callsign information">
    <dt>Entity</dt><dd>${d.dxcc ? d.dxcc_flag + ' ' + d.dxcc + ' (' + d.cont + ')' : 'unknown'}</dd>
    <dt>CQ zone</dt><dd>${d.dxcc_cqz || '–'}</dd>
    <dt>Worked before</dt><dd>${yesNo(d.call_worked)}</dd>
    <dt>on this band</dt><dd>${band ? yesNo(d.call_worked_band) : '–'}</dd>
    <dt>on this band and mode</dt><dd>${band && mode ? yesNo(d.call_worked_band_mode) : '–'}</dd>
    ${d.name ? html`<dt>Name (last QSO)</dt><dd>${d.name}</dd>` : null}
  </dl>`;
}

function blank(stations) {
  const active = stations.find((s) => s.active) || stations[0];
  return { ...nowUtc(), call: '', band: '', mode: '', freq: '', rst_sent: '59', rst_rcvd: '59', station_profile_id: active ? String(active.id) : '' };
}

export function LogQso({ stations }) {
  const form = useForm(blank(stations));
  const [status, setStatus] = useState({});
  const submit = async (e) => {
    e.preventDefault();
    try {
      const body = Object.fromEntries(Object.entries(toBody(form.values)).filter(([, v]) => v !== null && v !== ''));
      const qso = await api('/api/v2/qso', { method: 'POST', json: body });
      setStatus({ saved: qso });
      form.setValues({ ...blank(stations), band: form.values.band, mode: form.values.mode, freq: form.values.freq, station_profile_id: form.values.station_profile_id });
    } catch (error) {
      setStatus({ error });
    }
  };
  if (!stations.length) return html`<section><h1>Log a QSO</h1><p>Create a station location first: <a href="#stations">Stations</a>.</p></section>`;
  return html`<section>
    <h1>Log a QSO</h1>
    <${QsoForm} form=${form} stations=${stations} onSubmit=${submit} submitLabel="Log QSO">
      <${CallInfo} call=${form.values.call} band=${form.values.band} mode=${form.values.mode} />
    <//>
    <p role="status">${status.saved ? html`Logged: <a href=${'#qso/' + status.saved.id}>${status.saved.call}</a> at ${status.saved.qso_date.slice(0, 16)} UTC.` : ''}</p>
    <${ErrorLine} error=${status.error} />
  </section>`;
}
